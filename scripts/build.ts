/**
 * @module
 * `npm run build` (and `prepack`): compiles `src/` into `dist/` — JavaScript and declarations — for the
 * published package, which must run without type stripping (Node refuses to strip types under `node_modules`).
 *
 * The sources import each other with `.ts` extensions (they run directly under Node's type stripping);
 * `rewriteRelativeImportExtensions` makes the emitted JavaScript import `.js`, but TypeScript leaves the
 * specifiers of declaration files as written, so this script rewrites them, then checks that no file under
 * `dist/` imports a `.ts` file. `dist/` is emptied first so a renamed module never ships twice.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..");
const dist = join(root, "dist");

// `from "…"`, `import "…"`, `import("…")` and `export … from "…"`: the specifier is group 2.
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])([^"'\n]+)\2/g;
const TS_EXTENSION = /\.(?:ts|tsx|mts|cts)$/;

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function isRelativeTsImport(specifier: string): boolean {
  return /^\.{1,2}\//.test(specifier) && TS_EXTENSION.test(specifier) && !specifier.endsWith(".d.ts");
}

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const compiled = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit" });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const problems: string[] = [];
let count = 0;
for (const file of filesUnder(dist)) {
  if (!/\.(?:js|d\.ts)$/.test(file)) continue;
  count++;
  let text = readFileSync(file, "utf8");
  if (file.endsWith(".d.ts")) {
    const rewritten = text.replace(SPECIFIER, (whole, head: string, quote: string, specifier: string) =>
      isRelativeTsImport(specifier) ? `${head}${quote}${specifier.replace(TS_EXTENSION, ".js")}${quote}` : whole);
    if (rewritten !== text) writeFileSync(file, (text = rewritten));
  }
  for (const [, , , specifier] of text.matchAll(SPECIFIER)) {
    if (isRelativeTsImport(specifier!)) problems.push(`${relative(root, file)} imports ${specifier}`);
  }
}
if (problems.length) {
  process.stderr.write(`build: files under dist/ still import TypeScript files:\n  ${problems.join("\n  ")}\n`);
  process.exit(1);
}
process.stdout.write(`build: dist/ holds ${count} JavaScript and declaration files\n`);

// The guest sources ship as the text of compiled functions: check that text, not only the sources'.
const guest = spawnSync(process.execPath, [join(root, "scripts", "check-guest-sources.ts"), "dist"], { stdio: "inherit" });
if (guest.status !== 0) process.exit(guest.status ?? 1);
