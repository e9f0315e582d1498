// SSRF guard: decides whether an outbound HTTP target may be contacted. A name is resolved through
// the injected DnsResolver and every address is classified; callers then connect to exactly the
// address that was checked, so a DNS answer that changes between check and connect (rebinding)
// cannot redirect the connection. Used on the first hop and on every redirect.
import { isIP } from "node:net";
import type { DnsFailure, DnsResolver } from "./dns.js";

export type BlockReason =
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "metadata"
  | "unspecified"
  | "ipv4-mapped"
  | "multicast"
  | "reserved"
  | "localhost-name"
  | "invalid-ip-literal";

export type TargetVerdict =
  | { ok: true; addresses: string[]; isIpLiteral: boolean }
  | { ok: false; kind: "blocked"; reason: BlockReason; address: string; message: string }
  | { ok: false; kind: "dns"; failure: DnsFailure; message: string };

export interface GuardOptions {
  dns: Pick<DnsResolver, "resolveAddresses">;
  /** When true nothing is refused (tests and private deployments). */
  allowPrivateTargets: boolean;
  /** Exact addresses allowed despite their range (a known internal host; tests' loopback servers). */
  allowAddresses?: readonly string[];
}

interface Range {
  base: bigint;
  prefix: number;
  reason: BlockReason;
}

