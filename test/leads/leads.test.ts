// The lead API end to end: real storage on both dialects, validation through both engines against
// the local fake internet (DNS, SMTP, HTTPS), credits, batches and their limits.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { waitFor } from "../support/wait-for.js";

for (const kind of dialects()) {
  describe(`leads (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let net: FakeInternet;
    let h: Harness;
    // Every test has an account of its own (and so its own leads and credits): none reads another's data.
    let accounts = 0;
    let account = "";
    let key = "";
    const newKey = (label: string) => h.apiKey(`acct_${label}_${++accounts}`);
    const call = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown, apiKey = key) =>
      h.call(apiKey, method, url, payload);
    const credits = async (apiKey = key) =>
      (await call("GET", "/v1/credits", undefined, apiKey)).json().displayCredits as number;
    const settled = (id: string, apiKey = key) =>
      waitFor(
        async () => {
          const lead = (await call("GET", `/v1/leads/${id}`, undefined, apiKey)).json();
          return ["new", "processing"].includes(lead.validationStatus) ? undefined : lead;
        },
        `lead ${id} validated`,
        20_000,
        50,
      );

    before(async () => {
      if (skip) return;
      net = await startFakeInternet();
      h = await startHarness(
        kind,
        { ...net.env, ...UNLIMITED_RATE_ENV },
        { websiteCa: net.ca, workers: true },
      );
    });
    beforeEach(async () => {
      if (skip) return;
      account = `acct_leads_${++accounts}`;
      key = await h.apiKey(account);
    });
    after(async () => {
      await h?.close();
      await net?.close();
    });

    it("creates a lead, charges 0.002 upfront, validates it and rates it with its factors", {
      skip,
    }, async () => {
      const res = await call("POST", "/v1/leads", {
        email: "Alice@ACME.test",
        website: "acme.test",
        first_name: "Alice",
        company: "Acme",
        customFields: { tier: "gold" },
      });
      assert.equal(res.statusCode, 201, res.body);
      const lead = res.json();
      assert.match(lead.id, /^lead_/);
      assert.equal(lead.website, "https://acme.test/");
      assert.equal(lead.firstName, "Alice");
      assert.equal(lead.validationStatus, "new");
      assert.equal(lead.leadDeliverabilityRating, 0);
      assert.equal(lead.emailValid, null);
      assert.equal(lead.emailReason, null, "null until validated");
      assert.equal(lead.domainHttpStatus, null);
      assert.equal(lead.source, "api");
      assert.deepEqual(lead.metadata, { validate: true });
      assert.equal(await credits(), 1998);

      const done = await settled(lead.id);
      assert.equal(done.validationStatus, "valid", JSON.stringify(done.ratingFactors));
      assert.equal(done.emailValid, true);
      assert.equal(done.emailReason, "deliverable");
      assert.equal(done.emailCatchAll, false);
      assert.equal(done.domainHttpStatus, 200);
      assert.equal(done.domainSslValid, true);
      assert.equal(done.domainFinalUrl, "https://acme.test/");
      assert.ok(done.domainScore > 50);
      assert.equal(done.leadDeliverabilityRating, 100, JSON.stringify(done.ratingFactors));
      assert.equal(done.leadRecommendation, "high_priority");
      assert.equal(done.leadQuality, "excellent");
      assert.ok(done.ratingFactors.some((f: { code: string }) => f.code === "email_deliverable"));
    });

    it("refuses a duplicate email case-insensitively, but not after the first is archived", {
      skip,
    }, async () => {
      const first = await call("POST", "/v1/leads", { email: "dup@acme.test", validate: false });
      assert.equal(first.statusCode, 201);
      const dup = await call("POST", "/v1/leads", { email: "DUP@acme.test", validate: false });
      assert.equal(dup.statusCode, 400);
      assert.equal(dup.json().error_code, "DUPLICATE_LEAD");
      const balance = await credits();
      const paidDup = await call("POST", "/v1/leads", { email: "dup@ACME.test", validate: true });
      assert.equal(paidDup.json().error_code, "DUPLICATE_LEAD", "refused, not charged");
      assert.equal(await credits(), balance);
      const del = await call("DELETE", `/v1/leads/${first.json().id}`);
      assert.equal(del.statusCode, 200);
      assert.equal((await call("GET", `/v1/leads/${first.json().id}`)).statusCode, 404);
      const again = await call("POST", "/v1/leads", { email: "DUP@acme.test", validate: false });
      assert.equal(again.statusCode, 201);
    });

    it("refuses another alias of the same mailbox and names the existing lead", { skip }, async () => {
      const first = (await call("POST", "/v1/leads", { email: "jdoe@gmail.com", validate: false })).json();
      assert.equal(first.normalizedEmail, "jdoe@gmail.com");
      for (const alias of ["j.doe+crm@gmail.com", "J.Doe@googlemail.com"]) {
        const dup = await call("POST", "/v1/leads", { email: alias, validate: true });
        assert.equal(dup.statusCode, 400, dup.body);
        assert.equal(dup.json().error_code, "DUPLICATE_LEAD");
        assert.equal(dup.json().details.existingLeadId, first.id);
        assert.match(dup.json().message, new RegExp(`jdoe@gmail.com \\(${first.id}\\)`));
      }
      const bulk = (
        await call("POST", "/v1/leads/bulk", {
          leads: [
            { email: "jdoe+news@gmail.com" },
            { email: "jane+a@outlook.com" },
            { email: "jane+b@outlook.com" },
          ],
          validate: false,
        })
      ).json();
      assert.equal(bulk.created, 1);
      assert.deepEqual(bulk.errors, [
        {
          index: 0,
          email: "jdoe+news@gmail.com",
          error: `a lead with this email already exists (${first.id})`,
        },
        { index: 2, email: "jane+b@outlook.com", error: "duplicate email in this request" },
      ]);
      // A company domain's "+" may be significant: those are different leads.
      const a = await call("POST", "/v1/leads", { email: "sales+eu@acme.test", validate: false });
      const b = await call("POST", "/v1/leads", { email: "sales+us@acme.test", validate: false });
      assert.deepEqual([a.statusCode, b.statusCode], [201, 201]);
      const moved = await call("PUT", `/v1/leads/${a.json().id}`, { email: "jdoe+x@gmail.com" });
      assert.equal(moved.statusCode, 400);
      assert.equal(moved.json().details.existingLeadId, first.id);
    });

    it("creates with validate: false for free and leaves the lead new", { skip }, async () => {
      const before = await credits();
      const res = await call("POST", "/v1/leads", { email: "free@acme.test", validate: false });
      assert.equal(res.statusCode, 201);
      assert.equal(await credits(), before);
      assert.deepEqual(res.json().metadata, { validate: false });
    });

    it("rejects bad fields with 422 and both error shapes", { skip }, async () => {
      const res = await call("POST", "/v1/leads", {
        email: "not-an-email",
        website: "http://exa mple",
        priority: "whenever",
      });
      assert.equal(res.statusCode, 422);
      const body = res.json();
      assert.equal(body.error_code, "VALIDATION_ERROR");
      assert.ok(body.details.errors.length >= 1);
      assert.ok(body.detail[0].loc && body.detail[0].msg);
      const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, i]));
      const tooMany = await call("POST", "/v1/leads", {
        email: "cf@acme.test",
        customFields: many,
        validate: false,
      });
      assert.equal(tooMany.statusCode, 422);
      const big = await call("POST", "/v1/leads", {
        email: "cf@acme.test",
        customFields: { x: "y".repeat(1100) },
        validate: false,
      });
      assert.equal(big.statusCode, 422);
    });

    it("updates partially: null clears, customFields merge, email change to a used one is 400", {
      skip,
    }, async () => {
      const a = (
        await call("POST", "/v1/leads", {
          email: "upd@acme.test",
          company: "Old",
          title: "CEO",
          customFields: { a: 1, b: 2 },
          validate: false,
        })
      ).json();
      await call("POST", "/v1/leads", { email: "taken@acme.test", validate: false });
      const res = await call("PUT", `/v1/leads/${a.id}`, {
        company: "New",
        title: null,
        customFields: { b: 3, c: 4 },
      });
      assert.equal(res.statusCode, 200, res.body);
      const updated = res.json();
      assert.equal(updated.company, "New");
      assert.equal(updated.title, null);
      assert.deepEqual(updated.customFields, { a: 1, b: 3, c: 4 });
      assert.equal(updated.validationStatus, "new", "update does not validate");
      const clash = await call("PUT", `/v1/leads/${a.id}`, { email: "Taken@acme.test" });
      assert.equal(clash.statusCode, 400);
      const other = await newKey("other");
      assert.equal((await call("PUT", `/v1/leads/${a.id}`, { company: "x" }, other)).statusCode, 404);
      assert.equal((await call("GET", `/v1/leads/${a.id}`, undefined, other)).statusCode, 404);
    });

    it("lists with filters and stable limit/offset paging", { skip }, async () => {
      for (const email of ["l1@acme.test", "l2@acme.test", "l3@acme.test"])
        assert.equal((await call("POST", "/v1/leads", { email, validate: false })).statusCode, 201);
      const rated = (
        await call("POST", "/v1/leads", { email: "alice@acme.test", website: "acme.test" })
      ).json();
      assert.equal((await settled(rated.id)).validationStatus, "valid");
      const first = (await call("GET", "/v1/leads")).json();
      assert.deepEqual([first.limit, first.offset], [50, 0], "limit and offset default when left out");
      const page1 = (await call("GET", "/v1/leads?limit=2")).json();
      assert.equal(page1.leads.length, 2);
      assert.equal(page1.hasMore, true);
      assert.equal(page1.nextOffset, 2);
      const page2 = (await call("GET", `/v1/leads?limit=2&offset=${page1.nextOffset}`)).json();
      assert.notEqual(page2.leads[0].id, page1.leads[0].id);
      assert.ok(page1.leads[0].id > page2.leads[0].id, "newest first");
      const valid = (await call("GET", "/v1/leads?validationStatus=valid")).json();
      assert.ok(valid.leads.every((l: { validationStatus: string }) => l.validationStatus === "valid"));
      const high = (await call("GET", "/v1/leads?min_score=90")).json();
      assert.ok(
        high.total >= 1 &&
          high.leads.every((l: { leadDeliverabilityRating: number }) => l.leadDeliverabilityRating >= 90),
      );
      const bad = await call("GET", "/v1/leads?limit=101");
      assert.equal(bad.statusCode, 422);
    });

    // PostgreSQL only: on SQLite one connection runs requests one at a time, so no such race exists.
    if (kind === "postgres")
      it("reports an email created by another request during a bulk create per item, not as a 500", {
        skip,
      }, async () => {
        const seed = (await call("POST", "/v1/leads", { email: "seed@race.test", validate: false })).json();
        const other = await h.services.database.pgPool!.connect();
        try {
          // Another request's insert of race@race.test, not yet committed: invisible to the bulk's
          // read, yet its insert must wait on the unique index and then be refused.
          await other.query("BEGIN");
          await other.query(
            "UPDATE leads SET email = $1, email_lower = $1, normalized_email = $1 WHERE id = $2",
            ["race@race.test", seed.id],
          );
          const bulk = call("POST", "/v1/leads/bulk", {
            leads: [{ email: "race@race.test" }, { email: "calm@race.test" }],
            validate: false,
          });
          // Asked on a pool connection: inside `other`'s transaction pg_stat_activity is read once
          // and kept, so a probe made before the bulk waits would never see it wait.
          await waitFor(
            async () =>
              (
                await h.services.database.pgPool!.query(
                  "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
                )
              ).rowCount || undefined,
            "the bulk insert waiting on the unique index",
            10_000,
            20,
          );
          await other.query("COMMIT");
          const res = await bulk;
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(res.json().created, 1);
          assert.deepEqual(res.json().errors, [
            {
              index: 0,
              email: "race@race.test",
              error: `a lead with this email already exists (${seed.id})`,
            },
          ]);
        } finally {
          other.release();
        }
      });

    // PostgreSQL only, like the race above: two other requests each hold one of the bulk's emails
    // uncommitted, and commit one after the other while the bulk waits on each in turn.
    if (kind === "postgres")
      it("retries a bulk create through successive races until it settles, each taken email reported per item", {
        skip,
      }, async () => {
        const pool = h.services.database.pgPool!;
        const seed = async (email: string) =>
          (await call("POST", "/v1/leads", { email, validate: false })).json().id as string;
        const takers = [
          { email: "one@race2.test", leadId: await seed("seed1@race2.test"), client: await pool.connect() },
          { email: "two@race2.test", leadId: await seed("seed2@race2.test"), client: await pool.connect() },
        ];
        try {
          for (const taker of takers) {
            await taker.client.query("BEGIN");
            await taker.client.query(
              "UPDATE leads SET email = $1, email_lower = $1, normalized_email = $1 WHERE id = $2",
              [taker.email, taker.leadId],
            );
          }
          const bulk = call("POST", "/v1/leads/bulk", {
            leads: [{ email: "one@race2.test" }, { email: "two@race2.test" }, { email: "calm@race2.test" }],
            validate: false,
          });
          for (const taker of takers) {
            const pid = (await taker.client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
            await waitFor(
              async () =>
                (
                  await pool.query("SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", [
                    pid,
                  ])
                ).rowCount || undefined,
              `the bulk insert waiting on ${taker.email}'s uncommitted row`,
              10_000,
              20,
            );
            await taker.client.query("COMMIT");
          }
          const res = await bulk;
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(res.json().created, 1);
          assert.deepEqual(
            res.json().errors,
            takers.map((taker, index) => ({
              index,
              email: taker.email,
              error: `a lead with this email already exists (${taker.leadId})`,
            })),
          );
        } finally {
          for (const taker of takers) taker.client.release();
        }
      });

    // Aliases are not caught by the exact-address unique index: the mailbox lock must serialise them.
    if (kind === "postgres")
      it("lets one of many aliases of a mailbox created at once in, and refuses the rest", {
        skip,
      }, async () => {
        const aliases = Array.from({ length: 12 }, (_, i) => `rush.hour+${i}@gmail.com`);
        const results = await Promise.all([
          ...aliases.slice(0, 8).map((email) => call("POST", "/v1/leads", { email, validate: false })),
          ...aliases
            .slice(8)
            .map((email) => call("POST", "/v1/leads/bulk", { leads: [{ email }], validate: false })),
        ]);
        const created = results.flatMap((r) =>
          r.statusCode === 201
            ? [r.json().id]
            : r.statusCode === 200
              ? r.json().leads.map((l: { id: string }) => l.id)
              : [],
        );
        assert.equal(created.length, 1, results.map((r) => `${r.statusCode} ${r.body}`).join("\n"));
        for (const r of results.slice(0, 8).filter((r) => r.statusCode !== 201)) {
          assert.equal(r.statusCode, 400, r.body);
          assert.equal(r.json().details.existingLeadId, created[0]);
        }
        const live = await call("GET", "/v1/leads?search=rush.hour&limit=100");
        assert.equal(live.json().total, 1);
      });

    it("bulk-creates with per-item errors, charges the good ones once and validates them as a batch", {
      skip,
    }, async () => {
      const before = await credits();
      const res = await call("POST", "/v1/leads/bulk", {
        leads: [
          { email: "bob@acme.test", website: "acme.test" },
          { email: "nobody@acme.test" },
          { email: "x@catchall.test", website: "catchall.test" },
          { email: "broken" },
          { email: "bob@acme.test" },
          { email: "someone@parked.test", website: "parked.test" },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.created, 4);
      assert.equal(body.failed, 2);
      assert.deepEqual(
        body.errors.map((e: { index: number }) => e.index),
        [3, 4],
      );
      assert.match(body.batchId, /^batch_/);
      assert.equal(await credits(), before - 8);

      const batch = await waitFor(
        async () => {
          const b = (await call("GET", `/v1/batches/${body.batchId}`)).json();
          return b.status === "processing" ? undefined : b;
        },
        "batch completes",
        20_000,
        50,
      );
      assert.equal(batch.status, "completed");
      assert.equal(batch.totalLeads, 4);
      assert.equal(batch.completedLeads, 4);
      assert.equal(batch.validLeads, 1, "bob@acme.test");
      assert.equal(batch.invalidLeads, 2, "nobody@acme.test and someone@parked.test are unknown mailboxes");
      const byEmail = new Map<string, Record<string, unknown>>();
      for (const l of body.leads) byEmail.set(l.email, (await call("GET", `/v1/leads/${l.id}`)).json());
      assert.equal(byEmail.get("bob@acme.test")!.validationStatus, "valid");
      assert.equal(byEmail.get("nobody@acme.test")!.validationStatus, "invalid");
      assert.equal(byEmail.get("x@catchall.test")!.validationStatus, "risky");
      assert.equal(byEmail.get("x@catchall.test")!.emailCatchAll, true);
      assert.equal(byEmail.get("someone@parked.test")!.domainParked, true);
      assert.equal(byEmail.get("someone@parked.test")!.websiteParkedKind, "parked");
      const evidence = byEmail.get("someone@parked.test")!.websiteParkedEvidence as { signal: string }[];
      assert.ok(
        evidence.some((e) => e.signal === "script"),
        JSON.stringify(evidence),
      );
      assert.equal(byEmail.get("bob@acme.test")!.websiteParkedKind, null);
      assert.equal(byEmail.get("bob@acme.test")!.websiteParkedEvidence, null);
      assert.equal(byEmail.get("someone@parked.test")!.validationStatus, "invalid");
      assert.equal(await credits(), before - 8, "nothing charged twice");

      const types = (
        await h.services.database.db
          .selectFrom("events")
          .select("type")
          .where("account_id", "=", account)
          .execute()
      ).map((e) => e.type);
      for (const t of [
        "lead.created",
        "lead.validated",
        "batch.started",
        "validation.started",
        "batch.complete",
        "validation.complete",
      ]) {
        assert.ok(types.includes(t), `${t} recorded`);
      }
    });

    it("validates existing leads; a foreign id is 404 with nothing charged", { skip }, async () => {
      const mine = (await call("POST", "/v1/leads", { email: "carol@acme.test", validate: false })).json();
      const other = await newKey("foreign");
      const theirs = (
        await call("POST", "/v1/leads", { email: "carol@acme.test", validate: false }, other)
      ).json();
      const before = await credits();
      const refused = await call("POST", "/v1/leads/validate", { leadIds: [mine.id, theirs.id] });
      assert.equal(refused.statusCode, 404);
      assert.deepEqual(refused.json().details.missingLeadIds, [theirs.id]);
      assert.equal(await credits(), before);
      const ok = await call("POST", "/v1/leads/validate", { lead_ids: [mine.id] });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().status, "processing");
      assert.equal(ok.json().pollUrl, `/v1/batches/${ok.json().batchId}`);
      assert.equal(await credits(), before - 2);
      const done = await settled(mine.id);
      assert.equal(done.validationStatus, "valid");
    });

    it("answers 402 with nothing created when credits do not cover the work", { skip }, async () => {
      const poor = await newKey("poor");
      const batch = (prefix: string, n: number) =>
        Array.from({ length: n }, (_, i) => ({ email: `${prefix}${i}@acme.test` }));
      assert.equal((await call("POST", "/v1/leads/bulk", { leads: batch("p", 500) }, poor)).statusCode, 200);
      assert.equal((await call("POST", "/v1/leads/bulk", { leads: batch("r", 400) }, poor)).statusCode, 200);
      assert.equal(await credits(poor), 200);
      const res = await call("POST", "/v1/leads/bulk", { leads: batch("q", 500) }, poor);
      assert.equal(res.statusCode, 402);
      const body = res.json();
      assert.equal(body.error_code, "PAYMENT_REQUIRED");
      assert.equal(body.required, 1);
      assert.equal(body.available, 0.2);
      assert.equal(body.displayCreditsRequired, 1000);
      assert.equal(body.displayCreditsAvailable, 200);
      const single = await call("POST", "/v1/leads", { email: "solo@acme.test" }, poor);
      assert.equal(single.statusCode, 201, "200 display credits still pay for one lead");
      const total = (await call("GET", "/v1/leads?limit=1", undefined, poor)).json().total;
      assert.equal(total, 901, "nothing of the refused bulk was created");
      assert.equal((await call("POST", "/v1/leads/bulk", { leads: batch("s", 99) }, poor)).statusCode, 200);
      assert.equal(await credits(poor), 0);
      const unpaid = await call("POST", "/v1/leads", { email: "unpaid@acme.test" }, poor);
      assert.equal(unpaid.statusCode, 402);
      const after = (await call("GET", "/v1/leads?limit=1", undefined, poor)).json().total;
      assert.equal(after, 1000, "the unpaid lead was not created");
      const free = await call("POST", "/v1/leads", { email: "unpaid@acme.test", validate: false }, poor);
      assert.equal(free.statusCode, 201, "and its email is still free to use");
    });

    it("reports stats by status and recommendation", { skip }, async () => {
      const validated = (
        await call("POST", "/v1/leads/bulk", {
          leads: [
            { email: "alice@acme.test", website: "acme.test" },
            { email: "bob@acme.test", website: "acme.test" },
            { email: "nobody@acme.test" },
          ],
        })
      ).json();
      for (const lead of validated.leads) await settled(lead.id);
      for (const email of ["s1@acme.test", "s2@acme.test"])
        assert.equal((await call("POST", "/v1/leads", { email, validate: false })).statusCode, 201);
      const stats = (await call("GET", "/v1/leads/stats")).json();
      assert.equal(stats.total, 5);
      assert.equal(stats.byValidationStatus.valid, 2, JSON.stringify(stats));
      assert.equal(stats.byValidationStatus.new, 2, JSON.stringify(stats));
      assert.ok(stats.byRecommendation.high_priority >= 1, JSON.stringify(stats));
      assert.equal(typeof stats.averageRating, "number");
    });
  });
}

