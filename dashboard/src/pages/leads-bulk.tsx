// Actions on the selected leads (validate, tag, archive after a confirmation, export) and the
// progress of a bulk validation: its batch polled through the SDK, with a link to the batch page.
import { useEffect, useRef, useState } from "react";
import type { Batch } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import {
  ConfirmDialog,
  download,
  ErrorMessage,
  formatNumber,
  ProgressBar,
  plural,
} from "../components/ui.js";
import { useCan } from "../me.js";
import { PRICES } from "../pricing.js";
import { Link } from "../router.js";

const today = () => new Date().toISOString().slice(0, 10);

export interface StartedValidation {
  batchId: string;
  total: number;
}

/** Actions on the selected leads: validate, tag, archive (after a confirmation), export. */
export function BulkBar({
  ids,
  onDone,
  onValidating,
}: {
  ids: string[];
  onDone(clearSelection: boolean, message: string): void;
  onValidating(started: StartedValidation): void;
}) {
  const { client, guard } = useApi();
  const can = useCan();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState("");
  const [tag, setTag] = useState("");
  const [confirming, setConfirming] = useState<"archive" | "validate" | null>(null);

  const run = async (what: () => Promise<string>, clear: boolean) => {
    setBusy(true);
    setError(null);
    setMessage("");
    try {
      const done = await what();
      setMessage(done);
      onDone(clear, done);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const count = plural(ids.length, "lead");

  return (
    <section className="bulk-bar" aria-label="Actions on the selected leads" data-testid="bulk-bar">
      <strong data-testid="selected-count">{count} selected</strong>
      <div className="actions">
        {can("batches:write") ? (
          <button
            type="button"
            disabled={busy}
            onClick={() => setConfirming("validate")}
            data-testid="bulk-validate"
          >
            Validate
          </button>
        ) : null}
        <form
          hidden={!can("leads:write")}
          className="tag-form"
          onSubmit={(e) => {
            e.preventDefault();
            const value = tag.trim();
            if (value)
              run(async () => {
                const r = await guard(client.leads.tag(ids, { add: [value] }));
                setTag("");
                return `Tagged ${plural(r.updated, "lead")} "${value}".`;
              }, false);
          }}
        >
          <label>
            <span className="visually-hidden">Tag</span>
            <input
              value={tag}
              onChange={(e) => setTag(e.target.value)}
              placeholder="Tag"
              maxLength={100}
              size={12}
              data-testid="bulk-tag-input"
            />
          </label>
          <button type="submit" disabled={busy || tag.trim() === ""} data-testid="bulk-tag">
            Add tag
          </button>
          <button
            type="button"
            disabled={busy || tag.trim() === ""}
            onClick={() => {
              const value = tag.trim();
              run(async () => {
                const r = await guard(client.leads.tag(ids, { remove: [value] }));
                setTag("");
                return `Removed "${value}" from ${plural(r.updated, "lead")}.`;
              }, false);
            }}
          >
            Remove tag
          </button>
        </form>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => {
              download(`leads-selection-${today()}.csv`, await guard(client.leads.exportSelectionCsv(ids)));
              return `Exported ${count}.`;
            }, false)
          }
          data-testid="bulk-export"
        >
          Export CSV
        </button>
        {can("leads:write") ? (
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => setConfirming("archive")}
            data-testid="bulk-archive"
          >
            Archive
          </button>
        ) : null}
      </div>
      <p role="status" className="muted" data-testid="bulk-status">
        {busy ? "Working…" : message}
      </p>
      <ErrorMessage error={error} />
      <ConfirmDialog
        open={confirming === "archive"}
        title={`Archive ${count}?`}
        confirmLabel="Archive"
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          setConfirming(null);
          run(async () => {
            const r = await guard(client.leads.archiveMany(ids));
            return `Archived ${plural(r.archived, "lead")}.`;
          }, true);
        }}
      >
        <p>Archived leads leave the list and the exports. Their emails can be added again later.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === "validate"}
        title={`Validate ${count}?`}
        confirmLabel="Validate"
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          setConfirming(null);
          run(async () => {
            const r = await guard(client.leads.validate(ids));
            onValidating({ batchId: r.batchId, total: r.totalLeads });
            return `Validation of ${plural(r.totalLeads, "lead")} started: its progress is below.`;
          }, false);
        }}
      >
        <p>
          Each lead is checked again (email and website) and charged as a lead validation:{" "}
          {plural(PRICES.leadValidation, "credit")} per lead at the standard prices,{" "}
          {plural(ids.length * PRICES.leadValidation, "credit")} for this selection.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** A bulk validation's progress: polls its batch (GET /v1/batches/{id} through waitForBatch) and
 *  reloads the list as leads finish, so their ratings fill in while the user watches. */
export function ValidationProgress({
  started,
  onProgress,
  onDismiss,
}: {
  started: StartedValidation;
  onProgress(): void;
  onDismiss(): void;
}) {
  const { client, guard } = useApi();
  const [batch, setBatch] = useState<Batch | null>(null);
  const [error, setError] = useState<unknown>(null);
  const progressRef = useRef(onProgress);
  progressRef.current = onProgress;

  useEffect(() => {
    const controller = new AbortController();
    let completed = -1;
    guard(
      client.waitForBatch(started.batchId, {
        intervalMs: 1000,
        timeoutMs: 24 * 3_600_000,
        signal: controller.signal,
        onProgress: (state) => {
          if (controller.signal.aborted) return;
          setBatch(state);
          if (state.completedLeads !== completed) {
            completed = state.completedLeads;
            progressRef.current();
          }
        },
      }),
      controller.signal,
    ).catch((e) => !controller.signal.aborted && setError(e));
    return () => controller.abort();
  }, [started.batchId, client, guard]);

  const done = batch !== null && (batch.status === "completed" || batch.status === "failed");
  const link = (
    <Link to={`/batches/${encodeURIComponent(started.batchId)}`} data-testid="batch-link">
      See the batch
    </Link>
  );
  return (
    <section
      className="panel validation-progress"
      aria-label="Bulk validation"
      data-testid="validation-progress"
    >
      <ProgressBar value={batch?.progress ?? 0} label="Bulk validation progress" />
      <p role="status" data-testid="validation-progress-text">
        {done
          ? `${batch.status === "completed" ? "Validated" : "Validation failed for"} ${plural(batch.totalLeads, "lead")}: ${formatNumber(batch.validLeads)} valid, ${formatNumber(batch.invalidLeads)} invalid, ${formatNumber(Math.max(0, batch.totalLeads - batch.validLeads - batch.invalidLeads - batch.failedLeads))} risky or unknown, ${formatNumber(batch.failedLeads)} failed.`
          : `Validating ${plural(started.total, "lead")}: ${formatNumber(batch?.completedLeads ?? 0)} of ${formatNumber(started.total)} done.`}{" "}
        {link}
      </p>
      <ErrorMessage error={error} title="Lost track of the validation." />
      {done ? (
        <button type="button" onClick={onDismiss}>
          Dismiss
        </button>
      ) : null}
    </section>
  );
}
