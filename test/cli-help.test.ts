/**
 * The CLI's help and usage errors as an operator reads them: columns aligned as in git's help, and
 * suggestions that only ever name commands and options that exist.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { COMMANDS, main } from "../src/cli/main.ts";

const BIN = fileURLToPath(new URL("../bin/statek.js", import.meta.url));

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
  return { code, stdout, stderr };
}

/** The rows of a help section (`Options:` up to the blank line), as [term, column where the description starts]. */
function section(help: string, title: string): Array<{ line: string; column: number }> {
  const lines = help.split("\n");
  const start = lines.indexOf(`${title}:`);
  assert.ok(start >= 0, `a ${title} section in:\n${help}`);
  const rows: Array<{ line: string; column: number }> = [];
  for (const line of lines.slice(start + 1)) {
    if (line === "") break;
    const match = /^ {2}( *\S(?:.*?\S)?)( {2,})\S/.exec(line);
    if (match) rows.push({ line, column: 2 + match[1]!.length + match[2]!.length });
    else rows.push({ line, column: line.length - line.trimStart().length });
  }
  return rows;
}

describe("statek --help", () => {
  it("lays out every command's options and arguments in aligned columns, two spaces at least between", async () => {
    for (const command of COMMANDS) {
      const { code, stdout } = await run(command.name, "--help");
      assert.equal(code, 0);
      const rows = [...(stdout.includes("\nArguments:\n") ? section(stdout, "Arguments") : []), ...section(stdout, "Options")];
      const columns = new Set(rows.map((row) => row.column));
      assert.equal(columns.size, 1, `${command.name}: one description column:\n${rows.map((row) => row.line).join("\n")}`);
      for (const [name, option] of Object.entries(command.options)) {
        const flag = `--${name}${option.type === "string" ? ` ${option.valueName ?? "VALUE"}` : ""}`;
        assert.ok(rows.some((row) => row.line.includes(`${flag}  `)), `${command.name}: '${flag}' stands apart from its description`);
      }
    }
    const overview = await run("--help");
    assert.equal(new Set(section(overview.stdout, "Commands").map((row) => row.column)).size, 1);
    assert.equal(new Set(section(overview.stdout, "Options").map((row) => row.column)).size, 1);
  });

  it("suggests only commands and options that exist", async () => {
    const names = COMMANDS.map((command) => command.name);
    const version = await run("-v");
    assert.equal(version.code, 2);
    assert.match(version.stderr, /unknown option '-v'; did you mean 'statek --version'\?/);
    const typo = await run("aprove", "x");
    assert.match(typo.stderr, /unknown command 'aprove'; did you mean 'statek approve'\?/);
    const far = await run("frobnicate");
    assert.doesNotMatch(far.stderr, /did you mean/);
    const misplaced = await run("--status", "FAILED");
    assert.match(misplaced.stderr, /options go after it, as in 'statek jobs --status' \(commands that take it: jobs\)/);
    const nobody = await run("--colour");
    assert.match(nobody.stderr, /the options before a command are --help and --version/);
    const option = await run("show", "x", "--jsno");
    assert.match(option.stderr, /unknown option '--jsno' for 'statek show'; did you mean '--json'\?/);
    for (const { stderr } of [version, typo, far, misplaced, nobody, option]) {
      for (const [, suggested] of stderr.matchAll(/'statek ([a-z]+)/g)) assert.ok(names.includes(suggested!), `'${suggested}' is a command`);
    }
    const real = await new Promise<string>((resolve) => execFile(process.execPath, [BIN, "-v"], { encoding: "utf8" }, (_error, _stdout, stderr) => resolve(stderr)));
    assert.match(real, /did you mean 'statek --version'\?/, "the installed command says the same");
  });
});

describe("an agents module with a syntax error", () => {
  it("is reported with file:line:column and the line, for TypeScript and JavaScript", async () => {
    const directory = mkdtempSync(join(tmpdir(), "statek-syntax-"));
    try {
      const typescript = join(directory, "agents.ts");
      writeFileSync(typescript, 'import { Agent } from "statek";\n\nexport const greeter = new Agent({ role: "greeter", model: ( });\n');
      const javascript = join(directory, "agents.mjs");
      writeFileSync(javascript, 'export const greeter = {\n  role: "greeter",,\n};\n');
      const ts = await run("worker", "--agents", typescript);
      assert.equal(ts.code, 1);
      assert.match(ts.stderr, new RegExp(`SyntaxError: Expression expected at ${typescript.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3:\\d+\n {2}export const greeter = new Agent\\(\\{ role: "greeter", model: \\( \\}\\);\n {2} *\\^\n`));
      const js = await run("submit", "greeter", "--agents", javascript);
      assert.equal(js.code, 1);
      assert.match(js.stderr, /SyntaxError: Unexpected token ',' at .*agents\.mjs:2:19\n {2} {2}role: "greeter",,\n {2} {18}\^\n/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
