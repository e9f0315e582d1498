// The widget's figures (GET /v1/widget/stats): checks per UTC day with the flagged answers and the
// refused requests beside them, the flags by reason and the refusals by cause, for every key of the
// data space on screen or for one key. A test-mode key's figures are test data: the banner says so.
import { useId, useState } from "react";
import { useApi, useLoader } from "../api.js";
import { BarChart, DoughnutChart } from "../components/charts.js";
import { ErrorMessage, formatNumber, Loading, plural } from "../components/ui.js";
import { TestModeBanner } from "./test-mode.js";
import type { WidgetKey } from "./widget.js";

const FLAG_LABELS = {
  typo: { label: "Typo (fix offered)", color: "#2563eb" },
  disposable: { label: "Disposable", color: "#f59e0b" },
  invalid: { label: "Invalid", color: "#b91c1c" },
  role: { label: "Role address", color: "#7c3aed" },
} as const;

const CAP_LABELS = {
  perIpPerMinute: "Checks a minute per visitor IP",
  perEmailPerMinute: "Checks a minute per address",
  distinctEmailsPerIpPerDay: "Addresses a day per visitor IP",
  dailyCap: "Charged addresses a day (the key's daily cap)",
  origin: "Forged, missing or other origin",
  captcha: "CAPTCHA missing or failed",
} as const;

const ALL = "";

export function WidgetStatsPanel({ widgetKeys }: { widgetKeys: WidgetKey[] }) {
  const { client } = useApi();
  const [keyId, setKeyId] = useState(ALL);
  const selectId = useId();
  const report = useLoader(
    (_api, signal) => client.widgetStats(keyId === ALL ? {} : { keyId }, { signal }),
    [keyId],
  );
  const data = report.data;
  const flagged = data ? Object.values(data.flagged).reduce((a, b) => a + b, 0) : 0;
  const refused = data ? Object.values(data.capHits).reduce((a, b) => a + b, 0) : 0;

  return (
    <div className="panel" data-testid="widget-stats">
      <h2>Widget activity, last 30 days</h2>
      <label htmlFor={selectId}>Key</label>{" "}
      <select
        id={selectId}
        value={keyId}
        onChange={(e) => setKeyId(e.target.value)}
        data-testid="widget-stats-key"
      >
        <option value={ALL}>All keys of this data space</option>
        {widgetKeys.map((key) => (
          <option key={key.key_id} value={key.key_id}>
            {key.name}
            {key.mode === "test" ? " (test)" : ""}
          </option>
        ))}
      </select>
      <ErrorMessage error={report.error} />
      {data && !data.livemode ? (
        <TestModeBanner>
          These figures are a test-mode key's: scripted answers, never charged. They are not visitors' real
          addresses.
        </TestModeBanner>
      ) : null}
      {data && !report.loading ? (
        <>
          <p data-testid="widget-stats-totals">
            {plural(data.totals.checks, "check")} answered,{" "}
            {plural(data.totals.charged, "address", "addresses")} charged, {formatNumber(data.totals.unknown)}{" "}
            answered unknown (the form went ahead), {formatNumber(data.totals.unpaid)} not checked for a short
            balance; {formatNumber(flagged)} flagged, {plural(refused, "request")} refused.
          </p>
          <BarChart
            testId="widget-checks-chart"
            title="Checks per day"
            labels={data.days.map((d) => d.date.slice(5))}
            series={[
              { label: "Checks", values: data.days.map((d) => d.checks), color: "#2563eb" },
              { label: "Flagged", values: data.days.map((d) => d.flagged), color: "#f59e0b" },
              { label: "Refused", values: data.days.map((d) => d.capHits), color: "#b91c1c" },
            ]}
          />
          <div className="overview-grid">
            <section aria-labelledby={`${selectId}-flags`}>
              <h3 id={`${selectId}-flags`}>Flagged answers by reason</h3>
              {flagged === 0 ? (
                <p className="muted" data-testid="widget-flags-empty">
                  No address was flagged in this period.
                </p>
              ) : (
                <DoughnutChart
                  testId="widget-flags-chart"
                  title={`${plural(flagged, "flagged answer")} by reason`}
                  head={["Reason", "Answers"]}
                  slices={Object.entries(FLAG_LABELS).map(([reason, { label, color }]) => ({
                    label,
                    color,
                    value: data.flagged[reason as keyof typeof FLAG_LABELS],
                  }))}
                />
              )}
              <p className="muted">
                A form blocks the reasons its <code>data-block</code> names (invalid by default); the others
                are warnings.
              </p>
            </section>
            <section aria-labelledby={`${selectId}-caps`}>
              <h3 id={`${selectId}-caps`}>Refused requests (cap hits)</h3>
              <table className="stat-table" data-testid="widget-cap-hits">
                <caption className="visually-hidden">Refused requests by cause</caption>
                <thead>
                  <tr>
                    <th scope="col">Cause</th>
                    <th scope="col" className="num">
                      Refused
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(CAP_LABELS).map(([cause, label]) => (
                    <tr key={cause} data-testid={`cap-${cause}`}>
                      <th scope="row">{label}</th>
                      <td className="num">{formatNumber(data.capHits[cause as keyof typeof CAP_LABELS])}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          </div>
        </>
      ) : report.loading ? (
        <Loading what="widget activity" />
      ) : null}
    </div>
  );
}
