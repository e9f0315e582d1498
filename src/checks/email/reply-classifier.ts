// What an SMTP reply means for the address being probed. One ordered table decides it: first the
// stage (a refusal before RCPT is about us, not the mailbox), then the code class, then the RFC 3463
// enhanced status code, then texts that providers document. The first matching rule wins.
export type SmtpStage = "banner" | "ehlo" | "starttls" | "mail" | "rcpt";

export type ReplyOutcome =
  /** Before RCPT: the conversation may go on. */
  | "ok"
  | "deliverable"
  | "invalid"
  | "mailbox_full"
  | "disabled"
  | "greylisted"
  | "temporary"
  /** Our IP, HELO name or sender was refused: says nothing about the mailbox. */
  | "blocked"
  | "too_many_recipients"
  | "unknown";

export interface ClassifiedReply {
  outcome: ReplyOutcome;
  /** The rule that decided, for the verdict details. */
  rule: string;
  /** For greylisted and temporary outcomes: when a retry makes sense. */
  retryAfterMs?: number;
}

export interface ReplyLike {
  code: number;
  enhanced?: string | undefined;
  text: string;
}

type StageScope = "rcpt" | "session" | "any";

interface Rule {
  id: string;
  scope: StageScope;
  codeClass: 2 | 4 | 5 | "any";
  enhanced?: RegExp;
  text?: RegExp;
  codes?: number[];
  outcome: ReplyOutcome;
}

export const DEFAULT_GREYLIST_RETRY_MS = 60_000;
export const DEFAULT_TEMPORARY_RETRY_MS = 120_000;

const BLOCK_TEXT =
  /spamhaus|spamcop|barracudacentral|sorbs|\bsurbl\b|\brbl\b|\bdnsbl\b|block ?list|black ?list|blocked using|listed (at|on|in|by)|is (on|in) (our|a|the) .*list|banned sending ip|poor reputation|low reputation|bad reputation|reputation of the sending|\(S3150\)|\[BL\d+\]|not authorized to send email directly|client host .*(rejected|blocked)|connections? (will not be|not) accepted|your ip|sender ip|access denied, (banned|blocked)|too many (connections|errors)/i;

const GREYLIST_TEXT =
  /gr[ae]y ?list|gr[ae]ylisted|greylisting|try (again )?later|please retry|retry later|come back later|temporarily (deferred|rejected)|deferred/i;

const USER_UNKNOWN_TEXT =
  /user ?unknown|unknown user|no such (user|mailbox|recipient|account|address)|user not found|user doesn.?t exist|(does not|doesn.?t|not) exist|no mailbox|mailbox (not found|unavailable|does not exist)|invalid (recipient|mailbox|address|user)|unknown (recipient|mailbox|address)|recipient (unknown|not found|invalid)|recipientnotfound|not a valid (mailbox|recipient|user)|unrouteable address|address rejected|doesn.?t have an? .* account|undeliverable address|no longer (valid|available)|bad destination mailbox/i;

const DISABLED_TEXT =
  /disabled|deactivated|inactive|suspended|account (has been )?(closed|locked|terminated)/i;
const FULL_TEXT =
  /over ?quota|quota exceeded|exceeds? (its |the )?quota|mailbox (is )?full|insufficient (system )?storage|storage (allocation|limit)|out of storage/i;
const TOO_MANY_RCPT_TEXT = /too many recipients|recipient limit|too many rcpt/i;
const RELAY_TEXT =
  /relay(ing)? (access )?(denied|not permitted|not allowed|prohibited)|not permitted to relay|unable to relay/i;

