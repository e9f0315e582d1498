// What an SMTP reply means for the address being probed, decided by meaning rather than by code
// class. One ordered table; the first matching row wins. The order is the precedence recorded in
// docs/decisions/0010-email-verdicts.md:
//   1. stage: before RCPT a refusal is about us, never the mailbox;
//   2. 2xx at RCPT: accepted;
//   3. greylisting, in any code class: retry;
//   4. a refusal of our sender or IP (block lists, reputation, reverse DNS, relay, authentication,
//      policy links): blocked, so the verdict is unknown and never invalid;
//   5. a per-mailbox rate limit, in any class: the mailbox exists;
//   6. text that plainly says the mailbox does not exist: invalid, whatever the code class;
//   7. full, then disabled mailbox texts;
//   8. RFC 3463 enhanced codes, then bare reply codes;
//   9. generic refusal wording ("Recipient address rejected:", which Postfix writes before every
//      recipient refusal, "mailbox unavailable") only after the codes, as the last resort.
// The corpus test (reply-corpus.test.ts) measures the table against real replies.
export type SmtpStage = "banner" | "ehlo" | "starttls" | "mail" | "rcpt";

export type ReplyOutcome =
  /** Before RCPT: the conversation may go on. */
  | "ok"
  | "deliverable"
  | "invalid"
  | "mailbox_full"
  | "disabled"
  /** The mailbox exists but receives mail too fast right now. */
  | "rate_limited"
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
  /** For greylisted, rate-limited and temporary outcomes: when a retry makes sense. */
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
  codeClass: 2 | 4 | 5 | "4or5" | "any";
  enhanced?: RegExp;
  text?: RegExp;
  codes?: number[];
  outcome: ReplyOutcome;
}

const DEFAULT_GREYLIST_RETRY_MS = 60_000;
export const DEFAULT_TEMPORARY_RETRY_MS = 120_000;

const GREYLIST_TEXT = /gr[ae]y-? ?list|delayed by postgrey|internal resource temporarily unavailable/i;

/** Refusals of the connecting client, its IP, HELO name or envelope sender. */
const SENDER_REFUSAL_TEXT = new RegExp(
  [
    // block lists and reputation
    String.raw`spamhaus|spamcop|barracudacentral|barracudanetworks\.com/reputation|sorbs|abusix|\bsurbl\b|\brbl\b|dnsbl`,
    "block ?list|black ?list|blocked using|listed (at|on|in|by)|is (on|in) (our|a|the) .*list|ipcheck|dnsbl-lookup",
    String.raw`reputation|sbrs score|senderbase|cloudmark|\(S3150\)|\[BL\d+\]|\[TSS?\d+\]|\(BL\)|AUP#`,
    "banned sending ip|junkmail|unsolicited|spam|virus|content rejected|message filtered|security polic",
    // the client host or IP
    String.raw`client host|your (ip|location|access)|sender ip|mail from ip|from ip|blocked ip|\bip address\b|IP name`,
    String.raw`mail from \d{1,3}\.\d{1,3}|messages from \S+ (temporarily|permanently) deferred|permanently deferred`,
    "frequency limited|rate limited due to|has sent to too many recipients|excessive unknown recipients",
    String.raw`reverse (dns|hostname)|\bptr\b|\brdns\b|cannot find your hostname|ip name lookup failed|may not be mail exchanger`,
    "mismatches client ip|not in whitelist|tls required|host network not allowed|not allowed to connect",
    "not accepting connections|connections? (will not be|not) accepted|connection rejected|service refus",
    "not (yet )?authorized to (send|deliver)|administratively denied|access denied|denied by policy",
    // relaying and authentication
    "relay(ing)? (access )?(denied|not permitted|not allowed|prohibited)|not permitted to relay|unable to relay",
    "authentication (is )?required|authrequired|smtp authentication|unauthenticated|check for new mail before sending",
    // the envelope sender and its domain
    String.raw`\bspf\b|dmarc|dkim|sender (address )?rejected|sender address|mailfrom domain|mail from domain`,
    "purported responsible address|valid sender domain|sender domain",
    // policy refusals
    "polic(y|ies)|not allowed|too many (connections|errors)",
  ].join("|"),
  "i",
);

const RATE_LIMIT_TEXT = /receiving mail (too quickly|at a rate)/i;

