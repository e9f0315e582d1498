// The chain's verification: the server recomputes every entry's hash and link and names the first
// entry that fails (an edited, reordered or removed row).
import { useState } from "react";
import type { AuditVerification } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { ErrorMessage, formatNumber } from "../components/ui.js";

export function ChainCheck() {
  const { client, guard } = useApi();
  const [result, setResult] = useState<AuditVerification | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const verify = async () => {
    setBusy(true);
    setError(null);
    try {
      setResult(await guard(client.audit.verify()));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="panel" data-testid="chain-check">
      <button type="button" onClick={verify} disabled={busy} data-testid="verify-chain">
        {busy ? "Verifying…" : "Verify the chain"}
      </button>
      <ErrorMessage error={error} />
      {result ? (
        <p role="status" className={result.valid ? "ok" : "alert"} data-testid="chain-result">
          {result.valid ? (
            <>
              <strong>The chain holds.</strong> {formatNumber(result.checked)} entries recomputed, up to #
              {result.head_seq}.
            </>
          ) : (
            <>
              <strong>The chain is broken</strong> at entry #{result.first_broken?.seq}
              {result.first_broken?.id ? (
                <>
                  {" "}
                  (<code>{result.first_broken.id}</code>)
                </>
              ) : null}
              : {result.first_broken?.reason}. {formatNumber(result.checked)} entries checked.
            </>
          )}
        </p>
      ) : null}
    </div>
  );
}