// First match wins, so narrower ranges (metadata) sit before the wider ones that contain them.
const V4_RANGES: [string, number, BlockReason][] = [
  ["169.254.169.254", 32, "metadata"],
  ["168.63.129.16", 32, "metadata"], // Azure wire server: public space, host-local service
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "cgnat"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["192.88.99.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

// IPv6 is allow-listed to global unicast (2000::/3); these carve-outs inside it are refused too.
const V6_RANGES: [string, number, BlockReason][] = [
  ["fd00:ec2::254", 128, "metadata"],
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["::ffff:0:0", 96, "ipv4-mapped"],
  ["64:ff9b:1::", 48, "private"],
  ["fc00::", 7, "private"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "private"],
  ["ff00::", 8, "multicast"],
  ["2001::", 23, "reserved"],
  ["2001:db8::", 32, "reserved"],
  ["3fff::", 20, "reserved"],
];

const v4Ranges: Range[] = V4_RANGES.map(([a, p, reason]) => ({
  base: v4ToBig(parseV4Strict(a)!),
  prefix: p,
  reason,
}));
const v6Ranges: Range[] = V6_RANGES.map(([a, p, reason]) => ({
  base: v6ToBig(parseV6(a)!),
  prefix: p,
  reason,
}));

/** Why an IP address must not be contacted, or null for a public address. */
export function classifyAddress(address: string): BlockReason | null {
  const literal = parseIpLiteral(address);
  if (!literal) return "invalid-ip-literal";
  if (literal.family === 4) return matchRange(v4ToBig(parseV4Strict(literal.address)!), 32, v4Ranges);
  const bytes = parseV6(literal.address)!;
  const value = v6ToBig(bytes);
  const special = matchRange(value, 128, v6Ranges);
  if (special) return special;
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address that the gateway will reach.
  if (value >> 32n === v6ToBig(parseV6("64:ff9b::")!) >> 32n) return classifyEmbedded(bytes.subarray(12, 16));
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return classifyEmbedded(bytes.subarray(2, 6));
  if (bytes[0]! >> 5 !== 0b001) return "reserved";
  return null;
}

function classifyEmbedded(v4: Uint8Array): BlockReason | null {
  return matchRange(v4ToBig(v4), 32, v4Ranges);
}

function matchRange(value: bigint, bits: number, ranges: Range[]): BlockReason | null {
  for (const r of ranges) {
    const shift = BigInt(bits - r.prefix);
    if (value >> shift === r.base >> shift) return r.reason;
  }
  return null;
}

/**
 * An IP literal host in any spelling a URL parser or inet_aton accepts ("[::1]", "0177.0.0.1",
 * "2130706433", "0xA9FEA9FE", "127.1"), canonicalised; null when the host is a name.
 */
export function parseIpLiteral(host: string): { family: 4 | 6; address: string } | null {
  const h = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const family = isIP(h);
  if (family === 6) {
    const bytes = parseV6(h);
    return bytes ? { family: 6, address: formatV6(bytes) } : null;
  }
  const v4 = family === 4 ? parseV4Strict(h) : parseV4Loose(h);
  return v4 ? { family: 4, address: v4.join(".") } : null;
}

/** True when a host name ends in a numeric label: such a host is an IP literal or nothing at all. */
function looksNumeric(host: string): boolean {
  const labels = host.replace(/\.$/, "").split(".");
  return /^(0x[0-9a-f]*|\d+)$/i.test(labels[labels.length - 1] ?? "");
}

/** Resolves a URL host and refuses it when any address is off limits (unless private targets are allowed). */
export async function checkTarget(host: string, options: GuardOptions): Promise<TargetVerdict> {
  const name = host.toLowerCase().replace(/\.$/, "");
  const literal = parseIpLiteral(name);
  if (literal) {
    const reason = refusal(literal.address, options);
    if (reason) return blocked(reason, literal.address, host);
    return { ok: true, addresses: [literal.address], isIpLiteral: true };
  }
  if (looksNumeric(name)) return blocked("invalid-ip-literal", name, host);
  if (!options.allowPrivateTargets && (name === "localhost" || name.endsWith(".localhost"))) {
    return blocked("localhost-name", name, host);
  }
  const answer = await options.dns.resolveAddresses(name);
  if (!answer.ok) return { ok: false, kind: "dns", failure: answer.failure, message: answer.message };
  if (!options.allowPrivateTargets) {
    // One bad address refuses the name: an attacker controls which address a client picks.
    for (const address of answer.records) {
      const reason = refusal(address, options);
      if (reason) return blocked(reason, address, host);
    }
  }
  return { ok: true, addresses: answer.records, isIpLiteral: false };
}

function refusal(address: string, options: GuardOptions): BlockReason | null {
  if (options.allowPrivateTargets) return null;
  const reason = classifyAddress(address);
  if (reason === null || !options.allowAddresses) return reason;
  const canonical = parseIpLiteral(address)?.address;
  return options.allowAddresses.some((a) => parseIpLiteral(a)?.address === canonical) ? null : reason;
}

function blocked(reason: BlockReason, address: string, host: string): TargetVerdict {
  const via = address === host ? "" : ` (resolves to ${address})`;
  return {
    ok: false,
    kind: "blocked",
    reason,
    address,
    message: `refused target ${host}${via}: ${reason} addresses are not allowed`,
  };
}

function parseV4Strict(s: string): Uint8Array | null {
  const parts = s.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return Uint8Array.from(parts.map(Number));
}

/** inet_aton forms: 1-4 parts, each decimal, octal (leading 0) or hex (0x); the last part fills the rest. */
function parseV4Loose(s: string): Uint8Array | null {
  const parts = s.replace(/\.$/, "").split(".");
  if (parts.length < 1 || parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : Number.parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = Number.parseInt(p, 8);
    else if (/^\d+$/.test(p)) n = Number(p);
    else return null;
    if (!Number.isSafeInteger(n)) return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return null;
  let value = last;
  nums.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return Uint8Array.from([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
}

function parseV6(s: string): Uint8Array | null {
  let text = s.split("%")[0]!;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  const words: number[] = [];
  let v4: Uint8Array | null = null;
  if (tail) {
    v4 = parseV4Strict(tail[1]!);
    if (!v4) return null;
    text = text.slice(0, -tail[1]!.length) + "0:0";
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const fill = 8 - head.length - rest.length;
  if ((halves.length === 2 && fill < 1) || (halves.length === 1 && fill !== 0)) return null;
  for (const w of [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill("0"), ...rest]) {
    if (!/^[0-9a-f]{1,4}$/i.test(w)) return null;
    words.push(Number.parseInt(w, 16));
  }
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 255;
  });
  if (v4) bytes.set(v4, 12);
  return bytes;
}

function formatV6(bytes: Uint8Array): string {
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return words.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
}

function v4ToBig(bytes: Uint8Array): bigint {
  return BigInt((bytes[0]! << 24) >>> 0) + BigInt((bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!);
}

function v6ToBig(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}
