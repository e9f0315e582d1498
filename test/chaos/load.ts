// The chaos run's mixed workload, one loop per kind of user, each on its own account: leads created
// one by one (some validated, some updated, some re-validated as a batch), 2,000-lead CSV imports,
// domain batches, check-email calls with an ad-hoc webhookUrl, and reads. What each successful
// answer promised is kept, to be checked against the database at the end.
import type { Recorder } from "./recorder.js";

export interface Account {
  id: string;
  key: string;
}

export interface Promised {
  /** Leads created on their own (201), and whether they were validated (charged). */
  leads: { id: string; validate: boolean }[];
  /** CSV imports answered 200: their batch and the first lead (the charge's reference). */
  imports: { batchId: string; firstLeadId: string; created: number }[];
  /** Re-validations answered 200: their charge's reference is `validate:<first id>:<count>`. */
  validations: { batchId: string; firstLeadId: string; leadIds: number }[];
  domainBatches: { batchId: string; total: number }[];
  emailJobs: string[];
}

export interface LoadOptions {
  recorder: Recorder;
  random: () => number;
  accounts: { leads: Account; imports: Account; domains: Account; email: Account };
  /** Ad-hoc check-email callbacks go here (unsigned, sent once: not counted as events). */
  adhocUrl: string;
  importLeads: number;
  /** Pause between the end of one import batch and the next import. */
  importPauseMs: number;
  leadLoops: number;
  emailLoops: number;
}

const DOMAINS = ["acme.test", "www.acme.test", "parked.test", "broken.test", "catchall.test", "nx.test"];
const EMAILS = ["alice@acme.test", "nobody@acme.test", "x@catchall.test", "dave@grey.test", "who@nx.test"];

