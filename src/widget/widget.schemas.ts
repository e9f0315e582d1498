// Wire shapes of the widget endpoints: the visitor-facing verdict with its token, and the
// confirmation the form's backend reads.
import { Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "../lib/schema.js";
export const KeyQuery = Type.Object({
  key: Type.Optional(Type.String({ maxLength: 100, description: "The publishable key (pk_...)" })),
});

/** POST /v1/widget/check-email's body. */
export const CheckEmailBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  captchaToken: Type.Optional(
    Type.String({
      maxLength: 4096,
      description: "Turnstile or hCaptcha response, when the key requires one",
    }),
  ),
});

const VerdictFields = {
  status: Type.String({ description: "valid, invalid, risky or unknown (never blocks: fail open)" }),
  reason: Type.String({
    description:
      "The email check's reason, or: typo (a known look-alike domain), deadline (not settled in time; the probe goes on), unavailable (not checked: fail open), not_scripted (test mode).",
  }),
  didYouMean: Nullable(Type.String()),
  disposable: Nullable(Type.Boolean()),
  role: Nullable(Type.Boolean()),
  free: Nullable(Type.Boolean()),
};

export const WidgetAnswer = Type.Object(
  {
    ...VerdictFields,
    token: Type.String({
      description:
        "Signed, 15 minutes, bound to the address and key: the form's backend confirms it with POST /v1/widget/confirm",
    }),
  },
  { additionalProperties: false },
);

export const Confirmation = Type.Object(
  {
    email: Type.String(),
    keyId: Type.String(),
    checkedAt: Timestamp,
    fresh: Type.Boolean({ description: "true: the visitor saw unknown and this verdict was looked up now" }),
    ...VerdictFields,
  },
  { additionalProperties: false },
);

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Day = Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "UTC day, YYYY-MM-DD" });

export const StatsQuery = Type.Object({
  keyId: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        "One publishable key (key_...); without it, every key of the data space the caller acts on",
    }),
  ),
  days: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 90, default: 30, description: "UTC days up to today" }),
  ),
});

export const WidgetStatsReport = Type.Object(
  {
    from: Day,
    to: Day,
    keyId: Nullable(Type.String()),
    livemode: Type.Boolean({ description: "false: test-mode keys' counts (the test data space)" }),
    days: Type.Array(
      Type.Object({
        date: Day,
        checks: Count("Checks answered"),
        flagged: Count("Answers the script warns or blocks on (any reason)"),
        capHits: Count("Requests refused by an abuse limit, the origin check or the CAPTCHA"),
      }),
      { description: "Every day of the window, zeros included, oldest first" },
    ),
    totals: Type.Object({
      checks: Count("Checks answered"),
      charged: Count("Addresses charged (once per address, key and UTC day)"),
      unknown: Count("Answered unknown: deadline, unavailable or not scripted (fail open)"),
      unpaid: Count("Not checked because the balance was short (answered unknown: fail open)"),
    }),
    flagged: Type.Object(
      {
        typo: Count("A look-alike of a popular mail domain: a one-click fix was offered"),
        disposable: Count("A disposable address"),
        invalid: Count("Undeliverable or malformed"),
        role: Count("A role address (info@, sales@)"),
      },
      {
        description:
          "Answers by the reason /widget.js warns about (one reason each, in the script's order); a form blocks those its data-block names",
      },
    ),
    capHits: Type.Object({
      perIpPerMinute: Count("429: checks a minute per visitor IP"),
      perEmailPerMinute: Count("429: checks a minute per address"),
      distinctEmailsPerIpPerDay: Count("429: distinct addresses a day per visitor IP"),
      dailyCap: Count("429: charged addresses a day for the key"),
      origin: Count("403 ORIGIN_NOT_ALLOWED: a forged, missing or other origin (preflights included)"),
      captcha: Count("403: the CAPTCHA token was missing or did not verify"),
    }),
  },
  { additionalProperties: false },
);
