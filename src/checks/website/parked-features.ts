// The page as numbers for the parked model: structure (how much own content, where links, frames
// and scripts go, whether the domain itself is the title or headline, navigation, forms and contact
// details of a business, JS-only landers), the kind of page (parked-page-kind.ts, ADR 0092),
// wording counts per lexicon category, and the score of the hand-written page rules. Every feature
// lies in [0, 1]; names are stable (the model file keys its weights by them). See
// docs/decisions/0011-parked-page-evidence.md.
import htmlTags from "html-tags";
import { mathmlTagNames } from "mathml-tag-names";
import { svgTagNames } from "svg-tag-names";
import { getDomain, parse } from "tldts";
import type { PageFacts } from "./html-scan.js";
import {
  COUNTER_CATEGORIES,
  foldText,
  LEXICON_CATEGORIES,
  type Lexicon,
  scanLexicon,
} from "./parked-lexicon.js";
import {
  DEFAULT_PAGE_SIGNS,
  defaultPageSigns,
  isPanelUrl,
  isSocial,
  KIND_FEATURES,
  kindFeatures,
  type LinkSummary,
} from "./parked-page-kind.js";

const STRUCTURE_FEATURES = [
  "words_log",
  "words_le_30",
  "words_le_150",
  "js_only",
  "links_log",
  "internal_links_log",
  "own_pages_log",
  "foreign_link_share",
  "top_foreign_share",
  "foreign_hosts_log",
  "frames",
  "lander_ref",
  "sale_link",
  "ad_script",
  "redirect_foreign",
  "title_is_domain",
  "headline_is_domain",
  "title_empty",
  "navigation",
  "forms",
  "inputs_log",
  "contact",
  "images_log",
  "paragraphs_log",
  "headings_log",
  "list_items_log",
  "footer",
  "inline_script_log",
  "software_ref",
  "software_name",
  "noindex",
  "title_short",
  "frame_domain_param",
  "dates_log",
  "components",
  ...KIND_FEATURES,
] as const;

const WORDING_FEATURES = [
  ...LEXICON_CATEGORIES.flatMap((c) => [`lex_${c}_text`, `lex_${c}_title`, `lex_${c}_short`]),
  "lex_categories",
  "domain_density",
] as const;

export const RULES_FEATURES = ["rules_page"] as const;

export const FEATURE_NAMES: readonly string[] = [
  ...STRUCTURE_FEATURES,
  ...WORDING_FEATURES,
  ...RULES_FEATURES,
];

export interface PageContext {
  host: string;
  /** The final URL of the page (relative links resolve against it). */
  base: string;
  /** Hosts of the checked site (the host, its www twin, every hop of the chain). */
  ownHosts: ReadonlySet<string>;
  /** Page refs matching a known lander, ad-feed or marketplace host (indicator rows). */
  landerRefs: number;
  /** Anchors matching a for-sale deep link row. */
  saleLinks: number;
  /** Page score of the hand-written rules (0-100). */
  rulesPageScore: number;
  /** The body was cut before its end (ParkedInputs.bodyCut). */
  bodyCut?: boolean;
}

export interface PageFeatures {
  values: Record<string, number>;
  /** Lexicon phrases found, per category (for the evidence list). */
  hits: Record<string, string[]>;
  /** What a kind feature saw (a path, a port, a vendor's domain), by feature (for the evidence list). */
  found: Record<string, string>;
}

const LEXICON_TEXT_CHARS = 8000;
/** Image alternative texts are read as page text on a page of at most this many words. */
const ALT_TEXT_WORDS = 30;
/** Lexicon hits count in full on a page of at most this many words, in proportion beyond. */
const DENSE_WORDS = 200;
const log = (n: number, top: number) => Math.min(1, Math.log1p(n) / Math.log1p(top));
const DOMAIN_LIKE = /^(www\.)?[a-z0-9\u00c0-\uffff-]+(\.[a-z0-9\u00c0-\uffff-]+)*\.[a-z\u00c0-\uffff]{2,}$/;
const AD_SCRIPT = /adsense\/domains|\/caf\.js|syndicatedsearch|afs\/ads|parking|lander|domainpark|\/park[./]/;
/** Web server and hosting-panel products: their names and badge images read the same in every
 *  language, so a default page is known by them where its sentences are not in the lexicon. */
