import { Type } from "@sinclair/typebox";
import { shortWebsiteResult } from "../../batches/batches.schemas.js";
import { EMAIL_VALID_DOC, EmailReasonSchema } from "../../checks/email/email.schemas.js";
import { parseEmail } from "../../checks/email/syntax.js";
import { VERDICT_DOC } from "../../checks/vocabulary.js";
import type { WebsiteNormalizer } from "../../checks/website/website.types.js";
import type { Config } from "../../config/config.js";
import { toStoredCredits } from "../../credits/credits.service.js";
import { isTestSpace } from "../../lib/data-space.js";
import type { EmailChecksService } from "../../paid-checks/email-checks.service.js";
import type { WebsiteChecksService } from "../../paid-checks/website-checks.service.js";
import type { WebhooksService } from "../../webhooks/webhooks.service.js";
import type { App } from "../app-types.js";
import { principalOf } from "../auth.js";
import { type NetworkRefusalDeps, refuseWhenDnsDown } from "../network-refusal.js";
import { DATA_SECURITY, Nullable, Timestamp } from "../schemas.js";

const LIVEMODE_DOC =
  "false: a test-mode key's scripted answer from its magic input, made without network and not charged (docs/test-mode.md); true otherwise.";

const WebsiteResult = Type.Object(
  {
    website: Type.String(),
    status: Type.String({ description: "active, inactive or error" }),
    valid: Type.Boolean(),
    httpStatus: Nullable(Type.Integer()),
    finalUrl: Type.String(),
    sslValid: Nullable(
      Type.Boolean({
        description:
          "true: the final URL is https and its certificate verified. false: a server answered but offers no working HTTPS (http only, or a certificate problem; see details.tls). null: no server was reached at all (DNS failure, every connection refused, unreachable or timed out), so TLS is unknown, not invalid.",
      }),
    ),
    isParked: Nullable(
      Type.Boolean({
        description:
          "true: parked, for sale or a placeholder page (details.parked.kind is `parked` or `placeholder`, details.parked.evidence says why). false: a page was received and judged not parked. null: no HTTP response arrived, or its page never did, so no page was judged.",
      }),
    ),
    responseTimeMs: Type.Number({
      description:
        "Milliseconds of the whole check, every attempt included, each exchange measured to the end of its page. When bodyComplete is false it is the time until the check stopped waiting: a lower bound.",
    }),
    bodyComplete: Type.Optional(
      Nullable(
        Type.Boolean({
          description:
            "true: the page arrived whole. false: the server stopped sending or the attempt's timeout ran out before the page ended (details.body.cut); the site still counts as active when some of the page arrived. null: no page was received.",
        }),
      ),
    ),
    redirectChain: Type.Array(Type.String()),
    error: Nullable(Type.String()),
    creditsDeducted: Type.Number({ description: "Stored credits charged (0.001 = 1 display credit)" }),
    creditsRemaining: Type.Number({ description: "Balance after the charge, stored credits" }),
    livemode: Type.Optional(Type.Boolean({ description: LIVEMODE_DOC })),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

const EmailResult = Type.Object({
  email: Type.String(),
  status: Type.String({
    description: `The email verdict, or \`processing\` while an asynchronous check runs: ${VERDICT_DOC}`,
  }),
  valid: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: EMAIL_VALID_DOC })),
  reason: Type.Optional(EmailReasonSchema),
  catchAll: Type.Optional(Type.Boolean()),
  disposable: Type.Optional(Type.Boolean()),
  service: Type.Optional(Type.String()),
  domain: Type.Optional(Type.String()),
  emailType: Type.Optional(Type.String()),
  emailRisk: Type.Optional(Type.String()),
  emailScore: Type.Optional(Type.Integer()),
  didYouMean: Type.Optional(
    Nullable(Type.String({ description: "The address with its domain corrected when it looks mistyped" })),
  ),
  waitTime: Type.String(),
  creditsDeducted: Type.Number({ description: "Stored credits charged (0.001 = 1 display credit)" }),
  creditsRemaining: Type.Number({ description: "Balance after the charge, stored credits" }),
  livemode: Type.Optional(Type.Boolean({ description: LIVEMODE_DOC })),
  jobId: Type.Optional(Type.String()),
  pollUrl: Type.Optional(Type.String()),
  estimatedCompletion: Type.Optional(Timestamp),
  message: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  details: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

/** 503 SERVICE_UNAVAILABLE: the resolvers are distrusted (GET /v1/status); nothing was charged. */
const NETWORK_DOWN = { $ref: "ErrorResponse#" };

const JobView = Type.Object({
  jobId: Type.String(),
  type: Type.String(),
  input: Type.String(),
  status: Type.String({ description: "processing, completed, failed or timeout" }),
  result: Type.Optional(Type.Object({}, { additionalProperties: true })),
  error: Type.Optional(Type.String()),
  createdAt: Timestamp,
  completedAt: Nullable(Timestamp),
  elapsedTime: Type.String(),
});

/** What these routes use (the app hands each route file only its own deps). */
export interface ChecksRoutesDeps extends NetworkRefusalDeps {
  config: Readonly<Config>;
  emailChecks: EmailChecksService;
  normalizeWebsite: WebsiteNormalizer;
  webhooks: WebhooksService;
  websiteChecks: WebsiteChecksService;
}

export async function checksRoutes(app: App, deps: ChecksRoutesDeps): Promise<void> {
  const common = { tags: ["validation"], security: DATA_SECURITY };
  const config = { auth: "data" as const };

  async function checkWebsite(accountId: string, input: string, returnDetails: boolean) {
    // Bad input stays a 422: only a check that would otherwise start is refused.
    if (deps.normalizeWebsite(input).ok) refuseWhenDnsDown(deps, "website check", accountId);
    const outcome = await deps.websiteChecks.check(accountId, input);
    const body = returnDetails ? outcome.result : shortWebsiteResult(outcome.result);
    return {
      ...body,
      creditsDeducted: toStoredCredits(outcome.chargedMilli),
      creditsRemaining: toStoredCredits(outcome.balanceMilli),
      livemode: !isTestSpace(accountId),
    };
  }

  app.post(
    "/v1/check-website",
    {
      config: { ...config, permission: "checks:write" },
      schema: {
        ...common,
        operationId: "checkWebsite",
        summary:
          "Check a website: reachability, redirects, TLS, parked domain, timings (synchronous, up to ~30 s)",
        description:
          "Fetches the website and reports reachability, HTTP status, redirects, TLS validity, parked-domain evidence and timings. Charged per check.",
        body: Type.Object({
          website: Type.String({ minLength: 1, maxLength: 255 }),
          returnDetails: Type.Optional(Type.Boolean({ default: true })),
        }),
        response: { 200: WebsiteResult, 503: NETWORK_DOWN },
      },
    },
    async (request) =>
      checkWebsite(
        principalOf(request).accountId,
        request.body.website,
        request.body.returnDetails !== false,
      ),
  );

  app.post(
    "/v1/check",
    {
      config: { ...config, permission: "checks:write" },
      schema: {
        ...common,
        operationId: "checkDomain",
        summary: "Website check by domain (same as /v1/check-website)",
        description:
          "The website check of POST /v1/check-website under the name the overview uses, taking a domain. Charged per check.",
        body: Type.Object({
          domain: Type.String({ minLength: 1, maxLength: 255 }),
          returnDetails: Type.Optional(Type.Boolean({ default: true })),
        }),
        response: { 200: WebsiteResult, 503: NETWORK_DOWN },
      },
    },
    async (request) =>
      checkWebsite(principalOf(request).accountId, request.body.domain, request.body.returnDetails !== false),
  );

  app.post(
    "/v1/check-email",
    {
      config: { ...config, permission: "checks:write" },
      schema: {
        ...common,
        operationId: "checkEmail",
        summary:
          "Verify an email by SMTP (no mail sent); waits up to `timeout` s, else returns a job to poll",
        description:
          "Checks syntax, the domain's mail servers and the mailbox over SMTP without sending mail. Answers with the verdict when it is ready within the timeout; otherwise with status processing, a jobId and the pollUrl of the validation job.",
        body: Type.Object({
          email: Type.String({ minLength: 1, maxLength: 320 }),
          timeout: Type.Optional(Type.Number({ minimum: 5, maximum: 60, default: 30 })),
          returnDetails: Type.Optional(Type.Boolean({ default: true })),
          webhookUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
        }),
        response: { 200: EmailResult, 503: NETWORK_DOWN },
      },
    },
    async (request) => {
      const { accountId } = principalOf(request);
      const started = Date.now();
      const webhookUrl =
        request.body.webhookUrl === undefined
          ? null
          : await deps.webhooks.assertCallbackUrl(request.body.webhookUrl);
      if (parseEmail(request.body.email).ok)
        refuseWhenDnsDown(deps, "email check", principalOf(request).accountId);
      const out = await deps.emailChecks.check(
        accountId,
        request.body.email,
        request.body.timeout ?? 30,
        webhookUrl,
      );
      const livemode = !isTestSpace(accountId);
      const credits = {
        creditsDeducted: toStoredCredits(livemode ? deps.config.prices.emailCheck : 0),
        creditsRemaining: toStoredCredits(out.balanceMilli),
        livemode,
      };
      const waitTime = `${((Date.now() - started) / 1000).toFixed(1)}s`;
      if (out.kind === "completed") {
        const v = out.verdict;
        return {
          email: v.email,
          status: v.status,
          valid: v.valid,
          reason: v.reason,
          catchAll: v.catchAll,
          disposable: v.disposable,
          service: v.service,
          domain: v.domain,
          emailType: v.emailType,
          emailRisk: v.emailRisk,
          emailScore: v.emailScore,
          didYouMean: v.didYouMean ?? null,
          waitTime,
          ...credits,
          ...(request.body.returnDetails === false
            ? {}
            : { details: { reason: v.reason, free: v.free, role: v.role, ...v.details } }),
        };
      }
      if (out.kind === "processing") {
        return {
          email: out.job.input,
          status: "processing",
          waitTime,
          ...credits,
          jobId: out.job.id,
          pollUrl: `/v1/validation-jobs/${out.job.id}`,
          estimatedCompletion: new Date(Date.now() + 60_000).toISOString(),
          message: "Verification is still running; poll pollUrl for the result",
        };
      }
      return {
        email: out.job.input,
        status: "unknown",
        waitTime,
        ...credits,
        jobId: out.job.id,
        error: out.job.error ?? out.job.status,
        message: `Verification ended with status ${out.job.status}`,
      };
    },
  );

  app.get(
    "/v1/validation-jobs/:jobId",
    {
      config: { ...config, permission: "checks:write" },
      schema: {
        ...common,
        operationId: "getValidationJob",
        summary: "A validation job (kept 24 hours)",
        description:
          "The state of an email or website check started earlier, with its result once completed. Jobs are kept 24 hours.",
        params: Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: JobView },
      },
    },
    async (request) => deps.emailChecks.getJob(principalOf(request).accountId, request.params.jobId),
  );
}
