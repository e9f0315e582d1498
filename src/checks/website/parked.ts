// Parked-domain verdict from weighted evidence. Each matching indicator row counts once; the
// domain is parked when the weights reach PARKED_THRESHOLD. A strong provider signal decides on
// its own; medium ones need company; weak phrases and registrar default DNS only corroborate
// (data/README.md: registrar DNS hosts many live sites, shared IPs are not sole evidence).
// The page is read for its structure (hosts and paths that scripts, frames, forms, meta refresh
// and JavaScript redirects load or point to; for-sale deep links) and its wording in several
// languages; placeholder pages (server and control-panel defaults, registrar holding pages,
// "coming soon") are a kind of parked. See docs/decisions/0011-parked-page-evidence.md.
import { getDomain } from "tldts";
import { type PageFacts, type RefElement, scanHtml } from "./html-scan.js";
import type { IndicatorStrength, ParkingIndicator, ParkingIndicators } from "./parking-indicators.js";

export type ParkedSignal =
  | "ns"
  | "cname"
  | "address"
  | "redirect"
  | "url"
  | "page"
  | "title"
  | "cookie"
  | "txt"
  | "link"
  | "script"
  | "iframe"
  | "form"
  | "refresh"
  | "js_redirect"
  | "text"
  | "thin_page"
  | "random_path";

/** `placeholder`: a server, control-panel or registrar page standing in for a site not built yet. */
export type ParkedKind = "parked" | "placeholder";

export interface ParkedEvidence {
  signal: ParkedSignal;
  /** What was observed (a name server, a redirect host, the matched pattern...). */
  value: string;
  provider: string;
  type: string;
  strength: IndicatorStrength;
  weight: number;
  source: string;
}

export interface ParkedInputs {
  host: string;
  nameServers: string[];
  cnames: string[];
  addresses: string[];
  /** TXT records found at `_for-sale.<domain>`. */
  forSaleTxt: string[];
  /** Every URL requested, in order (first is the checked URL). */
  chain: string[];
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /**
   * A request to a random path of the same host answered with the same page (true), with
   * something else (false), or was not made (null/absent). Parking landers answer every path alike.
   */
  samePageAtRandomPath?: boolean | null;
}

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

const WEIGHT: Record<IndicatorStrength, number> = {
  strong: 60,
  medium: 30,
  weak: 10,
  "do-not-use-alone": 10,
};
/** Weak phrases together never exceed this: two of them (a weak1 and a weak2) are one medium hint at most. */
const WEAK_PAGE_CAP = 20;
/** Address ranges are provider snapshots and often shared: corroboration only. */
const ADDRESS_CAP = 30;
const FOR_SALE_WEIGHT = 40;
/** For-sale wording counts in full on a page of at most this many words, at LONG_PAGE_WEIGHT beyond. */
const SHORT_PAGE_WORDS = 600;
const LONG_PAGE_WEIGHT = 15;
/** All non-specific wording of a long page together counts at most this. */
const LONG_PAGE_WORDING_CAP = 30;
const MEDIUM_TEXT_WEIGHT = 35;
/** Generic placeholder wording ("coming soon") counts only on a page this short. */
const PLACEHOLDER_PAGE_WORDS = 150;
/** A page this short that already shows parked evidence gets THIN_PAGE_WEIGHT more. */
const THIN_PAGE_WORDS = 60;
const THIN_PAGE_WEIGHT = 25;
/** Script string literals are read as page text only when the visible text is this short. */
const SCRIPT_TEXT_WORDS = 50;
const RANDOM_PATH_WEIGHT = 30;

const REF_SIGNAL: Record<RefElement, ParkedSignal> = {
  a: "link",
  area: "link",
  link: "link",
  img: "link",
  script: "script",
  iframe: "iframe",
  frame: "iframe",
  embed: "iframe",
  object: "iframe",
  form: "form",
  refresh: "refresh",
  js_redirect: "js_redirect",
};
/** Elements that merely point somewhere: only a for-sale deep link (a row with a path) counts there. */
const POINTERS: ReadonlySet<RefElement> = new Set(["a", "area", "link", "img"]);