/** Order matters: the first matching row decides. */
export const REPLY_RULES: readonly Rule[] = [
  // Stage first: before RCPT, a refusal is about our connection, never the mailbox.
  { id: "session_ok", scope: "session", codeClass: 2, outcome: "ok" },
  { id: "session_blocklisted", scope: "session", codeClass: "any", text: BLOCK_TEXT, outcome: "blocked" },
  { id: "session_greylisted", scope: "session", codeClass: 4, text: /gr[ae]y ?list/i, outcome: "greylisted" },
  { id: "session_temporary", scope: "session", codeClass: 4, outcome: "temporary" },
  { id: "session_refused", scope: "session", codeClass: 5, outcome: "blocked" },
  // RCPT, code class 2: accepted.
  { id: "rcpt_accepted", scope: "rcpt", codeClass: 2, outcome: "deliverable" },
  // RCPT, 4xx: never a final "invalid".
  { id: "rcpt_too_many", scope: "rcpt", codeClass: 4, enhanced: /^4\.5\.3$/, outcome: "too_many_recipients" },
  {
    id: "rcpt_too_many_text",
    scope: "rcpt",
    codeClass: 4,
    text: TOO_MANY_RCPT_TEXT,
    outcome: "too_many_recipients",
  },
  { id: "rcpt_full_4xx", scope: "rcpt", codeClass: 4, enhanced: /^4\.2\.2$/, outcome: "mailbox_full" },
  { id: "rcpt_full_4xx_text", scope: "rcpt", codeClass: 4, text: FULL_TEXT, outcome: "mailbox_full" },
  { id: "rcpt_blocked_4xx", scope: "rcpt", codeClass: 4, text: BLOCK_TEXT, outcome: "blocked" },
  { id: "rcpt_closing", scope: "rcpt", codeClass: 4, codes: [421], outcome: "temporary" },
  { id: "rcpt_greylisted", scope: "rcpt", codeClass: 4, text: GREYLIST_TEXT, outcome: "greylisted" },
  { id: "rcpt_greylisted_code", scope: "rcpt", codeClass: 4, enhanced: /^4\.7\.1$/, outcome: "greylisted" },
  { id: "rcpt_temporary", scope: "rcpt", codeClass: 4, outcome: "temporary" },
  // RCPT, 5xx: enhanced codes first, then texts.
  {
    id: "rcpt_too_many_5xx",
    scope: "rcpt",
    codeClass: 5,
    enhanced: /^5\.5\.3$/,
    outcome: "too_many_recipients",
  },
  {
    id: "rcpt_too_many_5xx_text",
    scope: "rcpt",
    codeClass: 5,
    text: TOO_MANY_RCPT_TEXT,
    outcome: "too_many_recipients",
  },
  {
    id: "rcpt_bad_mailbox",
    scope: "rcpt",
    codeClass: 5,
    enhanced: /^5\.1\.(0|1|2|3|6|10)$/,
    outcome: "invalid",
  },
  { id: "rcpt_disabled", scope: "rcpt", codeClass: 5, enhanced: /^5\.2\.1$/, outcome: "disabled" },
  { id: "rcpt_full", scope: "rcpt", codeClass: 5, enhanced: /^5\.2\.2$/, outcome: "mailbox_full" },
  // Microsoft 365 directory-based edge blocking: the recipient is not in the tenant.
  {
    id: "rcpt_m365_dbeb",
    scope: "rcpt",
    codeClass: 5,
    enhanced: /^5\.4\.1$/,
    text: /recipient address rejected/i,
    outcome: "invalid",
  },
  { id: "rcpt_blocklisted", scope: "rcpt", codeClass: 5, text: BLOCK_TEXT, outcome: "blocked" },
  { id: "rcpt_relay_denied", scope: "rcpt", codeClass: 5, text: RELAY_TEXT, outcome: "unknown" },
  { id: "rcpt_disabled_text", scope: "rcpt", codeClass: 5, text: DISABLED_TEXT, outcome: "disabled" },
  { id: "rcpt_full_text", scope: "rcpt", codeClass: 5, text: FULL_TEXT, outcome: "mailbox_full" },
  // A 5.7.x policy refusal says nothing about the mailbox, however its text reads ("Recipient
  // address rejected: Access denied", "sender address does not exist"): before the user-unknown text.
  { id: "rcpt_policy", scope: "rcpt", codeClass: 5, enhanced: /^5\.7\.\d+$/, outcome: "blocked" },
  { id: "rcpt_user_unknown_text", scope: "rcpt", codeClass: 5, text: USER_UNKNOWN_TEXT, outcome: "invalid" },
  { id: "rcpt_storage_552", scope: "rcpt", codeClass: 5, codes: [552], outcome: "mailbox_full" },
  { id: "rcpt_rejected", scope: "rcpt", codeClass: 5, codes: [550, 551, 553], outcome: "invalid" },
  { id: "rcpt_other_5xx", scope: "rcpt", codeClass: 5, outcome: "unknown" },
  { id: "fallback", scope: "any", codeClass: "any", outcome: "unknown" },
];

export function classifyReply(stage: SmtpStage, reply: ReplyLike): ClassifiedReply {
  const scope: StageScope = stage === "rcpt" ? "rcpt" : "session";
  const codeClass = Math.floor(reply.code / 100);
  const rule = REPLY_RULES.find(
    (r) =>
      (r.scope === "any" || r.scope === scope) &&
      (r.codeClass === "any" || r.codeClass === codeClass) &&
      (!r.codes || r.codes.includes(reply.code)) &&
      (!r.enhanced || (reply.enhanced !== undefined && r.enhanced.test(reply.enhanced))) &&
      (!r.text || r.text.test(reply.text)),
  )!;
  const result: ClassifiedReply = { outcome: rule.outcome, rule: rule.id };
  if (rule.outcome === "greylisted")
    result.retryAfterMs = parseRetryAfterMs(reply.text) ?? DEFAULT_GREYLIST_RETRY_MS;
  else if (rule.outcome === "temporary")
    result.retryAfterMs = parseRetryAfterMs(reply.text) ?? DEFAULT_TEMPORARY_RETRY_MS;
  return result;
}

/** "try again in 5 minutes", "greylisted for 300 seconds", "retry after 90s". */
export function parseRetryAfterMs(text: string): number | undefined {
  const m = /\b(?:in|after|for|wait)\s+(\d{1,5})\s*(s|secs?|seconds?|m|mins?|minutes?)\b/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return /^m/i.test(m[2]!) ? n * 60_000 : n * 1000;
}
