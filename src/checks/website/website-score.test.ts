import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WebsiteStatus } from "./website.types.js";
import { websiteScore } from "./website-score.js";

const site = (
  over: Partial<{
    status: WebsiteStatus;
    sslValid: boolean;
    isParked: boolean;
    responseTimeMs: number;
    redirectChain: string[];
  }> = {},
) => ({
  status: "active" as WebsiteStatus,
  sslValid: true,
  isParked: false,
  responseTimeMs: 200,
  redirectChain: ["https://a.example/"],
  ...over,
});

describe("websiteScore", () => {
  const cases: [string, ReturnType<typeof site>, number][] = [
    ["a fast active https site without redirects scores 100", site(), 100],
    ["no valid certificate costs 20", site({ sslValid: false }), 80],
    ["a 2 s response earns 10 of 15", site({ responseTimeMs: 2_000 }), 95],
    ["a 5 s response earns 5 of 15", site({ responseTimeMs: 5_000 }), 90],
    ["a response over 10 s earns nothing for speed", site({ responseTimeMs: 12_000 }), 85],
    ["one redirect is free", site({ redirectChain: ["http://a/", "https://a/"] }), 100],
    ["three redirects earn 10 of 15", site({ redirectChain: ["1", "2", "3", "4"] }), 95],
    ["six redirects earn nothing", site({ redirectChain: ["1", "2", "3", "4", "5", "6", "7"] }), 85],
    ["a parked site keeps at most 20", site({ isParked: true }), 20],
    ["an inactive site earns only status and SSL points", site({ status: "inactive" }), 30],
    ["an inactive site without SSL scores 10", site({ status: "inactive", sslValid: false }), 10],
    ["an error scores 0", site({ status: "error", sslValid: false }), 0],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => {
      const { score, factors } = websiteScore(input);
      assert.equal(score, expected);
      assert.equal(
        factors.reduce((s, f) => s + f.points, 0),
        score,
        "factors add up to the score",
      );
      assert.deepEqual(factors.map((f) => f.factor).sort(), [
        "parked",
        "redirects",
        "responseTime",
        "ssl",
        "status",
      ]);
    });
  }
});
