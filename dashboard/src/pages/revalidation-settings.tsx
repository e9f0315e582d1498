// The account's re-validation schedule (GET/PUT /v1/settings/revalidation): verdicts older than N
// days validated again every M hours, at most a number of credits per run (display credits here,
// stored credits on the wire), or off. Shows the next run and what the last one did.
import { type FormEvent, useEffect, useState } from "react";
import type { RevalidationSchedule } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { ErrorMessage, formatDate, formatNumber, plural } from "../components/ui.js";
import { PRICES } from "../pricing.js";

const LAST_RUN: Record<NonNullable<RevalidationSchedule["lastRun"]>["status"], string> = {
  started: "validated",
  nothing_stale: "found nothing old enough",
  insufficient_credits: "was refused: the balance could not pay for it",
  limited: "waited: too many batches were running",
  network_down: "waited: DNS was down",
};

export function RevalidationSettings() {
  const { client, guard } = useApi();
  const current = useLoader((_api, signal) => client.leads.revalidation({ signal }), []);
  const [days, setDays] = useState("90");
  const [hours, setHours] = useState("24");
  const [cap, setCap] = useState("1000");
  const [status, setStatus] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const schedule = current.data ?? null;
  useEffect(() => {
    if (!schedule) return;
    setDays(String(schedule.olderThanDays));
    setHours(String(schedule.everyHours));
    setCap(String(schedule.maxDisplayCreditsPerRun));
  }, [schedule]);

  const whole = (text: string, min: number, max: number) => {
    const n = Number(text);
    return Number.isInteger(n) && n >= min && n <= max ? n : null;
  };
  const olderThanDays = whole(days, 1, 3650);
  const everyHours = whole(hours, 1, 8760);
  const capCredits = whole(cap, 1, 1_000_000_000);
  const problem =
    olderThanDays === null
      ? "Days: a whole number from 1 to 3650."
      : everyHours === null
        ? "Hours: a whole number from 1 to 8760."
        : capCredits === null
          ? "Credits per run: a whole number of at least 1."
          : null;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (problem || olderThanDays === null || everyHours === null || capCredits === null) return;
    await send({ olderThanDays, everyHours, maxCreditsPerRun: capCredits / 1000 }, "Schedule saved.");
  };
  const send = async (input: Parameters<typeof client.leads.setRevalidation>[0], done: string) => {
    setBusy(true);
    setError(null);
    setStatus("");
    try {
      await guard(client.leads.setRevalidation(input));
      setStatus(done);
      current.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const leadsPerRun = capCredits === null ? 0 : Math.floor(capCredits / PRICES.leadValidation);
  return (
    <section className="panel" aria-labelledby="revalidation-title" data-testid="revalidation">
      <h2 id="revalidation-title">Re-validation schedule</h2>
      <p className="muted">
        Lists decay about 2 % a month. Validate every lead again once its verdict is old enough, oldest first,
        within a budget per run. Leads never validated are left alone.
      </p>
      <p data-testid="revalidation-state">
        {current.data === undefined
          ? "Loading…"
          : schedule
            ? `On: verdicts older than ${plural(schedule.olderThanDays, "day")}, every ${plural(schedule.everyHours, "hour")}, at most ${plural(schedule.maxDisplayCreditsPerRun, "credit")} (${plural(schedule.maxLeadsPerRun, "lead")}) per run. Next run ${formatDate(schedule.nextRunAt)}.`
            : "Off."}
        {schedule?.lastRun
          ? ` Last run ${formatDate(schedule.lastRun.at)} ${LAST_RUN[schedule.lastRun.status]}${schedule.lastRun.status === "started" ? ` ${plural(schedule.lastRun.leads, "lead")}` : ""}.`
          : ""}
      </p>
      <form onSubmit={save} className="inline-form" noValidate data-testid="revalidation-form">
        <label>
          Verdicts older than (days)
          <input inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} />
        </label>
        <label>
          Every (hours)
          <input inputMode="numeric" value={hours} onChange={(e) => setHours(e.target.value)} />
        </label>
        <label>
          At most (credits per run)
          <input inputMode="numeric" value={cap} onChange={(e) => setCap(e.target.value)} />
        </label>
        {problem ? (
          <p className="field-problem">{problem}</p>
        ) : (
          <p className="muted">
            Up to {formatNumber(leadsPerRun)} leads per run at {plural(PRICES.leadValidation, "credit")} each.
          </p>
        )}
        <div className="form-actions">
          <button type="submit" disabled={busy || problem !== null}>
            {schedule ? "Save schedule" : "Turn on"}
          </button>
          {schedule ? (
            <button
              type="button"
              className="danger"
              disabled={busy}
              onClick={() => send(null, "Re-validation is off.")}
            >
              Turn off
            </button>
          ) : null}
        </div>
        <p role="status" data-testid="revalidation-status">
          {status}
        </p>
        <ErrorMessage error={error} />
      </form>
    </section>
  );
}
