// What must hold after the chaos: read from the database the processes wrote, from what the
// webhook receiver accepted, and from every answer the load got.
import type pg from "pg";
import type { Promised } from "./load.js";
import type { Call } from "./recorder.js";

export interface Check {
  name: string;
  checked: number;
  violations: string[];
}

export interface Window {
  from: number;
  to: number;
}

export interface InvariantInput {
  db: pg.Pool;
  accountIds: string[];
  promised: Promised;
  /** Event ids the receiver answered 2xx for, at least once. */
  accepted: Set<string>;
  calls: Call[];
  /** `METHOD /path/{param}` -> documented statuses, from the service's own /openapi.json. */
  documented: Map<string, Set<string>>;
  /** When PostgreSQL was down (stop issued -> accepting connections again). */
  postgresDown: Window[];
  /** Seconds after PostgreSQL is back during which a request begun while it was down may still fail. */
  graceMs: number;
  prices: {
    leadCreateWithValidation: number;
    leadValidation: number;
    emailCheck: number;
    domainItem: number;
  };
  /** Processes that could not be restarted. */
  restartFailures: string[];
  /** Restarts asked for (one per kill or crash). */
  restartsAsked: number;
  /** Processes that died without being killed, with the end of their output. */
  crashes: string[];
  /** API and worker processes watched over the run (the first ones and every restart). */
  processesWatched: number;
}

const sample = (rows: string[], n = 3) => rows.slice(0, n);

/** The pg-boss jobs carrying `field` = `value` in their data, as one line each (diagnosis). */
async function queueJobsOf(db: pg.Pool, field: string, value: string): Promise<string> {
  const { rows } = await db
    .query(
      `select name, state, retry_count, retry_limit, expire_in::text as expire_in,
              to_char(started_on, 'HH24:MI:SS') as started, to_char(completed_on, 'HH24:MI:SS') as ended,
              left(coalesce(output->>'message', output::text, ''), 160) as output
       from pgboss.job where data->>$1 = $2 order by created_on`,
      [field, value],
    )
    .catch((error: Error) => ({ rows: [{ name: `(pgboss.job unreadable: ${error.message})` }] }));
  if (rows.length === 0) return "no pg-boss job";
  return rows
    .map(
      (r) =>
        `${r.name} ${r.state} try ${r.retry_count}/${r.retry_limit} (expire ${r.expire_in}, started ${r.started ?? "-"}, ended ${r.ended ?? "-"})${r.output ? ` ${r.output}` : ""}`,
    )
    .join("; ");
}

