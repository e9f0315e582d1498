// The meters as main.ts wires them: they count through callbacks and never change what the
// services are given or answer (a method replaced on the live engine once dropped the abort
// signal, and an expired batch chunk's website checks held their sockets for up to 30 s).
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import type { Metrics } from "../../src/metrics/metrics.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness } from "../support/harness.js";

async function sampleOf(metrics: Metrics, name: string, labels: Record<string, string> = {}) {
  const metric = metrics.registry.getSingleMetric(name);
  assert.ok(metric, `${name} is registered`);
  const { values } = await metric.get();
  return values.find((v) =>
    Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want),
  )?.value;
}

for (const kind of dialects()) {
  describe(`wired meters (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    // Accepts connections and never answers: only the caller's signal ends a request to it early.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    before(async () => {
      if (skip) return;
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const { port } = silent.address() as net.AddressInfo;
      h = await startHarness(kind, {
        ALLOW_PRIVATE_TARGETS: "true",
        WEBSITE_HTTP_PORT: String(port),
        WEBSITE_HTTPS_PORT: String(port),
      });
    });
    after(async () => {
      await h?.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    it("the wired website check stops within 1 s when its 300 ms signal aborts, and is counted", {
      skip,
    }, async () => {
      const started = performance.now();
      const result = await h.services.websiteEngine.check("http://127.0.0.1/", {
        signal: AbortSignal.timeout(300),
      });
      const elapsedMs = performance.now() - started;
      assert.ok(elapsedMs < 1000, `returned after ${Math.round(elapsedMs)} ms`);
      assert.equal(
        await sampleOf(h.services.metrics, "leadcheck_checks_total", {
          kind: "website",
          verdict: result.status,
        }),
        1,
      );
    });

    it("counts a written debit once, and neither a refusal nor an idempotent re-debit", {
      skip,
    }, async () => {
      const { credits, metrics } = h.services;
      await credits.ensureAccount("acct_meter");
      const request = { accountId: "acct_meter", amountMilli: 7, reason: "test", idempotencyKey: "k1" };
      assert.equal((await credits.debit(request)).outcome.kind, "debited");
      assert.equal((await credits.debit(request)).outcome.kind, "debited");
      const refused = await credits.debit({ ...request, amountMilli: 1_000_000, idempotencyKey: "k2" });
      assert.equal(refused.outcome.kind, "insufficient_credits");
      assert.equal(await sampleOf(metrics, "leadcheck_credits_spent_milli_total"), 7);
    });
  });
}
