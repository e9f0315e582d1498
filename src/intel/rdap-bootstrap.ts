// The IANA RDAP bootstrap registry for DNS (RFC 9224): which RDAP base URLs serve which TLDs. A
// vendored snapshot (data/rdap-dns.json) is the default; RDAP_BOOTSTRAP_URL may name a file or an
// http(s) URL with a newer copy.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface RdapBootstrapFile {
  description?: string;
  publication: string;
  version?: string;
  services: [string[], string[]][];
}

export const VENDORED_BOOTSTRAP_PATH = fileURLToPath(new URL("./data/rdap-dns.json", import.meta.url));

export class RdapBootstrap {
  /** Lower-case label sequence ("com", "co.uk" in principle) -> base URLs, https first. */
  private readonly byLabel = new Map<string, string[]>();

  constructor(readonly file: RdapBootstrapFile) {
    for (const [labels, urls] of file.services) {
      // RFC 9224 §4: prefer https; every URL is a base that ends with "/".
      const ordered = [...urls]
        .map((u) => (u.endsWith("/") ? u : `${u}/`))
        .sort((a, b) => Number(b.startsWith("https:")) - Number(a.startsWith("https:")));
      for (const label of labels) this.byLabel.set(label.toLowerCase(), ordered);
    }
  }

  get publication(): string {
    return this.file.publication;
  }

  /** Base URLs for a domain: the longest matching label suffix wins (RFC 9224 §4); [] when none. */
  serversFor(domain: string): string[] {
    const labels = domain.toLowerCase().replace(/\.$/, "").split(".");
    for (let i = 1; i < labels.length; i++) {
      const hit = this.byLabel.get(labels.slice(i).join("."));
      if (hit) return hit;
    }
    return this.byLabel.get(labels[labels.length - 1]!) ?? [];
  }
}

/** Throws when the text is not a bootstrap file: a broken refresh must not replace a good one. */
export function parseBootstrap(text: string): RdapBootstrapFile {
  const json = JSON.parse(text) as Partial<RdapBootstrapFile>;
  const ok =
    typeof json.publication === "string" &&
    Array.isArray(json.services) &&
    json.services.every(
      (s) =>
        Array.isArray(s) &&
        s.length === 2 &&
        Array.isArray(s[0]) &&
        Array.isArray(s[1]) &&
        s[0].every((x) => typeof x === "string") &&
        s[1].every((x) => typeof x === "string" && /^https?:\/\//.test(x)),
    );
  if (!ok) throw new Error("not an RDAP bootstrap file (RFC 9224): expected publication and services");
  return json as RdapBootstrapFile;
}

export function loadBootstrapFile(path: string = VENDORED_BOOTSTRAP_PATH): RdapBootstrap {
  return new RdapBootstrap(parseBootstrap(readFileSync(path, "utf8")));
}
