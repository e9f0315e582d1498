// Follows a batch until it finishes (polling GET /v1/batches/{id} through the SDK's waitForBatch),
// with a live progress bar, then shows its results page by page and offers them as CSV.
import { useEffect, useState } from "react";
import type { Batch, BatchResultsPage } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { toCsv } from "../csv.js";
import { labelOf, REASON, RECOMMENDATION, VALIDATION_STATUS } from "../labels.js";
import { Link } from "../router.js";
import { Breakable } from "./breakable.js";
import { type Column, DataTable } from "./data-table.js";
import { download, ErrorMessage, formatNumber, Loading, Pager, ProgressBar } from "./ui.js";

const POLL_MS = 1000;
const PAGE = 50;
const FINAL = new Set(["completed", "failed"]);

type Result = BatchResultsPage["results"][number];

export function BatchProgress({ batchId, initial }: { batchId: string; initial?: Batch }) {
  const { client, guard } = useApi();
  const [batch, setBatch] = useState<Batch | undefined>(initial);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    const controller = new AbortController();
    setError(null);
    guard(
      client.waitForBatch(batchId, {
        intervalMs: POLL_MS,
        timeoutMs: 24 * 3_600_000,
        signal: controller.signal,
        onProgress: (state) => !controller.signal.aborted && setBatch(state),
      }),
      controller.signal,
    ).catch((e) => !controller.signal.aborted && setError(e));
    return () => controller.abort();
  }, [batchId, client, guard]);

  const done = batch !== undefined && FINAL.has(batch.status);
  return (
    <section className="panel" aria-labelledby={`batch-${batchId}`} data-testid="batch">
      <h2 id={`batch-${batchId}`}>
        Batch <code>{batchId}</code>
      </h2>
      {batch ? (
        <>
          <ProgressBar value={batch.progress} label={`Batch ${batchId} progress`} />
          <p role="status" data-testid="batch-status">
            {done ? (batch.status === "completed" ? "Finished" : "Failed") : "Running"}:{" "}
            {formatNumber(batch.completedLeads)} of {formatNumber(batch.totalLeads)} done ·{" "}
            {formatNumber(batch.validLeads)} valid · {formatNumber(batch.invalidLeads)} invalid ·{" "}
            {formatNumber(batch.failedLeads)} failed
          </p>
        </>
      ) : (
        <Loading what="the batch" />
      )}
      <ErrorMessage error={error} title="Lost track of the batch." />
      {done ? <BatchResults batchId={batchId} kind={batch.type} /> : null}
    </section>
  );
}

