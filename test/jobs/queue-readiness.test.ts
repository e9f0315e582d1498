// Readiness: ping() reports a queue whose database is gone, and start() can be retried.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobQueue } from "../../src/jobs/index.js";
import { createTestDatabase, skipReasonFor } from "../support/db.js";

const postgresSkip = await skipReasonFor("postgres");

describe("job queue readiness", () => {
  it("pings false once the SQLite database is closed", async () => {
    const test = await createTestDatabase("sqlite");
    const queue = createJobQueue(test.database, { onError: () => {} });
    await queue.start();
    assert.equal(await queue.ping(), true);
    await test.destroy();
    assert.equal(await queue.ping(), false);
    await queue.stop({ graceful: false, timeoutMs: 0 });
  });

  it("rejects start and pings false while PostgreSQL is unreachable", { skip: postgresSkip }, async () => {
    const test = await createTestDatabase("postgres");
    try {
      const queue = createJobQueue(test.database, {
        onError: () => {},
        // Port 1 on loopback: nothing listens there.
        pgBoss: { connectionString: "postgres://postgres@127.0.0.1:1/none" },
      });
      await assert.rejects(queue.start());
      assert.equal(await queue.ping(), false);
      await assert.rejects(queue.start(), "a failed start can be tried again");
      await queue.stop({ graceful: false, timeoutMs: 0 });
    } finally {
      await test.destroy();
    }
  });
});