/** Wording that names the missing mailbox itself. */
const USER_UNKNOWN_TEXT = new RegExp(
  [
    "user ?unknown|unknown (user|recipient|mailbox|address|local part)|utilisateur inconnu",
    "no such (user|mailbox|recipient|account|address|person)|(user|recipient|mailbox) not found",
    "(does not|doesn.?t|dosn.?t|not|is not) exist|no mailbox|mailbox not found",
    "invalid (recipient|mailbox|address|user|email address)|(recipient|destinataire) invalide?|user invalid",
    "recipient (unknown|not found|invalid)|recipnotfound|recipientnotfound|not a valid (mailbox|recipient|user)",
    "unrouteable address|doesn.?t have an? .*account",
    "no longer (valid|available|on server)|bad destination mailbox|could not be found",
    "not our (user|customer)|not a registered|address is not handled|user not local or invalid",
  ].join("|"),
  "i",
);

/**
 * Wording that only says a recipient was refused. Postfix writes "<addr>: Recipient address
 * rejected: " in front of every recipient refusal (smtpd_check.c), whatever the cause, and RFC 5321's
 * stock 550 text is "mailbox unavailable": after the enhanced codes, never before them.
 */
const GENERIC_REFUSAL_TEXT = /address rejected|recipient rejected|address error|mailbox (is )?unavailable/i;

/**
 * Postfix's refusal when the rule that fired gave no text of its own: "<addr>: Recipient address
 * rejected: Access denied" (check_table_result's default). It says nothing, so the codes decide.
 */
const POSTFIX_DEFAULT_REFUSAL =
  /^\s*(?:<[^>]*>|\[[^\]]*\])?:?\s*recipient address rejected:\s*access denied\.?\s*$/i;

/** Exchange Online Protection's marker of directory-based edge blocking: the recipient is not in the tenant. */
const EOP_DBEB_TEXT = /recipient address rejected: access denied|AS\(201806281\)/i;

const FULL_TEXT =
  /over ?quota|quota exceeded|exceeds? (its |the )?quota|mailbox (is )?full|out of storage|storage (allocation|limit)|too many messages/i;
const DISABLED_TEXT =
  /disabled|deactivated|inactive|suspended|frozen|discontinued|account (has been |is )?(closed|locked|terminated|blocked)|compte du destinataire est bloque/i;
const TOO_MANY_RCPT_TEXT =
  /too many recipients|recipient limit|too many rcpt|separate transaction|multiple destination domains per transaction/i;

