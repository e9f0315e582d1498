// Domain score 0-100 for the lead rating (decisions §4), explained by its factors. Response time
// and redirects only earn points for a site that answers; a parked site keeps at most 20.
import type { WebsiteCheckResult } from "./website.types.js";

type WebsiteScoreFactor = "status" | "ssl" | "parked" | "responseTime" | "redirects";

export interface WebsiteScore {
  score: number;
  factors: { factor: WebsiteScoreFactor; points: number; max: number; note: string }[];
}

type ScoreInput = Pick<
  WebsiteCheckResult,
  "status" | "sslValid" | "isParked" | "responseTimeMs" | "redirectChain"
>;

const PARKED_CAP = 20;

export function websiteScore(result: ScoreInput): WebsiteScore {
  const active = result.status === "active";
  const redirects = Math.max(0, result.redirectChain.length - 1);
  const factors: WebsiteScore["factors"] = [
    {
      factor: "status",
      max: 50,
      points: active ? 50 : result.status === "inactive" ? 10 : 0,
      note: result.status,
    },
    {
      factor: "ssl",
      max: 20,
      points: result.sslValid === true ? 20 : 0,
      note:
        result.sslValid === true
          ? "valid"
          : result.sslValid === false
            ? "not valid"
            : "unknown: no server reached",
    },
    {
      factor: "responseTime",
      max: 15,
      points: active ? responseTimePoints(result.responseTimeMs) : 0,
      note: `${result.responseTimeMs} ms`,
    },
    {
      factor: "redirects",
      max: 15,
      points: active ? redirectPoints(redirects) : 0,
      note: `${redirects} redirect${redirects === 1 ? "" : "s"}`,
    },
  ];
  const sum = factors.reduce((s, f) => s + f.points, 0);
  const score = result.isParked === true ? Math.min(sum, PARKED_CAP) : sum;
  factors.push({
    factor: "parked",
    max: 0,
    points: score - sum,
    note:
      result.isParked === true
        ? `parked: capped at ${PARKED_CAP}`
        : result.isParked === false
          ? "not parked"
          : "unknown: no page received",
  });
  return { score, factors };
}

function responseTimePoints(ms: number): number {
  if (ms < 1_000) return 15;
  if (ms < 3_000) return 10;
  if (ms < 10_000) return 5;
  return 0;
}

function redirectPoints(count: number): number {
  if (count <= 1) return 15;
  if (count <= 3) return 10;
  if (count <= 5) return 5;
  return 0;
}
