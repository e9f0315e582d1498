// npm run train:parked: rebuilds src/checks/website/data/parked-model.json from the corpus
// (ADR 0011). Compares the variants leave-one-source-out, keeps the one that finds most held-out
// parked pages at no more than 1 % false parked, trains it on the whole corpus and records the
// corpus hash. Deterministic: the same corpus gives the same file.
import { trainParkedModel } from "../test/support/parked-train.js";

const model = trainParkedModel({ log: console.log, write: !process.argv.includes("--dry-run") });
console.log(
  `train:parked: mode ${model.mode}, combine ${model.combine}, ${model.trainedOn.pages} pages, ${model.corpusHash}`,
);
