// Logistic regression for the parked verdict: a weight per page feature, trained by full-batch
// gradient descent with L2 regularisation and class weights (a false parked costs more than a
// miss). Deterministic: the same rows in the same order give the same weights, so `npm run
// train:parked` reproduces the committed file. Small on purpose (ADR 0011): ml-logistic-regression
// has neither regularisation nor class weights, and a linear model keeps every verdict explainable
// as a sum of named contributions.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface ParkedModel {
  version: number;
  /** "model": the page's points come from the weights; "rules": the hand-written page rules decide. */
  mode: "model" | "rules";
  /** "max": the page scores the higher of the model's points and the page rules' total; "model": the model's. */
  combine: "max" | "model";
  features: string[];
  weights: number[];
  bias: number;
  /** sha256 of the manifest and every page the weights were trained on. */
  corpusHash: string;
  trainedOn: { pages: number; positives: number; groups: number };
  options: TrainOptions;
  /** Held-out (leave-one-source-out) figures of each variant when this file was trained. */
  selection?: Record<string, { recall: number; falseParked: number }>;
}

export interface TrainOptions {
  iterations: number;
  learningRate: number;
  l2: number;
  /** Weight of a live page's error relative to a parked one's (after class balancing). */
  negativeWeight: number;
}

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = {
  iterations: 1500,
  learningRate: 0.5,
  l2: 0.002,
  // 1.25 since ADR 0091 (676 pages): at 1 the held-out false-parked rate sat at 0.9-1.2 % and
  // flipped with each batch of pages; 1.25 kept it at 0.6 % for 0.3 points of recall. 1.5 since
  // ADR 0092 (769 pages, new hard negatives): 1.7 % -> 1.4 % false parked for no recall.
  negativeWeight: 1.5,
};

export const MODEL_PATH = fileURLToPath(new URL("./data/parked-model.json", import.meta.url));

let cached: ParkedModel | null = null;

export function loadParkedModel(path = MODEL_PATH): ParkedModel {
  if (cached && path === MODEL_PATH) return cached;
  const model = JSON.parse(readFileSync(path, "utf8")) as ParkedModel;
  if (model.features.length !== model.weights.length) throw new Error(`${path}: features and weights differ`);
  if (path === MODEL_PATH) cached = model;
  return model;
}

export function logit(model: Pick<ParkedModel, "features" | "weights" | "bias">, x: Record<string, number>) {
  let z = model.bias;
  for (let i = 0; i < model.features.length; i++) z += model.weights[i]! * (x[model.features[i]!] ?? 0);
  return z;
}

export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/** Fits weights for `features` on rows (x by feature name, y 1 = parked or placeholder). */
export function trainLogistic(
  rows: readonly { x: Record<string, number>; y: 0 | 1 }[],
  features: readonly string[],
  options: TrainOptions = DEFAULT_TRAIN_OPTIONS,
): { weights: number[]; bias: number } {
  const d = features.length;
  const n = rows.length;
  const X = rows.map((r) => features.map((f) => r.x[f] ?? 0));
  const positives = rows.filter((r) => r.y === 1).length;
  const negatives = n - positives;
  // Each class weighs as much as the other in total, then live pages count negativeWeight times.
  const sampleWeight = rows.map((r) =>
    r.y === 1
      ? n / (2 * Math.max(1, positives))
      : (options.negativeWeight * n) / (2 * Math.max(1, negatives)),
  );
  const totalWeight = sampleWeight.reduce((a, b) => a + b, 0);
  const w = new Array<number>(d).fill(0);
  let b = 0;
  const grad = new Array<number>(d);
  for (let it = 0; it < options.iterations; it++) {
    grad.fill(0);
    let gb = 0;
    for (let i = 0; i < n; i++) {
      const xi = X[i]!;
      let z = b;
      for (let j = 0; j < d; j++) z += w[j]! * xi[j]!;
      const err = (sigmoid(z) - rows[i]!.y) * sampleWeight[i]!;
      gb += err;
      for (let j = 0; j < d; j++) grad[j]! += err * xi[j]!;
    }
    for (let j = 0; j < d; j++) w[j]! -= options.learningRate * (grad[j]! / totalWeight + options.l2 * w[j]!);
    b -= (options.learningRate * gb) / totalWeight;
  }
  return { weights: w.map(round), bias: round(b) };
}

/** Six decimals: the file stays readable and identical across runs and machines. */
function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