const SOFTWARE_NAME =
  /\b(apache|nginx|iis|lighttpd|litespeed|openlitespeed|tomcat|caddy|openresty|tengine|cherokee|jetty|plesk|cpanel|ispconfig|directadmin|webmin|virtualmin|hestiacp|vestacp|aapanel|1panel|cyberpanel|froxlor|i-mscp)\b/i;
const SOFTWARE_BADGE =
  /(apache_pb|poweredby|powered_by|powered-by|iisstart|iis-?\d|nginx-logo|lighttpd|tomcat\.(png|svg|gif))/i;
/** Words up to which a product name in the text (not only the title or headline) counts. */
const SOFTWARE_TEXT_WORDS = 300;
/** Words up to which a product name counts at all: default pages are short (the longest in the
 *  corpus has about 400 words), an article about Apache or nginx is not (ADR 0091). */
const SOFTWARE_PAGE_WORDS = 600;
/** Element names of HTML (with its obsolete ones, which old pages still use), SVG and MathML. */
const KNOWN_ELEMENTS = new Set<string>([
  ...htmlTags,
  ...svgTagNames.map((t) => t.toLowerCase()),
  ...mathmlTagNames,
  ...(
    "acronym applet basefont bgsound big blink center dir font frame frameset image isindex keygen " +
    "listing marquee menuitem multicol nextid nobr noembed noframes plaintext rb rtc spacer strike tt xmp"
  ).split(" "),
]);
/** A plain element name (not a namespaced "o:p" or "fb:like", nor a stray "<3" in text). */
const ELEMENT_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const EMAIL = /[a-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}/i;
const PHONE = /(\+|\(0|\b0)\d[\d ().\-/]{7,}\d/;

export function pageFeatures(facts: PageFacts, ctx: PageContext, lexicon: Lexicon): PageFeatures {
  const v: Record<string, number> = {};
  const words = facts.wordCount;
  const ownDomain = registrable(ctx.host);
  // A page links the same few hosts many times: each host's registrable domain is looked up once.
  const domains = new Map<string, string>();
  const domainOf = (host: string) => {
    let d = domains.get(host);
    if (d === undefined) {
      d = registrable(host);
      domains.set(host, d);
    }
    return d;
  };
  let anchors = 0;
  let internal = 0;
  let foreignAnchors = 0;
  let contact = false;
  let adScript = false;
  let software = false;
  let redirectForeign = false;
  let frameDomainParam = false;
  const foreignCounts = new Map<string, number>();
  let refTotal = 0;
  const links: LinkSummary = { anchors: 0, ownPages: 0, vendorAnchors: new Map(), panel: null, paths: [] };
  const ownPages = new Set<string>();
  const ownNames = siteNames(ctx.host);
  const baseUrl = urlOf(ctx.base, ctx.base);
  const here = baseUrl ? pageKey(baseUrl) : "";
  for (const ref of facts.refs) {
    const raw = ref.url.toLowerCase();
    if (ref.element === "a" && (raw.startsWith("mailto:") || raw.startsWith("tel:"))) contact = true;
    const isAnchor = ref.element === "a" || ref.element === "area";
    if (isAnchor) anchors++;
    const url = urlOf(ref.url, ctx.base);
    if (url === null) continue;
    const target = url.hostname.toLowerCase().replace(/\.$/, "");
    const foreign = !ctx.ownHosts.has(target) && domainOf(target) !== ownDomain;
    // "#" or the page itself leads nowhere: not a page of the site, not a vendor's (ADR 0092).
    const leads = isAnchor && !raw.startsWith("#");
    if (leads) links.anchors++;
    if (!foreign && ref.element === "a") internal++;
    if (leads && !foreign) {
      const key = pageKey(url);
      if (key !== here) ownPages.add(key);
    }
    if (leads && foreign && !isSocial(domainOf(target)) && !namesOwnSite(url, domainOf(target), ownNames))
      links.vendorAnchors.set(domainOf(target), (links.vendorAnchors.get(domainOf(target)) ?? 0) + 1);
    if (links.panel === null && isPanelUrl(url)) links.panel = url.href;
    if (links.paths.length < 200) links.paths.push(url.pathname.toLowerCase());
    if (foreign && lexicon.softwareHosts.some((h) => target === h || target.endsWith(`.${h}`)))
      software = true;
    if (ref.element === "script" && AD_SCRIPT.test(raw)) adScript = true;
    if (
      foreign &&
      !frameDomainParam &&
      EMBEDDED.has(ref.element) &&
      carriesDomain(ref.url, ctx.base, ownDomain)
    )
      frameDomainParam = true;
    if ((ref.element === "refresh" || ref.element === "js_redirect") && foreign) redirectForeign = true;
    if (ref.element === "link" || ref.element === "img") continue;
    refTotal++;
    if (!foreign) continue;
    if (ref.element === "a" || ref.element === "area") foreignAnchors++;
    const key = domainOf(target);
    foreignCounts.set(key, (foreignCounts.get(key) ?? 0) + 1);
  }
  links.ownPages = ownPages.size;
  v.own_pages_log = log(links.ownPages, 50);
  const top = Math.max(0, ...foreignCounts.values());
  const tag = (name: string) => facts.tags.get(name) ?? 0;
  const scripts = tag("script");

  v.words_log = log(words, 2000);
  v.words_le_30 = words <= 30 ? 1 : 0;
  v.words_le_150 = words <= 150 ? 1 : 0;
  v.js_only = words <= 10 && scripts > 0 ? 1 : 0;
  v.links_log = log(anchors, 200);
  v.internal_links_log = log(internal, 100);
  v.foreign_link_share = anchors > 0 ? foreignAnchors / anchors : 0;
  v.top_foreign_share = refTotal >= 3 ? top / refTotal : 0;
  v.foreign_hosts_log = log(foreignCounts.size, 50);
  v.frames = tag("iframe") + tag("frame") + tag("frameset") > 0 ? 1 : 0;
  v.lander_ref = ctx.landerRefs > 0 ? 1 : 0;
  v.sale_link = ctx.saleLinks > 0 ? 1 : 0;
  v.ad_script = adScript ? 1 : 0;
  v.redirect_foreign = redirectForeign ? 1 : 0;
  const label = ownDomain.split(".")[0] ?? "";
  const isDomain = (s: string) => {
    const t = foldText(s)
      .trim()
      .replace(/[!.]+$/, "");
    return DOMAIN_LIKE.test(t) || (label.length >= 4 && t === label);
  };
  v.title_is_domain = facts.title && isDomain(facts.title) ? 1 : 0;
  v.headline_is_domain = facts.headline && isDomain(facts.headline) ? 1 : 0;
  v.title_empty = facts.title.trim() === "" ? 1 : 0;
  v.navigation = (tag("nav") > 0 && facts.navLinks > 0) || internal >= 10 || facts.navSlots > 0 ? 1 : 0;
  v.forms = tag("form") > 0 ? 1 : 0;
  v.inputs_log = log(tag("input") + tag("textarea") + tag("select"), 20);
  const textHead = facts.text.slice(0, LEXICON_TEXT_CHARS);
  v.contact = contact || EMAIL.test(textHead) || PHONE.test(textHead) || tag("address") > 0 ? 1 : 0;
  v.images_log = log(tag("img"), 50);
  v.paragraphs_log = log(tag("p"), 50);
  v.headings_log = log(tag("h2") + tag("h3") + tag("h4"), 30);
  v.list_items_log = log(tag("li"), 100);
  v.footer = tag("footer") > 0 ? 1 : 0;
  v.inline_script_log = log(facts.inlineScript.length, 100_000);
  v.software_ref = software ? 1 : 0;
  const badge = facts.refs.some((r) => r.element === "img" && SOFTWARE_BADGE.test(r.url));
  v.software_name =
    words <= SOFTWARE_PAGE_WORDS &&
    (badge ||
      SOFTWARE_NAME.test(facts.title) ||
      SOFTWARE_NAME.test(facts.headline) ||
      (words <= SOFTWARE_TEXT_WORDS && SOFTWARE_NAME.test(facts.text.slice(0, LEXICON_TEXT_CHARS))))
      ? 1
      : 0;
  v.noindex = facts.robots.includes("noindex") ? 1 : 0;
  const titleWords = facts.title.trim() === "" ? 0 : facts.title.trim().split(/\s+/).length;
  v.title_short = titleWords > 0 && titleWords <= 3 ? 1 : 0;
  v.frame_domain_param = frameDomainParam ? 1 : 0;
  v.dates_log = log(distinctDates(textHead), 10);
  // Elements of a component framework or custom elements (<app-root>, <router-view>, <navbar>): the
  // page is the template of an application whose script renders its navigation and content.
  v.components = [...facts.tags.keys()].some((t) => !KNOWN_ELEMENTS.has(t) && ELEMENT_NAME.test(t)) ? 1 : 0;

  const title = foldText(facts.title);
  const kind = kindFeatures(facts, links, title, foldText(facts.headline), ctx.bodyCut === true);
  Object.assign(v, kind.values);
  // An image-only page says what it is in its alternative texts; "C O M I N G  S O O N" is a word.
  const alts = words <= ALT_TEXT_WORDS ? facts.alts : "";
  const text = joinSpacedLetters(foldText(`${facts.headline} ${textHead} ${scriptSentences(facts)} ${alts}`));
  // A title written as a page slug ("under-utvikling1", "coming_soon") reads as its words.
  const titleScan = scanLexicon(title.replace(/[-_]+/g, " "), lexicon);
  const textScan = scanLexicon(text, lexicon);
  const titleHits = titleScan.hits;
  const textHits = textScan.hits;
  const hits: Record<string, string[]> = {};
  let categories = 0;
  const density = Math.min(1, DENSE_WORDS / Math.max(1, words));
  for (const c of LEXICON_CATEGORIES) {
    const n = new Set([...titleHits[c], ...textHits[c]]).size;
    // Phrases per page, not per site: a long page that mentions "make an offer" once is a shop.
    v[`lex_${c}_text`] = (Math.min(3, textHits[c].length) / 3) * density;
    v[`lex_${c}_title`] = titleHits[c].length > 0 ? 1 : 0;
    v[`lex_${c}_short`] = n > 0 && words <= 150 ? 1 : 0;
    if (n > 0) {
      if (!COUNTER_CATEGORIES.includes(c)) categories++;
      hits[c] = [...new Set([...titleHits[c], ...textHits[c]])];
    }
  }
  v.lex_categories = (Math.min(3, categories) / 3) * density;
  const signs = defaultPageSigns(words, links.ownPages, v, kind.found, hits);
  v.default_page_signs = Math.min(DEFAULT_PAGE_SIGNS, signs.length) / DEFAULT_PAGE_SIGNS;
  if (signs.length > 0) kind.found.default_page_signs = signs.join("; ");
  v.domain_density = Math.min(1, (10 * (titleScan.domainWords + textScan.domainWords)) / Math.max(words, 10));
  v.rules_page = Math.min(100, ctx.rulesPageScore) / 100;
  // A menu slot is read by the verdict, not the model: the page sits inside a built site (ADR 0096).
  const found: Record<string, string> = facts.navSlot
    ? { ...kind.found, nav_slot: facts.navSlot }
    : kind.found;
  return { values: v, hits, found };
}

/** Numeric calendar dates (2006-04-24, 24.04.2006, 24/4/2006): written in every language alike. */
const NUMERIC_DATE =
  /\b(?:(?:19|20)\d\d[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01])|(?:0?[1-9]|[12]\d|3[01])[-/.](?:0?[1-9]|1[0-2])[-/.](?:19|20)\d\d)\b/g;