export async function checkInvariants(input: InvariantInput): Promise<Check[]> {
  const { db, accountIds } = input;
  const checks: Check[] = [];
  const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) =>
    (await db.query(sql, params)).rows as T[];

  // 1. Nothing left half-done.
  {
    const all = await q<{ n: number }>("select count(*)::int as n from batches where account_id = any($1)", [
      accountIds,
    ]);
    const open = await q<{ id: string; kind: string; total: number; completed: number; failed: number }>(
      "select id, kind, total, completed, failed from batches where account_id = any($1) and status not in ('completed', 'failed') order by id",
      [accountIds],
    );
    const violations: string[] = [];
    for (const b of open) {
      const items = await q<{ status: string; n: number }>(
        "select status, count(*)::int as n from batch_items where batch_id = $1 group by 1 order by 1",
        [b.id],
      );
      violations.push(
        `${b.id} (${b.kind}) processing, ${b.completed}/${b.total} done; items ${items.map((i) => `${i.status} ${i.n}`).join(", ")}; jobs: ${await queueJobsOf(db, "batchId", b.id)}`,
      );
    }
    checks.push({ name: "every batch terminal", checked: all[0]!.n, violations });
  }
  {
    const all = await q<{ n: number }>(
      "select count(*)::int as n from validation_jobs where account_id = any($1)",
      [accountIds],
    );
    const open = await q<{ id: string; attempts: number; deadline_at: string }>(
      "select id, attempts, deadline_at from validation_jobs where account_id = any($1) and status = 'processing' order by id",
      [accountIds],
    );
    checks.push({
      name: "every validation job terminal",
      checked: all[0]!.n,
      violations: await Promise.all(
        open.map(
          async (j) =>
            `${j.id} processing (attempts ${j.attempts}, deadline ${j.deadline_at}); jobs: ${await queueJobsOf(db, "jobId", j.id)}`,
        ),
      ),
    });
  }
  {
    const all = await q<{ n: number }>("select count(*)::int as n from leads where account_id = any($1)", [
      accountIds,
    ]);
    const stuck = await q<{ id: string; batch_id: string | null }>(
      `select l.id, (select i.batch_id from batch_items i where i.lead_id = l.id order by i.id desc limit 1) as batch_id
       from leads l where l.account_id = any($1) and l.validation_status = 'processing' order by l.id`,
      [accountIds],
    );
    // Grouped by the batch that holds them; a lead in none was validated on its own (lead.validate).
    const byBatch = new Map<string, string[]>();
    for (const lead of stuck) {
      const key = lead.batch_id ?? "";
      byBatch.set(key, [...(byBatch.get(key) ?? []), lead.id]);
    }
    const violations: string[] = [];
    for (const [batchId, leads] of byBatch) {
      if (batchId)
        violations.push(`${leads.length} lead(s) of ${batchId} processing, e.g. ${sample(leads).join(", ")}`);
      else {
        for (const id of leads.slice(0, 5))
          violations.push(`${id} processing; jobs: ${await queueJobsOf(db, "leadId", id)}`);
        if (leads.length > 5) violations.push(`... ${leads.length - 5} more single leads processing`);
      }
    }
    checks.push({ name: "no lead processing", checked: all[0]!.n, violations });
  }

  // 2. Money.
  {
    const rows = await q<{ id: string; balance: number; sum: number; last: number | null }>(
      `select a.id, a.balance_milli::int as balance,
              coalesce((select sum(delta_milli) from credit_ledger l where l.account_id = a.id), 0)::int as sum,
              (select balance_after_milli from credit_ledger l where l.account_id = a.id order by l.id desc limit 1)::int as last
       from accounts a where a.id = any($1)`,
      [accountIds],
    );
    checks.push({
      name: "ledger sums to every balance",
      checked: rows.length,
      violations: rows
        .filter((r) => r.sum !== r.balance || (r.last !== null && r.last !== r.balance))
        .map((r) => `${r.id}: balance ${r.balance}, ledger sum ${r.sum}, last balance_after ${r.last}`),
    });
  }
  {
    const debits = await q<{ reference: string | null; n: number; total: number }>(
      `select reference, count(*)::int as n, sum(delta_milli)::int as total from credit_ledger
       where account_id = any($1) and kind = 'debit' group by reference`,
      [accountIds],
    );
    const byRef = new Map(debits.map((d) => [d.reference ?? "", d]));
    const violations: string[] = [];
    let checked = 0;
    for (const d of debits) {
      checked++;
      if (d.reference === null) violations.push(`${d.n} debit(s) without a reference`);
      else if (d.n > 1) violations.push(`${d.reference} charged ${d.n} times (${d.total} milli)`);
    }
    const expect = (what: string, ref: string, milli: number) => {
      checked++;
      const d = byRef.get(ref);
      if (!d) violations.push(`${what} ${ref} never charged (expected ${milli} milli)`);
      else if (d.total !== -milli)
        violations.push(`${what} ${ref} charged ${-d.total} milli, expected ${milli}`);
    };
    const { prices } = input;
    // Operations the database holds: each has exactly its charge.
    for (const b of await q<{ id: string; total: number }>(
      "select id, total from batches where account_id = any($1) and kind = 'domain_check'",
      [accountIds],
    )) {
      expect("domain batch", b.id, b.total * prices.domainItem);
    }
    for (const j of await q<{ id: string }>(
      "select id from validation_jobs where account_id = any($1) and type = 'email'",
      [accountIds],
    )) {
      expect("email job", j.id, prices.emailCheck);
    }
    // Operations the API answered with success: each is charged as promised.
    for (const lead of input.promised.leads) {
      if (lead.validate) expect("lead created with validation", lead.id, prices.leadCreateWithValidation);
      else if (byRef.has(lead.id)) violations.push(`lead ${lead.id} created without validation but charged`);
    }
    for (const v of input.promised.validations) {
      expect("re-validation", `validate:${v.firstLeadId}:${v.leadIds}`, v.leadIds * prices.leadValidation);
    }
    for (const imp of input.promised.imports) {
      expect("import", imp.firstLeadId, imp.created * prices.leadCreateWithValidation);
    }
    // No charge for something that does not exist.
    const leadIds = new Set(
      (await q<{ id: string }>("select id from leads where account_id = any($1)", [accountIds])).map(
        (r) => r.id,
      ),
    );
    const batchIds = new Set(
      (await q<{ id: string }>("select id from batches where account_id = any($1)", [accountIds])).map(
        (r) => r.id,
      ),
    );
    const jobIds = new Set(
      (
        await q<{ id: string }>("select id from validation_jobs where account_id = any($1)", [accountIds])
      ).map((r) => r.id),
    );
    for (const d of debits) {
      const ref = d.reference ?? "";
      const target = ref.startsWith("validate:") ? ref.split(":")[1]! : ref;
      const exists = leadIds.has(target) || batchIds.has(target) || jobIds.has(target);
      if (!exists) violations.push(`debit ${ref} refers to no lead, batch or job`);
    }
    checks.push({ name: "each operation charged exactly once", checked, violations });
  }

  // 3. Events.
  {
    const hooks = await q<{ id: string; account_id: string; events: string; created_at: string }>(
      "select id, account_id, events, created_at from webhooks where account_id = any($1)",
      [accountIds],
    );
    const violations: string[] = [];
    let checked = 0;
    const missingByType = new Map<string, number>();
    for (const hook of hooks) {
      const kinds = JSON.parse(hook.events) as string[];
      const events = await q<{ id: string; type: string; dispatched: number }>(
        "select id, type, dispatched from events where account_id = $1 and type = any($2) and created_at >= $3 order by id",
        [hook.account_id, kinds, hook.created_at],
      );
      checked += events.length;
      for (const e of events) {
        if (input.accepted.has(e.id)) continue;
        missingByType.set(e.type, (missingByType.get(e.type) ?? 0) + 1);
        if (violations.length < 20) {
          const deliveries = await q<{ status: string; attempts: number; error_message: string | null }>(
            "select status, attempts, error_message from webhook_deliveries where event_id = $1 and webhook_id = $2",
            [e.id, hook.id],
          );
          const d = deliveries[0];
          violations.push(
            `${e.id} ${e.type} (${hook.account_id}) not received: ${
              d
                ? `delivery ${d.status} after ${d.attempts} attempt(s)${d.error_message ? `: ${d.error_message}` : ""}`
                : e.dispatched
                  ? "dispatched, no delivery record"
                  : "never dispatched"
            }`,
          );
        }
      }
    }
    const missing = [...missingByType.values()].reduce((a, b) => a + b, 0);
    if (missing > violations.length) {
      violations.push(
        `... ${missing} missing in all: ${[...missingByType].map(([t, n]) => `${t} ${n}`).join(", ")}`,
      );
    }
    checks.push({ name: "every event reached the receiver", checked, violations });
  }

  // 4. Answers.
  {
    const violations: string[] = [];
    const inDown = (c: Call) =>
      input.postgresDown.some((w) => c.start <= w.to + input.graceMs && c.end >= w.from);
    for (const c of input.calls) {
      const where = `${c.op} on :${c.node.port} at ${new Date(c.start).toISOString().slice(11, 23)}`;
      if (c.status === undefined) {
        if (!c.nodeKilled && !c.nodeCrashed)
          violations.push(`${where}: no answer (${c.error}) from a live process`);
        continue;
      }
      const b = (c.body ?? {}) as Record<string, unknown>;
      const errorBody =
        typeof b.error === "string" &&
        typeof b.error_code === "string" &&
        typeof b.message === "string" &&
        typeof b.details === "object" &&
        b.details !== null;
      if (c.status >= 400 && !errorBody) {
        violations.push(
          `${where}: ${c.status} without the error body: ${JSON.stringify(c.body).slice(0, 200)}`,
        );
        continue;
      }
      if (c.status === 503) {
        if (!inDown(c))
          violations.push(`${where}: 503 ${b.error_code} while PostgreSQL was up: ${b.message}`);
        continue;
      }
      const documented = input.documented.get(c.op);
      if (c.status === 500 || !documented?.has(String(c.status))) {
        violations.push(
          `${where}: ${c.status} ${b.error_code ?? ""} ${inDown(c) ? "(PostgreSQL down) " : ""}${String(b.message ?? "").slice(0, 120)}`,
        );
      }
    }
    checks.push({ name: "every answer documented (no 500)", checked: input.calls.length, violations });
  }

  checks.push({
    name: "no process died on its own",
    checked: input.processesWatched,
    violations: input.crashes,
  });
  checks.push({
    name: "every killed process restarted",
    checked: input.restartsAsked,
    violations: input.restartFailures,
  });
  return checks;
}

export function printTable(checks: Check[]): void {
  const rows = checks.map((c) => [
    c.name,
    String(c.checked),
    String(c.violations.length),
    c.violations.length === 0 ? "ok" : "VIOLATED",
  ]);
  const head = ["invariant", "checked", "violations", ""];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 1 || i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(" | ");
  console.log(line(head));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const r of rows) console.log(line(r));
  for (const c of checks) {
    if (c.violations.length === 0) continue;
    console.log(`\n${c.name}: ${c.violations.length} violation(s)`);
    for (const v of c.violations.slice(0, 15)) console.log(`  - ${v}`);
    if (c.violations.length > 15) console.log(`  ... and ${c.violations.length - 15} more`);
  }
}
