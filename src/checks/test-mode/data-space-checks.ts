// The checks as a data space sees them (ADR 0051): a test space's checks are answered by the
// scripted engines, which open no socket; every other account's go to the live engines. Callers
// name the account in the options (`accountId`), so a test account's work can never reach the
// network through them, whichever path (check, lead validation, batch, job) it takes.
import { isTestSpace } from "../../lib/data-space.js";
import type { EmailVerdict, EmailVerificationProvider, VerifyOptions } from "../email/email.types.js";
import type { WebsiteCheckResult } from "../website/website.types.js";

export class DataSpaceEmail implements EmailVerificationProvider {
  constructor(private readonly deps: { live: EmailVerificationProvider; test: EmailVerificationProvider }) {}

  verify(email: string, options?: VerifyOptions): Promise<EmailVerdict> {
    return this.pick(options).verify(email, options);
  }

  verifyMany(emails: readonly string[], options?: VerifyOptions): Promise<EmailVerdict[]> {
    return this.pick(options).verifyMany(emails, options);
  }

  close(): Promise<void> {
    return this.deps.live.close();
  }

  private pick(options: VerifyOptions | undefined): EmailVerificationProvider {
    return isTestSpace(options?.accountId) ? this.deps.test : this.deps.live;
  }
}

export interface WebsiteCheckOptions {
  signal?: AbortSignal;
  /** The data space the check is for: a test space's checks are scripted. */
  accountId?: string;
}

interface WebsiteCheck {
  check(input: string, options?: { signal?: AbortSignal }): Promise<WebsiteCheckResult>;
}

export class DataSpaceWebsite {
  constructor(private readonly deps: { live: WebsiteCheck; test: WebsiteCheck }) {}

  check(input: string, options: WebsiteCheckOptions = {}): Promise<WebsiteCheckResult> {
    const { accountId, ...rest } = options;
    return (isTestSpace(accountId) ? this.deps.test : this.deps.live).check(input, rest);
  }
}
