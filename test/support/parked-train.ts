// Rebuilds the committed parked model (npm run train:parked): leave-one-source-out over every
// group for each variant, the winner trained on the whole corpus, written with the corpus hash.
import { writeFileSync } from "node:fs";
import { MODEL_PATH, type ParkedModel } from "../../src/checks/website/parked-model.js";
import { corpusHash } from "./parked-corpus.js";
import {
  figures,
  judgeCorpus,
  leaveOneSourceOut,
  pct,
  trainVariant,
  VARIANTS,
  type Variant,
} from "./parked-loso.js";

/** The largest false-parked rate a variant may have on held-out pages to be chosen. */
const MAX_FALSE_PARKED = 0.01;

export function trainParkedModel(
  options: { log?: (line: string) => void; write?: boolean } = {},
): ParkedModel {
  const log = options.log ?? (() => {});
  const judged = judgeCorpus();
  const selection: NonNullable<ParkedModel["selection"]> = {};
  for (const variant of VARIANTS) {
    const f = figures(leaveOneSourceOut(judged, variant));
    selection[variant] = { recall: round(f.recall), falseParked: round(f.falseParkedRate) };
    log(`${variant.padEnd(7)} held-out recall ${pct(f.recall)}, false parked ${pct(f.falseParkedRate)}`);
  }
  const chosen = choose(selection);
  const model = trainVariant(judged, chosen === "rules" ? "hybrid" : chosen);
  const result: ParkedModel = {
    ...model,
    mode: chosen === "rules" ? "rules" : "model",
    corpusHash: corpusHash(),
    selection,
  };
  if (options.write !== false) writeFileSync(MODEL_PATH, `${JSON.stringify(result, null, 1)}\n`);
  return result;
}

function choose(selection: Record<string, { recall: number; falseParked: number }>): Variant {
  const ranked = [...VARIANTS].sort((a, b) => {
    const fa = selection[a]!;
    const fb = selection[b]!;
    const okA = fa.falseParked <= MAX_FALSE_PARKED;
    const okB = fb.falseParked <= MAX_FALSE_PARKED;
    if (okA !== okB) return okA ? -1 : 1;
    if (!okA) return fa.falseParked - fb.falseParked || fb.recall - fa.recall;
    return fb.recall - fa.recall || fa.falseParked - fb.falseParked;
  });
  return ranked[0]!;
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}
