// Import: a CSV file (POST /v1/leads/import), or a pasted list of emails (POST
// /v1/leads/import/emails) or domains (POST /v1/batches/import/domains). All three are all lines or
// none, with bad lines listed by line number as the API reports them (ADR 0016). A started batch
// is followed live until it finishes, then its results can be downloaded.
import { type FormEvent, useState } from "react";
import type { Batch, LeadImportResult } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { BatchProgress } from "../components/batch-progress.js";
import { ErrorMessage, formatNumber, plural } from "../components/ui.js";
import { type CsvPreview, IMPORT_LIMITS, previewCsv } from "../csv-preview.js";
import { Link } from "../router.js";
import { CostEstimate, fileProblem, ImportLimits, MappingPreview } from "./import-preview.js";

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
  const balance = useLoader((_api, signal) => client.credits.get({ signal }), []);
  const [file, setFile] = useState<{ name: string; size: number; text: string | null } | null>(null);
  const [preview, setPreview] = useState<CsvPreview | null>(null);
  const [validate, setValidate] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<LeadImportResult | null>(null);

  const choose = async (chosen: File | undefined) => {
    setResult(null);
    setError(null);
    setPreview(null);
    if (!chosen) return setFile(null);
    // A file over the limit is not read: the size alone refuses it.
    const text = chosen.size > IMPORT_LIMITS.bytes ? null : await chosen.text();
    setFile({ name: chosen.name, size: chosen.size, text });
    if (text !== null) setPreview(previewCsv(text));
  };
  const problem = file ? fileProblem(file.size, preview) : null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file?.text || problem) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const imported = await guard(client.leads.importCsv(file.text, { validate }));
      setResult(imported);
      balance.reload();
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
        fields). A file with a bad row is refused whole, with the lines to fix; nothing is charged.
      </p>
      <ImportLimits />
      <label>
        CSV file
        <input
          type="file"
          accept=".csv,text/csv"
          required
          onChange={(e) => choose(e.target.files?.[0])}
          data-testid="csv-file"
        />
      </label>
      {problem ? (
        <p className="alert" role="alert" data-testid="csv-problem">
          {problem}
        </p>
      ) : null}
      {preview && file ? <MappingPreview preview={preview} size={file.size} /> : null}
      <label className="check">
        <input type="checkbox" checked={validate} onChange={(e) => setValidate(e.target.checked)} /> Validate
        and rate the leads (uses credits)
      </label>
      {validate && preview && !problem ? (
        <CostEstimate rows={preview.rowCount} balance={balance.data} />
      ) : null}
      <button type="submit" disabled={busy || !file?.text || problem !== null} data-testid="csv-import">
        {busy ? "Uploading…" : preview && !problem ? `Import ${plural(preview.rowCount, "lead")}` : "Import"}
      </button>
      <ErrorMessage error={error} title="Nothing was imported." />
      {result ? (
        <p role="status" data-testid="import-result">
          Imported {plural(result.created, "lead")}
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
  const [imported, setImported] = useState<LeadImportResult | null>(null);

  // The server's rule, for the count on the button: entries are split on lines and commas only.
  const items = text
    .split(/\r\n|\r|\n/)
    .flatMap((line) => line.split(","))
    .map((s) => s.trim())
    .filter(Boolean);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setImported(null);
    try {
      if (kind === "emails") {
        const answer = await guard(client.leads.importEmailList(text, { validate: true }));
        setImported(answer);
        if (answer.batchId) onBatch(answer.batchId);
      } else {
        const batch = await guard(client.batches.importDomainList(text));
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
        One per line (or separated by commas). A list with a bad line is refused whole, with the lines to fix.
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
      {imported ? (
        <p role="status" data-testid="bulk-result">
          Created {plural(imported.created, "lead")}; validating them now.
        </p>
      ) : null}
    </form>
  );
}
