// Labels from reference lists: disposable domains (mailchecker), free mailbox providers (vendored
// list, see data/README.md) and role accounts (role-based-email-addresses).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import mailchecker from "mailchecker";
import { getDomain } from "tldts";

const require = createRequire(import.meta.url);
const ROLE_LOCAL_PARTS = new Set(
  (require("role-based-email-addresses") as string[]).map((r) => r.toLowerCase()),
);

/** Entries of the vendored list that are businesses or non-mailbox hosts, not free providers. */
const NOT_FREE = new Set([
  "alibaba.com",
  "about.com",
  "amazonses.com",
  "bounces.amazon.com",
  "docs.google.com",
  "calendar-server.bounces.google.com",
  "doclist.bounces.google.com",
  "emailer.hubspot.com",
  "dnsmadeeasy.com",
  "dyndns.org",
]);

let freeDomains: Set<string> | undefined;

function loadFreeDomains(): Set<string> {
  if (!freeDomains) {
    const text = readFileSync(new URL("./data/free-email-domains.txt", import.meta.url), "utf8");
    freeDomains = new Set(
      text
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith("#") && !NOT_FREE.has(l)),
    );
  }
  return freeDomains;
}

/** The domain or one of its parents, down to its registrable domain (public suffix list, so
 *  "x.mailinator.co.uk" stops at "mailinator.co.uk"), is a known throwaway-mail domain. */
export function isDisposableDomain(domain: string): boolean {
  const list = mailchecker.blacklist();
  let current = domain.toLowerCase().replace(/\.$/, "");
  const registrable = getDomain(current) ?? current;
  for (;;) {
    if (list.has(current)) return true;
    const dot = current.indexOf(".");
    if (current === registrable || dot === -1) return false;
    current = current.slice(dot + 1);
  }
}

/** A free mailbox provider (webmail or ISP); disposable domains are not counted here. */
export function isFreeDomain(domain: string): boolean {
  const d = domain.toLowerCase();
  return loadFreeDomains().has(d) && !isDisposableDomain(d);
}

/** The local part names a function (info@, sales@, noreply@), not a person. Sub-addresses
 *  ("+tag") are ignored. */
export function isRoleLocal(local: string): boolean {
  const base = local.toLowerCase().split("+")[0]!;
  return ROLE_LOCAL_PARTS.has(base);
}
