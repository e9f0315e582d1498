// Wire shapes of buying credits: the purchase settings, a Checkout Session, the webhook answer.
import { Type } from "@sinclair/typebox";
export const PaymentSettings = Type.Object({
  enabled: Type.Boolean({
    description: "false: no STRIPE_SECRET_KEY/STRIPE_WEBHOOK_SECRET; an operator grants credits",
  }),
  provider: Type.Union([Type.Literal("stripe"), Type.Null()]),
  currency: Type.String({ description: "ISO 4217 code, lower case" }),
  minimumAmount: Type.Integer({ description: "Smallest purchase, whole currency units" }),
  maximumAmount: Type.Integer({ description: "Largest purchase, whole currency units" }),
  displayCreditsPerUnit: Type.Integer({
    description: "Display credits (1 per check) one currency unit buys: 1000 (= 1 stored credit)",
  }),
});

export const Checkout = Type.Object({
  id: Type.String({ description: "Stripe Checkout Session id" }),
  url: Type.String({ description: "Stripe-hosted payment page: send the buyer here" }),
  amount: Type.Integer({ description: "Whole currency units" }),
  currency: Type.String(),
  credits: Type.Number({ description: "Stored credits the payment grants (amount x 1)" }),
  displayCredits: Type.Integer({ description: "Display credits the payment grants (amount x 1000)" }),
});

export const WebhookAck = Type.Object({
  received: Type.Boolean(),
  result: Type.String({
    description:
      "granted, already_granted (session paid out before), duplicate_event, awaiting_payment, ignored (event type not acted on), unknown_session (not created by leadcheck: nothing granted) or refused (the session at Stripe disagrees with what leadcheck sold: nothing granted)",
  }),
});
