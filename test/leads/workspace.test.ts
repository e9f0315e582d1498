// The leads workspace API on both dialects: search (indexed substring of email, name, company),
// tag filter, bulk archive and tag (all or none), export of a selection, "not rated" until the
// first validation, the verdict distribution, recent batches and usage per day.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { waitFor } from "../support/wait-for.js";

const PEOPLE = [
  { email: "alice@acme.test", first_name: "Alice", last_name: "Martin", company: "Acme Inc." },
  { email: "bob.smith@globex.test", first_name: "Bob", last_name: "Smith", company: "Globex" },
  { email: "carol@initech.test", first_name: "Carol", last_name: "Åström", company: "Initech 100%" },
  { email: "dan_o@umbrella.test", first_name: "Dan", last_name: "O'Neil", company: "Umbrella_Corp" },
];

for (const kind of dialects()) {
  describe(`leads workspace (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let net: FakeInternet;
    let h: Harness;
    let key = "";
    let otherKey = "";
    const ids: Record<string, string> = {};
    const call = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown, apiKey = key) =>
      h.call(apiKey, method, url, payload);
    const emailsOf = async (query: string) => {
      const res = await call("GET", `/v1/leads?${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().leads as { email: string }[]).map((l) => l.email).sort();
    };

    before(async () => {
      if (skip) return;
      net = await startFakeInternet();
      h = await startHarness(
        kind,
        { ...net.env, ...UNLIMITED_RATE_ENV },
        { websiteCa: net.ca, workers: true },
      );
      key = await h.apiKey("acct_workspace");
      otherKey = await h.apiKey("acct_workspace_other");
      const res = await call("POST", "/v1/leads/bulk", { leads: PEOPLE, validate: false });
      assert.equal(res.statusCode, 200, res.body);
      for (const lead of res.json().leads) ids[lead.email] = lead.id;
    });
    after(async () => {
      await h?.close();
      await net?.close();
    });

    it("shows a never-validated lead as not rated: recommendation and band null, rating 0", {
      skip,
    }, async () => {
      const lead = (await call("GET", `/v1/leads/${ids["alice@acme.test"]}`)).json();
      assert.equal(lead.leadDeliverabilityRating, 0);
      assert.equal(lead.leadRecommendation, null);
      assert.equal(lead.leadQuality, null);
      assert.equal(lead.emailStatus, null);
      // The recommendation filter no longer counts unvalidated leads as "skip".
      assert.deepEqual(await emailsOf("leadRecommendation=skip"), []);
    });

    it("finds leads by a case-insensitive substring of email, first or last name, or company", {
      skip,
    }, async () => {
      assert.deepEqual(await emailsOf("search=ACME"), ["alice@acme.test"]);
      assert.deepEqual(await emailsOf("search=smith"), ["bob.smith@globex.test"]);
      assert.deepEqual(await emailsOf("search=bob%20smith"), ["bob.smith@globex.test"]);
      assert.deepEqual(await emailsOf("search=nitec"), ["carol@initech.test"]);
      assert.deepEqual(await emailsOf("search=.test"), PEOPLE.map((p) => p.email).sort());
      // Short terms (below the trigram length) still work, by a scan of the account's leads.
      assert.deepEqual(await emailsOf("search=al"), ["alice@acme.test"]);
      // LIKE wildcards and quotes are literal.
      assert.deepEqual(await emailsOf("search=100%25"), ["carol@initech.test"]);
      assert.deepEqual(await emailsOf("search=a_c"), ["dan_o@umbrella.test"]);
      assert.deepEqual(await emailsOf("search=o'neil"), ["dan_o@umbrella.test"]);
      assert.deepEqual(await emailsOf("search=%22globex"), []);
      assert.deepEqual(await emailsOf("search=nobody-here"), []);
      // Another account's leads are never found.
      const other = await call("GET", "/v1/leads?search=acme", undefined, otherKey);
      assert.equal(other.json().total, 0);
    });

    it("keeps the search index current when a lead is edited", { skip }, async () => {
      const id = ids["bob.smith@globex.test"]!;
      const res = await call("PUT", `/v1/leads/${id}`, { company: "Hooli" });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(await emailsOf("search=hooli"), ["bob.smith@globex.test"]);
      assert.deepEqual(await emailsOf("search=globex"), ["bob.smith@globex.test"], "still in the email");
      await call("PUT", `/v1/leads/${id}`, { company: null });
      assert.deepEqual(await emailsOf("search=hooli"), []);
    });

    it("refuses a bad search or tag with the documented error body", { skip }, async () => {
      const res = await call("GET", `/v1/leads?search=${"x".repeat(101)}`);
      assert.equal(res.statusCode, 422);
      const body = res.json();
      assert.equal(body.error_code, "VALIDATION_ERROR");
      assert.ok(body.message && body.details);
    });

    it("adds and removes tags on a selection, all or none, and filters by tag", { skip }, async () => {
      const selection = [ids["alice@acme.test"]!, ids["carol@initech.test"]!];
      let res = await call("POST", "/v1/leads/tags", { leadIds: selection, add: [" vip ", 'q3 "hot"'] });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().updated, 2);
      assert.deepEqual(await emailsOf("tag=vip"), ["alice@acme.test", "carol@initech.test"]);
      assert.deepEqual(await emailsOf(`tag=${encodeURIComponent('q3 "hot"')}`), [
        "alice@acme.test",
        "carol@initech.test",
      ]);
      assert.deepEqual(await emailsOf("tag=vi"), [], "a tag matches whole");
      const lead = (await call("GET", `/v1/leads/${selection[0]}`)).json();
      assert.deepEqual(lead.tags, ["vip", 'q3 "hot"']);

      // Adding an existing tag changes nothing and is counted as such.
      res = await call("POST", "/v1/leads/tags", { leadIds: selection, add: ["vip"] });
      assert.equal(res.json().updated, 0);

      res = await call("POST", "/v1/leads/tags", { leadIds: [selection[1]], remove: ["vip"] });
      assert.equal(res.json().updated, 1);
      assert.deepEqual(await emailsOf("tag=vip"), ["alice@acme.test"]);

      // Another account's lead in the selection: 404 listing it, nothing tagged.
      const foreign = (
        await call("POST", "/v1/leads", { email: "x@acme.test", validate: false }, otherKey)
      ).json().id as string;
      res = await call("POST", "/v1/leads/tags", { leadIds: [selection[1], foreign], add: ["lost"] });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json().details.missingLeadIds, [foreign]);
      assert.deepEqual(await emailsOf("tag=lost"), []);

      res = await call("POST", "/v1/leads/tags", { leadIds: selection });
      assert.equal(res.statusCode, 422);
      res = await call("POST", "/v1/leads/tags", { leadIds: selection, add: ["  "] });
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().details.errors[0].field, "add.0");
      res = await call("POST", "/v1/leads/tags", { leadIds: [], add: ["x"] });
      assert.equal(res.statusCode, 422);

      // More than 100 tags on a lead: refused whole.
      const many = Array.from({ length: 20 }, (_, i) => `t${i}`);
      for (let round = 0; round < 4; round++) {
        res = await call("POST", "/v1/leads/tags", {
          leadIds: [selection[0]],
          add: many.map((t) => `${t}-${round}`),
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      res = await call("POST", "/v1/leads/tags", { leadIds: selection, add: many.map((t) => `${t}-x`) });
      assert.equal(res.statusCode, 422, res.body);
      assert.match(res.json().details.errors[0].message, /more than 100 tags/);
      assert.deepEqual(await emailsOf("tag=t0-x"), []);
    });

    it("exports a selection as CSV in id order", { skip }, async () => {
      const selection = [ids["carol@initech.test"]!, ids["alice@acme.test"]!];
      const res = await call("POST", "/v1/leads/export", { leadIds: selection });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers["content-type"]), /^text\/csv/);
      const lines = res.body.trim().split(/\r?\n/);
      assert.equal(lines.length, 3);
      assert.match(lines[1]!, /alice@acme\.test/);
      assert.match(lines[2]!, /carol@initech\.test/);
      const missing = await call("POST", "/v1/leads/export", { leadIds: ["lead_nope"] });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().error_code, "NOT_FOUND");
    });

    it("archives a selection all or none", { skip }, async () => {
      const dan = ids["dan_o@umbrella.test"]!;
      let res = await call("POST", "/v1/leads/archive", { leadIds: [dan, "lead_missing"] });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json().details.missingLeadIds, ["lead_missing"]);
      assert.equal((await call("GET", `/v1/leads/${dan}`)).statusCode, 200);
      res = await call("POST", "/v1/leads/archive", { leadIds: [dan, dan] });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().archived, 1);
      assert.equal((await call("GET", `/v1/leads/${dan}`)).statusCode, 404);
      assert.deepEqual(await emailsOf("search=umbrella"), []);
      // Archived: the same email can be created again, and is found again.
      res = await call("POST", "/v1/leads", { email: "dan_o@umbrella.test", validate: false });
      assert.equal(res.statusCode, 201, res.body);
      ids["dan_o@umbrella.test"] = res.json().id;
      assert.deepEqual(await emailsOf("search=umbrella"), ["dan_o@umbrella.test"]);
    });

    it("counts leads by verdict, lists recent batches and reports usage per day", { skip }, async () => {
      const before = (await call("GET", "/v1/leads/stats")).json();
      assert.deepEqual(before.byVerdict, { valid: 0, risky: 0, invalid: 0, unknown: 0, notValidated: 4 });

      const started = await call("POST", "/v1/leads/validate", { leadIds: [ids["alice@acme.test"]] });
      assert.equal(started.statusCode, 200, started.body);
      const batchId = started.json().batchId as string;
      const lead = await waitFor(
        async () => {
          const l = (await call("GET", `/v1/leads/${ids["alice@acme.test"]}`)).json();
          return l.validatedAt && l.validationStatus !== "processing" ? l : undefined;
        },
        "lead validated",
        20_000,
        50,
      );
      assert.equal(lead.emailStatus, "valid");
      assert.ok(lead.leadRecommendation);
      assert.ok(lead.leadQuality);

      const stats = (await call("GET", "/v1/leads/stats")).json();
      assert.deepEqual(stats.byVerdict, { valid: 1, risky: 0, invalid: 0, unknown: 0, notValidated: 3 });

      const batches = (await call("GET", "/v1/batches?limit=5")).json();
      assert.equal(batches.batches[0].batchId, batchId);
      assert.equal(batches.total, 1);
      assert.equal((await call("GET", "/v1/batches", undefined, otherKey)).json().total, 0);

      const today = new Date().toISOString().slice(0, 10);
      const usage = (await call("GET", "/v1/usage")).json();
      assert.equal(usage.days.length, 30);
      assert.equal(usage.to, today);
      const last = usage.days.at(-1);
      assert.equal(last.date, today);
      assert.equal(last.creditsSpent, 2, "one lead validation at 0.002 stored = 2 credits");
      assert.equal(last.charges, 1);
      assert.equal(last.validations, 1);
      assert.equal(last.creditsAdded, 2000, "the signup grant");
      assert.equal(usage.totals.creditsSpent, 2);

      const one = (await call("GET", `/v1/usage?from=${today}&to=${today}&granularity=day`)).json();
      assert.equal(one.days.length, 1);
      for (const bad of [
        "from=2026-02-30",
        "from=2026-05-02&to=2026-05-01",
        "from=2024-01-01&to=2026-01-01",
        "granularity=week",
      ]) {
        const res = await call("GET", `/v1/usage?${bad}`);
        assert.equal(res.statusCode, 422, `${bad}: ${res.body}`);
        assert.equal(res.json().error_code, "VALIDATION_ERROR");
      }
    });
  });
}
