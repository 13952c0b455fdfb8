/**
 * @module
 * Checks that the code shipped into the sandbox as source text is self-contained: the guest bootstrap, every
 * engine it compiles on first use, and every guest factory interpolated into it may name only the realm's
 * built-ins (`ENGINE_GLOBALS`); anything else would resolve to nothing in QuickJS, or, worse, to a name the
 * bootstrap happens to bind. Run on the sources (`node scripts/check-guest-sources.ts`) or on the build
 * (`node scripts/check-guest-sources.ts dist`, which `scripts/build.ts` does): the published package runs
 * `tsc`'s output, so the text that ships is checked as it ships.
 *
 * A function exported from `workspace/guest/` or `workspace/codec/` is either found in the bootstrap (a
 * factory) or listed in {@link HOST_FUNCTIONS}, so a new factory cannot be left out of the check.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "acorn";
import { freeNames } from "./guest-free-names.ts";

/** Functions of those folders that run on the host, never as source text in the guest. */
export const HOST_FUNCTIONS = new Set([
  "guestBootstrapSource", "codecSource", "decodeArguments", "errorReply", "operationName", "pendingReply", "thrownReply", "valueReply",
]);

/** Names the bootstrap's own glue may use: it binds every other built-in from these. */
const BOOTSTRAP_GLOBALS = new Set(["globalThis", "Infinity", "NaN", "undefined"]);

/** One problem found. */
export interface GuestSourceProblem {
  source: string;
  problem: string;
}

/** What was checked, and what was wrong. */
export interface GuestSourceReport {
  factories: string[];
  engines: string[];
  problems: GuestSourceProblem[];
}

function sourceFiles(directory: string, extension: string): string[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith(extension) && !name.endsWith(`.test${extension}`) && !name.endsWith(".d.ts"))
    .map((name) => join(directory, name));
}

/** The engine sources the bootstrap carries as strings: the values of its `engines: { … }` object. */
function engineStrings(bootstrap: string): Map<string, string> {
  const engines = new Map<string, string>();
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    const record = node as Record<string, unknown>;
    if (record.type === "Property" && (record.key as { name?: string }).name === "engines" && (record.value as { type?: string }).type === "ObjectExpression") {
      for (const property of (record.value as { properties: Array<{ key: { value?: string; name?: string }; value: { value?: unknown } }> }).properties) {
        if (typeof property.value.value === "string") engines.set(String(property.key.value ?? property.key.name), property.value.value);
      }
    }
    for (const value of Object.values(record)) {
      if (Array.isArray(value)) value.forEach(visit);
      else visit(value);
    }
  };
  visit(parse(bootstrap, { ecmaVersion: "latest", sourceType: "script" }));
  return engines;
}

function outside(source: string, allowed: ReadonlySet<string>): string[] {
  return [...freeNames(source).keys()].filter((name) => !allowed.has(name));
}

/** Checks the guest sources of the tree at `root` (`src` with `.ts` modules, or a build with `.js`). */
export async function checkGuestSources(root: string, extension = root.endsWith("src") ? ".ts" : ".js"): Promise<GuestSourceReport> {
  const load = (path: string) => import(pathToFileURL(path).href) as Promise<Record<string, unknown>>;
  const { guestBootstrapSource } = (await load(join(root, "workspace/guest/guest-bootstrap" + extension))) as { guestBootstrapSource: (send: string) => string };
  const { ENGINE_GLOBALS } = (await load(join(root, "workspace/guest/guest-realm" + extension))) as { ENGINE_GLOBALS: readonly string[] };
  const builtIns = new Set(ENGINE_GLOBALS);
  const bootstrap = guestBootstrapSource("__statek_send");
  const problems: GuestSourceProblem[] = [];
  const report = (source: string, problem: string) => problems.push({ source, problem });

  const glue = outside(bootstrap, BOOTSTRAP_GLOBALS);
  if (glue.length) report("bootstrap", `names outside the realm: ${glue.join(", ")}`);
  const engines = engineStrings(bootstrap);
  if (engines.size === 0) report("bootstrap", "no engine sources found in it (its `engines: { … }` object)");
  for (const [name, source] of engines) {
    const names = outside(source, builtIns);
    if (names.length) report(`engine ${name}`, `names outside the realm: ${names.join(", ")}`);
  }

  // The codec ships as one unit: `createCodec` names `createDecoder`, which the unit binds.
  const { codecSource } = (await load(join(root, "workspace/codec/codec" + extension))) as { codecSource: () => string };
  const codec = codecSource();
  if (!bootstrap.includes(codec)) report("bootstrap", "does not carry the codec's source");
  const codecNames = outside(codec, builtIns);
  if (codecNames.length) report("codec", `names outside the realm: ${codecNames.join(", ")}`);

  const factories: string[] = [];
  for (const folder of ["workspace/guest", "workspace/codec"]) {
    for (const file of sourceFiles(join(root, folder), extension)) {
      for (const [name, value] of Object.entries(await load(file))) {
        if (typeof value !== "function" || /^[A-Z]/.test(name) || HOST_FUNCTIONS.has(name)) continue;
        const where = `${relative(root, file)}: ${name}`;
        const text = value.toString();
        const shipped = bootstrap.includes(text) || [...engines.values()].some((engine) => engine.includes(`function ${name}(`));
        if (!shipped) {
          report(where, "exported from a guest folder but neither shipped in the bootstrap nor listed as a host function");
          continue;
        }
        factories.push(where);
        if (codec.includes(text)) continue;
        const names = outside(`(${text})`, builtIns);
        if (names.length) report(where, `names outside the realm: ${names.join(", ")}`);
      }
    }
  }
  return { factories, engines: [...engines.keys()], problems };
}

if (import.meta.main) {
  const root = join(import.meta.dirname, "..", process.argv[2] ?? "src");
  const { factories, engines, problems } = await checkGuestSources(root);
  if (problems.length) {
    process.stderr.write(`guest sources under ${relative(process.cwd(), root) || "."} are not self-contained:\n${problems.map(({ source, problem }) => `  ${source}: ${problem}`).join("\n")}\n`);
    process.exit(1);
  }
  process.stdout.write(`guest sources: the bootstrap, ${engines.length} engines and ${factories.length} factories name only the realm's built-ins\n`);
}
