/**
 * @module
 * A preload (`node --import`) that records every cell type check a process makes — what the checker's thread
 * was given and what it answered — as JSON lines in the directory `STATEK_TYPED_CELLS_OUT` (one file per
 * process). `scripts/collect-typed-cells.ts` runs the test suites with it to make the corpus of cells the
 * differential test (`test/typed-cells-corpus.test.ts`) and the bench (`bench/typed-cells.ts`) read.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { CheckerThread } from "../src/typecheck/checker-thread.ts";

const directory = process.env.STATEK_TYPED_CELLS_OUT;
if (directory) {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${process.pid}.jsonl`);
  const source = process.argv.find((arg) => /\.test\.ts$/.test(arg)) ?? process.argv[1] ?? "";
  const check = CheckerThread.prototype.check;
  CheckerThread.prototype.check = async function recordedCheck(this: CheckerThread, input) {
    const verdict = await check.call(this, input);
    appendFileSync(file, `${JSON.stringify({ source, input, verdict })}\n`);
    return verdict;
  };
}
