// A throwaway PKI generated at test time (EC P-256, fast): a root CA the client is told to trust,
// an intermediate, and leaf certificates in every shape a website check must recognise.
import { isIP } from "node:net";
import { generate } from "selfsigned";

export interface KeyPair {
  key: string;
  cert: string;
}

export interface TestPki {
  /** Root CA to pass to the client as its extra trusted CA. */
  ca: KeyPair;
  intermediate: KeyPair;
  /** A root nobody trusts. */
  rogueCa: KeyPair;
  /** Leaf for the given names signed by the root; optional validity window. */
  issue(names: string[], window?: { notBefore?: Date; notAfter?: Date }): Promise<KeyPair>;
  /** Leaf signed by the intermediate; serve `cert + intermediate.cert` for a complete chain. */
  issueViaIntermediate(names: string[]): Promise<KeyPair>;
  issueByRogue(names: string[]): Promise<KeyPair>;
  selfSigned(names: string[]): Promise<KeyPair>;
}

const DAY_MS = 86_400_000;

export async function createTestPki(): Promise<TestPki> {
  const ca = await makeCa("leadcheck test root");
  const rogueCa = await makeCa("rogue root");
  const intermediate = await leaf(["leadcheck test intermediate"], { issuer: ca, isCa: true });
  return {
    ca,
    intermediate,
    rogueCa,
    issue: (names, window = {}) => leaf(names, { issuer: ca, ...window }),
    issueViaIntermediate: (names) => leaf(names, { issuer: intermediate }),
    issueByRogue: (names) => leaf(names, { issuer: rogueCa }),
    selfSigned: (names) => leaf(names, {}),
  };
}

function makeCa(cn: string): Promise<KeyPair> {
  return leaf([cn], { isCa: true });
}

async function leaf(
  names: string[],
  opts: { issuer?: KeyPair; isCa?: boolean; notBefore?: Date; notAfter?: Date },
): Promise<KeyPair> {
  const now = Date.now();
  const pems = await generate([{ name: "commonName", value: names[0]! }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate: opts.notBefore ?? new Date(now - DAY_MS),
    notAfterDate: opts.notAfter ?? new Date(now + 90 * DAY_MS),
    ...(opts.issuer ? { ca: { key: opts.issuer.key, cert: opts.issuer.cert } } : {}),
    extensions: opts.isCa
      ? [
          { name: "basicConstraints", cA: true, critical: true },
          { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
        ]
      : [
          { name: "basicConstraints", cA: false },
          { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
          { name: "extKeyUsage", serverAuth: true },
          { name: "subjectAltName", altNames: names.map(altName) },
        ],
  });
  return { key: pems.private, cert: pems.cert.endsWith("\n") ? pems.cert : `${pems.cert}\n` };
}

/** An IP address goes in an iPAddress entry (RFC 5280 §4.2.1.6), any other name in a dNSName. */
function altName(value: string): { type: 2; value: string } | { type: 7; ip: string } {
  return isIP(value) ? { type: 7, ip: value } : { type: 2, value };
}
