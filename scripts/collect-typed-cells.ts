/**
 * @module
 * Makes the corpus of typed cells: every cell the test suites type-check, with what it was checked against (the
 * job's declarations, its variables' types, its earlier cells), written to `test/fixtures/typed-cells.json` for
 * the differential test (`test/typed-cells-corpus.test.ts`) and the bench (`bench/typed-cells.ts`).
 *
 * `npx node scripts/collect-typed-cells.ts` runs the suites (a full run: as long as `npm test`) with
 * `scripts/record-typed-cells.ts` preloaded, then merges what each process recorded; `--from <dir>` merges a
 * directory recorded earlier. Checks made by the type checker's own tests (deliberate type errors) and cells
 * that did not parse are left out; every other cell of the suites must type-check.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import type { CellCheckInput } from "../src/typecheck/type-check-result.ts";
import type { CheckVerdict } from "../src/typecheck/checker-thread.ts";

const root = resolve(import.meta.dirname, "..");
/** Sources whose checks are about type checking itself: they refuse cells on purpose. */
const DELIBERATE = [/^src\/typecheck\//, /^src\/jobs\/step\/typed-cell/, /^test\/typed-cells/, /^test\/fixtures\/typed-/];

/** One recorded check. */
interface Recorded {
  source: string;
  input: CellCheckInput;
  verdict: CheckVerdict;
}

/** The corpus as stored: texts once each, entries refer to them by index. */
export interface TypedCellCorpus {
  version: 1;
  texts: string[];
  entries: Array<{ source: string; declarations: number; cells: number[]; variables: CellCheckInput["variables"]; cell: number; refused: boolean }>;
}

function record(directory: string): void {
  const globs = ["src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"];
  const preload = `--import=${join(root, "scripts/record-typed-cells.ts")}`;
  const env = { ...process.env, STATEK_TYPED_CELLS_OUT: directory, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} ${preload}`.trim() };
  const args = ["--test", "--test-concurrency=2", ...globs];
  const run = spawnSync(process.execPath, args, { cwd: root, env, stdio: "inherit" });
  if (run.status !== 0) console.error(`the suites ended with status ${run.status}; the corpus holds what was recorded`);
}

function merge(directory: string): TypedCellCorpus {
  const texts: string[] = [];
  const index = new Map<string, number>();
  const intern = (text: string) => {
    let at = index.get(text);
    if (at === undefined) index.set(text, (at = texts.push(text) - 1));
    return at;
  };
  const seen = new Set<string>();
  const entries: TypedCellCorpus["entries"] = [];
  for (const name of readdirSync(directory).filter((file) => file.endsWith(".jsonl")).sort()) {
    for (const line of readFileSync(join(directory, name), "utf8").split("\n")) {
      if (!line) continue;
      const { source: absolute, input, verdict } = JSON.parse(line) as Recorded;
      const source = relative(root, absolute);
      if (DELIBERATE.some((pattern) => pattern.test(source)) || (verdict.kind === "unchecked" && verdict.syntax)) continue;
      const key = JSON.stringify([input.declarations, input.cells, input.variables, input.cell]);
      if (seen.has(key)) continue;
      seen.add(key);
      entries.push({
        source,
        declarations: intern(input.declarations),
        cells: input.cells.map(intern),
        variables: input.variables,
        cell: intern(input.cell),
        refused: verdict.kind === "checked" && verdict.errors.length > 0,
      });
    }
  }
  return { version: 1, texts, entries };
}

const from = process.argv.indexOf("--from");
const directory = from >= 0 ? resolve(process.argv[from + 1]!) : mkdtempSync(join(tmpdir(), "statek-typed-cells-"));
if (from < 0) record(directory);
const corpus = merge(directory);
const out = join(root, "test/fixtures/typed-cells.json");
writeFileSync(out, `${JSON.stringify(corpus)}\n`);
const refused = corpus.entries.filter((entry) => entry.refused);
console.log(`${corpus.entries.length} cells from ${new Set(corpus.entries.map((entry) => entry.source)).size} files → ${relative(root, out)}; refused: ${refused.length}`);
for (const entry of refused) console.log(`  refused: ${entry.source}: ${corpus.texts[entry.cell]!.split("\n")[0]}`);
if (from < 0) rmSync(directory, { recursive: true, force: true });
