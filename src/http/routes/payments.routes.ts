// Buying credits: the purchase settings, a Stripe Checkout Session for an amount, and Stripe's
// webhook (verified over the raw body, so that scope reads JSON as bytes, not parsed).
import { Type } from "@sinclair/typebox";
import type { Config } from "../../config/config.js";
import { fail, invalid } from "../../lib/errors.js";
import { Checkout, PaymentSettings, WebhookAck } from "../../payments/payments.schemas.js";
import type { PaymentsService, WebhookOutcome } from "../../payments/payments.service.js";
import type { App } from "../app-types.js";
import { principalOf } from "../auth.js";
import { AppError } from "../errors.js";
import { DATA_SECURITY, NO_SECURITY } from "../schemas.js";

function notConfigured(): AppError {
  return new AppError(
    "NOT_FOUND",
    "Buying credits is not configured on this server (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET); an operator grants credits with `leadcheck credits grant` or the admin API",
  );
}

/** What these routes use (the app hands each route file only its own deps). */
export interface PaymentsRoutesDeps {
  config: Readonly<Config>;
  payments: PaymentsService;
}

export async function paymentsRoutes(app: App, deps: PaymentsRoutesDeps): Promise<void> {
  const common = { tags: ["credits"], security: DATA_SECURITY };

  app.get(
    "/v1/payments/settings",
    {
      config: { auth: "data", permission: "credits:read" },
      schema: {
        ...common,
        operationId: "getPaymentSettings",
        summary: "Whether credits can be bought here, in which currency, and the price",
        description:
          "Whether this server sells credits (Stripe keys configured), in which currency, the smallest and largest purchase and how many credits one currency unit buys.",
        response: { 200: PaymentSettings },
      },
    },
    async () => deps.payments.settings(),
  );

  app.post(
    "/v1/payments/checkout",
    {
      config: { auth: "data", permission: "billing:write", liveOnly: true },
      schema: {
        ...common,
        operationId: "createCheckout",
        summary:
          "Start buying credits: a Stripe Checkout Session for an amount (1 currency unit = 1,000 checks)",
        description:
          "Creates a Stripe Checkout Session for a whole number of currency units and records it; send the buyer to the returned URL. Credits are granted when Stripe reports the session paid.",
        body: Type.Object({
          amount: Type.Integer({
            minimum: 1,
            description: "Whole currency units (see /v1/payments/settings)",
          }),
        }),
        response: { 201: Checkout },
      },
    },
    async (request, reply) => {
      const origin = deps.config.payments.publicUrl ?? `${request.protocol}://${request.host}`;
      const outcome = await deps.payments.startCheckout(
        principalOf(request).accountId,
        request.body.amount,
        `${origin}/dashboard/credits`,
      );
      switch (outcome.kind) {
        case "not_configured":
          throw notConfigured();
        case "amount_out_of_range":
          throw invalid([
            {
              field: "amount",
              message: `must be a whole number from ${outcome.minimum} to ${outcome.maximum}`,
              type: "range",
            },
          ]);
        case "provider_error":
          throw fail({
            kind: "unavailable",
            message: `The payment provider did not answer: ${outcome.message}`,
          });
        case "created":
          reply.code(201);
          return {
            id: outcome.id,
            url: outcome.url,
            amount: outcome.amount,
            currency: outcome.currency,
            credits: outcome.milliCredits / 1000,
            displayCredits: outcome.milliCredits,
          };
      }
    },
  );

  // Stripe signs the exact bytes it sent: this scope keeps JSON bodies as a Buffer.
  await app.register(async (scope) => {
    scope.removeContentTypeParser("application/json");
    scope.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      "/v1/payments/stripe/webhook",
      {
        config: { permission: "none" },
        schema: {
          tags: ["credits"],
          operationId: "stripeWebhook",
          summary: "Stripe webhook endpoint (checkout.session.completed grants the credits once)",
          description:
            "Called by Stripe, not by clients. The Stripe-Signature header is verified over the raw body with STRIPE_WEBHOOK_SECRET; a bad or missing signature is 400. The event only names a session: leadcheck retrieves it from Stripe, checks it against the session it recorded at checkout (account, amount, currency, paid) and grants what it sold, never what the event's metadata says. Replays (same event id) and a second payment event for the same session grant nothing. 503 when Stripe cannot be asked (Stripe redelivers).",
          security: NO_SECURITY,
          response: { 200: WebhookAck },
        },
      },
      async (request) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.from("");
        const signature = request.headers["stripe-signature"];
        const outcome = await deps.payments.handleWebhook(
          body,
          typeof signature === "string" ? signature : undefined,
        );
        return acknowledge(outcome, request.log);
      },
    );
  });
}

type WebhookLog = { info(o: object, m: string): void; warn(o: object, m: string): void };

// Every verified event is answered 2xx, as Stripe advises, so it is not redelivered for days; what
// looks forged is refused (nothing granted) and logged as a warning for an operator to look into.
function acknowledge(outcome: WebhookOutcome, log: WebhookLog) {
  switch (outcome.kind) {
    case "not_configured":
      throw notConfigured();
    case "invalid_signature":
      throw new AppError("BAD_REQUEST", `Stripe signature verification failed: ${outcome.message}`);
    case "provider_unavailable":
      // 5xx: Stripe redelivers the event later, when the session can be checked.
      throw fail({ kind: "unavailable", message: `Stripe did not answer: ${outcome.message}` });
    case "unknown_session":
      log.warn(
        { eventId: outcome.eventId, sessionId: outcome.sessionId, claims: outcome.claims },
        "stripe event for a checkout session leadcheck never created: nothing granted",
      );
      return { received: true, result: outcome.kind };
    case "refused":
      log.warn(
        { eventId: outcome.eventId, sessionId: outcome.sessionId, reason: outcome.reason },
        "stripe event refused: the session disagrees with what leadcheck sold, nothing granted",
      );
      return { received: true, result: outcome.kind };
    case "granted":
    case "already_granted":
    case "awaiting_payment":
      if (outcome.mismatches.length > 0) {
        log.warn(
          { eventId: outcome.eventId, sessionId: outcome.sessionId, mismatches: outcome.mismatches },
          "stripe event metadata disagrees with the recorded session: ignored, the record decides",
        );
      }
      if (outcome.kind === "granted") {
        log.info(
          { sessionId: outcome.sessionId, paymentId: outcome.paymentId, accountId: outcome.accountId },
          "credits purchased",
        );
      }
      return { received: true, result: outcome.kind };
    default:
      return { received: true, result: outcome.kind };
  }
}
