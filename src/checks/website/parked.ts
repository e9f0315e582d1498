// Parked-domain verdict from weighted evidence. Each matching indicator row counts once; the
// domain is parked when the weights reach PARKED_THRESHOLD. A strong provider signal decides on
// its own; medium ones need company; weak phrases and registrar default DNS only corroborate
// (data/README.md: registrar DNS hosts many live sites, shared IPs are not sole evidence).
// The page is read for its structure (hosts and paths that scripts, frames, forms, meta refresh
// and JavaScript redirects load or point to; for-sale deep links) and its wording in several
// languages; placeholder pages (server and control-panel defaults, registrar holding pages,
// "coming soon") are a kind of parked. See docs/decisions/0011-parked-page-evidence.md.
import { type PageFacts, scanHtml } from "./html-scan.js";
import type { ParkedEvidence, ParkedInputs, ParkedKind, ParkedSignal } from "./parked.types.js";
import { type PageFeatures, pageFeatures } from "./parked-features.js";
import { COUNTER_CATEGORIES, type Lexicon, loadLexicon } from "./parked-lexicon.js";
import { loadParkedModel, logit, type ParkedModel, sigmoid } from "./parked-model.js";
import {
  dominantType,
  evaluatePage,
  ownHosts,
  PAGE_SIGNALS,
  registrable,
  SHORT_PAGE_WORDS,
  typeWeights,
  WEAK_PAGE_CAP,
  WEIGHT,
} from "./parked-page-rules.js";
import type { ParkingIndicator, ParkingIndicators } from "./parking-indicators.js";

export type { ParkedEvidence, ParkedInputs, ParkedKind } from "./parked.types.js";

export interface ParkedVerdict {
  isParked: boolean;
  /** Set when parked: `placeholder` when placeholder evidence outweighs parking/for-sale evidence. */
  kind: ParkedKind | null;
  score: number;
  threshold: number;
  evidence: ParkedEvidence[];
  /** A bot challenge page answered (e.g. Cloudflare): the page says nothing about parking. */
  botProtection: boolean;
}

export const PARKED_THRESHOLD = 60;

/** Address ranges are provider snapshots and often shared: corroboration only. */
const ADDRESS_CAP = 30;
const FOR_SALE_WEIGHT = 40;
/** All non-specific wording of a long page together counts at most this. */
const LONG_PAGE_WORDING_CAP = 30;
export const RANDOM_PATH_WEIGHT = 30;
/** Points of three or more default-page signs together: a strong observation. */
const DEFAULT_PAGE_WEIGHT = 60;
const WILDCARD_WEIGHT = 10;
/** Features that are a specific sign of parking or a placeholder (lexicon hits count too). */
const SPECIFIC_FEATURES = [
  "lander_ref",
  "sale_link",
  "ad_script",
  "redirect_foreign",
  "software_ref",
  "software_name",
  "title_is_domain",
  "headline_is_domain",
  "frame_domain_param",
  // Kinds of page (ADR 0092): a vendor's or host's page, web-root paths, control-panel links, a stub.
  "vendor_links",
  "title_names_link",
  "install_path",
  "panel_link",
  "stub_page",
];
/** The page rules' points (rules_page) that count as a specific sign: a medium observation. */
const SPECIFIC_RULES = 0.3;
/** A lexicon feature this high is a specific sign: a hit in the title, or a phrase on a short page
 *  ("related searches" and its kin are too common to be one). */
const SPECIFIC_WORDING = 0.3;
/** Lexicon features that can be a specific sign: all but ad wording, installer wording, the category
 *  count and counter-evidence (a form's reply, a forwarding notice). */
const SPECIFIC_WORDING_FEATURE = new RegExp(
  `^lex_(?!ads|install|categories|${COUNTER_CATEGORIES.join("|")})`,
);
/** internal_links_log of 5 internal links: a page with its own navigation... */
const SECTION_LINKS = Math.log1p(5) / Math.log1p(100) - 1e-9;
/** ...that leads to at least one other page of the site (own_pages_log of 1): a menu whose items all
 *  lead back to this page or to "#" is a template shown around a holding notice (ADR 0094). */
