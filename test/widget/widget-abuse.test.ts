// Abuse of a publishable key, on both dialects: 5,000 requests with a forged Origin from one IP,
// 2,000 distinct addresses from one IP, and 2,000 addresses spread over 2,000 IPs. The charges stay
// within the key's caps and honest visitors from other IPs still get answers. Requests go 100 at a
// time, so the once-per-address charge is also raced.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { LightMyRequestResponse } from "fastify";
import { dialects, skipReasonFor } from "../support/db.js";
import { SHOP, startWidgetWorld, type WidgetWorld } from "./widget-support.js";

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));
const DAILY_CAP = 100;
const DISTINCT_PER_IP = 20;
const PER_IP_PER_MINUTE = 60;

async function inBatches(count: number, send: (i: number) => Promise<LightMyRequestResponse>) {
  const statuses = new Map<number, number>();
  for (let start = 0; start < count; start += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, count - start) }, (_, j) => send(start + j)),
    );
    for (const res of batch) statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  }
  return Object.fromEntries([...statuses].sort());
}

for (const kind of dialects()) {
  describe(`widget abuse limits (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let w: WidgetWorld;
    let pk: string;
    const ACCT = "acct_abused";
    const figures: Record<string, unknown> = {};
    before(async () => {
      if (skip) return;
      w = await startWidgetWorld(kind);
      pk = (
        await w.keyOf(ACCT, {
          type: "publishable",
          allowedOrigins: [SHOP],
          widget: {
            dailyCap: DAILY_CAP,
            distinctEmailsPerIpPerDay: DISTINCT_PER_IP,
            perIpPerMinute: PER_IP_PER_MINUTE,
          },
        })
      ).api_key;
    });
    after(async () => {
      if (!skip) {
        mkdirSync(ARTIFACTS, { recursive: true });
        writeFileSync(`${ARTIFACTS}widget-abuse-${kind}.json`, `${JSON.stringify(figures, null, 2)}\n`);
      }
      await w?.close();
    });

    const honestVisitors = async (label: string) => {
      for (let i = 0; i < 5; i++) {
        const res = await w.check(pk, `visitor${i}.${label}@gmial.com`, { ip: `192.0.2.${i + 1}` });
        assert.equal(res.statusCode, 200, `honest visitor ${i} after ${label}: ${res.body}`);
      }
    };

    it("refuses 5,000 forged-origin requests from one IP and charges nothing", { skip }, async () => {
      const before = await w.debits(ACCT);
      const statuses = await inBatches(5000, (i) =>
        w.check(pk, `victim${i}@mailinator.com`, { origin: "https://evil.test", ip: "198.51.100.66" }),
      );
      figures.forgedOrigin = { requests: 5000, statuses, charged: (await w.debits(ACCT)) - before };
      assert.deepEqual(statuses, { 403: 5000 });
      assert.equal(await w.debits(ACCT), before);
      await honestVisitors("forged");
    });

    it("holds 2,000 distinct addresses from one IP to the per-IP caps", { skip }, async () => {
      const before = await w.debits(ACCT);
      const statuses = await inBatches(2000, (i) =>
        w.check(pk, `list${i}@mailinator.com`, { ip: "198.51.100.99" }),
      );
      const charged = (await w.debits(ACCT)) - before;
      figures.oneIp = { requests: 2000, statuses, charged, distinctPerIpPerDay: DISTINCT_PER_IP };
      assert.equal(statuses[200], DISTINCT_PER_IP);
      assert.equal(charged, DISTINCT_PER_IP);
      await honestVisitors("one-ip");
    });

    it("holds 2,000 addresses from 2,000 IPs to the key's daily cap", { skip }, async () => {
      const before = await w.debits(ACCT);
      const statuses = await inBatches(2000, (i) =>
        w.check(pk, `spread${i}@mailinator.com`, { ip: `10.${(i >> 8) & 255}.${i & 255}.7` }),
      );
      const charged = (await w.debits(ACCT)) - before;
      figures.spread = {
        requests: 2000,
        statuses,
        charged,
        dailyCap: DAILY_CAP,
        chargedToday: await w.debits(ACCT),
      };
      assert.ok((await w.debits(ACCT)) <= DAILY_CAP, `at most ${DAILY_CAP} charges a day`);
      // Addresses charged earlier today are answered without a new charge, within the cap.
      const again = await w.check(pk, "visitor0.forged@gmial.com", { ip: "192.0.2.200" });
      assert.equal(again.statusCode, 200);
    });
  });
}