export function startLoad(options: LoadOptions) {
  const { recorder, random } = options;
  const promised: Promised = { leads: [], imports: [], validations: [], domainBatches: [], emailJobs: [] };
  let stopping = false;
  let counter = 0;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const between = (min: number, max: number) => min + Math.floor(random() * (max - min));
  /** Sleeps, but wakes at once when the load stops. */
  const wakers = new Set<() => void>();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
    });
  const ok = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;
  const body = (b: unknown) => (b ?? {}) as Record<string, unknown>;

  async function waitBatch(account: Account, batchId: string): Promise<void> {
    while (!stopping) {
      await pause(2000);
      const res = await recorder.request("GET /v1/batches/{batchId}", `/v1/batches/${batchId}`, {
        key: account.key,
      });
      if (ok(res.status) && body(res.body).status !== "processing") return;
    }
  }

  async function leadLoop(): Promise<void> {
    const { key } = options.accounts.leads;
    const mine: string[] = [];
    const validated = new Set<string>();
    while (!stopping) {
      const n = counter++;
      const validate = random() < 0.5;
      const email = `lead${n}@${pick(["acme.test", "catchall.test", "grey.test"])}`;
      const res = await recorder.request("POST /v1/leads", "/v1/leads", {
        key,
        body: {
          email,
          firstName: "Chaos",
          company: "Chaos Inc.",
          ...(random() < 0.5 ? { website: pick(DOMAINS) } : {}),
          validate,
        },
      });
      if (res.status === 201) {
        const id = String(body(res.body).id);
        promised.leads.push({ id, validate });
        mine.push(id);
      }
      const roll = random();
      if (roll < 0.15 && mine.length > 0) {
        const id = pick(mine);
        await recorder.request("PUT /v1/leads/{leadId}", `/v1/leads/${id}`, {
          key,
          body: { notes: `touched ${n}`, priority: "high" },
        });
      } else if (roll < 0.22 && mine.length >= 5) {
        // Each set once: the charge's reference (first id and count) then names one request.
        const ids = mine.slice(-between(1, 10));
        const ref = `${ids[0]}:${ids.length}`;
        if (validated.has(ref)) continue;
        validated.add(ref);
        const v = await recorder.request("POST /v1/leads/validate", "/v1/leads/validate", {
          key,
          body: { leadIds: ids },
        });
        if (ok(v.status)) {
          promised.validations.push({
            batchId: String(body(v.body).batchId),
            firstLeadId: ids[0]!,
            leadIds: ids.length,
          });
        }
      } else if (roll < 0.35 && mine.length > 0) {
        await recorder.request("GET /v1/leads/{leadId}", `/v1/leads/${pick(mine)}`, { key });
      }
      await pause(between(150, 500));
    }
  }

  async function importLoop(): Promise<void> {
    const { key } = options.accounts.imports;
    while (!stopping) {
      const run = counter++;
      const rows = Array.from({ length: options.importLeads }, (_, i) =>
        i % 2 === 0 ? `imp${run}-${i}@catchall.test,acme.test` : `imp${run}-${i}@acme.test,`,
      );
      const res = await recorder.request("POST /v1/leads/import", "/v1/leads/import", {
        key,
        body: `email,website\n${rows.join("\n")}\n`,
        type: "text/csv",
      });
      const b = body(res.body);
      if (ok(res.status) && typeof b.batchId === "string") {
        const leadIds = b.leadIds as string[];
        promised.imports.push({ batchId: b.batchId, firstLeadId: leadIds[0]!, created: Number(b.created) });
        await waitBatch(options.accounts.imports, b.batchId);
      }
      await pause(options.importPauseMs);
    }
  }

  async function domainLoop(): Promise<void> {
    const { key } = options.accounts.domains;
    while (!stopping) {
      const domains = Array.from({ length: between(20, 120) }, () => pick(DOMAINS));
      const res = await recorder.request("POST /v1/batch", "/v1/batch", { key, body: { domains } });
      const b = body(res.body);
      if (ok(res.status) && typeof b.batchId === "string") {
        promised.domainBatches.push({ batchId: b.batchId, total: domains.length });
        await waitBatch(options.accounts.domains, b.batchId);
        await recorder.request(
          "GET /v1/batches/{batchId}/results",
          `/v1/batches/${b.batchId}/results?limit=50`,
          {
            key,
          },
        );
      }
      await pause(between(1000, 4000));
    }
  }

  async function emailLoop(): Promise<void> {
    const { key } = options.accounts.email;
    const open: string[] = [];
    while (!stopping) {
      const res = await recorder.request("POST /v1/check-email", "/v1/check-email", {
        key,
        body: { email: pick(EMAILS), timeout: 5, webhookUrl: options.adhocUrl },
      });
      const b = body(res.body);
      if (ok(res.status) && typeof b.jobId === "string") {
        promised.emailJobs.push(b.jobId);
        if (b.status === "processing") open.push(b.jobId);
      }
      const jobId = open.shift();
      if (jobId) {
        const polled = await recorder.request(
          "GET /v1/validation-jobs/{jobId}",
          `/v1/validation-jobs/${jobId}`,
          {
            key,
          },
        );
        if (ok(polled.status) && body(polled.body).status === "processing") open.push(jobId);
      }
      await pause(between(300, 1200));
    }
  }

  async function readLoop(): Promise<void> {
    const all = Object.values(options.accounts);
    while (!stopping) {
      const account = pick(all);
      const roll = random();
      if (roll < 0.4) {
        await recorder.request("GET /v1/leads", `/v1/leads?limit=20&offset=${between(0, 50)}`, {
          key: account.key,
        });
      } else if (roll < 0.7) {
        await recorder.request("GET /v1/credits", "/v1/credits", { key: account.key });
      } else if (roll < 0.85) {
        await recorder.request("GET /v1/credits/transactions", "/v1/credits/transactions?limit=20", {
          key: account.key,
        });
      } else {
        await recorder.request("GET /v1/leads/stats", "/v1/leads/stats", { key: account.key });
      }
      await pause(between(300, 900));
    }
  }

  /** A loop that throws (a bug of the load, not of the service) is reported and started again. */
  const forever = async (name: string, loop: () => Promise<void>) => {
    while (!stopping) {
      await loop().catch((error) => console.error(`load loop ${name} failed, restarting it:`, error));
    }
  };
  const loops = [
    ...Array.from({ length: options.leadLoops }, () => forever("leads", leadLoop)),
    forever("imports", importLoop),
    forever("domains", domainLoop),
    ...Array.from({ length: options.emailLoops }, () => forever("email", emailLoop)),
    forever("reads", readLoop),
  ];
  const finished = Promise.allSettled(loops);

  return {
    promised,
    async stop(): Promise<void> {
      stopping = true;
      for (const wake of [...wakers]) wake();
      const results = await finished;
      for (const r of results) if (r.status === "rejected") console.error("a load loop failed:", r.reason);
    },
  };
}