const SECTION_OWN_PAGES = Math.log1p(1) / Math.log1p(50) - 1e-9;
/** A parking or marketplace provider's marker on the page: lander or ad-feed script, for-sale deep link. */
const PROVIDER_FEATURES = ["lander_ref", "sale_link", "ad_script", "redirect_foreign", "frame_domain_param"];
/** Shapes of a placeholder (ADR 0092): they set the kind when the wording is silent. */
const PLACEHOLDER_SHAPES = [
  "stub_page",
  "kind_markup",
  "install_path",
  "panel_link",
  "title_welcome",
  "default_page_signs",
  "software_name",
];
/** The most a page without a specific sign scores: below the random-path probe's reach. */
const UNSPECIFIC_CAP = PARKED_THRESHOLD - RANDOM_PATH_WEIGHT - 1;
/** Evidence about the domain's infrastructure and serving, not the page: counted at rule weights. */
const INFRA_SIGNALS: ReadonlySet<ParkedSignal> = new Set([
  "ns",
  "cname",
  "address",
  "redirect",
  "url",
  "cookie",
  "txt",
  "random_path",
  "wildcard_dns",
]);

export interface ParkedDetector {
  /** null: the hand-written rules alone (mode "rules" in a model file does the same). */
  model: ParkedModel | null;
  lexicon: Lexicon;
}

let bundled: ParkedDetector | null = null;

/** The committed model (data/parked-model.json) and lexicon, loaded once. */
function bundledDetector(): ParkedDetector {
  bundled ??= { model: loadParkedModel(), lexicon: loadLexicon() };
  return bundled;
}

export interface PageAssessment {
  /** The rules' verdict, every observation at its rule weight, and the page's visible words. */
  rules: ParkedVerdict & { words: number };
  /** The page as model features (null without a body). */
  features: PageFeatures | null;
  /** Points of the rules' page observations alone. */
  rulesPageScore: number;
  /** Points of the rules' page observations other than generic placeholder wording ("coming soon"). */
  specificRulesScore: number;
}

/** Rule evidence and page features: everything the verdict needs before the model weighs it. */
export function assessPage(
  inputs: ParkedInputs,
  indicators: ParkingIndicators,
  lexicon: Lexicon,
  withFeatures = true,
): PageAssessment {
  const facts = inputs.body ? scanHtml(inputs.body) : null;
  const rules = ruleVerdict(inputs, indicators, facts);
  const pageOnly = rules.evidence.filter((e) => !INFRA_SIGNALS.has(e.signal));
  const rulesPageScore = scoreOf(pageOnly, rules.words);
  const specificRulesScore = scoreOf(
    pageOnly.filter((e) => e.strength === "strong" || e.type !== "placeholder"),
    rules.words,
  );
  if (!facts || !withFeatures) return { rules, features: null, rulesPageScore, specificRulesScore };
  const lander = new Set<ParkedSignal>(["script", "iframe", "form", "refresh", "js_redirect"]);
  const features = pageFeatures(
    facts,
    {
      host: inputs.host,
      base: inputs.chain[inputs.chain.length - 1] ?? `https://${inputs.host}/`,
      ownHosts: ownHosts(inputs),
      landerRefs: rules.evidence.filter((e) => lander.has(e.signal)).length,
      saleLinks: rules.evidence.filter((e) => e.signal === "link").length,
      rulesPageScore,
      bodyCut: inputs.bodyCut === true,
    },
    lexicon,
  );
  return { rules, features, rulesPageScore, specificRulesScore };
}

export function evaluateParked(
  inputs: ParkedInputs,
  indicators: ParkingIndicators,
  detector: ParkedDetector = bundledDetector(),
): ParkedVerdict {
  const rulesOnly = !detector.model || detector.model.mode === "rules";
  const assessment = assessPage(inputs, indicators, detector.lexicon, !rulesOnly);
  if (rulesOnly || !detector.model || !assessment.features) {
    const { words: _, ...verdict } = assessment.rules;
    return verdict;
  }
  return combineWithModel(inputs, assessment, detector.model);
}

