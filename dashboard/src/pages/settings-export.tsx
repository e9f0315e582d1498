// The account export: requested here, built by a background job (followed until ready), then a
// download link that works for 24 hours (its token is the credential, shown only to the requester).
import { useEffect, useState } from "react";
import type { AccountExport, AccountExportStarted } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { ErrorMessage, formatDate, formatNumber } from "../components/ui.js";

const POLL_MS = 1000;

export function AccountExportPanel() {
  const { client, guard } = useApi();
  const [started, setStarted] = useState<AccountExportStarted | null>(null);
  const [state, setState] = useState<AccountExport | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!started || state?.status === "ready" || state?.status === "failed") return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      guard(
        client.privacy.exportStatus(started.export_id, { signal: controller.signal }),
        controller.signal,
      ).then(setState, (e) => !controller.signal.aborted && setError(e));
    }, POLL_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [started, state, client, guard]);

  const request = async () => {
    setBusy(true);
    setError(null);
    setState(null);
    try {
      const answer = await guard(client.privacy.startExport());
      setStarted(answer);
      setState(answer);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const pending = state?.status === "pending";
  return (
    <section className="panel" aria-labelledby="export-title">
      <h2 id="export-title">Export everything</h2>
      <p className="muted">
        One gzipped JSON Lines file with everything this account holds: leads, batches, checks, events,
        webhooks (without secrets), deliveries, keys (without hashes), the credit ledger, the audit log and
        settings. Requesting it is recorded in the audit log.
      </p>
      <button type="button" onClick={request} disabled={busy || pending} data-testid="export-request">
        {pending ? "Building…" : "Request an export"}
      </button>
      <ErrorMessage error={error} title="No export." />
      {state ? (
        <p role="status" data-testid="export-status">
          {state.status === "pending" ? "Building the archive…" : null}
          {state.status === "failed" ? `The export failed: ${state.error ?? "unknown error"}` : null}
          {state.status === "ready" && started ? (
            <>
              Ready ({formatNumber(state.size_bytes)} bytes).{" "}
              <a href={started.download_url} download data-testid="export-download">
                Download the archive
              </a>{" "}
              — the link works until {formatDate(state.expires_at)}.
            </>
          ) : null}
        </p>
      ) : null}
    </section>
  );
}
