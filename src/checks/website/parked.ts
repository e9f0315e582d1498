// Parked-domain verdict from weighted evidence. Each matching indicator row counts once; the
// domain is parked when the weights reach PARKED_THRESHOLD. A strong provider signal decides on
// its own; medium ones need company; weak phrases and registrar default DNS only corroborate
// (data/README.md: registrar DNS hosts many live sites, shared IPs are not sole evidence).
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
  | "txt";

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
}

export interface ParkedVerdict {
  isParked: boolean;
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

export function evaluateParked(inputs: ParkedInputs, indicators: ParkingIndicators): ParkedVerdict {
  const evidence: ParkedEvidence[] = [];
  const add = (signal: ParkedSignal, value: string, row: ParkingIndicator, weight = WEIGHT[row.strength]) => {
    if (evidence.some((e) => e.signal === signal && e.value === value && e.provider === row.provider)) return;
    const { provider, type, strength, source } = row;
    evidence.push({ signal, value, provider, type, strength, weight, source });
  };
  const scan = (
    signal: ParkedSignal,
    kind: string,
    values: string[],
    weight?: (row: ParkingIndicator) => number,
  ) => {
    const lowered = values.map((v) => v.toLowerCase());
    for (const row of indicators.byKind(kind)) {
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
  scan("title", "title", titleOf(inputs.body));
  scan("cookie", "cookie", headerValues(inputs.headers["set-cookie"]));
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
  const score = Math.min(
    100,
    evidence.filter((e) => !weakPage.includes(e)).reduce((s, e) => s + e.weight, 0) + weakSum,
  );
  return {
    isParked: score >= PARKED_THRESHOLD,
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

function titleOf(body: string): string[] {
  const m = /<title[^>]*>([^<]{0,500})<\/title>/i.exec(body);
  return m ? [m[1]!.trim()] : [];
}

function headerValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
