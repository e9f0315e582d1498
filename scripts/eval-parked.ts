// npm run eval:parked [-- --full] [-- --variant=rules|model|hybrid] [-- "--notes=first sight (r3s4)"]:
// leave-one-source-out figures of the parked detector (ADR 0011). The default runs the CI sample and
// exits non-zero below the gate; --full holds out every group and compares all variants; --notes
// adds the figures of the pages whose manifest note contains the text (pages seen first).
import { runEvaluation } from "../test/support/parked-eval-report.js";

const full = process.argv.includes("--full");
const variantArg = process.argv.find((a) => a.startsWith("--variant="))?.split("=")[1];
const notes = process.argv.find((a) => a.startsWith("--notes="))?.slice("--notes=".length);
const result = runEvaluation({ full, variant: variantArg as never, log: console.log, notes });
if (!result.passed) {
  console.error(`eval:parked: below the gate: ${result.failures.join("; ")}`);
  process.exit(1);
}
