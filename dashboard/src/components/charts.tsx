// Charts on chart.js through react-chartjs-2, registering only the pieces used here (bars and a
// doughnut, two scales, the tooltip and the legend), so the rest of chart.js is tree-shaken away.
// A canvas says nothing to a screen reader: every chart has a one-line summary as its label and
// the same numbers as a table under it.
import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  DoughnutController,
  Legend,
  LinearScale,
  Tooltip,
} from "chart.js";
import { Bar, Doughnut } from "react-chartjs-2";
import { formatNumber } from "./ui.js";

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  DoughnutController,
  ArcElement,
  Tooltip,
  Legend,
);

export interface Slice {
  label: string;
  value: number;
  color: string;
}

/** A doughnut of parts of a whole, e.g. leads by verdict. `head`: the table's column names. */
export function DoughnutChart({
  title,
  slices,
  testId,
  head = ["Verdict", "Leads"],
}: {
  title: string;
  slices: Slice[];
  testId: string;
  head?: [string, string];
}) {
  const total = slices.reduce((sum, s) => sum + s.value, 0);
  const summary = `${title}: ${slices.map((s) => `${s.label} ${formatNumber(s.value)}`).join(", ")}`;
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <div className="chart-canvas doughnut">
        <Doughnut
          role="img"
          aria-label={summary}
          data={{
            labels: slices.map((s) => s.label),
            datasets: [
              {
                data: slices.map((s) => s.value),
                backgroundColor: slices.map((s) => s.color),
                borderWidth: 1,
              },
            ],
          }}
          options={{
            animation: false,
            maintainAspectRatio: false,
            plugins: { legend: { position: "right", labels: { boxWidth: 14 } } },
          }}
        />
      </div>
      <DataTable
        caption={title}
        head={[...head, "Share"]}
        rows={slices.map((s) => [
          s.label,
          formatNumber(s.value),
          total === 0 ? "—" : `${Math.round((s.value / total) * 100)}%`,
        ])}
      />
    </figure>
  );
}

export interface Series {
  label: string;
  values: number[];
  color: string;
}

/** Bars per day (or any category), one colour per series, each series on the same axis. */
export function BarChart({
  title,
  labels,
  series,
  testId,
}: {
  title: string;
  labels: string[];
  series: Series[];
  testId: string;
}) {
  const summary = `${title}: ${series
    .map((s) => `${s.label} ${formatNumber(s.values.reduce((a, b) => a + b, 0))} in total`)
    .join(", ")}`;
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <div className="chart-canvas">
        <Bar
          role="img"
          aria-label={summary}
          data={{
            labels,
            datasets: series.map((s) => ({ label: s.label, data: s.values, backgroundColor: s.color })),
          }}
          options={{
            animation: false,
            maintainAspectRatio: false,
            scales: {
              x: { ticks: { maxRotation: 0, autoSkip: true, maxTicksLimit: 8 } },
              y: { beginAtZero: true, ticks: { precision: 0 } },
            },
            plugins: { legend: { position: "bottom", labels: { boxWidth: 14 } } },
          }}
        />
      </div>
      <DataTable
        caption={title}
        head={["Day", ...series.map((s) => s.label)]}
        rows={labels
          .map((label, i) => [label, ...series.map((s) => formatNumber(s.values[i] ?? 0))])
          .filter((row) => row.slice(1).some((cell) => cell !== "0"))}
        empty="Nothing in this period."
      />
    </figure>
  );
}

/** The chart's numbers, folded away under a summary. */
function DataTable({
  caption,
  head,
  rows,
  empty,
}: {
  caption: string;
  head: string[];
  rows: string[][];
  empty?: string;
}) {
  return (
    <details className="chart-table">
      <summary>Show as a table</summary>
      {rows.length === 0 ? (
        <p className="muted">{empty ?? "No data."}</p>
      ) : (
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {head.map((h, i) => (
                <th key={h || i} scope="col" className={i > 0 ? "num" : undefined}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row[0]}>
                {row.map((cell, i) =>
                  i === 0 ? (
                    <th key="h" scope="row">
                      {cell}
                    </th>
                  ) : (
                    <td key={head[i]} className="num">
                      {cell}
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
}