/**
 * The page's points plus the infrastructure evidence at rule weights. The page's points are the
 * model's probability that the page is parked, in percent; with `combine: "max"` the page rules'
 * own total when it is higher (a strong rule, a known provider's script, decides alone). The side
 * that did not set the points stays in the list with weight 0, so the list says what was seen and
 * the weights add up to the score.
 */
export function combineWithModel(
  inputs: ParkedInputs,
  assessment: PageAssessment,
  model: ParkedModel,
): ParkedVerdict {
  const { rules, features } = assessment;
  const x = features?.values ?? {};
  const hits = features?.hits ?? {};
  // A parking provider's lander, sale link, ad script or redirect: no cap below applies.
  const provider = PROVIDER_FEATURES.some((f) => (x[f] ?? 0) > 0);
  // Page shape alone (short, few links) describes many small live sites too: without one specific
  // sign the model's points stay below the probe's reach.
  const specific =
    SPECIFIC_FEATURES.some((f) => (x[f] ?? 0) > 0) ||
    // Holding-page file or class names are a sign on a nearly empty page (an image that says
    // "under construction"); live sites keep such names in their templates too.
    ((x.kind_markup ?? 0) > 0 && (x.words_le_30 ?? 0) > 0) ||
    // Two installer instructions on a short page ("log in with SSH", "quickstart guide").
    ((hits.install?.length ?? 0) >= 2 && (x.words_le_150 ?? 0) > 0) ||
    (x.rules_page ?? 0) >= SPECIFIC_RULES ||
    Object.entries(x).some(([f, v]) => SPECIFIC_WORDING_FEATURE.test(f) && v >= SPECIFIC_WORDING);
  const raw = Math.round(100 * sigmoid(logit(model, x)));
  const modelPoints = specific ? raw : Math.min(raw, UNSPECIFIC_CAP);
  // "Coming soon" on a page with its own navigation is a section of a live site, not a site
  // that is not built yet: generic placeholder wording does not decide there. A header or menu slot
  // that a script fills (`<custom-header>`, `#navbar-container`) is such navigation too, and so is an
  // application's template whose components (`<barratop>`) a script renders (ADR 0096).
  const section =
    (((x.internal_links_log ?? 0) >= SECTION_LINKS && (x.own_pages_log ?? 0) >= SECTION_OWN_PAGES) ||
      features?.found.nav_slot !== undefined ||
      (x.components ?? 0) > 0) &&
    !provider;
  const onlyConstruction = Object.keys(hits).every(
    (c) => c === "construction" || COUNTER_CATEGORIES.includes(c),
  );
  // Three default-page signs decide as a strong rule would (ADR 0092): the model cannot learn a
  // product's dashboard that also has a site's navigation (XAMPP) from pages it has never seen.
  const defaultPage = defaultPageEvidence(x, features?.found ?? {});
  // The rules read wording without the page around it. On a page with navigation (a nav element, ten
  // links of its own or a menu slot a script fills) generic placeholder wording is left to the model,
  // which weighs it beside the navigation and footer (ADR 0094); strong and provider rules still
  // decide alone.
  const genericToModel = section || (x.navigation ?? 0) > 0;
  const rulesPoints = Math.min(
    100,
    (genericToModel ? assessment.specificRulesScore : assessment.rulesPageScore) + (defaultPage?.weight ?? 0),
  );
  // A forwarding notice ("we have moved", "update your bookmarks") with no wording of sale, parking,
  // registration, hosting or construction and no provider's lander says the site lives on elsewhere:
  // the model's shape points (one link, few words) do not make it a parked page (ADR 0096).
  const forwarding =
    (hits.moved?.length ?? 0) > 0 &&
    Object.keys(hits).every((c) => c === "install" || COUNTER_CATEGORIES.includes(c)) &&
    !provider;
  const pageModel =
    (section && onlyConstruction) || forwarding ? Math.min(modelPoints, UNSPECIFIC_CAP) : modelPoints;
  const rulesWin = model.combine === "max" && rulesPoints >= pageModel;
  const pagePoints = rulesWin ? rulesPoints : pageModel;
  const infra = rules.evidence.filter((e) => INFRA_SIGNALS.has(e.signal) && e.signal !== "random_path");
  const ruleKind = typeWeights(defaultPage ? [...rules.evidence, defaultPage] : rules.evidence);
  const zero = (e: ParkedEvidence) => ({ ...e, weight: 0 });
  const pageRules = rules.evidence.filter((e) => !INFRA_SIGNALS.has(e.signal));
  if (defaultPage) pageRules.push(defaultPage);
  const modelSays = modelEvidence(model, features, modelPoints);
  const evidence: ParkedEvidence[] = [
    ...infra,
    ...(rulesWin ? pageRules : pageRules.map(zero)),
    ...(rulesWin ? modelSays.map(zero) : modelSays),
  ];
  if (pagePoints >= PARKED_THRESHOLD - RANDOM_PATH_WEIGHT && inputs.samePageAtRandomPath === true) {
    evidence.push(randomPathEvidence(evidence));
  }
  if (pagePoints >= PARKED_THRESHOLD - RANDOM_PATH_WEIGHT && inputs.wildcardDns === true) {
    evidence.push(wildcardEvidence());
  }
  const infraScore = scoreOf(
    evidence.filter((e) => INFRA_SIGNALS.has(e.signal)),
    0,
  );
  const score = Math.min(100, infraScore + pagePoints);
  const isParked = score >= PARKED_THRESHOLD;
  let kind: ParkedKind | null = null;
  if (isParked) {
    // Wording first; without it the page's shape says which (a stub or a host's page is a
    // placeholder, a lander's script or a sale link is parking).
    const placeholderWords =
      ["registered", "hosting", "construction", "install"].filter((c) => hits[c]).length +
      PLACEHOLDER_SHAPES.filter((f) => (x[f] ?? 0) > 0).length;
    const parkedWords =
      ["sale", "parking", "ads", "expired"].filter((c) => hits[c]).length +
      PROVIDER_FEATURES.filter((f) => (x[f] ?? 0) > 0).length;
    if (ruleKind.placeholder !== ruleKind.other)
      kind = ruleKind.placeholder > ruleKind.other ? "placeholder" : "parked";
    else kind = placeholderWords > parkedWords ? "placeholder" : "parked";
  }
  return { isParked, kind, score, threshold: PARKED_THRESHOLD, evidence, botProtection: rules.botProtection };
}

