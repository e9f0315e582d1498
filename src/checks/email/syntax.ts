// Address syntax: RFC 5321 length limits, the RFC 5322 dot-atom form for local parts, and IDN
// domains converted to their ASCII (punycode) form. Quoted local parts, domain literals and
// non-ASCII local parts are valid in theory but refused as unsupported: almost no real mailbox
// uses them and probing them needs SMTPUTF8.
import { domainToASCII } from "node:url";

export type EmailSyntaxReason =
  | "empty"
  | "too_long"
  | "missing_at"
  | "local_empty"
  | "local_too_long"
  | "local_invalid"
  | "quoted_local_unsupported"
  | "non_ascii_local_unsupported"
  | "domain_empty"
  | "domain_too_long"
  | "domain_invalid"
  | "domain_literal_unsupported";

export type ParsedEmail =
  | {
      ok: true;
      /** local@ascii-domain, the form every other step uses. */
      email: string;
      local: string;
      /** Lowercase ASCII (punycode) domain. */
      domain: string;
    }
  | { ok: false; reason: EmailSyntaxReason; message: string };

const MAX_LOCAL_OCTETS = 64;
const MAX_DOMAIN_OCTETS = 255;
const MAX_ADDRESS_OCTETS = 254;
const ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

type SyntaxFailure = Extract<ParsedEmail, { ok: false }>;

function invalid(reason: EmailSyntaxReason, message: string): SyntaxFailure {
  return { ok: false, reason, message };
}

export function parseEmail(input: string): ParsedEmail {
  const raw = typeof input === "string" ? input.trim() : "";
  if (raw.length === 0) return invalid("empty", "the address is empty");
  const at = raw.lastIndexOf("@");
  if (at === -1) return invalid("missing_at", 'the address has no "@"');
  const local = raw.slice(0, at);
  const domainPart = raw.slice(at + 1);
  const localCheck = checkLocal(local);
  if (localCheck) return localCheck;
  const domain = toAsciiDomain(domainPart);
  if (!domain.ok) return domain;
  const email = `${local}@${domain.domain}`;
  if (Buffer.byteLength(email) > MAX_ADDRESS_OCTETS)
    return invalid("too_long", `the address is longer than ${MAX_ADDRESS_OCTETS} octets`);
  return { ok: true, email, local, domain: domain.domain };
}

function checkLocal(local: string): SyntaxFailure | undefined {
  if (local.length === 0) return invalid("local_empty", 'nothing before the "@"');
  if (local.startsWith('"'))
    return invalid("quoted_local_unsupported", "quoted local parts are not supported");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[^\x00-\x7f]/.test(local))
    return invalid("non_ascii_local_unsupported", "non-ASCII local parts (SMTPUTF8) are not supported");
  if (Buffer.byteLength(local) > MAX_LOCAL_OCTETS)
    return invalid("local_too_long", `the local part is longer than ${MAX_LOCAL_OCTETS} octets`);
  const atoms = local.split(".");
  if (atoms.some((a) => !ATOM.test(a)))
    return invalid("local_invalid", `the local part ${localFault(local)}`);
  return undefined;
}

/** Names a character the way people see it: "a space", "a comma (,)". */
function characterName(char: string): string {
  const code = char.codePointAt(0)!;
  if (char === " ") return "a space";
  if (code < 0x20 || code === 0x7f)
    return `the control character U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (/\s/.test(char)) return "a whitespace character";
  const names: Record<string, string> = {
    ",": "a comma",
    ";": "a semicolon",
    ":": "a colon",
    "@": 'a second "@"',
  };
  return names[char] ? `${names[char]}${char === "@" ? "" : ` (${char})`}` : `"${char}"`;
}

/** What is wrong with a local part that is not dot-atoms, in words naming the character. */
function localFault(local: string): string {
  if (local.startsWith(".")) return "starts with a dot";
  if (local.endsWith(".")) return "ends with a dot";
  if (local.includes("..")) return "has two dots in a row";
  const bad = [...local].find((char) => char !== "." && !ATOM.test(char));
  return bad === undefined ? "is not allowed" : `contains ${characterName(bad)}`;
}

/** A module function, not a closure per call: tsx names each closure it makes (ADR 0057). */
function bad(message: string): SyntaxFailure {
  return invalid("domain_invalid", message);
}

function toAsciiDomain(part: string): { ok: true; domain: string } | SyntaxFailure {
  if (part.length === 0) return invalid("domain_empty", 'nothing after the "@"');
  if (part.startsWith("["))
    return invalid("domain_literal_unsupported", "address literals are not supported");
  const badChar = /[\s@\\/:[\],;<>()"]/.exec(part)?.[0];
  if (badChar !== undefined) return bad(`the domain contains ${characterName(badChar)}`);
  if (part.startsWith(".")) return bad("the domain starts with a dot");
  if (part.endsWith(".")) return bad("the domain ends with a dot");
  const ascii = domainToASCII(part.toLowerCase());
  if (ascii === "") return bad("the domain is not a valid (internationalised) domain name");
  if (ascii.length > MAX_DOMAIN_OCTETS)
    return invalid("domain_too_long", `the domain is longer than ${MAX_DOMAIN_OCTETS} octets`);
  const labels = ascii.split(".");
  if (labels.length < 2) return bad("the domain needs at least two labels");
  if (labels.some((l) => !LABEL.test(l)))
    return bad("a domain label is empty, too long or has invalid characters");
  if (/^\d+$/.test(labels[labels.length - 1]!)) return bad("the top-level domain is numeric");
  return { ok: true, domain: ascii };
}