describe("batch limits", () => {
  let h: Harness;
  before(async () => {
    // No workers: batches stay running.
    h = await startHarness("sqlite", { ...UNLIMITED_RATE_ENV, MAX_VALIDATIONS_PER_DAY: "10" });
  });
  after(async () => h?.close());

  it("refuses a 4th concurrent batch with 429 and charges nothing for it", async () => {
    const key = await h.apiKey("acct_batches");
    const call = (url: string, payload: object) =>
      h.app.inject({ method: "POST", url, headers: { "x-api-key": key }, payload });
    for (let i = 0; i < 3; i++) {
      assert.equal((await call("/v1/batch", { domains: [`site${i}.test`] })).statusCode, 200);
    }
    const before = (
      await h.app.inject({ method: "GET", url: "/v1/credits", headers: { "x-api-key": key } })
    ).json().displayCredits;
    const fourth = await call("/v1/batch", { domains: ["site4.test"] });
    assert.equal(fourth.statusCode, 429);
    assert.equal(fourth.json().error_code, "CONCURRENT_BATCH_LIMIT");
    assert.ok(fourth.headers["retry-after"]);
    const after = (
      await h.app.inject({ method: "GET", url: "/v1/credits", headers: { "x-api-key": key } })
    ).json().displayCredits;
    assert.equal(after, before);
  });

  it("holds the leads of a bulk create and of a validation request processing, each item with its email", async () => {
    const key = await h.apiKey("acct_pending");
    const call = (method: "GET" | "POST", url: string, payload?: object) =>
      h.app.inject({ method, url, headers: { "x-api-key": key }, ...(payload ? { payload } : {}) });
    const bulk = await call("POST", "/v1/leads/bulk", {
      leads: [{ email: "ann@pending.test" }, { email: "ben@pending.test" }],
    });
    assert.equal(bulk.statusCode, 200, bulk.body);
    const plain = await call("POST", "/v1/leads/bulk", {
      leads: [{ email: "cy@pending.test" }],
      validate: false,
    });
    assert.equal(plain.statusCode, 200, plain.body);
    const statusOf = async (id: string) => (await call("GET", `/v1/leads/${id}`)).json().validationStatus;
    const [ann, ben] = bulk.json().leads as { id: string }[];
    const cy = (plain.json().leads as { id: string }[])[0]!;
    assert.deepEqual(
      [await statusOf(ann!.id), await statusOf(ben!.id), await statusOf(cy.id)],
      ["processing", "processing", "new"],
    );
    const validation = await call("POST", "/v1/leads/validate", { leadIds: [cy.id] });
    assert.equal(validation.statusCode, 200, validation.body);
    assert.equal(await statusOf(cy.id), "processing");
    // No worker runs here: every item is pending, under its lead's email.
    for (const [batchId, emails] of [
      [bulk.json().batchId, ["ann@pending.test", "ben@pending.test"]],
      [validation.json().batchId, ["cy@pending.test"]],
    ] as const) {
      const results = await call("GET", `/v1/batches/${batchId}/results`);
      assert.equal(results.statusCode, 200, results.body);
      assert.deepEqual(
        results
          .json()
          .results.map((r: { input: string }) => r.input)
          .sort(),
        emails,
      );
    }
  });

  it("refuses a domain batch the account cannot pay with 402 and starts nothing", async () => {
    const key = await h.apiKey("acct_poor");
    const get = (url: string) => h.app.inject({ method: "GET", url, headers: { "x-api-key": key } });
    const before = (await get("/v1/credits")).json().displayCredits as number;
    const domains = Array.from({ length: before + 1 }, (_, i) => `poor${i}.test`);
    const refused = await h.app.inject({
      method: "POST",
      url: "/v1/batch",
      headers: { "x-api-key": key },
      payload: { domains },
    });
    assert.equal(refused.statusCode, 402, refused.body);
    const body = refused.json();
    assert.equal(body.error_code, "PAYMENT_REQUIRED");
    assert.equal(body.displayCreditsRequired, before + 1);
    assert.equal(body.displayCreditsAvailable, before);
    assert.equal((await get("/v1/credits")).json().displayCredits, before);
    assert.equal((await get("/v1/batches")).json().total, 0);
  });

  it("refuses validations past the daily limit with 429 DAILY_LIMIT_EXCEEDED", async () => {
    const key = await h.apiKey("acct_daily");
    const call = (payload: object) =>
      h.app.inject({ method: "POST", url: "/v1/batch", headers: { "x-api-key": key }, payload });
    assert.equal(
      (await call({ domains: Array.from({ length: 8 }, (_, i) => `d${i}.test`) })).statusCode,
      200,
    );
    const over = await call({ domains: ["a.test", "b.test", "c.test"] });
    assert.equal(over.statusCode, 429);
    assert.equal(over.json().error_code, "DAILY_LIMIT_EXCEEDED");
    // A lead created with validation counts as one validation too.
    const lead = (email: string) =>
      h.app.inject({ method: "POST", url: "/v1/leads", headers: { "x-api-key": key }, payload: { email } });
    assert.equal((await lead("one@daily.test")).statusCode, 201);
    assert.equal((await lead("two@daily.test")).statusCode, 201);
    const third = await lead("three@daily.test");
    assert.equal(third.statusCode, 429);
    assert.equal(third.json().error_code, "DAILY_LIMIT_EXCEEDED");
  });

  it("refuses a domain batch over 10,000 items or with a bad domain with 422", async () => {
    const key = await h.apiKey("acct_big");
    const big = await h.app.inject({
      method: "POST",
      url: "/v1/batch",
      headers: { "x-api-key": key },
      payload: { domains: Array.from({ length: 10_001 }, (_, i) => `x${i}.test`) },
    });
    assert.equal(big.statusCode, 422);
    const bad = await h.app.inject({
      method: "POST",
      url: "/v1/batch",
      headers: { "x-api-key": key },
      payload: { domains: ["ok.test", "not a domain"] },
    });
    assert.equal(bad.statusCode, 422);
    assert.equal(bad.json().details.errors[0].field, "domains.1");
  });
});
