// A mistyped domain fixed in one click: "Did you mean jane@gmail.com?" → confirm → PUT the lead's
// email to the suggestion (free, never validates) → offer to validate the corrected address.
import { useState } from "react";
import type { Lead } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { PRICES } from "../pricing.js";
import { Breakable } from "./breakable.js";
import { ConfirmDialog, ErrorMessage, plural } from "./ui.js";

type Step = "idle" | "confirming" | "saving" | "fixed" | "validating" | "validated";

export function DidYouMeanFix({
  lead,
  onChanged,
  compact,
}: {
  lead: Pick<Lead, "id" | "email" | "didYouMean">;
  /** After each change; with the outcome in words once validated (a list may drop the row when the
   *  lead leaves its filter, so it shows the words elsewhere). */
  onChanged(outcome?: string): void;
  /** In a list row: a short line instead of a panel. */
  compact?: boolean;
}) {
  const { client, guard } = useApi();
  const [step, setStep] = useState<Step>("idle");
  const [fixedTo, setFixedTo] = useState("");
  const [error, setError] = useState<unknown>(null);
  const suggestion = lead.didYouMean;
  const stale = !suggestion || suggestion.toLowerCase() === lead.email.toLowerCase();
  if (stale && step === "idle") return null;

  const apply = async () => {
    if (!suggestion) return;
    setStep("saving");
    setError(null);
    try {
      await guard(client.leads.update(lead.id, { email: suggestion }));
      setFixedTo(suggestion);
      setStep("fixed");
      onChanged();
    } catch (e) {
      setError(e);
      setStep("idle");
    }
  };
  const validate = async () => {
    setStep("validating");
    setError(null);
    try {
      const started = await guard(client.leads.validate([lead.id]));
      onChanged();
      await guard(client.waitForBatch(started.batchId, { intervalMs: 1000, timeoutMs: 10 * 60_000 }));
      setStep("validated");
      onChanged(`Email changed to ${fixedTo} and validated.`);
    } catch (e) {
      setError(e);
      setStep("fixed");
    }
  };

  return (
    <div className={compact ? "did-you-mean compact" : "info did-you-mean"} data-testid="did-you-mean">
      {step === "idle" || step === "confirming" || step === "saving" ? (
        <>
          Did you mean{" "}
          <strong>
            <Breakable text={suggestion ?? ""} />
          </strong>
          ?{" "}
          <button
            type="button"
            onClick={() => setStep("confirming")}
            disabled={step === "saving"}
            data-testid="apply-did-you-mean"
            aria-label={`Change the email to ${suggestion}`}
          >
            {step === "saving" ? "Saving…" : "Use it"}
          </button>
        </>
      ) : step === "validated" ? (
        <span role="status">
          Email changed to <Breakable text={fixedTo} /> and validated.
        </span>
      ) : (
        <span role="status">
          Email changed to <Breakable text={fixedTo} />.{" "}
          <button
            type="button"
            onClick={validate}
            disabled={step === "validating"}
            data-testid="validate-fixed"
          >
            {step === "validating"
              ? "Validating…"
              : `Validate it now (${plural(PRICES.leadValidation, "credit")})`}
          </button>
        </span>
      )}
      <ErrorMessage error={error} title="Not changed." />
      <ConfirmDialog
        open={step === "confirming"}
        title="Change the email?"
        confirmLabel="Change email"
        onCancel={() => setStep("idle")}
        onConfirm={apply}
      >
        <p>
          <Breakable text={lead.email} /> becomes{" "}
          <strong>
            <Breakable text={suggestion ?? ""} />
          </strong>
          . Saving charges nothing; the rating stays the old address's until you validate again.
        </p>
      </ConfirmDialog>
    </div>
  );
}
