// Import: a CSV file sent to POST /v1/leads/import (per-line errors shown as the API lists them),
// or a pasted list of emails (POST /v1/leads/bulk) or domains (POST /v1/batch). A started batch is
// followed live until it finishes, then its results can be downloaded.
import { type FormEvent, useState } from "react";
import type { Batch, LeadBulkResult, LeadImportResult } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { BatchProgress } from "../components/batch-progress.js";
import { ErrorMessage, formatNumber } from "../components/ui.js";
import { Link } from "../router.js";

type Started = { batchId: string; initial?: Batch; key: number };

export function ImportPage() {
  const [started, setStarted] = useState<Started | null>(null);
  const start = (batchId: string, initial?: Batch) =>
    setStarted({ batchId, ...(initial ? { initial } : {}), key: Date.now() });
  return (
    <section aria-labelledby="import-title">
      <h1 id="import-title">Import and validate</h1>
      <div className="columns">
        <CsvUpload onBatch={start} />
        <PasteList onBatch={start} />
      </div>
      {started ? (
        <BatchProgress key={started.key} batchId={started.batchId} initial={started.initial} />
      ) : null}
    </section>
  );
}

function CsvUpload({ onBatch }: { onBatch(batchId: string): void }) {
  const { client, guard } = useApi();
  const [file, setFile] = useState<File | null>(null);
  const [validate, setValidate] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<LeadImportResult | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const imported = await guard(client.leads.importCsv(await file.text(), { validate }));
      setResult(imported);
      if (imported.batchId) onBatch(imported.batchId);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="panel" data-testid="csv-form" aria-labelledby="csv-title">
      <h2 id="csv-title">Upload a CSV file</h2>
      <p className="muted">
        The header row names the fields (<code>email</code> is required; <code>website</code>,{" "}
        <code>company</code>, <code>first_name</code>, … are optional; other columns are kept as custom
        fields). A file with a bad row is refused whole, with the lines to fix.
      </p>
      <label>
        CSV file
        <input
          type="file"
          accept=".csv,text/csv"
          required
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          data-testid="csv-file"
        />
      </label>
      <label className="check">
        <input type="checkbox" checked={validate} onChange={(e) => setValidate(e.target.checked)} /> Validate
        and rate the leads (uses credits)
      </label>
      <button type="submit" disabled={busy || !file}>
        {busy ? "Uploading…" : "Import"}
      </button>
      <ErrorMessage error={error} title="Nothing was imported." />
      {result ? (
        <p role="status" data-testid="import-result">
          Imported {formatNumber(result.created)} leads
          {result.batchId ? "; validating them now." : " without validation."}{" "}
          {result.batchId ? null : <Link to="/leads?source=csv">See them</Link>}
        </p>
      ) : null}
    </form>
  );
}

function PasteList({ onBatch }: { onBatch(batchId: string, initial?: Batch): void }) {
  const { client, guard } = useApi();
  const [kind, setKind] = useState<"emails" | "domains">("emails");
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [bulk, setBulk] = useState<LeadBulkResult | null>(null);

  const items = text
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setBulk(null);
    try {
      if (kind === "emails") {
        const answer = await guard(
          client.leads.bulk(
            items.map((email) => ({ email })),
            { validate: true },
          ),
        );
        setBulk(answer);
        if (answer.batchId) onBatch(answer.batchId);
      } else {
        const batch = await guard(client.batches.createDomainBatch(items));
        onBatch(batch.batchId, batch);
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="panel" data-testid="paste-form" aria-labelledby="paste-title">
      <h2 id="paste-title">Paste a list</h2>
      <fieldset>
        <legend>The list holds</legend>
        <label className="check">
          <input type="radio" name="kind" checked={kind === "emails"} onChange={() => setKind("emails")} />{" "}
          Email addresses: each becomes a validated, rated lead
        </label>
        <label className="check">
          <input type="radio" name="kind" checked={kind === "domains"} onChange={() => setKind("domains")} />{" "}
          Domains: a website check of each
        </label>
      </fieldset>
      <label>
        One per line (or separated by commas)
        <textarea
          rows={8}
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder={kind === "emails" ? "jo@acme.com\nsam@example.org" : "acme.com\nexample.org"}
          data-testid="paste-list"
        />
      </label>
      <button type="submit" disabled={busy || items.length === 0}>
        {busy ? "Starting…" : `Start batch of ${formatNumber(items.length)}`}
      </button>
      <ErrorMessage error={error} title="The batch was not started." />
      {bulk ? (
        <div role="status" data-testid="bulk-result">
          <p>
            Created {formatNumber(bulk.created)} leads
            {bulk.failed > 0 ? `; ${formatNumber(bulk.failed)} were refused:` : "."}
          </p>
          {bulk.errors.length > 0 ? (
            <ul>
              {bulk.errors.map((e) => (
                <li key={e.index}>
                  Line {e.index + 1}
                  {e.email ? ` (${e.email})` : ""}: {e.error}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}
