/**
 * @module
 * The TypeScript compiler as the checker's thread uses it: a program of the ECMAScript library, the workspace's
 * globals, the job's declarations (what the model was shown), the workspace's variables and earlier cells'
 * declarations, and the cell — type-checked for the cell's errors only. A cell written in JavaScript is checked
 * as JavaScript (`cell-language.ts`).
 *
 * What makes a check cheap: every parsed file is kept by its text (the library for good, the others in a
 * bounded memory of recent texts), and each program is made from the one before (`oldProgram`), so a check
 * parses only what changed and binds only new files; the type checker itself is made anew for every program,
 * which is what a check costs. One program is alive at a time, whichever job it was for.
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import ts from "typescript";
import { CELL_GLOBALS } from "./cell-globals.ts";
import { CELL_COMPILER_OPTIONS } from "./compiler-options.ts";
import { DefinitionsReader } from "./cell-definitions.ts";
import { cellLanguage } from "./cell-language.ts";
import { workspaceDeclarations } from "./workspace-declarations.ts";
import type { CellCheckInput, CellCheckOutput, CellTypeError } from "./type-check-result.ts";

const GLOBALS = "/statek/globals.d.ts";
const DECLARATIONS = "/statek/job.d.ts";
const WORKSPACE = "/statek/workspace.ts";
const WORKSPACE_JS = "/statek/workspace-js.js";
const CELL_TS = "/statek/cell.ts";
const CELL_JS = "/statek/cell.js";

/** Most characters of non-library source texts kept parsed. */
const MAX_KEPT_CHARACTERS = 16 * 1024 * 1024;

/** A checker: one per thread. */
export class CellProgram {
  readonly #libDirectory: string;
  readonly #libraries = new Map<string, ts.SourceFile>();
  /** Parsed non-library files by name and text, least recently used first. */
  readonly #kept = new Map<string, ts.SourceFile>();
  #keptCharacters = 0;
  readonly #texts = new Map<string, string>();
  readonly #definitions = new DefinitionsReader();
  readonly #host: ts.CompilerHost;
  #last: ts.Program | undefined;

