import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkImports } from "../scripts/check-imports.ts";

/** A throw-away `src/` made of `files` (path → text). */
function sourceTree(files: Record<string, string>): { root: string; [Symbol.dispose](): void } {
  const root = mkdtempSync(join(tmpdir(), "statek-imports-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { root, [Symbol.dispose]: () => rmSync(root, { recursive: true, force: true }) };
}

describe("the imports of src/", () => {
  it("form no cycle at run time, and point downward between top-level folders", () => {
    const report = checkImports(join(import.meta.dirname, "..", "src"));
    assert.deepEqual(report.runTimeCycles, [], "files that load each other at run time");
    assert.deepEqual(report.upward.map((edge) => `${edge.from} → ${edge.to}`), [], "imports from a higher folder (scripts/check-imports.ts, LAYERS)");
    assert.deepEqual(report.unplaced, [], "top-level entries of src/ that LAYERS does not place");
  });
});

describe("check-imports", () => {
  it("finds a run-time cycle, and tells it from one that only types close", () => {
    using tree = sourceTree({
      "jobs/a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;\n',
      "jobs/b.ts": 'import { a } from "./a.ts";\nexport const b = () => a;\n',
      "jobs/c.ts": 'import type { D } from "./d.ts";\nexport interface C { d?: D }\n',
      "jobs/d.ts": 'import type { C } from "./c.ts";\nexport interface D { c?: C }\n',
    });
    const report = checkImports(tree.root);
    assert.deepEqual(report.runTimeCycles, [["jobs/a.ts", "jobs/b.ts"]]);
    assert.deepEqual(report.typeCycles, [["jobs/a.ts", "jobs/b.ts"], ["jobs/c.ts", "jobs/d.ts"]]);
  });

  it("counts `import { type X }` as a run-time import (the module is still loaded) and `import(…)` as one too", () => {
    using tree = sourceTree({
      "jobs/a.ts": 'import { type B } from "./b.ts";\nexport type A = B;\n',
      "jobs/b.ts": 'export type B = string;\nexport const load = () => import("./a.ts");\n',
    });
    assert.deepEqual(checkImports(tree.root).runTimeCycles, [["jobs/a.ts", "jobs/b.ts"]]);
  });

  it("reports an import that climbs from a lower folder, type-only ones included, and a folder with no place", () => {
    using tree = sourceTree({
      "store/store.ts": 'import { step } from "../jobs/step.ts";\nexport const store = step;\n',
      "tools/tool.ts": 'import type { Step } from "../jobs/step.ts";\nexport type Tool = Step;\n',
      "jobs/step.ts": "export type Step = number;\nexport const step = 1;\n",
      "gadgets/gadget.ts": "export const gadget = 1;\n",
    });
    const report = checkImports(tree.root);
    assert.deepEqual(report.upward.map((edge) => [edge.from, edge.to, edge.typeOnly]), [
      ["store/store.ts", "jobs/step.ts", false],
      ["tools/tool.ts", "jobs/step.ts", true],
    ]);
    assert.deepEqual(report.unplaced, ["gadgets"]);
  });
});
