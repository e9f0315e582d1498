// The hand-written page rules of the parked verdict (ADR 0011): indicator rows of page structure
// (hosts and paths that scripts, frames, forms, meta refresh and JavaScript redirects load or
// point to; for-sale deep links) and wording (title and text rows), each row counted once per
// place, with the page-size rules. The model reads their total as one feature (rules_page).
import { getDomain } from "tldts";
import type { PageFacts, RefElement } from "./html-scan.js";
import type { ParkedEvidence, ParkedInputs, ParkedSignal } from "./parked.types.js";
import type { IndicatorStrength, ParkingIndicator, ParkingIndicators } from "./parking-indicators.js";

export const WEIGHT: Record<IndicatorStrength, number> = {
  strong: 60,
  medium: 30,
  weak: 10,
  "do-not-use-alone": 10,
};
/** Weak phrases together never exceed this: two of them (a weak1 and a weak2) are one medium hint at most. */
export const WEAK_PAGE_CAP = 20;
/** For-sale wording counts in full on a page of at most this many words, at LONG_PAGE_WEIGHT beyond. */
export const SHORT_PAGE_WORDS = 600;

const LONG_PAGE_WEIGHT = 15;
const MEDIUM_TEXT_WEIGHT = 35;
/** Generic placeholder wording ("coming soon") counts only on a page this short. */
const PLACEHOLDER_PAGE_WORDS = 150;
/** A page this short that already shows parked evidence gets THIN_PAGE_WEIGHT more. */
const THIN_PAGE_WORDS = 60;
const THIN_PAGE_WEIGHT = 25;
/** Script string literals are read as page text only when the visible text is this short. */
const SCRIPT_TEXT_WORDS = 50;

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

export const PAGE_SIGNALS: ReadonlySet<ParkedSignal> = new Set([
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
export function evaluatePage(
  inputs: ParkedInputs,
  facts: PageFacts,
  indicators: ParkingIndicators,
  evidence: ParkedEvidence[],
): number {
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

export function ownHosts(inputs: ParkedInputs): Set<string> {
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
export function registrable(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, "");
  return getDomain(h, { allowPrivateDomains: true }) ?? h;
}

export function typeWeights(evidence: readonly ParkedEvidence[]): { placeholder: number; other: number } {
  let placeholder = 0;
  let other = 0;
  for (const e of evidence) {
    if (e.signal === "thin_page" || e.signal === "random_path") continue;
    if (e.type === "placeholder") placeholder += e.weight;
    else if (e.type !== "bot-protection") other += e.weight;
  }
  return { placeholder, other };
}

export function dominantType(evidence: readonly ParkedEvidence[]): string {
  const { placeholder, other } = typeWeights(evidence);
  return placeholder > other ? "placeholder" : "parking";
}

function hostOfUrl(u: string): string | null {
  try {
    return new URL(u).hostname;
  } catch {
    return null;
  }
}
