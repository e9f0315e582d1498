// Website input normalization, shared by the website check and lead creation. A bare domain
// becomes an https URL (the check later falls back to http and to the www variant); anything
// that cannot be a public web address is a typed rejection the API answers with 422.
import { parseIpLiteral } from "../../net/guard.js";

export type WebsiteRejection =
  | "empty"
  | "too_long"
  | "whitespace"
  | "bad_scheme"
  | "credentials"
  | "bad_port"
  | "invalid_host"
  | "no_dot"
  | "invalid_url";

export type NormalizedWebsite =
  | {
      ok: true;
      /** Canonical URL: lowercase punycode host, no fragment, no default port. */
      url: string;
      host: string;
      scheme: "http" | "https";
      /** The input named its scheme; without one, https is assumed and http is a fallback. */
      hadScheme: boolean;
      isIpLiteral: boolean;
    }
  | { ok: false; reason: WebsiteRejection; message: string };

const MAX_WEBSITE_LENGTH = 255;

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
// "mailto:x", "javascript:..." (a scheme without //), but not "host:port" or "host:port/path".
const OPAQUE_SCHEME = /^([a-z][a-z0-9+-]*):(?!\d*(?:[/?#]|$))/i;
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

export function normalizeWebsite(input: string): NormalizedWebsite {
  const text = input.trim();
  if (text.length === 0) return reject("empty", "website is empty");
  if (text.length > MAX_WEBSITE_LENGTH) {
    return reject("too_long", `website is longer than ${MAX_WEBSITE_LENGTH} characters`);
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (/[\s\u0000-\u001f\u007f]/.test(text))
    return reject("whitespace", "website contains spaces or control characters");

  const explicit = SCHEME.exec(text);
  let rest = text;
  let scheme: "http" | "https" = "https";
  if (explicit) {
    const name = explicit[1]!.toLowerCase();
    if (name !== "http" && name !== "https")
      return reject("bad_scheme", `scheme ${name}: is not http or https`);
    scheme = name;
    rest = text.slice(explicit[0].length);
  } else if (OPAQUE_SCHEME.test(text)) {
    return reject("bad_scheme", "website must be an http or https address");
  } else if (rest.startsWith("//")) {
    rest = rest.slice(2);
  }

  const authority = rest.split(/[/?#]/, 1)[0] ?? "";
  if (authority.includes("@"))
    return reject("credentials", "website must not contain a user name or password");
  const port = /^(?:\[[^\]]*\]|[^:[\]]*):(.*)$/.exec(authority)?.[1];
  if (port !== undefined && (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535)) {
    return reject("bad_port", `port "${port}" is not a number from 1 to 65535`);
  }

  let url: URL;
  try {
    url = new URL(`${scheme}://${rest}`);
  } catch {
    return reject("invalid_url", "website is not a valid address");
  }
  url.hash = "";
  const hostCheck = checkHost(url.hostname);
  if (hostCheck) return hostCheck;
  url.hostname = url.hostname.replace(/\.$/, "");
  return {
    ok: true,
    url: url.href,
    host: url.hostname,
    scheme,
    hadScheme: explicit !== null,
    isIpLiteral: parseIpLiteral(url.hostname) !== null,
  };
}

function checkHost(hostname: string): NormalizedWebsite | null {
  if (hostname.length === 0) return reject("invalid_host", "website has no host name");
  if (parseIpLiteral(hostname)) return null;
  const host = hostname.replace(/\.$/, "");
  if (host.length > 253) return reject("invalid_host", "host name is longer than 253 characters");
  const labels = host.split(".");
  if (labels.length < 2) return reject("no_dot", `host name "${host}" has no dot`);
  if (!labels.every((l) => LABEL.test(l))) return reject("invalid_host", `host name "${host}" is not valid`);
  if (/^\d+$/.test(labels[labels.length - 1]!))
    return reject("invalid_host", `host name "${host}" is not valid`);
  return null;
}

function reject(reason: WebsiteRejection, message: string): NormalizedWebsite {
  return { ok: false, reason, message };
}