/** Three or more default-page signs (parked-page-kind.ts) as one strong observation, else null. */
function defaultPageEvidence(
  x: Record<string, number>,
  found: Record<string, string>,
): ParkedEvidence | null {
  if ((x.default_page_signs ?? 0) < 1) return null;
  return {
    signal: "structure",
    value: `default-page signs: ${found.default_page_signs ?? ""}`.slice(0, 200),
    provider: "page kind",
    type: "placeholder",
    strength: "strong",
    weight: DEFAULT_PAGE_WEIGHT,
    source: "parked-page-kind.ts (ADR 0092)",
  };
}

const FAMILY: Record<string, { signal: ParkedSignal; describe: string }> = {
  rules_page: { signal: "rules", describe: "the page rules scored it" },
  // Kinds of page (ADR 0092), named for the user; the value adds what was seen.
  vendor_links: { signal: "structure", describe: "links lead only to one other site (a vendor or host)" },
  title_names_link: { signal: "structure", describe: "the title names the site the page links to" },
  install_path: { signal: "structure", describe: "a web-root path or default file name" },
  panel_link: { signal: "structure", describe: "a link to a hosting control panel" },
  kind_markup: { signal: "structure", describe: "file, class or id names of a holding page" },
  countdown: { signal: "structure", describe: "a launch countdown" },
  subscribe_only: { signal: "structure", describe: "a form that asks only for an e-mail address" },
  title_welcome: { signal: "structure", describe: "a greeting title" },
  stub_page: { signal: "structure", describe: "a stub page" },
  default_page_signs: { signal: "structure", describe: "default-page signs" },
};