export function evaluateParked(inputs: ParkedInputs, indicators: ParkingIndicators): ParkedVerdict {
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
  const words = inputs.body ? evaluatePage(inputs, indicators, evidence) : 0;
  for (const txt of inputs.forSaleTxt) {
    const row = indicators.byKind("dns_txt")[0];
    if (row && /^v=forsale1;/i.test(txt.trim())) add("txt", txt.slice(0, 200), row, FOR_SALE_WEIGHT);
  }

  const headerLines = Object.entries(inputs.headers).flatMap(([k, v]) =>
    headerValues(v).map((x) => `${k}: ${x}`.toLowerCase()),
  );
  const bot = indicators.byKind("header").some((row) => headerLines.some((line) => row.test(line)));

  const weakPage = evidence.filter((e) => e.signal === "page" && e.strength === "weak");
  const weakSum = Math.min(
    WEAK_PAGE_CAP,
    weakPage.reduce((s, e) => s + e.weight, 0),
  );
  const pageEvidence = evidence.some((e) => PAGE_SIGNALS.has(e.signal) && e.weight > 0);
  if (pageEvidence && inputs.samePageAtRandomPath === true) {
    evidence.push({
      signal: "random_path",
      value: "a random path of the same host answered with the same page",
      provider: "corroboration",
      type: dominantType(evidence),
      strength: "medium",
      weight: RANDOM_PATH_WEIGHT,
      source: "second request to a random path (ADR 0011)",
    });
  }
  // On a long page, wording that is not specific (medium and weak phrases, in the markup, the
  // title or the text) counts at most LONG_PAGE_WORDING_CAP together: an article or a registrar's
  // own page may say "domain for sale" many ways; structure or a strong phrase has to decide.
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
  const score = Math.min(100, counted.reduce((s, e) => s + e.weight, 0) + longWording);
  const isParked = score >= PARKED_THRESHOLD;
  return {
    isParked,
    kind: isParked ? kindOf(evidence) : null,
    score,
    threshold: PARKED_THRESHOLD,
    evidence,
    botProtection: bot,
  };
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

const PAGE_SIGNALS: ReadonlySet<ParkedSignal> = new Set([
  "page",
  "title",
  "link",
  "script",
  "iframe",
  "form",
  "refresh",
  "js_redirect",
  "text",
]);

/**
 * Page structure and wording: adds rows of `page_url`, `title` and `text` and the short-page
 * corroboration; returns the page's visible word count.
 */
function evaluatePage(
  inputs: ParkedInputs,
  indicators: ParkingIndicators,
  evidence: ParkedEvidence[],
): number {
  const facts = scanHtml(inputs.body);
  const own = ownHosts(inputs);
  const ownDomain = registrable(inputs.host);
  const seen = new Set<string>();
  const rowIds = new Map<ParkingIndicator, number>();
  const once = (signal: ParkedSignal, row: ParkingIndicator) => {
    if (!rowIds.has(row)) rowIds.set(row, rowIds.size);
    const key = `${signal === "title" ? "title" : "page"}:${rowIds.get(row)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  const push = (signal: ParkedSignal, value: string, row: ParkingIndicator, weight: number) => {
    if (weight <= 0 || !once(signal, row)) return;
    const { provider, type, strength, source } = row;
    evidence.push({ signal, value: value.slice(0, 200), provider, type, strength, weight, source });
  };

  const base = inputs.chain[inputs.chain.length - 1] ?? `https://${inputs.host}/`;
  const urlRows = indicators.byKind("page_url");
  for (const ref of facts.refs) {
    const target = refTarget(ref.url, base);
    if (!target || own.has(target.host) || registrable(target.host) === ownDomain) continue;
    for (const row of urlRows) {
      if (!row.test(target.key)) continue;
      if (POINTERS.has(ref.element) && !row.pattern.includes("/")) continue;
      push(REF_SIGNAL[ref.element], `${ref.element} ${target.key}`, row, WEIGHT[row.strength]);
    }
  }

  // The title is read with the title rows and with the wording rows: a title and a body that both
  // say "for sale" are two observations, each row counted once per place.
  const title = facts.title.replace(/[\u2019\u2018]/g, "'").toLowerCase();
  const short = facts.wordCount <= SHORT_PAGE_WORDS;
  if (title) {
    for (const row of [...indicators.byKind("title"), ...indicators.byKind("text")]) {
      if (row.strength === "weak" || !row.test(title)) continue;
      push("title", facts.title, row, textWeight(row, facts.wordCount, short));
    }
  }

  const text = pageText(facts);
  let weakText = 0;
  for (const row of indicators.byKind("text")) {
    if (!row.test(text)) continue;
    const weight = textWeight(row, facts.wordCount, short);
    if (row.strength === "weak") {
      if (weakText >= WEAK_PAGE_CAP) continue;
      weakText += weight;
    }
    push("text", row.pattern, row, weight);
  }

  // Weak generic phrases do not make a short page suspicious; a medium or strong observation does.
  const found = evidence.some((e) => PAGE_SIGNALS.has(e.signal) && e.weight >= WEIGHT.medium);
  if (found && facts.wordCount <= THIN_PAGE_WORDS) {
    evidence.push({
      signal: "thin_page",
      value: `${facts.wordCount} visible words`,
      provider: "page structure",
      type: dominantType(evidence),
      strength: "weak",
      weight: THIN_PAGE_WEIGHT,
      source: "page size (ADR 0011)",
    });
  }
  return facts.wordCount;
}

function textWeight(row: ParkingIndicator, words: number, short: boolean): number {
  if (row.strength === "strong") return WEIGHT.strong;
  if (row.strength === "weak" || row.strength === "do-not-use-alone") return WEIGHT.weak;
  if (row.type === "placeholder") return words <= PLACEHOLDER_PAGE_WORDS ? MEDIUM_TEXT_WEIGHT : 0;
  return short ? MEDIUM_TEXT_WEIGHT : LONG_PAGE_WEIGHT;
}

/** Visible text, lowercased; on a nearly empty page also the sentences its scripts would write. */
function pageText(facts: PageFacts): string {
  let text = facts.text;
  if (facts.wordCount <= SCRIPT_TEXT_WORDS && facts.inlineScript) {
    const literals = facts.inlineScript.match(/(["'`])([^"'`\n]{8,300})\1/g) ?? [];
    const sentences = literals
      .map((l) => l.slice(1, -1))
      .filter((l) => /\s/.test(l) && /[a-z\u00c0-\uffff]{3}/i.test(l));
    text = `${text} ${sentences.join(" ")}`;
  }
  return text.replace(/[\u2019\u2018]/g, "'").toLowerCase();
}

/** "host/path?query" of an absolute or relative URL (relative to the final page), or null. */
function refTarget(raw: string, base: string): { host: string; key: string } | null {
  let url: URL;
  try {
    url = new URL(raw.startsWith("///") ? `https:${raw.slice(1)}` : raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  return { host, key: `${host}${url.pathname}${url.search}`.toLowerCase() };
}

function ownHosts(inputs: ParkedInputs): Set<string> {
  const hosts = new Set<string>();
  for (const u of [`https://${inputs.host}/`, ...inputs.chain]) {
    const h = hostOfUrl(u);
    if (h) {
      hosts.add(h);
      hosts.add(h.startsWith("www.") ? h.slice(4) : `www.${h}`);
    }
  }
  return hosts;
}

/** The registrable domain (public-suffix aware), or the host itself when it has none. */
function registrable(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, "");
  return getDomain(h, { allowPrivateDomains: true }) ?? h;
}

function typeWeights(evidence: readonly ParkedEvidence[]): { placeholder: number; other: number } {
  let placeholder = 0;
  let other = 0;
  for (const e of evidence) {
    if (e.signal === "thin_page" || e.signal === "random_path") continue;
    if (e.type === "placeholder") placeholder += e.weight;
    else if (e.type !== "bot-protection") other += e.weight;
  }
  return { placeholder, other };
}

function dominantType(evidence: readonly ParkedEvidence[]): string {
  const { placeholder, other } = typeWeights(evidence);
  return placeholder > other ? "placeholder" : "parking";
}

function kindOf(evidence: readonly ParkedEvidence[]): ParkedKind {
  const { placeholder, other } = typeWeights(evidence);
  return placeholder > other ? "placeholder" : "parked";
}