  constructor() {
    this.#libDirectory = dirname(createRequire(import.meta.url).resolve("typescript"));
    this.#host = {
      getSourceFile: (fileName, languageVersion) => this.#sourceFile(fileName, languageVersion),
      getDefaultLibFileName: (options) => `${this.#libDirectory}/${ts.getDefaultLibFileName(options)}`,
      getDefaultLibLocation: () => this.#libDirectory,
      writeFile: () => {},
      getCurrentDirectory: () => "/statek",
      getCanonicalFileName: (fileName) => fileName,
      useCaseSensitiveFileNames: () => true,
      getNewLine: () => "\n",
      fileExists: (fileName) => this.#texts.has(fileName) || (fileName.startsWith(this.#libDirectory) && ts.sys.fileExists(fileName)),
      readFile: (fileName) => this.#texts.get(fileName) ?? (fileName.startsWith(this.#libDirectory) ? ts.sys.readFile(fileName) : undefined),
    };
  }

  /** Type-checks one cell. */
  check(input: CellCheckInput): CellCheckOutput {
    const definitions = this.#definitions.read(input.cells);
    const workspace = workspaceDeclarations(input.variables, definitions);
    const parsed = ts.createSourceFile(CELL_TS, input.cell, ts.ScriptTarget.ESNext, true);
    // The cell compiler refuses modules with a SyntaxError the model should read, not "Cannot find module".
    if (importsOrExports(parsed)) return { errors: [], syntax: true };
    const language = cellLanguage(parsed);
    const cell = language === "js" ? CELL_JS : CELL_TS;
    this.#texts.set(GLOBALS, CELL_GLOBALS);
    this.#texts.set(DECLARATIONS, input.declarations);
    this.#texts.set(WORKSPACE, workspace.ts);
    this.#texts.set(WORKSPACE_JS, workspace.js);
    // The cell is a module: its top-level await is allowed and its declarations shadow the workspace's.
    this.#texts.set(cell, `${input.cell}\n;export {};\n`);
    let checked = this.#checkCell(cell);
    // A cell runs as a sloppy script: `total = 0` with no declaration makes a workspace variable. A name the
    // compiler cannot find that the cell assigns is such a variable, of a type not known yet.
    const assigned = "file" in checked ? assignedUnknownNames(checked.file, checked.diagnostics) : [];
    if (assigned.length) {
      this.#texts.set(WORKSPACE, `${workspace.ts}\n${assigned.map((name) => `declare var ${name}: any;`).join("\n")}`);
      checked = this.#checkCell(cell);
    }
    return "file" in checked ? { errors: checked.errors } : checked;
  }

  /** Checks the cell file `cell` against the texts as they are set. */
  #checkCell(cell: string): CellCheckOutput | { errors: CellTypeError[]; file: ts.SourceFile; diagnostics: readonly ts.Diagnostic[] } {
    const rootNames = [GLOBALS, DECLARATIONS, WORKSPACE, WORKSPACE_JS, cell];
    const program = ts.createProgram({ rootNames, options: CELL_COMPILER_OPTIONS, host: this.#host, ...(this.#last ? { oldProgram: this.#last } : {}) });
    this.#last = program;
    // Declarations that do not parse (a documented type that is not TypeScript, a damaged cell's source)
    // would make every name in them unknown: the cell is not judged by them.
    for (const name of [DECLARATIONS, WORKSPACE, WORKSPACE_JS]) {
      const broken = program.getSyntacticDiagnostics(program.getSourceFile(name)).at(0);
      if (broken) return { errors: [], unchecked: `the ${name === DECLARATIONS ? "job's" : "workspace's"} declarations do not parse: ${ts.flattenDiagnosticMessageText(broken.messageText, " ")}` };
    }
    const file = program.getSourceFile(cell)!;
    if (program.getSyntacticDiagnostics(file).length) return { errors: [], syntax: true };
    const diagnostics = program.getSemanticDiagnostics(file).filter((diagnostic) => !isFeatureTest(file, diagnostic));
    return { errors: diagnostics.map((diagnostic) => cellError(file, diagnostic)), file, diagnostics };
  }

  /** The declarations of the workspace the last check saw, TypeScript then JavaScript (for tests and for reading a refusal). */
  get lastWorkspace(): string | undefined {
    return [this.#texts.get(WORKSPACE), this.#texts.get(WORKSPACE_JS)].filter(Boolean).join("\n");
  }

  #sourceFile(fileName: string, languageVersion: ts.ScriptTarget | ts.CreateSourceFileOptions): ts.SourceFile | undefined {
    if (fileName.startsWith(this.#libDirectory)) {
      let library = this.#libraries.get(fileName);
      if (!library) {
        const text = ts.sys.readFile(fileName);
        if (text === undefined) return undefined;
        library = ts.createSourceFile(fileName, text, languageVersion, false);
        this.#libraries.set(fileName, library);
      }
      return library;
    }
    const text = this.#texts.get(fileName);
    if (text === undefined) return undefined;
    const key = `${fileName}\0${text}`;
    const kept = this.#kept.get(key);
    if (kept) {
      this.#kept.delete(key);
      this.#kept.set(key, kept);
      return kept;
    }
    const file = ts.createSourceFile(fileName, text, languageVersion, false);
    this.#kept.set(key, file);
    this.#keptCharacters += text.length;
    while (this.#keptCharacters > MAX_KEPT_CHARACTERS && this.#kept.size > 5) {
      const [oldest, dropped] = this.#kept.entries().next().value!;
      this.#kept.delete(oldest);
      this.#keptCharacters -= dropped.text.length;
    }
    return file;
  }
}

/** "Cannot find name 'x'", and its variants that suggest installing type definitions or changing the library. */
const CANNOT_FIND_NAME = new Set([2304, 2552, 2580, 2581, 2582, 2583, 2584, 2591, 2592, 2593]);

/** Names the compiler could not find where the cell assigns them (`total = 0`), in order, each once. */
function assignedUnknownNames(file: ts.SourceFile, diagnostics: readonly ts.Diagnostic[]): string[] {
  const names = new Set<string>();
  for (const diagnostic of diagnostics) {
    if (!CANNOT_FIND_NAME.has(diagnostic.code) || diagnostic.start === undefined) continue;
    const node = nodeAt(file, diagnostic.start);
    if (!node || !ts.isIdentifier(node)) continue;
    const parent = node.parent;
    const assigned = ts.isBinaryExpression(parent) && parent.left === node && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken;
    const loop = (ts.isForOfStatement(parent) || ts.isForInStatement(parent)) && parent.initializer === node;
    if (assigned || loop) names.add(node.text);
  }
  return [...names];
}

/** True when the cell has an `import` or `export` declaration or an `import()`, which the workspace does not run. */
function importsOrExports(file: ts.SourceFile): boolean {
  const visit = (node: ts.Node): boolean => {
    if (ts.isImportDeclaration(node) || ts.isImportEqualsDeclaration(node) || ts.isExportDeclaration(node) || ts.isExportAssignment(node)) return true;
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) return true;
    if (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) return true;
    return node.forEachChild(visit) ?? false;
  };
  return visit(file);
}