/** The model's page points shared among the features that pushed toward parked. */
function modelEvidence(
  model: ParkedModel,
  features: PageFeatures | null,
  pagePoints: number,
): ParkedEvidence[] {
  const x = features?.values ?? {};
  const hits = features?.hits ?? {};
  const found = features?.found ?? {};
  const parts = model.features
    .map((f, i) => ({ f, c: model.weights[i]! * (x[f] ?? 0) }))
    .filter((p) => p.c > 0)
    .sort((a, b) => b.c - a.c);
  const total = parts.reduce((s, p) => s + p.c, 0);
  const out: ParkedEvidence[] = [];
  for (const { f, c } of parts) {
    const weight = Math.round((pagePoints * c) / total);
    if (weight < 1) continue;
    const category = /^lex_([a-z]+)_/.exec(f)?.[1];
    const family = FAMILY[f] ?? {
      signal: category ? "wording" : "structure",
      describe: f.replace(/_/g, " "),
    };
    const value =
      f === "rules_page"
        ? `${family.describe} ${Math.round((x[f] ?? 0) * 100)}`
        : category
          ? `${f}: ${(hits[category] ?? []).slice(0, 5).join(", ")}`
          : found[f]
            ? `${family.describe}: ${found[f]}`
            : `${family.describe}${(x[f] ?? 0) < 1 ? ` (${(x[f] ?? 0).toFixed(2)})` : ""}`;
    const type =
      category === "registered" ||
      category === "hosting" ||
      category === "construction" ||
      category === "install"
        ? "placeholder"
        : "parking";
    out.push({
      signal: family.signal,
      value: value.slice(0, 200),
      provider: "page model",
      type,
      strength: "medium",
      weight,
      source: `parked-model.json v${model.version} (ADR 0011)`,
    });
  }
  return out;
}

function randomPathEvidence(evidence: readonly ParkedEvidence[]): ParkedEvidence {
  return {
    signal: "random_path",
    value: "a random path of the same host answered with the same page",
    provider: "corroboration",
    type: dominantType(evidence),
    strength: "medium",
    weight: RANDOM_PATH_WEIGHT,
    source: "second request to a random path (ADR 0011)",
  };
}

function wildcardEvidence(): ParkedEvidence {
  return {
    signal: "wildcard_dns",
    value: "a random subdomain resolves to the same address",
    provider: "corroboration",
    type: "parking",
    strength: "weak",
    weight: WILDCARD_WEIGHT,
    source: "address lookup of a random subdomain (ADR 0011)",
  };
}

/** The rules alone: every indicator row that matched, at its weight. */
function ruleVerdict(
  inputs: ParkedInputs,
  indicators: ParkingIndicators,
  facts: PageFacts | null,
): ParkedVerdict & { words: number } {
  const evidence: ParkedEvidence[] = [];
  const add = (signal: ParkedSignal, value: string, row: ParkingIndicator, weight = WEIGHT[row.strength]) => {
    if (evidence.some((e) => e.signal === signal && e.value === value && e.provider === row.provider)) return;
    const { provider, type, strength, source } = row;
    evidence.push({ signal, value, provider, type, strength, weight, source });
  };
  // A provider's own site carries its own markers (HugeDomains links its domain_profile pages):
  // rows that name the checked site's registrable domain are not evidence there.
  const ownDomain = registrable(inputs.host);
  const scan = (
    signal: ParkedSignal,
    kind: string,
    values: string[],
    weight?: (row: ParkingIndicator) => number,
  ) => {
    const lowered = values.map((v) => v.toLowerCase());
    for (const row of indicators.byKind(kind)) {
      if (kind === "html" && ownDomain.includes(".") && row.pattern.toLowerCase().includes(ownDomain))
        continue;
      const hit = lowered.findIndex((v) => row.test(v));
      if (hit !== -1) add(signal, kind === "html" ? row.pattern : values[hit]!, row, weight?.(row));
    }
  };

  scan("ns", "ns", inputs.nameServers);
  scan("cname", "cname", inputs.cnames);
  const cappedAddress = (row: ParkingIndicator) => Math.min(WEIGHT[row.strength], ADDRESS_CAP);
  scan("address", "ipv4_cidr", inputs.addresses, cappedAddress);
  scan("address", "ipv6_cidr", inputs.addresses, cappedAddress);
  scan("redirect", "redirect_host", foreignHosts(inputs));
  scan("url", "url", urlParts(inputs));
  scan("page", "html", inputs.body ? [inputs.body] : []);
  scan("cookie", "cookie", headerValues(inputs.headers["set-cookie"]));
  const words = facts ? evaluatePage(inputs, facts, indicators, evidence) : 0;
  for (const txt of inputs.forSaleTxt) {
    const row = indicators.byKind("dns_txt")[0];
    if (row && /^v=forsale1;/i.test(txt.trim())) add("txt", txt.slice(0, 200), row, FOR_SALE_WEIGHT);
  }

  const headerLines = Object.entries(inputs.headers).flatMap(([k, v]) =>
    headerValues(v).map((x) => `${k}: ${x}`.toLowerCase()),
  );
  const bot = indicators.byKind("header").some((row) => headerLines.some((line) => row.test(line)));

  const pageEvidence = evidence.some((e) => PAGE_SIGNALS.has(e.signal) && e.weight > 0);
  if (pageEvidence && inputs.samePageAtRandomPath === true) evidence.push(randomPathEvidence(evidence));
  if (pageEvidence && inputs.wildcardDns === true) evidence.push(wildcardEvidence());
  const score = scoreOf(evidence, words);
  const isParked = score >= PARKED_THRESHOLD;
  return {
    isParked,
    kind: isParked ? kindOf(evidence) : null,
    score,
    threshold: PARKED_THRESHOLD,
    evidence,
    botProtection: bot,
    words,
  };
}

