// "Erase" on a lead: a confirmation that says what goes (and that it cannot be undone), then the
// erasure; the leads list afterwards says what was removed.
import { useState } from "react";
import type { Lead } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { ConfirmDialog, ErrorMessage } from "../components/ui.js";
import { navigate } from "../router.js";
import { ERASURE_REACH } from "./settings-erase.js";

export function LeadErase({ lead, disabled }: { lead: Lead; disabled: boolean }) {
  const { client, guard } = useApi();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const erase = async () => {
    setConfirming(false);
    setBusy(true);
    setError(null);
    try {
      await guard(client.privacy.eraseLead(lead.id));
      navigate(`/leads?erased=${encodeURIComponent(lead.id)}`);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        className="danger"
        onClick={() => setConfirming(true)}
        disabled={disabled || busy}
        data-testid="lead-erase"
      >
        {busy ? "Erasing…" : "Erase"}
      </button>
      <ErrorMessage error={error} title="Not erased." />
      <ConfirmDialog
        open={confirming}
        title="Erase this person?"
        confirmLabel="Erase for good"
        onCancel={() => setConfirming(false)}
        onConfirm={erase}
      >
        <p>
          Everything leadcheck holds about <strong>{lead.email}</strong> in this account is removed:{" "}
          {ERASURE_REACH}. Only a keyed hash of the address stays, so it can be refused if imported again.
        </p>
        <p>
          <strong>This cannot be undone.</strong> To keep the lead but hide it, archive it instead.
        </p>
      </ConfirmDialog>
    </>
  );
}
