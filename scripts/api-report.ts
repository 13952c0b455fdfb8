/**
 * @module
 * The API report: every name each entry of `package.json` exports, runtime values and types, with its
 * declaration as the published `.d.ts` states it (doc comments left out), then the declarations those refer to
 * that the entry does not export itself (an option type that changes changes the API too). The reports live in
 * `api/<entry>.api.md`; `.ci/run` runs `node scripts/api-report.ts` (check) and fails when the surface differs
 * from them; `node scripts/api-report.ts --write` records a deliberate change.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const root = join(import.meta.dirname, "..");
const reports = join(root, "api");

/** The entries: subpath → source file (the `statek-source` condition). */
function entries(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, string | Record<string, string>> };
  const out = new Map<string, string>();
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === "object" && target["statek-source"]) out.set(subpath, join(root, target["statek-source"]));
  }
  return out;
}

/** Declaration files for the entries, emitted in memory as `tsc` would emit them for the package. */
function emitDeclarations(files: string[]): Map<string, string> {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.build.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error("tsconfig.build.json could not be read");
  const options: ts.CompilerOptions = { ...config.options, noEmit: false, declaration: true, emitDeclarationOnly: true, outDir: join(root, ".api-dts"), rootDir: join(root, "src") };
  const program = ts.createProgram(files, options);
  const emitted = new Map<string, string>();
  // As in the build: declaration files keep the sources' `./x.ts` specifiers; the package's name `./x.js`.
  const rewrite = (text: string) => text.replace(/(\bfrom\s*|\bimport\s*\(\s*)(["'])(\.{1,2}\/[^"'\n]+)\.ts\2/g, "$1$2$3.js$2");
  const result = program.emit(undefined, (name, text) => emitted.set(name, rewrite(text)), undefined, true);
  const errors = result.diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error);
  if (errors.length) throw new Error(ts.formatDiagnostics(errors, { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => "\n" }));
  return emitted;
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

function printed(node: ts.Node): string {
  // A variable's declaration reads best as its statement (`export declare const X: T;`).
  const shown = ts.isVariableDeclaration(node) && ts.isVariableDeclarationList(node.parent) ? node.parent.parent : node;
  return printer.printNode(ts.EmitHint.Unspecified, shown, shown.getSourceFile()).replace(/^export declare |^export |^declare /, "");
}

/** One entry's report. */
function report(subpath: string, entryDts: string, program: ts.Program, dtsRoot: string): { text: string; values: number; types: number } {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entryDts);
  if (!source) throw new Error(`${subpath}: no declarations were emitted for it`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  const exports = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
  const exported = new Set<ts.Symbol>();
  const lines: string[] = [];
  let values = 0;
  let types = 0;
  const referenced = new Map<ts.Symbol, string>();
  const queue: ts.Node[] = [];
  const resolve = (symbol: ts.Symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);

  for (const symbol of [...exports].sort((a, b) => a.name.localeCompare(b.name))) {
    const target = resolve(symbol);
    exported.add(target);
    const isValue = (target.flags & ts.SymbolFlags.Value) !== 0;
    if (isValue) values++;
    else types++;
    const alias = target.name !== symbol.name && target.name !== "default" ? ` (declared as ${target.name})` : "";
    lines.push(`### ${symbol.name} — ${isValue ? "value" : "type"}${alias}`, "", "```ts");
    for (const declaration of target.declarations ?? []) {
      lines.push(printed(declaration));
      queue.push(declaration);
    }
    lines.push("```", "");
  }
  // What the exported declarations name from this package without exporting it.
  while (queue.length) {
    const node = queue.shift()!;
    const visit = (child: ts.Node): void => {
      if ((ts.isTypeReferenceNode(child) || ts.isExpressionWithTypeArguments(child) || ts.isTypeQueryNode(child)) ) {
        const name = ts.isTypeReferenceNode(child) ? child.typeName : ts.isTypeQueryNode(child) ? child.exprName : child.expression;
        const symbol = checker.getSymbolAtLocation(name);
        const target = symbol && resolve(symbol);
        const declarations = target?.declarations ?? [];
        if (target && !exported.has(target) && !referenced.has(target) && declarations.some((declaration) => declaration.getSourceFile().fileName.startsWith(dtsRoot))) {
          const file = relative(dtsRoot, declarations[0]!.getSourceFile().fileName).replace(/\.d\.ts$/, ".ts");
          referenced.set(target, `### ${target.name} — from src/${file}\n\n\`\`\`ts\n${declarations.map(printed).join("\n")}\n\`\`\`\n`);
          queue.push(...declarations);
        }
      }
      ts.forEachChild(child, visit);
    };
    ts.forEachChild(node, visit);
  }
  const header = [`# statek${subpath.slice(1)}`, "", `${values} values, ${types} types. Generated by \`node scripts/api-report.ts --write\`; do not edit.`, "", "## Exported", ""];
  const tail = referenced.size ? ["## Referenced, not exported by this entry", "", ...[...referenced.values()].sort()] : [];
  return { text: [...header, ...lines, ...tail].join("\n").trimEnd() + "\n", values, types };
}

/** The report file of an entry: `api/index.api.md` for `statek`, `api/store.api.md` for `statek/store`. */
function reportFile(subpath: string): string {
  return join(reports, `${subpath === "." ? "index" : subpath.slice(2).replaceAll("/", "-")}.api.md`);
}

const write = process.argv.includes("--write");
const all = entries();
const emitted = emitDeclarations([...all.values()]);
const dtsRoot = join(root, ".api-dts");
const host = ts.createCompilerHost({});
const readFile = host.readFile.bind(host);
host.readFile = (name) => emitted.get(name) ?? readFile(name);
const fileExists = host.fileExists.bind(host);
host.fileExists = (name) => emitted.has(name) || fileExists(name);
// The emitted tree exists only in memory.
const directoryExists = host.directoryExists?.bind(host);
host.directoryExists = (name) => name === dtsRoot || name.startsWith(dtsRoot + "/") || (directoryExists?.(name) ?? true);
const dtsOf = (file: string) => join(dtsRoot, relative(join(root, "src"), file)).replace(/\.ts$/, ".d.ts");
// The emitted declarations still import `./x.ts`; resolve those to the emitted `./x.d.ts`.
const program = ts.createProgram([...all.values()].map(dtsOf), { strict: true, skipLibCheck: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowImportingTsExtensions: true, types: ["node"] }, host);
let failed = false;
const summary: string[] = [];
for (const [subpath, file] of all) {
  const { text, values, types } = report(subpath, dtsOf(file), program, dtsRoot);
  summary.push(`statek${subpath.slice(1)}: ${values} values, ${types} types`);
  const target = reportFile(subpath);
  if (write) {
    mkdirSync(reports, { recursive: true });
    writeFileSync(target, text);
  } else if (!existsSync(target) || readFileSync(target, "utf8") !== text) {
    failed = true;
    const before = existsSync(target) ? readFileSync(target, "utf8").split("\n") : [];
    const after = text.split("\n");
    const gone = before.filter((line) => line.startsWith("### ") && !after.includes(line));
    const added = after.filter((line) => line.startsWith("### ") && !before.includes(line));
    process.stderr.write(`api-report: statek${subpath.slice(1)} differs from ${relative(root, target)}${gone.length || added.length ? `:\n${[...gone.map((line) => `  - ${line.slice(4)}`), ...added.map((line) => `  + ${line.slice(4)}`)].join("\n")}` : " (a declaration changed)"}\n`);
  }
}
process.stdout.write(summary.join("\n") + "\n");
if (failed) {
  process.stderr.write("api-report: the public surface changed. If that is deliberate, run `node scripts/api-report.ts --write` and commit api/.\n");
  process.exit(1);
}