/**
 * Sum of weights, weak page phrases capped together; on a long page, wording that is not
 * specific (medium and weak phrases, in the markup, the title or the text) counts at most
 * LONG_PAGE_WORDING_CAP together: an article or a registrar's own page may say "domain for sale"
 * many ways; structure or a strong phrase has to decide.
 */
function scoreOf(evidence: readonly ParkedEvidence[], words: number): number {
  const weakPage = evidence.filter((e) => e.signal === "page" && e.strength === "weak");
  const weakSum = Math.min(
    WEAK_PAGE_CAP,
    weakPage.reduce((s, e) => s + e.weight, 0),
  );
  const wording = (e: ParkedEvidence) =>
    (e.signal === "page" || e.signal === "text" || e.signal === "title") && e.strength !== "strong";
  const long = words > SHORT_PAGE_WORDS;
  const counted = evidence.filter((e) => !weakPage.includes(e) && !(long && wording(e)));
  const longWording = long
    ? Math.min(
        LONG_PAGE_WORDING_CAP,
        evidence.filter((e) => wording(e) && !weakPage.includes(e)).reduce((s, e) => s + e.weight, 0) +
          weakSum,
      )
    : weakSum;
  return Math.min(100, counted.reduce((s, e) => s + e.weight, 0) + longWording);
}

/** Hosts the chain went through other than the checked domain itself (and its www twin). */
function foreignHosts(inputs: ParkedInputs): string[] {
  const own = new Set([inputs.host, `www.${inputs.host}`, inputs.host.replace(/^www\./, "")]);
  return inputs.chain
    .slice(1)
    .map((u) => hostOfUrl(u))
    .filter((h): h is string => h !== null && !own.has(h));
}

/** Path and query of each hop on the checked domain ("/lander" means something only there). */
function urlParts(inputs: ParkedInputs): string[] {
  const parts: string[] = [];
  for (const u of inputs.chain) {
    try {
      const url = new URL(u);
      parts.push(url.search.slice(1));
      if (url.hostname === inputs.host || url.hostname === `www.${inputs.host}`) parts.push(url.pathname);
    } catch {
      // a chain entry is always a parsed URL; nothing to learn from anything else
    }
  }
  return parts.filter((p) => p !== "");
}

function hostOfUrl(u: string): string | null {
  try {
    return new URL(u).hostname;
  } catch {
    return null;
  }
}

function headerValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function kindOf(evidence: readonly ParkedEvidence[]): ParkedKind {
  const { placeholder, other } = typeWeights(evidence);
  return placeholder > other ? "placeholder" : "parked";
}
