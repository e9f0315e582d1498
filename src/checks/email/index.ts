// The email check's public surface, for routes, jobs and lead validation.

export type {
  EmailReason,
  EmailRisk,
  EmailStatus,
  EmailType,
  EmailVerdict,
  EmailVerdictDetails,
  EmailVerificationProvider,
  ScoreFactor,
  SmtpDetails,
} from "./email.types.js";
export { EmailEngine, type EmailEngineOptions } from "./email-engine.js";
export { EMAIL_JOB_LIMIT_MS, nextRetryDelayMs, retrySchedule } from "./retry-schedule.js";
export { type EmailSyntaxReason, type ParsedEmail, parseEmail } from "./syntax.js";
