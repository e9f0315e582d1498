// The parked verdict's evidence and inputs, shared by the verdict (parked.ts) and the page rules
// (parked-page-rules.ts) without either importing the other.
import type { IndicatorStrength } from "./parking-indicators.js";

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
  | "random_path"
  | "wildcard_dns"
  /** Page model contributions (ADR 0011): page structure, lexicon wording, the page rules' total. */
  | "structure"
  | "wording"
  | "rules";

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
  /** A random subdomain resolved to the host's address (true), did not (false), or was not asked. */
  wildcardDns?: boolean | null;
  /**
   * The body stopped arriving before its end (the attempt's time ran out): what arrived is judged,
   * but its smallness says nothing, so it never reads as a stub page.
   */
  bodyCut?: boolean;
}
