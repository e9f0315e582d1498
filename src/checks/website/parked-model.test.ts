import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { corpusHash } from "../../../test/support/parked-corpus.js";
import { FEATURE_NAMES } from "./parked-features.js";
import { loadParkedModel, logit, sigmoid, trainLogistic } from "./parked-model.js";

describe("parked model", () => {
  it("was trained on the corpus as it is now (a changed page or manifest needs npm run train:parked)", () => {
    const model = loadParkedModel();
    assert.equal(
      model.corpusHash,
      corpusHash(),
      "test/fixtures/pages changed since src/checks/website/data/parked-model.json was trained: run npm run train:parked",
    );
  });

  it("weighs only features the extractor produces, one weight each", () => {
    const model = loadParkedModel();
    assert.equal(model.features.length, model.weights.length);
    for (const f of model.features) assert.ok(FEATURE_NAMES.includes(f), f);
    assert.ok(["model", "rules"].includes(model.mode));
    assert.ok(model.selection, "the file records the held-out figures it was chosen by");
  });

  it("learns a separable rule and gives the same weights on every run", () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({
      x: { a: (i % 10) / 10, b: i % 2 },
      y: (i % 2 === 1 ? 1 : 0) as 0 | 1,
    }));
    const options = { iterations: 800, learningRate: 0.5, l2: 0.001, negativeWeight: 1 };
    const first = trainLogistic(rows, ["a", "b"], options);
    const second = trainLogistic(rows, ["a", "b"], options);
    assert.deepEqual(first, second);
    const model = { features: ["a", "b"], ...first };
    for (const r of rows) assert.equal(sigmoid(logit(model, r.x)) >= 0.5, r.y === 1, JSON.stringify(r.x));
    assert.ok(first.weights[1]! > first.weights[0]!, "the feature that decides weighs most");
  });

  it("weighs a live page's error more when asked (negativeWeight), moving the boundary toward parked", () => {
    const rows = [
      { x: { a: 0.2 }, y: 0 as const },
      { x: { a: 0.6 }, y: 0 as const },
      { x: { a: 0.4 }, y: 1 as const },
      { x: { a: 0.8 }, y: 1 as const },
    ];
    const even = trainLogistic(rows, ["a"], {
      iterations: 2000,
      learningRate: 0.5,
      l2: 0,
      negativeWeight: 1,
    });
    const careful = trainLogistic(rows, ["a"], {
      iterations: 2000,
      learningRate: 0.5,
      l2: 0,
      negativeWeight: 4,
    });
    const boundary = (m: { weights: number[]; bias: number }) => -m.bias / m.weights[0]!;
    assert.ok(boundary(careful) > boundary(even));
  });
});