/**
 * Distinct dates in the text: news items, posts, events and releases are dated, a holding or parked
 * page is not (2 of 587 parked and placeholder pages of the corpus show one, 67 of 613 live pages;
 * ADR 0094). A launch date alone is one date.
 */
function distinctDates(text: string): number {
  const found = text.match(NUMERIC_DATE);
  return found ? new Set(found).size : 0;
}

/** Letters set one by one ("c o m i n g s o o n", four or more) read as one word. */
function joinSpacedLetters(folded: string): string {
  // Most pages have no run of one-character tokens: a cheap test before the Unicode one.
  if (!SPACED_HINT.test(folded)) return folded;
  return folded.replace(SPACED_LETTERS, (m) => m.replace(/ /g, ""));
}
const SPACED_HINT = /(?:^| )[^ ] [^ ] [^ ] [^ ](?: |$)/;
const SPACED_LETTERS = /(?<!\p{L})\p{L}(?: \p{L}){3,}(?!\p{L})/gu;

/** On a nearly empty page, the sentences its inline scripts would write. */
function scriptSentences(facts: PageFacts): string {
  if (facts.wordCount > 50 || !facts.inlineScript) return "";
  const literals = facts.inlineScript.match(/(["'`])([^"'`\n]{8,300})\1/g) ?? [];
  return literals
    .map((l) => l.slice(1, -1))
    .filter((l) => /\s/.test(l) && /[a-z\u00c0-\uffff]{3}/i.test(l))
    .join(" ");
}

/** Elements that load another document or program into the page (not links a visitor follows). */
const EMBEDDED = new Set(["iframe", "frame", "script", "embed", "object"]);

/**
 * A frame or script from another site whose query names the checked domain itself
 * (`?dn=example.com`, `?domain=www.example.com`): a lander or ad feed filled in for whichever
 * domain is parked on it. A widget that names the page (a like button's `href=https://...`)
 * passes a URL, not the bare domain, and does not count.
 */
function carriesDomain(raw: string, base: string, ownDomain: string): boolean {
  if (!ownDomain.includes(".") || !raw.includes("?")) return false;
  try {
    for (const value of new URL(raw, base).searchParams.values()) {
      const v = value
        .trim()
        .toLowerCase()
        .replace(/^www\./, "")
        .replace(/\.$/, "");
      if (v === ownDomain) return true;
    }
  } catch {
    // an unparsable reference says nothing
  }
  return false;
}

interface SiteNames {
  /** Its host's labels left of the public suffix, "www" and labels under four letters left out
   *  (`bdsm.sf.net` -> bdsm; `shop.example.co.uk` -> shop, example). */
  labels: string[];
  /** The name of a site served at its registrable domain (example.pl, www.example.pl -> example):
   *  the same name under another suffix (example.com) is the same owner's. A page on a platform's
   *  subdomain (customer.platform.net) has none: platform.com is then its vendor. */
  brand: string | null;
}

function siteNames(host: string): SiteNames {
  const { subdomain, domainWithoutSuffix } = parse(host.toLowerCase().replace(/\.$/, ""), {
    allowPrivateDomains: true,
  });
  const sub = subdomain ? subdomain.split(".").filter((l) => l !== "www") : [];
  const parts = domainWithoutSuffix ? [...sub, domainWithoutSuffix] : sub;
  const brand = sub.length === 0 && parts.length === 1 && parts[0]!.length >= 4 ? parts[0]! : null;
  return { labels: parts.filter((l) => l.length >= 4), brand };
}

/**
 * A link to another site that names this site (ADR 0094): in its subdomain or path
 * (`sourceforge.net/projects/bdsm/` from bdsm.sf.net, `github.com/acme/acme` from acme.github.io,
 * `autoglade.wiki.sourceforge.net`), the site's own presence on a platform; or, for a site at its
 * registrable domain, the same name under another suffix (railshost.com from railshost.pl). Not a
 * vendor's page. A query naming the domain (`?domain=example.com`) does not count: registrars' and
 * parking links carry one. `domain` is the link's registrable domain.
 */
function namesOwnSite(url: URL, domain: string, site: SiteNames): boolean {
  if (site.labels.length === 0) return false;
  if (site.brand !== null && domain.split(".")[0] === site.brand) return true;
  const host = url.hostname.toLowerCase();
  const sub = host.length > domain.length ? host.slice(0, -domain.length - 1).split(".") : [];
  return [...sub, ...url.pathname.toLowerCase().split("/")].some((p) => site.labels.includes(p));
}

function urlOf(raw: string, base: string): URL | null {
  try {
    const url = new URL(raw.startsWith("///") ? `https:${raw.slice(1)}` : raw, base);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return url;
  } catch {
    return null;
  }
}

/** Host and path of a link, without query or fragment, "/index.html" read as "/": one page, one key. */
function pageKey(url: URL): string {
  const path = url.pathname.replace(/\/(index|default)\.[a-z]+$/i, "/");
  return `${url.hostname.replace(/^www\./, "")}${path}`;
}

function registrable(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, "");
  return getDomain(h, { allowPrivateDomains: true }) ?? h;
}