/** Order matters: the first matching row decides. */
const REPLY_RULES: readonly Rule[] = [
  // 1. Before RCPT, a refusal is about our connection, never the mailbox.
  { id: "session_ok", scope: "session", codeClass: 2, outcome: "ok" },
  { id: "session_greylisted", scope: "session", codeClass: 4, text: GREYLIST_TEXT, outcome: "greylisted" },
  {
    id: "session_blocked",
    scope: "session",
    codeClass: "any",
    text: SENDER_REFUSAL_TEXT,
    outcome: "blocked",
  },
  { id: "session_temporary", scope: "session", codeClass: 4, outcome: "temporary" },
  { id: "session_refused", scope: "session", codeClass: 5, outcome: "blocked" },
  // 2. Accepted.
  { id: "rcpt_accepted", scope: "rcpt", codeClass: 2, outcome: "deliverable" },
  // 3. Greylisting, whatever the class ("450 ...: Recipient address rejected: Greylisted").
  { id: "rcpt_greylisted", scope: "rcpt", codeClass: "4or5", text: GREYLIST_TEXT, outcome: "greylisted" },
  // Microsoft 365 directory-based edge blocking: "Recipient address rejected: Access denied" with
  // 5.4.1, or EOP's marker AS(201806281) whatever a relay did to the code, means the recipient is
  // not in the tenant (Microsoft's NDR documentation for 5.4.1; ADR 0010).
  {
    id: "rcpt_m365_dbeb",
    scope: "rcpt",
    codeClass: 5,
    enhanced: /^5\.4\.1$/,
    text: new RegExp(`^$|${EOP_DBEB_TEXT.source}`, "i"),
    outcome: "invalid",
  },
  { id: "rcpt_m365_dbeb_marker", scope: "rcpt", codeClass: 5, text: /AS\(201806281\)/i, outcome: "invalid" },
  // Batching refusals ("Domain policy size per transaction exceeded"): not an answer about this
  // address, the session retries it in another transaction.
  {
    id: "rcpt_too_many",
    scope: "rcpt",
    codeClass: "4or5",
    enhanced: /^[45]\.5\.3$/,
    outcome: "too_many_recipients",
  },
  // 4. A refusal of our sender or IP.
  { id: "rcpt_blocked", scope: "rcpt", codeClass: "4or5", text: SENDER_REFUSAL_TEXT, outcome: "blocked" },
  {
    id: "rcpt_sender_code",
    scope: "rcpt",
    codeClass: "4or5",
    enhanced: /^[45]\.1\.[78]$/,
    outcome: "blocked",
  },
  // 5. A per-mailbox rate limit proves the mailbox exists.
  {
    id: "rcpt_rate_limited",
    scope: "rcpt",
    codeClass: "4or5",
    text: RATE_LIMIT_TEXT,
    outcome: "rate_limited",
  },
  {
    id: "rcpt_too_many_text",
    scope: "rcpt",
    codeClass: "4or5",
    text: TOO_MANY_RCPT_TEXT,
    outcome: "too_many_recipients",
  },
  // 6. The mailbox does not exist, whatever the class.
  {
    id: "rcpt_user_unknown_text",
    scope: "rcpt",
    codeClass: "4or5",
    text: USER_UNKNOWN_TEXT,
    outcome: "invalid",
  },
  // 7. Full before disabled: "out of storage space and inactive" is a full mailbox.
  { id: "rcpt_full_text", scope: "rcpt", codeClass: "4or5", text: FULL_TEXT, outcome: "mailbox_full" },
  { id: "rcpt_disabled_text", scope: "rcpt", codeClass: 5, text: DISABLED_TEXT, outcome: "disabled" },
  // 8. Enhanced codes, then reply codes.
  { id: "rcpt_closing", scope: "rcpt", codeClass: 4, codes: [421], outcome: "temporary" },
  { id: "rcpt_full_4xx", scope: "rcpt", codeClass: 4, enhanced: /^4\.2\.2$/, outcome: "mailbox_full" },
  { id: "rcpt_greylisted_code", scope: "rcpt", codeClass: 4, enhanced: /^4\.7\.1$/, outcome: "greylisted" },
  { id: "rcpt_temporary", scope: "rcpt", codeClass: 4, outcome: "temporary" },
  {
    id: "rcpt_bad_mailbox",
    scope: "rcpt",
    codeClass: 5,
    enhanced: /^5\.1\.(0|1|2|3|6|10)$/,
    outcome: "invalid",
  },
  { id: "rcpt_disabled", scope: "rcpt", codeClass: 5, enhanced: /^5\.2\.1$/, outcome: "disabled" },
  { id: "rcpt_full", scope: "rcpt", codeClass: 5, enhanced: /^5\.2\.2$/, outcome: "mailbox_full" },
  // A 5.7.x refusal says nothing about the mailbox unless its text said so above.
  { id: "rcpt_policy", scope: "rcpt", codeClass: 5, enhanced: /^5\.7\.\d+$/, outcome: "blocked" },
  { id: "rcpt_storage_552", scope: "rcpt", codeClass: 5, codes: [552], outcome: "mailbox_full" },
  // 9. Generic refusal wording, once no code said more (a bare "550 Address rejected").
  {
    id: "rcpt_generic_refusal_text",
    scope: "rcpt",
    codeClass: 5,
    text: GENERIC_REFUSAL_TEXT,
    outcome: "invalid",
  },
  // A bare refusal with no recognisable reason: left unknown, never guessed as invalid.
  { id: "rcpt_other_5xx", scope: "rcpt", codeClass: 5, outcome: "unknown" },
  { id: "fallback", scope: "any", codeClass: "any", outcome: "unknown" },
];

function classMatches(rule: Rule, codeClass: number): boolean {
  if (rule.codeClass === "any") return true;
  if (rule.codeClass === "4or5") return codeClass === 4 || codeClass === 5;
  return rule.codeClass === codeClass;
}

export function classifyReply(stage: SmtpStage, reply: ReplyLike): ClassifiedReply {
  const scope: StageScope = stage === "rcpt" ? "rcpt" : "session";
  const codeClass = Math.floor(reply.code / 100);
  const text = POSTFIX_DEFAULT_REFUSAL.test(reply.text) ? "" : reply.text;
  const rule = REPLY_RULES.find(
    (r) =>
      (r.scope === "any" || r.scope === scope) &&
      classMatches(r, codeClass) &&
      (!r.codes || r.codes.includes(reply.code)) &&
      (!r.enhanced || (reply.enhanced !== undefined && r.enhanced.test(reply.enhanced))) &&
      (!r.text || r.text.test(text)),
  )!;
  const result: ClassifiedReply = { outcome: rule.outcome, rule: rule.id };
  if (rule.outcome === "greylisted")
    result.retryAfterMs = parseRetryAfterMs(reply.text) ?? DEFAULT_GREYLIST_RETRY_MS;
  else if (rule.outcome === "temporary" || rule.outcome === "rate_limited")
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