function BatchResults({ batchId, kind }: { batchId: string; kind: string }) {
  const { client, guard } = useApi();
  const [offset, setOffset] = useState(0);
  const page = useLoader(
    (_api, signal) => client.batches.results(batchId, { limit: PAGE, offset }, { signal }),
    [batchId, offset],
  );
  const [exportError, setExportError] = useState<unknown>(null);
  const [exporting, setExporting] = useState(false);

  const exportCsv = async () => {
    setExporting(true);
    setExportError(null);
    try {
      const all: Result[] = [];
      for (let at: number | null = 0; at !== null; ) {
        const next: BatchResultsPage = await guard(
          client.batches.results(batchId, { limit: 100, offset: at }),
        );
        all.push(...next.results);
        at = next.hasMore ? next.nextOffset : null;
      }
      download(`batch-${batchId}.csv`, resultsCsv(all, kind));
    } catch (e) {
      setExportError(e);
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <div className="title-row">
        <h3>Results</h3>
        <button type="button" onClick={exportCsv} disabled={exporting} data-testid="export-batch">
          {exporting ? "Preparing…" : "Download results as CSV"}
        </button>
      </div>
      <ErrorMessage error={exportError} />
      <ErrorMessage error={page.error} />
      {page.data ? (
        <>
          <DataTable
            label="Batch results"
            rows={page.data.results}
            columns={resultColumns(kind)}
            rowKey={(r) => String(r.index)}
            testId="batch-results"
            rowTestId="batch-result"
          />
          <Pager
            label="Results"
            offset={offset}
            limit={PAGE}
            total={page.data.total}
            shown={page.data.results.length}
            onChange={setOffset}
          />
        </>
      ) : page.loading ? (
        <Loading what="results" />
      ) : null}
    </>
  );
}

function ResultSummary({ result }: { result: Result["result"] }) {
  if (!result) return <>—</>;
  const r = result as Record<string, unknown>;
  if (typeof r.rating === "number") {
    return (
      <>
        <strong>{r.rating}</strong> · {labelOf(RECOMMENDATION, String(r.recommendation ?? ""))}
      </>
    );
  }
  const parts = [
    r.httpStatus !== undefined && r.httpStatus !== null ? `HTTP ${r.httpStatus}` : null,
    r.sslValid === true ? "TLS ok" : r.sslValid === false ? "TLS invalid" : null,
    r.isParked === true ? "parked" : null,
    typeof r.responseTimeMs === "number" ? `${r.responseTimeMs} ms` : null,
  ].filter(Boolean);
  return <>{parts.join(" · ") || "—"}</>;
}

type Tone = "good" | "warn" | "bad" | "none";

/** A website check's status as the batch's summary counts it: only "active" is valid. */
const websiteVerdict = (status: string): "valid" | "invalid" => (status === "active" ? "valid" : "invalid");

/** The verdict word, its colour and the reason of one result, for the table and the CSV alike. The
 *  word is the one the batch's summary counts (valid, invalid, risky), never the check's own status
 *  ("error", "inactive"), which goes into the reason. */
function resultRow(r: Result, kind: string): { verdict: string; code: string; tone: Tone; reason: string } {
  const result = (r.result ?? {}) as Record<string, unknown>;
  if (r.status === "failed" || (!r.verdict && r.error)) {
    return {
      verdict: "Failed",
      code: "failed",
      tone: "bad",
      reason: r.error ?? "the item could not be processed",
    };
  }
  if (!r.verdict) return { verdict: "Pending", code: "", tone: "none", reason: "" };
  const code = kind === "domain_check" ? websiteVerdict(r.verdict) : r.verdict;
  const tone: Tone = code === "valid" ? "good" : code === "invalid" ? "bad" : "warn";
  const reasonCode = typeof result.emailReason === "string" ? result.emailReason : null;
  const error = typeof result.error === "string" && result.error ? result.error : (r.error ?? null);
  const http = typeof result.httpStatus === "number" ? result.httpStatus : null;
  const reason =
    (reasonCode ? labelOf(REASON, reasonCode) : null) ??
    (error ? `${r.verdict === "inactive" ? "Site inactive" : "No answer"}: ${error}` : null) ??
    (result.isParked === true ? "Parked domain" : null) ??
    (http !== null ? `${r.verdict === "active" ? "Answers" : "Site inactive:"} HTTP ${http}` : null) ??
    "";
  return { verdict: labelOf(VALIDATION_STATUS, code), code, tone, reason };
}

function resultColumns(kind: string): Column<Result>[] {
  return [
    { key: "line", header: "#", className: "num", cell: (r) => r.index + 1 },
    {
      key: "input",
      header: "Input",
      primary: true,
      cell: (r) =>
        r.leadId ? (
          <Link to={`/leads/${encodeURIComponent(r.leadId)}`}>
            <Breakable text={r.input} />
          </Link>
        ) : (
          <Breakable text={r.input} />
        ),
    },
    {
      key: "verdict",
      header: "Verdict",
      cell: (r) => {
        const row = resultRow(r, kind);
        return <span className={`verdict verdict-${row.tone}`}>{row.verdict}</span>;
      },
    },
    {
      key: "reason",
      header: "Reason",
      cell: (r) => <span data-testid="batch-result-reason">{resultRow(r, kind).reason}</span>,
    },
    {
      key: "summary",
      header: kind === "domain_check" ? "Website" : "Rating",
      cell: (r) => <ResultSummary result={r.result} />,
    },
  ];
}

function resultsCsv(results: Result[], kind: string): string {
  const facts = [
    "rating",
    "recommendation",
    "httpStatus",
    "finalUrl",
    "sslValid",
    "isParked",
    "responseTimeMs",
  ];
  return toCsv(
    ["line", "input", "verdict", "reason", ...facts, "leadId"],
    results.map((r) => {
      const row = resultRow(r, kind);
      const result = (r.result ?? {}) as Record<string, unknown>;
      return [r.index + 1, r.input, row.code, row.reason, ...facts.map((k) => result[k]), r.leadId];
    }),
  );
}
