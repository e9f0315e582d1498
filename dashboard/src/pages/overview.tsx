// The landing page: verify one email or website on the spot, the balance (with a banner when it
// runs low), leads by verdict, checks and credits per day over 30 days, and recent batches.
import { type FormEvent, useState } from "react";
import type { EmailCheckResult, WebsiteCheckResult } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { ReasonBadge, VerdictBadge } from "../components/badges.js";
import { Breakable } from "../components/breakable.js";
import { BarChart, DoughnutChart } from "../components/charts.js";
import { type Factor, FactorTable } from "../components/factor-table.js";
import {
  creditsText,
  ErrorMessage,
  formatDate,
  formatNumber,
  Loading,
  ProgressBar,
  plural,
  yesNo,
} from "../components/ui.js";
import { Link } from "../router.js";

/** Below this many credits the overview warns (the API's credits.low threshold: 100 credits). */
const LOW_BALANCE_CREDITS = 100;

const VERDICT_COLORS = {
  valid: "#15803d",
  risky: "#d97706",
  invalid: "#b91c1c",
  unknown: "#64748b",
  notValidated: "#cbd5e1",
};

export function OverviewPage() {
  const { client } = useApi();
  const balance = useLoader((_api, signal) => client.credits.get({ signal }), []);
  const stats = useLoader((_api, signal) => client.leads.stats({ signal }), []);
  const usage = useLoader((_api, signal) => client.credits.usage({}, { signal }), []);
  const batches = useLoader((_api, signal) => client.batches.list({ limit: 5 }, { signal }), []);

  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      {balance.data && balance.data.displayCredits < LOW_BALANCE_CREDITS ? (
        <div className="warning banner" role="status" data-testid="low-balance">
          <strong>Your balance is low:</strong> {creditsText(balance.data.displayCredits)} left, enough for{" "}
          {plural(balance.data.displayCredits, "check")}. <Link to="/credits">Add credits</Link> to keep
          validating.
        </div>
      ) : null}

      <VerifyBox onChecked={balance.reload} />

      <div className="overview-grid">
        <div className="panel">
          <h2>Balance</h2>
          <ErrorMessage error={balance.error} />
          {balance.data ? (
            <p className="big-number" data-testid="overview-balance">
              {creditsText(balance.data.displayCredits)}
            </p>
          ) : balance.loading ? (
            <Loading what="your balance" />
          ) : null}
          <p className="muted">
            1 credit per email or website check; a lead validation is 2.{" "}
            {balance.data
              ? `Used this month: ${creditsText(Math.round(balance.data.usedThisMonth * 1000))}.`
              : null}
          </p>
        </div>

        <div className="panel">
          <h2>Leads by verdict</h2>
          <ErrorMessage error={stats.error} />
          {stats.data ? (
            stats.data.total === 0 ? (
              <p className="muted">
                No leads yet. <Link to="/import">Import some</Link>.
              </p>
            ) : (
              <DoughnutChart
                testId="verdict-chart"
                title={`Verdicts of your ${plural(stats.data.total, "lead")}`}
                slices={[
                  { label: "Valid", value: stats.data.byVerdict.valid, color: VERDICT_COLORS.valid },
                  { label: "Risky", value: stats.data.byVerdict.risky, color: VERDICT_COLORS.risky },
                  { label: "Invalid", value: stats.data.byVerdict.invalid, color: VERDICT_COLORS.invalid },
                  { label: "Unknown", value: stats.data.byVerdict.unknown, color: VERDICT_COLORS.unknown },
                  {
                    label: "Not validated",
                    value: stats.data.byVerdict.notValidated,
                    color: VERDICT_COLORS.notValidated,
                  },
                ]}
              />
            )
          ) : stats.loading ? (
            <Loading what="lead statistics" />
          ) : null}
        </div>
      </div>

      <div className="panel">
        <h2>Checks and credits, last 30 days</h2>
        <ErrorMessage error={usage.error} />
        {usage.data ? (
          <>
            <BarChart
              testId="usage-chart"
              title="Per day"
              labels={usage.data.days.map((d) => d.date.slice(5))}
              series={[
                { label: "Validations", values: usage.data.days.map((d) => d.validations), color: "#2563eb" },
                {
                  label: "Credits spent",
                  values: usage.data.days.map((d) => d.creditsSpent),
                  color: "#f59e0b",
                },
              ]}
            />
            <p className="muted" data-testid="usage-totals">
              In total: {plural(usage.data.totals.validations, "validation")},{" "}
              {creditsText(usage.data.totals.creditsSpent)} spent over{" "}
              {plural(usage.data.totals.charges, "charged request")}.
            </p>
          </>
        ) : usage.loading ? (
          <Loading what="usage" />
        ) : null}
      </div>

      <div className="panel">
        <h2>Recent batches</h2>
        <ErrorMessage error={batches.error} />
        {batches.data && batches.data.batches.length === 0 ? (
          <p className="muted">No batches yet. Imports and bulk validations run as batches.</p>
        ) : null}
        {batches.data && batches.data.batches.length > 0 ? (
          <ul className="batch-list" data-testid="recent-batches">
            {batches.data.batches.map((b) => (
              <li key={b.batchId}>
                <div className="batch-head">
                  <strong>{b.type === "domain_check" ? "Website checks" : "Lead validation"}</strong>{" "}
                  <span className="muted">
                    {formatDate(b.createdAt)} · {plural(b.totalLeads, "item")} · {b.status}
                  </span>
                </div>
                <ProgressBar value={b.progress} label={`Batch ${b.batchId} progress`} />
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </section>
  );
}

type Checked = { kind: "email"; result: EmailCheckResult } | { kind: "website"; result: WebsiteCheckResult };

/** One email or website, checked now (1 credit), shown as a verdict card. */
function VerifyBox({ onChecked }: { onChecked(): void }) {
  const { client, guard } = useApi();
  const [input, setInput] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [checked, setChecked] = useState<Checked | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const value = input.trim();
    if (!value) return;
    setBusy(true);
    setError(null);
    setChecked(null);
    try {
      if (value.includes("@")) {
        let result = await guard(client.checkEmail({ email: value, timeout: 30 }));
        if (result.status === "processing" && result.jobId) {
          const job = await guard(
            client.waitForJob(result.jobId, { intervalMs: 1000, timeoutMs: 6 * 60_000 }),
          );
          if (job.result) result = { ...result, ...(job.result as Partial<EmailCheckResult>) };
        }
        setChecked({ kind: "email", result });
      } else {
        setChecked({ kind: "website", result: await guard(client.checkWebsite(value)) });
      }
      onChecked();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="panel verify">
      <h2 id="verify-title">Verify an email or a website</h2>
      <form className="verify-form" onSubmit={submit} aria-labelledby="verify-title">
        <label className="grow">
          Email address or website
          <input
            name="verify"
            value={input}
            onChange={(e) => setInput(e.target.value)}
            placeholder="jane@company.com or company.com"
            maxLength={320}
            autoComplete="off"
            data-testid="verify-input"
          />
        </label>
        <button type="submit" disabled={busy || input.trim() === ""} data-testid="verify-submit">
          {busy ? "Checking…" : "Check (1 credit)"}
        </button>
      </form>
      <ErrorMessage error={error} />
      {busy ? (
        <p className="muted" role="status">
          Checking… an email can take up to a minute when its mail server is slow.
        </p>
      ) : null}
      {checked ? <VerdictCard checked={checked} /> : null}
    </div>
  );
}

function VerdictCard({ checked }: { checked: Checked }) {
  if (checked.kind === "email") {
    const r = checked.result;
    const details = (r.details ?? {}) as {
      reason?: string;
      role?: boolean;
      free?: boolean;
      factors?: Factor[];
    };
    const factors = Array.isArray(details.factors) ? details.factors : [];
    return (
      <article className={`verdict-card verdict-${r.status}`} data-testid="verdict-card" aria-label="Result">
        <header>
          <VerdictBadge value={r.status} />
          <strong className="subject">
            <Breakable text={r.email} />
          </strong>
          {r.emailScore !== undefined ? (
            <span className="score" data-testid="verdict-score">
              Score <strong>{r.emailScore}</strong>/100
            </span>
          ) : null}
        </header>
        {details.reason ? (
          <p>
            Reason: <ReasonBadge reason={details.reason} />
          </p>
        ) : null}
        <ul className="facts">
          {r.catchAll !== undefined ? <li>Catch-all domain: {r.catchAll ? "yes" : "no"}</li> : null}
          {r.disposable !== undefined ? <li>Disposable: {r.disposable ? "yes" : "no"}</li> : null}
          {details.role !== undefined ? <li>Role address: {details.role ? "yes" : "no"}</li> : null}
          {details.free !== undefined ? <li>Free provider: {details.free ? "yes" : "no"}</li> : null}
          {r.service && r.service !== "None" ? <li>Provider: {r.service}</li> : null}
          {r.emailRisk ? <li>Risk: {r.emailRisk}</li> : null}
        </ul>
        <FactorTable factors={factors} caption="Score factors" testId="verdict-factors" />
        <p className="muted">
          {creditsText(Math.round(r.creditsDeducted * 1000))} used;{" "}
          {creditsText(Math.round(r.creditsRemaining * 1000))} left.
        </p>
      </article>
    );
  }
  const r = checked.result;
  // The chain lists every URL fetched, the first one too: one entry is no redirect.
  const redirects = Math.max(0, r.redirectChain.length - 1);
  // Reached and not parked: valid; parked: risky; never reached: invalid (the website check's own words).
  const verdict = r.status === "active" ? (r.isParked === true ? "risky" : "valid") : "invalid";
  const reason =
    r.error ??
    (r.isParked === true ? "The domain is parked" : r.status === "active" ? "The site answers" : r.status);
  return (
    <article className={`verdict-card verdict-${verdict}`} data-testid="verdict-card" aria-label="Result">
      <header>
        <VerdictBadge value={verdict} />
        <strong className="subject">
          <Breakable text={r.website} />
        </strong>
      </header>
      <p data-testid="reason">{reason}</p>
      <ul className="facts">
        <li>HTTP status: {r.httpStatus ?? "—"}</li>
        <li>Valid TLS: {yesNo(r.sslValid)}</li>
        <li>Parked: {yesNo(r.isParked)}</li>
        <li>Response time: {formatNumber(Math.round(r.responseTimeMs))} ms</li>
        {redirects > 0 ? <li data-testid="redirects">Redirects: {redirects}</li> : null}
        {r.finalUrl ? (
          <li>
            Final URL: <Breakable text={r.finalUrl} />
          </li>
        ) : null}
      </ul>
      <p className="muted">
        {creditsText(Math.round(r.creditsDeducted * 1000))} used;{" "}
        {creditsText(Math.round(r.creditsRemaining * 1000))} left.
      </p>
    </article>
  );
}
