/**
 * @module
 * Compiles `src/` as the published build does — TypeScript with `tsconfig.build.json`'s options — into a
 * directory, file by file (`isolatedModules` guarantees each file's JavaScript needs no other file, so this is
 * the JavaScript `tsc` writes to `dist/`), without declarations or type checking. The directory gets a
 * `node_modules` link to the repository's, so the compiled code imports the same packages.
 */
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

const root = join(import.meta.dirname, "..", "..");

/** Compiles every non-test source under `src/` into `out` (made if missing); returns how many files. */
export function transpileSources(out: string): number {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.build.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error("tsconfig.build.json could not be read");
  // The package is ESM ("type": "module"), so `nodenext` emits ES modules; a lone file does not know that.
  const options: ts.CompilerOptions = { ...config.options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, declaration: false, noEmit: false };
  let count = 0;
  for (const entry of readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) continue;
    const file = join(entry.parentPath, entry.name);
    const { outputText } = ts.transpileModule(readFileSync(file, "utf8"), { compilerOptions: options, fileName: file });
    const target = join(out, relative(join(root, "src"), file)).replace(/\.ts$/, ".js");
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
    count++;
  }
  writeFileSync(join(out, "package.json"), JSON.stringify({ type: "module" }));
  symlinkSync(join(root, "node_modules"), join(out, "node_modules"), "dir");
  return count;
}
