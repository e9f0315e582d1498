// Loads the indicator tables (data/parking-indicators.tsv for DNS, redirect and markup rows,
// data/page-indicators.tsv for page structure and wording; see data/README.md for sources) into
// compiled matchers, once per path.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseIpLiteral } from "../../net/guard.js";

export type IndicatorStrength = "strong" | "medium" | "weak" | "do-not-use-alone";

export interface ParkingIndicator {
  kind: string;
  match: string;
  pattern: string;
  provider: string;
  type: string;
  strength: IndicatorStrength;
  source: string;
  /** Free-form note; page wording rows carry `lang=xx`. */
  note: string;
  /**
   * Tests one observed value (a host name, an address, a page body, a header line...), lowercased
   * by the caller: once per value, not once per row (a page body is up to 256 KiB).
   */
  test(value: string): boolean;
}

export interface ParkingIndicators {
  byKind(kind: string): readonly ParkingIndicator[];
  size: number;
}

const DEFAULT_INDICATORS_PATH = fileURLToPath(new URL("./data/parking-indicators.tsv", import.meta.url));
const PAGE_INDICATORS_PATH = fileURLToPath(new URL("./data/page-indicators.tsv", import.meta.url));

const loaded = new Map<string, ParkingIndicators>();

/** One table or several merged; the default is both bundled tables. */
export function loadParkingIndicators(
  paths: string | readonly string[] = [DEFAULT_INDICATORS_PATH, PAGE_INDICATORS_PATH],
): ParkingIndicators {
  const list = typeof paths === "string" ? [paths] : paths;
  const key = list.join("\n");
  let set = loaded.get(key);
  if (!set) {
    const header = "kind\tmatch\tpattern\tprovider\ttype\tstrength\tsource\tnote";
    const body = list.map((p) => readFileSync(p, "utf8").split(/\r?\n/).slice(1).join("\n"));
    set = parseParkingIndicators([header, ...body].join("\n"));
    loaded.set(key, set);
  }
  return set;
}

export function parseParkingIndicators(tsv: string): ParkingIndicators {
  const groups = new Map<string, ParkingIndicator[]>();
  let size = 0;
  const lines = tsv.split(/\r?\n/).filter((l) => l.trim() !== "");
  for (const line of lines.slice(1)) {
    const [kind, match, pattern, provider, type, strength, source, note] = line.split("\t");
    if (!kind || !match || !pattern) continue;
    const test = compile(kind, match, pattern);
    if (!test) continue;
    const row: ParkingIndicator = {
      kind,
      match,
      pattern,
      provider: provider ?? "",
      type: type ?? "",
      strength: (strength ?? "weak") as IndicatorStrength,
      source: source ?? "",
      note: note ?? "",
      test,
    };
    groups.set(kind, [...(groups.get(kind) ?? []), row]);
    size++;
  }
  return { byKind: (kind) => groups.get(kind) ?? [], size };
}

function compile(kind: string, match: string, pattern: string): ((value: string) => boolean) | null {
  const p = pattern.toLowerCase();
  switch (match) {
    case "exact":
      if (kind === "ipv4_cidr" || kind === "ipv6_cidr") return cidrMatcher(pattern);
      return (v) => hostOf(v) === p;
    case "exact-host":
      return (v) => hostOf(v) === p;
    case "suffix":
      return (v) => {
        const h = hostOf(v);
        return h === p || h.endsWith(`.${p}`);
      };
    case "glob": {
      const re = new RegExp(`^${p.split("*").map(escapeRegex).join(".*")}$`);
      return (v) => re.test(hostOf(v));
    }
    case "regex": {
      const re = new RegExp(pattern, "i");
      return (v) => re.test(v);
    }
    case "substring":
      return (v) => v.includes(p);
    case "name=value": {
      const [name, value] = p.split(/:\s*/, 2);
      return (v) => v === `${name}: ${value}`;
    }
    case "name":
    case "query":
      return (v) => v.includes(p);
    case "path":
      return (v) => v === p || v.startsWith(`${p}/`);
    case "url": {
      // "host[/path-prefix]" against "host/path?query" (scheme dropped, lowercased): the host by
      // suffix, so www. and other subdomains match; the path by prefix.
      const slash = p.indexOf("/");
      const host = slash === -1 ? p : p.slice(0, slash);
      const path = slash === -1 ? "" : p.slice(slash);
      return (v) => {
        const at = v.search(/[/?#]/);
        const h = at === -1 ? v : v.slice(0, at);
        const rest = at === -1 ? "/" : v.slice(at);
        return (h === host || h.endsWith(`.${host}`)) && (path === "" || rest.startsWith(path));
      };
    }
    default:
      return null;
  }
}

function hostOf(value: string): string {
  return value.replace(/\.$/, "");
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function cidrMatcher(cidr: string): ((value: string) => boolean) | null {
  const [base, bits] = cidr.split("/");
  const net = base ? parseIpLiteral(base) : null;
  if (!net) return null;
  const width = net.family === 4 ? 32 : 128;
  const shift = BigInt(width - Number(bits ?? width));
  const prefix = toBig(net.address, net.family) >> shift;
  return (value) => {
    const ip = parsedAddress(value);
    return ip !== null && ip.family === net.family && ip.big >> shift === prefix;
  };
}

// The same address is tested against every CIDR row in turn: parse it once, not once per row.
let lastValue = "";
let lastParsed: { family: 4 | 6; big: bigint } | null = null;
function parsedAddress(value: string): { family: 4 | 6; big: bigint } | null {
  if (value !== lastValue) {
    const ip = parseIpLiteral(value);
    lastValue = value;
    lastParsed = ip ? { family: ip.family, big: toBig(ip.address, ip.family) } : null;
  }
  return lastParsed;
}

function toBig(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split(".").reduce((acc, part) => (acc << 8n) | BigInt(part), 0n);
  const [head = "", tail = ""] = address.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const words = address.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
  return words.reduce((acc: bigint, w: string) => (acc << 16n) | BigInt(Number.parseInt(w, 16)), 0n);
}
