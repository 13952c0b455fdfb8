/**
 * @module
 * `npm run check-imports` (and `npm test`, through `test/imports.test.ts`): checks how the files of `src/`
 * import each other.
 *
 * 1. **No import cycle at run time.** A cycle among files that load each other makes the order in which
 *    modules are evaluated depend on which file is imported first (a class used before its module has run is
 *    `undefined`), and it means the files cannot be understood one at a time. An edge is a run-time edge
 *    unless the whole declaration is erased: `import type …`, `export type … from …` and `import("…").Name`
 *    in a type position are type-only; `import { type A } from …` still loads the module under
 *    `verbatimModuleSyntax`, so it counts as run-time. A dynamic `import("…")` counts as run-time too.
 *    Cycles through type-only edges are legal and are only counted.
 * 2. **Imports point downward between top-level folders**, in the order of {@link LAYERS}: a file may import
 *    from its own folder and from folders listed after its own, never from one listed before it. Type-only
 *    imports follow the same rule, because a folder that needs another's types depends on its concepts;
 *    {@link TYPE_EXCEPTIONS} names the few allowed, each with its reason.
 *
 * Prints the figures either way; exits with status 1 and the offending files when a rule is broken.
 * `--json` prints the figures as JSON instead (for measurements).
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/**
 * The top-level entries of `src/`, highest first. Entries on one line share a level and must not import each
 * other. `index.ts` is the public entry; the others are folders. `worker/` sits below `jobs/`: the scheduler
 * knows leases and wake-ups, and the job runner hands it the step as a function (`statek.worker()`).
 */
export const LAYERS: readonly (readonly string[])[] = [
  ["index.ts", "testing"],
  ["cli"],
  ["ui", "mcp"],
  ["format"],
  ["jobs"],
  ["worker"],
  ["agents", "durable"],
  ["typecheck"],
  ["docs", "workspace"],
  ["tools"],
  ["models", "store"],
  ["telemetry"],
  ["registries"],
  ["errors"],
  ["runtime"],
];

/**
 * Type-only imports allowed to climb, each with its reason. A run-time import never may: the exceptions are for
 * data shapes that a lower folder's definitions hand to the code that uses them.
 */
export const TYPE_EXCEPTIONS: readonly { from: string; to: string; reason: string }[] = [
  { from: "agents/post-processor.ts", to: "jobs/history/history.ts", reason: "a post-processor is shown the job's history records" },
];

/** One import found in a file. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

/** What the check found. */
export interface ImportReport {
  readonly files: number;
  readonly runTimeEdges: number;
  readonly typeOnlyEdges: number;
  /** Strongly connected groups of files through run-time edges (each is one or more cycles). */
  readonly runTimeCycles: readonly (readonly string[])[];
  /** Strongly connected groups of files through any edge, type-only included (legal; counted only). */
  readonly typeCycles: readonly (readonly string[])[];
  /** Imports that climb from a lower folder to a higher one. */
  readonly upward: readonly ImportEdge[];
  /** Top-level entries of `src/` that {@link LAYERS} does not place. */
  readonly unplaced: readonly string[];
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  return node.isTypeOnly;
}

/** The relative imports of one file, each marked type-only or run-time. */
function importsOf(file: string): { specifier: string; typeOnly: boolean }[] {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.importClause?.isTypeOnly === true });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: isTypeOnlyExport(node) });
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)) {
        found.push({ specifier: argument.literal.text, typeOnly: true });
      }
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push({ specifier: argument.text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((entry) => entry.specifier.startsWith("./") || entry.specifier.startsWith("../"));
}

/** Tarjan's strongly connected components, keeping only groups that hold a cycle. */
function cyclicGroups(nodes: readonly string[], next: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let counter = 0;
  // Iterative, so a long chain of imports cannot overflow the call stack.
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: { node: string; targets: string[]; position: number }[] = [];
    const enter = (node: string): void => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, targets: [...(next.get(node) ?? [])], position: 0 });
    };
    enter(start);
    while (work.length) {
      const frame = work[work.length - 1]!;
      if (frame.position < frame.targets.length) {
        const target = frame.targets[frame.position++]!;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.node);
        if (group.length > 1 || next.get(frame.node)?.has(frame.node)) groups.push(group.sort());
      }
    }
  }
  return groups.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

