// Leave-one-source-out evaluation of the parked detector (ADR 0011). Each page's rule evidence and
// features are computed once (the lexicon and indicator rows are fixed data); for each held-out
// group a model is trained on every other group's pages and judges only the held-out pages. The
// rules need no training, so their held-out figure is their verdict on the group.
import {
  assessPage,
  combineWithModel,
  PARKED_THRESHOLD,
  type PageAssessment,
} from "../../src/checks/website/parked.js";
import { FEATURE_NAMES, RULES_FEATURES } from "../../src/checks/website/parked-features.js";
import { loadLexicon } from "../../src/checks/website/parked-lexicon.js";
import {
  DEFAULT_TRAIN_OPTIONS,
  type ParkedModel,
  type TrainOptions,
  trainLogistic,
} from "../../src/checks/website/parked-model.js";
import { loadParkingIndicators } from "../../src/checks/website/parking-indicators.js";
import { type CorpusPage, pageInputs, readManifest, readPage, seeded } from "./parked-corpus.js";

export type Variant = "rules" | "model" | "hybrid";
export const VARIANTS: readonly Variant[] = ["rules", "model", "hybrid"];

export interface Judged {
  page: CorpusPage;
  assessment: PageAssessment;
}

export interface Outcome {
  page: CorpusPage;
  parked: boolean;
  score: number;
}

export interface Figures {
  positives: number;
  found: number;
  negatives: number;
  falseParked: number;
  recall: number;
  falseParkedRate: number;
}

export function judgeCorpus(pages = readManifest()): Judged[] {
  const indicators = loadParkingIndicators();
  const lexicon = loadLexicon();
  return pages.map((page) => ({
    page,
    assessment: assessPage(pageInputs(page, readPage(page)), indicators, lexicon),
  }));
}

function variantFeatures(variant: Variant): string[] {
  if (variant === "hybrid") return [...FEATURE_NAMES];
  return FEATURE_NAMES.filter((f) => !(RULES_FEATURES as readonly string[]).includes(f));
}

export function trainVariant(
  judged: readonly Judged[],
  variant: Exclude<Variant, "rules">,
  options: TrainOptions = DEFAULT_TRAIN_OPTIONS,
): ParkedModel {
  const features = variantFeatures(variant);
  const rows = judged
    .filter((j) => j.assessment.features)
    .map((j) => ({ x: j.assessment.features!.values, y: (j.page.label === "live" ? 0 : 1) as 0 | 1 }));
  const { weights, bias } = trainLogistic(rows, features, options);
  const groups = new Set(judged.map((j) => j.page.group)).size;
  return {
    version: 1,
    mode: "model",
    combine: variant === "hybrid" ? "max" : "model",
    features,
    weights,
    bias,
    corpusHash: "",
    trainedOn: { pages: rows.length, positives: rows.filter((r) => r.y === 1).length, groups },
    options,
  };
}

function predict(j: Judged, variant: Variant, model: ParkedModel | null): Outcome {
  if (variant === "rules" || !model) {
    return { page: j.page, parked: j.assessment.rules.isParked, score: j.assessment.rules.score };
  }
  const verdict = combineWithModel(pageInputs(j.page, ""), j.assessment, model);
  return { page: j.page, parked: verdict.score >= PARKED_THRESHOLD, score: verdict.score };
}

/** Held-out outcomes of every page of the chosen groups (all groups by default). */
export function leaveOneSourceOut(
  judged: readonly Judged[],
  variant: Variant,
  heldOut: readonly string[] = [...new Set(judged.map((j) => j.page.group))],
  options: TrainOptions = DEFAULT_TRAIN_OPTIONS,
): Outcome[] {
  const out: Outcome[] = [];
  for (const group of heldOut) {
    const test = judged.filter((j) => j.page.group === group);
    const model =
      variant === "rules"
        ? null
        : trainVariant(
            judged.filter((j) => j.page.group !== group),
            variant,
            options,
          );
    for (const j of test) out.push(predict(j, variant, model));
  }
  return out;
}

export function inCorpus(judged: readonly Judged[], variant: Variant): Outcome[] {
  const model = variant === "rules" ? null : trainVariant(judged, variant);
  return judged.map((j) => predict(j, variant, model));
}

export function figures(outcomes: readonly Outcome[]): Figures {
  const pos = outcomes.filter((o) => o.page.label !== "live");
  const neg = outcomes.filter((o) => o.page.label === "live");
  const found = pos.filter((o) => o.parked).length;
  const falseParked = neg.filter((o) => o.parked).length;
  return {
    positives: pos.length,
    found,
    negatives: neg.length,
    falseParked,
    recall: pos.length ? found / pos.length : 1,
    falseParkedRate: neg.length ? falseParked / neg.length : 0,
  };
}

export function byKey(outcomes: readonly Outcome[], key: (o: Outcome) => string): Map<string, Figures> {
  const groups = new Map<string, Outcome[]>();
  for (const o of outcomes) groups.set(key(o), [...(groups.get(key(o)) ?? []), o]);
  return new Map([...groups].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, figures(v)]));
}

/**
 * The CI sample: every group with at least `minPages` pages, and a seeded draw of the rest up to
 * `folds` groups in all. The same seed and corpus give the same groups.
 */
export function sampleGroups(judged: readonly Judged[], folds: number, seed: number, minPages = 8): string[] {
  const sizes = new Map<string, number>();
  for (const j of judged) sizes.set(j.page.group, (sizes.get(j.page.group) ?? 0) + 1);
  const all = [...sizes.keys()].sort();
  const big = all.filter((g) => (sizes.get(g) ?? 0) >= minPages);
  const rest = all.filter((g) => !big.includes(g));
  const random = seeded(seed);
  for (let i = rest.length - 1; i > 0; i--) {
    const k = Math.floor(random() * (i + 1));
    [rest[i], rest[k]] = [rest[k]!, rest[i]!];
  }
  return [...big, ...rest.slice(0, Math.max(0, folds - big.length))];
}

export function pct(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}
