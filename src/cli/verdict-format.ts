// Human-readable check results for `leadcheck check email|website`: one coloured verdict line with
// the reason, then the key facts. `--json` prints the API's answer instead (for scripts).
// Credits are shown in display credits (1 per check), as the dashboard shows them. Reasons read
// as the vocabulary table's labels (src/checks/vocabulary.ts), the words every surface uses.
import { reasonLabel } from "../checks/vocabulary.js";

export interface Paint {
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const ansi = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
export const COLOURS: Paint = {
  green: ansi(32, 39),
  yellow: ansi(33, 39),
  red: ansi(31, 39),
  dim: ansi(2, 22),
  bold: ansi(1, 22),
};
const identity = (text: string) => text;
export const PLAIN: Paint = {
  green: identity,
  yellow: identity,
  red: identity,
  dim: identity,
  bold: identity,
};

/** Colour on a terminal unless NO_COLOR is set; FORCE_COLOR turns it on anywhere (no-color.org). */
export function paintFor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): Paint {
  if (env.NO_COLOR) return PLAIN;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== "0") return COLOURS;
  return stream.isTTY ? COLOURS : PLAIN;
}

type Tone = "good" | "warn" | "bad";
const MARK: Record<Tone, string> = { good: "✔", warn: "!", bad: "✖" };

function verdictLine(paint: Paint, tone: Tone, verdict: string, subject: string, reason: string): string {
  const colour = tone === "good" ? paint.green : tone === "warn" ? paint.yellow : paint.red;
  return `${colour(paint.bold(`${MARK[tone]} ${verdict.toUpperCase()}`))}  ${subject}  ${colour(reason)}`;
}

const yesNo = (value: unknown) => (value === true ? "yes" : value === false ? "no" : "unknown");
const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;

function creditsLine(paint: Paint, result: { creditsDeducted?: unknown; creditsRemaining?: unknown }) {
  const used = typeof result.creditsDeducted === "number" ? Math.round(result.creditsDeducted * 1000) : null;
  const left =
    typeof result.creditsRemaining === "number" ? Math.round(result.creditsRemaining * 1000) : null;
  if (used === null && left === null) return [];
  const parts = [
    used === null ? null : `${plural(used, "credit")} used`,
    left === null ? null : `${left.toLocaleString("en-US")} left`,
  ];
  return [paint.dim(`  ${parts.filter((p) => p !== null).join(", ")}`)];
}

export interface EmailResultLike {
  email?: string;
  status?: string;
  valid?: boolean | null;
  catchAll?: boolean | null;
  disposable?: boolean | null;
  service?: string;
  domain?: string;
  emailType?: string;
  emailRisk?: string;
  emailScore?: number;
  /** The API's closed reason code (check-email `reason`, a lead's `emailReason`). */
  reason?: string;
  emailReason?: string;
  message?: string;
  error?: string;
  creditsDeducted?: number;
  creditsRemaining?: number;
  [key: string]: unknown;
}

function emailReason(result: EmailResultLike): string {
  const code = result.reason ?? result.emailReason;
  if (typeof code === "string" && code) return reasonLabel(code);
  if (result.error) return result.error;
  switch (result.status) {
    case "valid":
      return "the mailbox accepts mail";
    case "invalid":
      return result.message ?? "the mailbox or its domain does not accept mail";
    case "processing":
      return result.message ?? "still verifying";
    default:
      if (result.disposable) return "disposable address";
      if (result.catchAll)
        return "the domain accepts any address (catch-all): the mailbox cannot be confirmed";
      return result.message ?? "the check could not confirm the mailbox";
  }
}

export function formatEmailResult(result: EmailResultLike, paint: Paint): string {
  const status = result.status ?? "unknown";
  const tone: Tone = status === "valid" ? "good" : status === "invalid" ? "bad" : "warn";
  const facts = [
    result.domain ? `mail server ${result.domain}` : null,
    typeof result.emailScore === "number" ? `score ${result.emailScore}/100` : null,
    result.emailRisk ? `risk ${result.emailRisk}` : null,
    `catch-all ${yesNo(result.catchAll)}`,
    `disposable ${yesNo(result.disposable)}`,
    result.emailType ? `type ${result.emailType}` : null,
    result.service && !["None", "Other"].includes(result.service) ? `provider ${result.service}` : null,
  ].filter((fact): fact is string => fact !== null);
  return [
    verdictLine(paint, tone, status, result.email ?? "", emailReason(result)),
    `  ${facts.join(" · ")}`,
    ...creditsLine(paint, result),
  ].join("\n");
}

export interface WebsiteResultLike {
  website?: string;
  status?: string;
  valid?: boolean;
  httpStatus?: number | null;
  finalUrl?: string;
  sslValid?: boolean | null;
  isParked?: boolean | null;
  responseTimeMs?: number;
  redirectChain?: string[];
  error?: string | null;
  creditsDeducted?: number;
  creditsRemaining?: number;
  [key: string]: unknown;
}

export function formatWebsiteResult(result: WebsiteResultLike, paint: Paint): string {
  const status = result.status ?? "error";
  const parked = result.isParked === true;
  const tone: Tone = status === "active" && !parked ? "good" : status === "active" ? "warn" : "bad";
  const reason = result.error
    ? reasonLabel(result.error)
    : parked
      ? "the domain is parked (no real site)"
      : status === "active"
        ? `answers HTTP ${result.httpStatus ?? "?"}`
        : "the site does not answer";
  const redirects = result.redirectChain?.length ?? 0;
  const facts = [
    result.finalUrl ? `final URL ${result.finalUrl}` : null,
    result.httpStatus != null ? `HTTP ${result.httpStatus}` : null,
    `TLS ${result.sslValid === true ? "valid" : result.sslValid === false ? "not valid" : "unknown"}`,
    `parked ${yesNo(result.isParked)}`,
    typeof result.responseTimeMs === "number" ? `${Math.round(result.responseTimeMs)} ms` : null,
    plural(redirects, "redirect"),
  ].filter((fact): fact is string => fact !== null);
  return [
    verdictLine(paint, tone, parked ? "parked" : status, result.website ?? "", reason),
    `  ${facts.join(" · ")}`,
    ...creditsLine(paint, result),
  ].join("\n");
}