function topLevel(path: string): string {
  return path.split("/")[0]!;
}

/** Reads every non-test file under `sourceRoot` and checks the two rules. */
export function checkImports(sourceRoot: string): ImportReport {
  const root = resolve(sourceRoot);
  const files = sourceFiles(root).map((file) => relative(root, file).split(sep).join("/"));
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    for (const { specifier, typeOnly } of importsOf(join(root, file))) {
      const target = relative(root, resolve(root, dirname(file), specifier)).split(sep).join("/");
      if (known.has(target)) edges.push({ from: file, to: target, typeOnly });
    }
  }
  const graph = (keep: (edge: ImportEdge) => boolean): Map<string, Set<string>> => {
    const next = new Map<string, Set<string>>();
    for (const edge of edges.filter(keep)) {
      if (!next.has(edge.from)) next.set(edge.from, new Set());
      next.get(edge.from)!.add(edge.to);
    }
    return next;
  };
  const runTimeCycles = cyclicGroups(files, graph((edge) => !edge.typeOnly));
  const typeCycles = cyclicGroups(files, graph(() => true));

  const level = new Map<string, number>();
  LAYERS.forEach((entries, position) => entries.forEach((entry) => level.set(entry, position)));
  const unplaced = [...new Set(files.map(topLevel))].filter((entry) => !level.has(entry)).sort();
  const excepted = (edge: ImportEdge) => edge.typeOnly && TYPE_EXCEPTIONS.some((allowed) => allowed.from === edge.from && allowed.to === edge.to);
  const upward = edges.filter((edge) => {
    const from = topLevel(edge.from);
    const to = topLevel(edge.to);
    if (from === to || !level.has(from) || !level.has(to) || excepted(edge)) return false;
    return level.get(to)! <= level.get(from)!;
  });
  return {
    files: files.length,
    runTimeEdges: edges.filter((edge) => !edge.typeOnly).length,
    typeOnlyEdges: edges.filter((edge) => edge.typeOnly).length,
    runTimeCycles,
    typeCycles,
    upward,
    unplaced,
  };
}

function main(): void {
  const args = process.argv.slice(2);
  const json = args.includes("--json");
  const sourceRoot = args.find((arg) => !arg.startsWith("--")) ?? join(import.meta.dirname, "..", "src");
  const report = checkImports(sourceRoot);
  if (json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const lines = [
      `check-imports: ${report.files} files, ${report.runTimeEdges} run-time and ${report.typeOnlyEdges} type-only imports`,
      `  run-time cycles: ${report.runTimeCycles.length} group(s), ${report.runTimeCycles.flat().length} files`,
      ...report.runTimeCycles.map((group) => `    ${group.join(" ↔ ")}`),
      `  cycles counting type-only imports (legal): ${report.typeCycles.length} group(s), ${report.typeCycles.flat().length} files, ` +
        `the largest ${report.typeCycles[0]?.length ?? 0}`,
      `  imports climbing between top-level folders: ${report.upward.length} (type-only exceptions allowed: ${TYPE_EXCEPTIONS.length})`,
      ...report.upward.map((edge) => `    ${edge.from} → ${edge.to}${edge.typeOnly ? " (type)" : ""}`),
    ];
    if (report.unplaced.length) lines.push(`  top-level entries of src/ with no place in LAYERS: ${report.unplaced.join(", ")}`);
    process.stdout.write(`${lines.join("\n")}\n`);
  }
  if (report.runTimeCycles.length || report.upward.length || report.unplaced.length) process.exitCode = 1;
}

if (import.meta.main) main();
