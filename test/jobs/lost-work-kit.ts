// Work whose jobs get lost, for the lifecycle and sweeper tests: a lead batch of two, a lead
// created with validation and an email validation job, started through the real services, and
// the check that all of it was closed with the error and announced with validation.failed.
import assert from "node:assert/strict";
import { BATCH_RUN_JOB } from "../../src/batches/batches.schemas.js";
import { LEAD_VALIDATE_JOB } from "../../src/leads/validation/lead-validation.schemas.js";
import { EMAIL_VERIFY_JOB } from "../../src/paid-checks/email-checks.service.js";
import type { Harness } from "../support/harness.js";
import { waitFor } from "../support/wait-for.js";

/** The queues of the three jobs startLostWork queues. */
export const LOST_QUEUES = [BATCH_RUN_JOB, LEAD_VALIDATE_JOB, EMAIL_VERIFY_JOB] as const;

export interface LostWork {
  batchId: string;
  batchLeadIds: string[];
  leadId: string;
  validationJobId: string;
}

/** The account (with its API key) the work belongs to. */
export interface WorkOwner {
  h: Harness;
  account: string;
  key: string;
}

/** A lead batch of two, a lead created with validation, and an email check: three jobs. */
export async function startLostWork({ h, account, key }: WorkOwner, tag: string): Promise<LostWork> {
  const post = async (url: string, payload: object) =>
    h.app.inject({ method: "POST", url, headers: { "x-api-key": key }, payload });
  const created = [];
  for (const email of [`a.${tag}@acme.test`, `b.${tag}@acme.test`]) {
    const res = await post("/v1/leads", { email, validate: false });
    assert.equal(res.statusCode, 201, res.body);
    created.push(res.json().id as string);
  }
  const batch = await post("/v1/leads/validate", { leadIds: created });
  assert.equal(batch.statusCode, 200, batch.body);
  const single = await post("/v1/leads", { email: `c.${tag}@acme.test`, validate: true });
  assert.equal(single.statusCode, 201, single.body);
  const check = await h.services.emailChecks.check(account, `d.${tag}@acme.test`, 0, null);
  return {
    batchId: batch.json().batchId as string,
    batchLeadIds: created,
    leadId: single.json().id as string,
    validationJobId: check.job.id,
  };
}

/** True once neither the batch, its leads, the single lead nor the validation job is processing. */
export async function isWorkClosed(h: Harness, work: LostWork): Promise<boolean> {
  const { db } = h.services.database;
  const batch = await db
    .selectFrom("batches")
    .select("status")
    .where("id", "=", work.batchId)
    .executeTakeFirst();
  const job = await db
    .selectFrom("validation_jobs")
    .select("status")
    .where("id", "=", work.validationJobId)
    .executeTakeFirst();
  const processing = await db
    .selectFrom("leads")
    .select("id")
    .where("id", "in", [...work.batchLeadIds, work.leadId])
    .where("validation_status", "=", "processing")
    .execute();
  return batch?.status !== "processing" && job?.status !== "processing" && processing.length === 0;
}

/** Waits until the work is closed, then checks each part ended with `error` and that
 *  validation.failed carried it for the batch, the lead and the validation job. */
export async function assertWorkClosed(
  { h, account }: WorkOwner,
  work: LostWork,
  error: RegExp,
  { timeoutMs = 60_000 } = {},
): Promise<void> {
  await waitFor(() => isWorkClosed(h, work), {
    timeoutMs,
    intervalMs: 50,
    what: "the lost work to be closed",
  });
  const { db } = h.services.database;
  const batch = await db
    .selectFrom("batches")
    .selectAll()
    .where("id", "=", work.batchId)
    .executeTakeFirstOrThrow();
  assert.equal(batch.status, "failed", "no item of the batch could be processed");
  assert.equal(Number(batch.failed), 2);
  const items = await db.selectFrom("batch_items").selectAll().where("batch_id", "=", work.batchId).execute();
  for (const item of items) {
    assert.equal(item.status, "failed");
    assert.match(item.error ?? "", error);
  }
  const leads = await db
    .selectFrom("leads")
    .select(["id", "validation_status"])
    .where("id", "in", [...work.batchLeadIds, work.leadId])
    .execute();
  for (const lead of leads) assert.equal(lead.validation_status, "risky", `lead ${lead.id}`);
  const job = await db
    .selectFrom("validation_jobs")
    .selectAll()
    .where("id", "=", work.validationJobId)
    .executeTakeFirstOrThrow();
  assert.ok(job.status === "failed" || job.status === "timeout", job.status);
  assert.match(job.error ?? "", error);
  assert.ok(job.completed_at);

  const payloads = await validationFailedPayloads(h, account);
  const forBatch = payloads.find((p) => p.batchId === work.batchId);
  const forLead = payloads.find((p) => p.leadId === work.leadId);
  const forJob = payloads.find((p) => p.jobId === work.validationJobId);
  assert.ok(forBatch, "validation.failed for the batch");
  assert.match(String(forBatch.error), error);
  assert.ok(forLead, "validation.failed for the single lead");
  assert.match(String(forLead.error), error);
  assert.ok(forJob, "validation.failed for the validation job");
  assert.match(String(forJob.error), error);
}

/** Payloads of every validation.failed event of the account, oldest first. */
export async function validationFailedPayloads(h: Harness, account: string) {
  const rows = await h.services.database.db
    .selectFrom("events")
    .select("payload")
    .where("account_id", "=", account)
    .where("type", "=", "validation.failed")
    .orderBy("id")
    .execute();
  return rows.map((row) => JSON.parse(row.payload) as Record<string, unknown>);
}
