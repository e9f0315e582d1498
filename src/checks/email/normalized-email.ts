// The address a mailbox really is, for alias-aware duplicate detection. Rules per provider (only
// where the provider documents them; other domains are only lower-cased, since a company server's
// "+" or "." may well be significant):
//   gmail.com, googlemail.com  dots in the local part are ignored, "+tag" removed; googlemail.com
//                              is folded into gmail.com (one mailbox, two names)
//   outlook.com, hotmail.*, live.*, msn.com   "+tag" removed
//   icloud.com, me.com, mac.com               "+tag" removed
//   proton.me, protonmail.com, protonmail.ch, pm.me   "+tag" removed
//   fastmail.com, fastmail.fm                 "+tag" removed
//   yandex.ru, yandex.com, ya.ru              "+tag" removed
//   zoho.com, zohomail.com                    "+tag" removed
// Yahoo's "-keyword" disposable addresses are separate mailboxes on their own and are left alone.
import { parseEmail } from "./syntax.js";

const GMAIL = new Set(["gmail.com", "googlemail.com"]);
const PLUS_TAGS = new Set([
  "outlook.com",
  "hotmail.com",
  "hotmail.co.uk",
  "hotmail.fr",
  "hotmail.de",
  "hotmail.it",
  "hotmail.es",
  "live.com",
  "live.co.uk",
  "live.fr",
  "msn.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "proton.me",
  "protonmail.com",
  "protonmail.ch",
  "pm.me",
  "fastmail.com",
  "fastmail.fm",
  "yandex.ru",
  "yandex.com",
  "ya.ru",
  "zoho.com",
  "zohomail.com",
]);

/** Lower-cased, with the provider's aliases folded; the trimmed lower-cased input when unparsable. */
export function normalizeEmailAddress(email: string): string {
  const parsed = parseEmail(email);
  if (!parsed.ok)
    return String(email ?? "")
      .trim()
      .toLowerCase();
  let local = parsed.local.toLowerCase();
  let domain = parsed.domain.toLowerCase();
  if (GMAIL.has(domain)) {
    domain = "gmail.com";
    local = stripTag(local).replace(/\./g, "");
  } else if (PLUS_TAGS.has(domain)) {
    local = stripTag(local);
  }
  return `${local}@${domain}`;
}

/**
 * Whether another address can be the same mailbox as `normalizedEmail` (an output of
 * normalizeEmailAddress): a provider above folds aliases into it, or its domain has an IDNA label
 * (a lead stored before migration 0008 may spell that domain in Unicode). Elsewhere the normalized
 * address is the lower-cased address itself, so the exact-address unique index already refuses
 * every duplicate and no alias lookup is needed.
 */
export function canHaveAliases(normalizedEmail: string): boolean {
  const domain = normalizedEmail.slice(normalizedEmail.lastIndexOf("@") + 1);
  return GMAIL.has(domain) || PLUS_TAGS.has(domain) || /(^|\.)xn--/.test(domain);
}

function stripTag(local: string): string {
  const plus = local.indexOf("+");
  // "+tag" alone is not an address: keep it whole.
  return plus > 0 ? local.slice(0, plus) : local;
}
