// The website-check service on an in-memory SQLite database: the debit comes before the check, a
// refused debit runs no check, and an input that is not a website is neither charged nor checked.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { WebsiteCheckResult } from "../checks/website/website.types.js";
import { CreditsRepo } from "../credits/credits.repo.js";
import { CreditsService } from "../credits/credits.service.js";
import { EventBus } from "../events/events.js";
import { EventsRepo } from "../events/events.repo.js";
import { systemClock } from "../lib/clock.js";
import { failureOf } from "../lib/errors.js";
import { type Database, migrateToLatest, openDatabase } from "../storage/db.js";
import { WebsiteChecksService } from "./website-checks.service.js";

describe("WebsiteChecksService", () => {
  let database: Database;
  let credits: CreditsService;
  const checked: string[] = [];
  let service: WebsiteChecksService;

  before(async () => {
    database = openDatabase("sqlite::memory:");
    await migrateToLatest(database.db);
    credits = new CreditsService({
      database,
      repo: new CreditsRepo(),
      events: new EventBus(new EventsRepo()),
      clock: systemClock,
      newAccountMilliCredits: 5,
    });
    service = new WebsiteChecksService({
      credits,
      // Records what would have been checked: the engine itself is tested against local servers.
      website: {
        check: async (input) => {
          checked.push(input);
          return { website: input } as WebsiteCheckResult;
        },
      },
      normalizeWebsite: (input) =>
        input.includes(".") ? { ok: true, url: `https://${input}/` } : { ok: false, message: "not a domain" },
      priceMilli: 2,
    });
  });
  after(() => database?.close());

  it("charges the price, then checks, and reports the balance after the debit", async () => {
    await credits.ensureAccount("alice");
    const outcome = await service.check("alice", "acme.test");
    assert.deepEqual([outcome.chargedMilli, outcome.balanceMilli], [2, 3]);
    assert.deepEqual(checked, ["acme.test"]);
  });

  it("refuses with insufficient_credits and runs no check once the balance is short", async () => {
    await service.check("alice", "acme.test"); // 3 -> 1
    await assert.rejects(service.check("alice", "acme.test"), (error) => {
      assert.deepEqual(failureOf(error), {
        kind: "insufficient_credits",
        requiredMilli: 2,
        availableMilli: 1,
      });
      return true;
    });
    assert.equal(checked.length, 2);
    assert.equal((await credits.balance("alice")).displayCredits, 1);
  });

  it("refuses an input that is not a website as invalid, charging nothing", async () => {
    await credits.ensureAccount("bob");
    await assert.rejects(service.check("bob", "nodots"), (error) => {
      assert.deepEqual(failureOf(error), {
        kind: "invalid",
        errors: [{ field: "website", message: "not a domain", type: "format" }],
        message: undefined,
      });
      return true;
    });
    assert.equal((await credits.balance("bob")).displayCredits, 5);
    assert.equal(checked.length, 2);
  });
});