/** `typeof fetch === "function"`: asking whether a global exists is how JavaScript tests for it, and runs. */
function isFeatureTest(file: ts.SourceFile, diagnostic: ts.Diagnostic): boolean {
  if (!CANNOT_FIND_NAME.has(diagnostic.code) || diagnostic.start === undefined) return false;
  const node = nodeAt(file, diagnostic.start);
  return node !== undefined && ts.isIdentifier(node) && ts.isTypeOfExpression(node.parent);
}

function nodeAt(file: ts.SourceFile, position: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (position < node.getStart(file) || position >= node.end) return;
    found = node;
    node.forEachChild(visit);
  };
  file.forEachChild(visit);
  return found;
}

/**
 * A tool is declared twice, positionally and in its named form (`job-declarations.ts`); a call that fits neither
 * is reported by the compiler as "No overload matches this call", with both. The model meant the named form when
 * it passed one object literal, else the positional one: the error is that form's.
 */
function toolCallError(file: ts.SourceFile, diagnostic: ts.Diagnostic): { code: number; chain: ts.DiagnosticMessageChain } | undefined {
  const text = diagnostic.messageText;
  if (diagnostic.code !== 2769 || typeof text === "string" || diagnostic.start === undefined) return undefined;
  const overloads = text.next ?? [];
  if (overloads.length !== 2 || !/^Overload 2 of 2, '\(args: \{/.test(overloads[1]!.messageText)) return undefined;
  let call = nodeAt(file, diagnostic.start);
  while (call && !ts.isCallExpression(call)) call = call.parent;
  const named = call !== undefined && call.arguments.length === 1 && ts.isObjectLiteralExpression(call.arguments[0]!);
  const chain = overloads[named ? 1 : 0]!.next?.[0];
  return chain && { code: chain.code, chain };
}

function cellError(file: ts.SourceFile, diagnostic: ts.Diagnostic): CellTypeError {
  const start = diagnostic.start ?? 0;
  const { line, character } = file.getLineAndCharacterOfPosition(Math.min(start, file.text.length));
  const call = toolCallError(file, diagnostic);
  if (call) return { line: line + 1, column: character + 1, code: call.code, message: ts.flattenDiagnosticMessageText(call.chain, "\n") };
  let message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  // The advice to install type definitions or change the library is for a project, not for a workspace cell.
  if (CANNOT_FIND_NAME.has(diagnostic.code) && diagnostic.code !== 2304 && diagnostic.code !== 2552) message = message.replace(/^(Cannot find name '[^']*'\.).*$/s, "$1");
  return { line: line + 1, column: character + 1, code: diagnostic.code, message };
}
