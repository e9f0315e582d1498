// The report of `npm run eval:parked` and its gate (ADR 0011). The gate reads held-out figures
// only; in-corpus figures are printed beside them to show the gap, never gated on.
import { loadParkedModel } from "../../src/checks/website/parked-model.js";
import {
  byKey,
  type Figures,
  figures,
  inCorpus,
  type Judged,
  judgeCorpus,
  leaveOneSourceOut,
  type Outcome,
  pct,
  sampleGroups,
  VARIANTS,
  type Variant,
} from "./parked-loso.js";

/**
 * The CI gate on the held-out sample. The issue's target is recall >= 0.90 and false parked
 * <= 0.01 with no group below 0.75 recall, over 1,000 pages. On the 895-page corpus the held-out
 * figures are 92.9 % and 1.0 %, lowest group with 4+ positives 71.4 % (ADR 0092), so the gate is what
 * was reached less a margin for a few pages of noise: it catches regressions, it does not claim the
 * whole target. Never set from in-corpus figures.
 */
export const GATE = { recall: 0.9, falseParked: 0.015, groupRecall: 0.65, minGroupPositives: 4 };
const SAMPLE = { folds: 40, seed: 20261128 };

export interface EvaluationResult {
  passed: boolean;
  failures: string[];
  variant: Variant;
  heldOut: Figures;
  inCorpus: Figures;
  groups: Map<string, Figures>;
}

function committedVariant(): Variant {
  const model = loadParkedModel();
  if (model.mode === "rules") return "rules";
  return model.features.includes("rules_page") ? "hybrid" : "model";
}

export function runEvaluation(options: {
  full: boolean;
  variant?: Variant;
  log?: (line: string) => void;
  judged?: Judged[];
  /** Also report the held-out figures of the pages whose manifest note contains this text
   *  (for example "first sight (r3s4)"): pages read after the detector last changed. */
  notes?: string;
}): EvaluationResult {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const judged = options.judged ?? judgeCorpus();
  const variant = options.variant ?? committedVariant();
  const groups = options.full
    ? [...new Set(judged.map((j) => j.page.group))].sort()
    : sampleGroups(judged, SAMPLE.folds, SAMPLE.seed);
  const sampled = judged.filter((j) => groups.includes(j.page.group));
  log(
    `parked corpus: ${judged.length} pages, ${new Set(judged.map((j) => j.page.group)).size} groups; ` +
      `${options.full ? "full run" : `CI sample: ${groups.length} held-out groups, ${sampled.length} pages (seed ${SAMPLE.seed})`}; detector: ${variant}`,
  );

  const compared = options.full ? VARIANTS : [...new Set<Variant>(["rules", variant])];
  const results = new Map<Variant, Outcome[]>();
  log("\nvariant   held-out recall  held-out false parked   in-corpus recall  in-corpus false parked");
  for (const v of compared) {
    const held = leaveOneSourceOut(judged, v, groups);
    results.set(v, held);
    const h = figures(held);
    const c = figures(inCorpus(judged, v).filter((o) => groups.includes(o.page.group)));
    log(
      `${v.padEnd(9)} ${line(h.recall, h.found, h.positives).padEnd(16)} ${line(h.falseParkedRate, h.falseParked, h.negatives).padEnd(22)}  ${line(c.recall, c.found, c.positives).padEnd(17)} ${line(c.falseParkedRate, c.falseParked, c.negatives)}`,
    );
  }

  const held = results.get(variant)!;
  const overall = figures(held);
  const corpus = figures(inCorpus(judged, variant).filter((o) => groups.includes(o.page.group)));
  const perGroup = byKey(held, (o) => o.page.group);
  log(`\nheld-out by source group (${variant}):`);
  log("group                                                   pages  recall            false parked");
  for (const [group, f] of perGroup) {
    log(
      `${group.slice(0, 55).padEnd(55)} ${String(f.positives + f.negatives).padStart(5)}  ${(f.positives ? line(f.recall, f.found, f.positives) : "-").padEnd(17)} ${f.negatives ? line(f.falseParkedRate, f.falseParked, f.negatives) : "-"}`,
    );
  }
  log(`\nconfusion by kind (${variant}, held out): kind, pages, judged parked, judged live`);
  for (const [kind, rows] of groupBy(held, (o) => o.page.kind)) {
    const parked = rows.filter((o) => o.parked).length;
    log(
      `${kind.padEnd(28)} ${String(rows.length).padStart(5)} ${String(parked).padStart(6)} ${String(rows.length - parked).padStart(6)}`,
    );
  }
  const missed = held.filter((o) => o.page.label !== "live" && !o.parked);
  const wrong = held.filter((o) => o.page.label === "live" && o.parked);
  if (options.full) {
    log(`\nmissed (${missed.length}): ${missed.map((o) => `${o.page.file} (${o.score})`).join(", ")}`);
    log(`false parked (${wrong.length}): ${wrong.map((o) => `${o.page.file} (${o.score})`).join(", ")}`);
  }

  if (options.notes) {
    const subset = held.filter((o) => o.page.note.includes(options.notes!));
    const f = figures(subset);
    log(
      `\npages whose note contains "${options.notes}" (${subset.length}), held out: recall ${line(f.recall, f.found, f.positives)}, false parked ${line(f.falseParkedRate, f.falseParked, f.negatives)}`,
    );
    for (const [group, g] of byKey(subset, (o) => o.page.group))
      log(
        `  ${group.padEnd(40)} ${g.positives ? line(g.recall, g.found, g.positives) : "-"}  ${g.negatives ? `false ${g.falseParked}/${g.negatives}` : ""}`,
      );
    const missedHere = subset.filter((o) => o.page.label !== "live" && !o.parked);
    const wrongHere = subset.filter((o) => o.page.label === "live" && o.parked);
    log(`  missed: ${missedHere.map((o) => `${o.page.file} (${o.score})`).join(", ") || "none"}`);
    log(`  false parked: ${wrongHere.map((o) => `${o.page.file} (${o.score})`).join(", ") || "none"}`);
  }

  const failures: string[] = [];
  if (overall.recall < GATE.recall) failures.push(`recall ${pct(overall.recall)} < ${pct(GATE.recall)}`);
  if (overall.falseParkedRate > GATE.falseParked)
    failures.push(`false parked ${pct(overall.falseParkedRate)} > ${pct(GATE.falseParked)}`);
  for (const [group, f] of perGroup) {
    if (f.positives >= GATE.minGroupPositives && f.recall < GATE.groupRecall)
      failures.push(`group ${group}: recall ${pct(f.recall)} < ${pct(GATE.groupRecall)}`);
  }
  log(
    `\noverall held-out: recall ${line(overall.recall, overall.found, overall.positives)}, false parked ${line(overall.falseParkedRate, overall.falseParked, overall.negatives)}; in-corpus: recall ${pct(corpus.recall)}, false parked ${pct(corpus.falseParkedRate)}`,
  );
  log(
    `gate: ${failures.length === 0 ? "passed" : `FAILED (${failures.join("; ")})`}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return {
    passed: failures.length === 0,
    failures,
    variant,
    heldOut: overall,
    inCorpus: corpus,
    groups: perGroup,
  };
}

function line(rate: number, n: number, of: number): string {
  return `${pct(rate)} (${n}/${of})`;
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): [string, T[]][] {
  const map = new Map<string, T[]>();
  for (const item of items) map.set(key(item), [...(map.get(key(item)) ?? []), item]);
  return [...map].sort(([a], [b]) => a.localeCompare(b));
}
