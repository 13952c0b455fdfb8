/**
 * Runnable examples in the docs: a `ts` block with imports is a program that runs as its own process and must
 * print exactly the `text` block that follows it after "Prints:", if any; a `ts` block without imports is
 * agent code, which each guide's test runs in its own setting.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, it } from "node:test";
import { promisify } from "node:util";

/** One `ts` block of a guide, with the output it promises. */
export interface DocExample {
  line: number;
  code: string;
  prints: string | undefined;
}

const root = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);

/** The `ts` blocks of `docs/<name>`, each with the `text` block after its "Prints:". */
export function docExamples(name: string): DocExample[] {
  const lines = readFileSync(join(root, "docs", name), "utf8").split("\n");
  const found: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const end = lines.findIndex((line, index) => index > i && line === fence);
    assert.ok(end > i, `${name}: an unclosed fence at line ${i + 1}`);
    const body = lines.slice(i + 1, end).join("\n");
    if (open[2] === "ts") found.push({ line: i + 1, code: body, prints: undefined });
    else if (open[2] === "text" && lines.slice(0, i).reverse().find((line) => line.trim())?.trim() === "Prints:") {
      const last = found[found.length - 1];
      assert.ok(last && last.prints === undefined, `${name}: "Prints:" at line ${i + 1} follows no example`);
      last.prints = body;
    }
    i = end;
  }
  return found;
}

/** Whether an example is a whole program (it imports) rather than agent code. */
export const isProgram = (example: DocExample): boolean => /^import /m.test(example.code);

/** Registers a test per program: each runs as its own process and prints what the guide says. */
export function testPrograms(examples: DocExample[]): void {
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const dir = mkdtempSync(join(root, ".tmp", "guide-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  for (const example of examples.filter(isProgram)) {
    it(`the program at line ${example.line} runs${example.prints === undefined ? "" : " and prints what the guide says"}`, async () => {
      const file = join(dir, `example-${example.line}.ts`);
      writeFileSync(file, example.code);
      // `statek-source`: inside this checkout, `import … from "statek"` resolves to the sources.
      const { stdout } = await run(process.execPath, ["--conditions=statek-source", file], { encoding: "utf8" });
      if (example.prints !== undefined) assert.equal(stdout.trimEnd(), example.prints);
    });
  }
}
