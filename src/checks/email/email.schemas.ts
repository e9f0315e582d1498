// Wire shapes shared by every surface that shows an email verdict (check-email, validation jobs,
// leads, batch items): the closed reason list, documented per reason, and the nullable `valid`.
import { Type } from "@sinclair/typebox";
import { REASON_DOC } from "../vocabulary.js";
import { EMAIL_REASONS } from "./email.types.js";

/** Each reason with its label and meaning, from the one vocabulary table (src/checks/vocabulary.ts). */
export const EMAIL_REASON_DOC = REASON_DOC;

export const EmailReasonSchema = Type.Union(
  EMAIL_REASONS.map((r) => Type.Literal(r)),
  { description: `Why the email verdict is what it is, from a closed list:\n${EMAIL_REASON_DOC}` },
);

export const EMAIL_VALID_DOC =
  "true when the mailbox accepted the address (catch-all or not) or proved it exists; false when the verdict is invalid or the mailbox is full; null when the verdict is unknown (never false for a fact the check did not reach).";
