/**
 * @module
 * The cell compiler: turns one cell of agent code, TypeScript or JavaScript, into a script
 * the guest runtime can run with REPL semantics.
 *
 * - Types are stripped (`amaro`, Node's own stripper, see `type-stripper.ts`; enums and namespaces are
 *   transformed).
 * - Top-level `const`/`let`/`var`/`function`/`class` become assignments to globals, so they are workspace
 *   variables that later cells see and may redeclare. `var` anywhere in the cell's top-level scope (loops,
 *   blocks) does too, as in a script. Functions and classes declared at the top level are marked so their
 *   source persists (classes with `#private` members are flagged); one assigned by a `var` inside a block or
 *   loop may close over that block, so it is not.
 * - The value of each top-level expression statement is echoed, except for assignments, updates, `delete`,
 *   `void` and calls of `console.*`, `print` and `exit`. A leading string statement is echoed too (it is no
 *   directive in a cell); `"use strict"` is dropped.
 * - Every `catch` block starts by re-throwing a pending `exit()`, so `exit` ends the cell even inside `try`.
 * - The body runs in an async function, so top-level `await` works.
 */
import { parse, type Node } from "acorn";
import { CompiledCells } from "./compiled-cells.ts";
import { TypeStripper } from "./type-stripper.ts";
import { errorMessage } from "../errors/error-text.ts";

/** Size limits checked before a cell runs. */
export interface CellSizeLimits {
  /** @default 200_000 */
  maxSourceBytes?: number;
  /** @default 20_000 */
  maxSyntaxNodes?: number;
}

/** The outcome of compiling a cell. */
export type CompiledCell =
  | { kind: "empty" }
  | { kind: "error"; error: { name: string; message: string } }
  | { kind: "script"; script: string };

interface Edit {
  start: number;
  end: number;
  text: string;
}

type AnyNode = Node & Record<string, any>;

const SILENT_CALLEES = new Set(["print", "exit"]);

/** Results of earlier compiles, shared by every workspace of the process (a compile depends on nothing else). */
const compiled = new CompiledCells<CompiledCell>();
/** The process's type stripper (loaded again after a cell broke it). */
const stripper = new TypeStripper();

/**
 * Compiles one cell; never throws for bad agent code (syntax errors are a result). The result is frozen: the same
 * source under the same limits gives the same object again, from a bounded memory of recent compiles.
 */
export function compileCell(source: string, limits: CellSizeLimits = {}): CompiledCell {
  const maxBytes = limits.maxSourceBytes ?? 200_000;
  const maxNodes = limits.maxSyntaxNodes ?? 20_000;
  const key = `${maxBytes}:${maxNodes}`;
  const known = compiled.recall(key, source);
  if (known) return known;
  let result: CompiledCell;
  try {
    result = compile(source, maxBytes, maxNodes);
  } catch (error) {
    // The parser and the tree walks recurse: a cell nested deeply enough exhausts the host's stack. How deep the
    // stack already was is the caller's, so this outcome is not remembered.
    if (error instanceof RangeError) return { kind: "error", error: { name: "RangeError", message: "the cell is nested too deeply to compile" } };
    throw error;
  }
  if (result.kind === "error") Object.freeze(result.error);
  compiled.remember(key, source, Object.freeze(result));
  return result;
}

function compile(source: string, maxBytes: number, maxNodes: number): CompiledCell {
  const bytes = Buffer.byteLength(source, "utf8");
  if (bytes > maxBytes) return tooLarge(`${bytes.toLocaleString("en-US")} bytes`, `${maxBytes.toLocaleString("en-US")}`);
  const stripped = stripTypes(source);
  if (typeof stripped !== "string") return stripped;
  let program: AnyNode;
  try {
    program = parse(stripped, { ecmaVersion: "latest", sourceType: "script", allowAwaitOutsideFunction: true }) as AnyNode;
  } catch (error) {
    if (error instanceof RangeError && !(error instanceof SyntaxError)) throw error;
    return syntaxError(error);
  }
  if (program.body.length === 0) return { kind: "empty" };
  const insertions: Edit[] = [];
  collectCatchBodies(program, insertions);
  const state: State = {
    nodes: 0, edits: [], hoisted: [], varNames: new Set(), error: undefined,
    slice: (start, end) => applyEdits(stripped.slice(start, end), insertions
      .filter((edit) => edit.start > start && edit.start < end)
      .map((edit) => ({ ...edit, start: edit.start - start, end: edit.end - start }))),
  };
  for (const statement of program.body as AnyNode[]) rewriteTopLevel(statement, stripped, state);
  if (state.error) return { kind: "error", error: { name: "SyntaxError", message: state.error } };
  if (state.nodes > maxNodes) {
    return tooLarge(`${state.nodes.toLocaleString("en-US")} syntax nodes`, `${maxNodes.toLocaleString("en-US")}`);
  }
  const body = applyEdits(stripped, [...state.edits, ...insertions]);
  // `var` is hoisted: `var E = E || {}` must read `undefined`, not throw, before E exists.
  const declare = state.varNames.size ? `__statek.declare(${JSON.stringify([...state.varNames])});\n` : "";
  return { kind: "script", script: `${declare}__statek.run(async () => {\n${state.hoisted.join("\n")}\n${body}\n});` };
}

function tooLarge(size: string, limit: string): CompiledCell {
  return { kind: "error", error: { name: "RangeError", message: `the cell is too large (${size}; the limit is ${limit})` } };
}

/**
 * A cell's code without its TypeScript types, through the process's one stripper (what `freeNames` reads).
 * @throws {SyntaxError} When the code is not TypeScript the stripper reads.
 */
export function stripCellTypes(source: string): string {
  const stripped = stripTypes(source);
  if (typeof stripped === "string") return stripped;
  throw new SyntaxError(stripped.kind === "error" ? stripped.error.message : "the code cannot be read");
}

function stripTypes(source: string): string | CompiledCell {
  try {
    return stripper.transform(source, "strip-only");
  } catch (error) {
    if (error instanceof RangeError) throw error;
    const info = error as { code?: string; message?: string; startLine?: number; startColumn?: number };
    if (info.code === "UnsupportedSyntax") {
      try {
        return stripper.transform(source, "transform");
      } catch (inner) {
        return typeScriptError(inner);
      }
    }
    return typeScriptError(error);
  }
}

function typeScriptError(error: unknown): CompiledCell {
  const info = error as { message?: string; startLine?: number; startColumn?: number };
  const where = info.startLine ? ` (${info.startLine}:${(info.startColumn ?? 0) + 0})` : "";
  return { kind: "error", error: { name: "SyntaxError", message: `${info.message ?? String(error)}${where}` } };
}

function syntaxError(error: unknown): CompiledCell {
  const message = errorMessage(error);
  if (message.includes("'import' and 'export' may appear only")) {
    const where = /\((\d+:\d+)\)/.exec(message)?.[1];
    return {
      kind: "error",
      error: { name: "SyntaxError", message: `import and export declarations are not available in the workspace${where ? ` (${where})` : ""}` },
    };
  }
  return { kind: "error", error: { name: "SyntaxError", message } };
}

interface State {
  nodes: number;
  edits: Edit[];
  hoisted: string[];
  varNames: Set<string>;
  error: string | undefined;
  /** The source between two offsets, with the `catch` insertions inside it applied. */
  slice(start: number, end: number): string;
}

const CHECK_EXIT = "__statek.checkExit();";

/** Where every `catch` block (anywhere in the cell) gets its {@link CHECK_EXIT} call. */
function collectCatchBodies(node: AnyNode, insertions: Edit[]): void {
  if (node.type === "CatchClause") insertions.push({ start: node.body.start + 1, end: node.body.start + 1, text: CHECK_EXIT });
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === "string") collectCatchBodies(child, insertions);
    } else if (value && typeof value === "object" && typeof value.type === "string") {
      collectCatchBodies(value, insertions);
    }
  }
}

// Assigning the global `__proto__` would replace the prototype of the workspace's global object, and the
// variable would vanish: refused, with the reason.
const PROTO_NAME = "a workspace variable cannot be named __proto__ (assigning it would replace the prototype of the global object)";

function rewriteTopLevel(node: AnyNode, source: string, state: State): void {
  const text = (n: AnyNode) => state.slice(n.start, n.end);
  const declared = new Set<string>();
  if (node.type === "VariableDeclaration") collectBoundNames(node, declared);
  else if ((node.type === "FunctionDeclaration" || node.type === "ClassDeclaration") && node.id) declared.add(node.id.name);
  if (declared.has("__proto__")) state.error ??= PROTO_NAME;
  switch (node.type) {
    case "VariableDeclaration":
      countNodes(node, state);
      if (node.kind === "var") collectBoundNames(node, state.varNames);
      state.edits.push({ start: node.start, end: node.end, text: `;${declarationToAssignment(node, state, true)};` });
      return;
    case "FunctionDeclaration":
      countNodes(node, state);
      state.hoisted.push(`${node.id.name} = __statek.def(${text(node)});`);
      state.edits.push({ start: node.start, end: node.end, text: "" });
      return;
    case "ClassDeclaration":
      countNodes(node, state);
      state.edits.push({ start: node.start, end: node.end, text: `;${node.id.name} = __statek.def(${text(node)}${privateFlag(node)});` });
      return;
    case "ExpressionStatement": {
      walkScope(node, source, state);
      if (node.directive === "use strict") {
        state.edits.push({ start: node.start, end: node.end, text: "" });
      } else if (isEchoed(node.expression)) {
        state.edits.push({ start: node.start, end: node.end, text: `;__statek.echo((${text(node.expression)}));` });
      }
      return;
    }
    default:
      walkScope(node, source, state);
  }
}

function isEchoed(expression: AnyNode): boolean {
  let inner = expression;
  if (inner.type === "AwaitExpression") inner = inner.argument;
  if (inner.type === "AssignmentExpression" || inner.type === "UpdateExpression") return false;
  if (inner.type === "UnaryExpression" && (inner.operator === "delete" || inner.operator === "void")) return false;
  if (inner.type === "CallExpression") {
    const callee = inner.callee;
    if (callee.type === "Identifier" && SILENT_CALLEES.has(callee.name)) return false;
    if (callee.type === "MemberExpression" && callee.object.type === "Identifier" && callee.object.name === "console") return false;
  }
  return true;
}

/**
 * `const a = 1, { b } = o` → `(a = 1, { b } = o)`. At the top level, functions and classes assigned by name
 * are marked as definitions.
 */
function declarationToAssignment(node: AnyNode, state: State, topLevel: boolean): string {
  const parts = (node.declarations as AnyNode[]).map((declarator) => {
    const target = state.slice(declarator.id.start, declarator.id.end);
    if (!declarator.init) return node.kind === "var" ? `${target} = globalThis.${target}` : `${target} = undefined`;
    const init = state.slice(declarator.init.start, declarator.init.end);
    const definition = topLevel && /^(FunctionExpression|ArrowFunctionExpression|ClassExpression)$/.test(declarator.init.type);
    if (definition && declarator.id.type === "Identifier") return `${target} = ${init}, __statek.def(${target}${privateFlag(declarator.init)})`;
    return `${target} = ${init}`;
  });
  return `(${parts.join(", ")})`;
}

/** `, true` for a class with `#private` members (the runtime cannot rebuild its instances from data). */
function privateFlag(node: AnyNode): string {
  if (node.type !== "ClassDeclaration" && node.type !== "ClassExpression") return "";
  const members = node.body.body as AnyNode[];
  return members.some((member) => member.key?.type === "PrivateIdentifier") ? ", true" : "";
}

const NESTED_SCOPES = new Set([
  "FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression", "ClassDeclaration", "ClassExpression",
]);

/** Rewrites `var` in the cell's own scope (not in nested functions) and refuses `import()`. */
function walkScope(node: AnyNode, source: string, state: State): void {
  state.nodes++;
  if (node.type === "ImportExpression" || (node.type === "MetaProperty" && node.meta?.name === "import")) {
    state.error ??= "import() is not available in the workspace";
    return;
  }
  if (node.type === "VariableDeclaration" && node.kind === "var") {
    countNodes(node, state);
    collectBoundNames(node, state.varNames);
    state.edits.push({ start: node.start, end: node.end, text: `;${declarationToAssignment(node, state, false)};` });
    return;
  }
  if ((node.type === "ForInStatement" || node.type === "ForOfStatement") && node.left.type === "VariableDeclaration" && node.left.kind === "var") {
    const id = node.left.declarations[0].id;
    collectBoundNames(node.left, state.varNames);
    state.edits.push({ start: node.left.start, end: node.left.end, text: state.slice(id.start, id.end) });
    walkChildren(node, source, state, node.left);
    return;
  }
  if (node.type === "ForStatement" && node.init?.type === "VariableDeclaration" && node.init.kind === "var") {
    collectBoundNames(node.init, state.varNames);
    state.edits.push({ start: node.init.start, end: node.init.end, text: declarationToAssignment(node.init, state, false) });
    walkChildren(node, source, state, node.init);
    return;
  }
  if (NESTED_SCOPES.has(node.type)) {
    countNodes(node, state);
    return;
  }
  walkChildren(node, source, state);
}

function walkChildren(node: AnyNode, source: string, state: State, skip?: AnyNode): void {
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (value === skip) {
      countNodes(value, state);
      continue;
    }
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === "string") walkScope(child, source, state);
    } else if (value && typeof value === "object" && typeof value.type === "string") {
      walkScope(value, source, state);
    }
  }
}

/** Counts syntax nodes under `node` (for the size limit) and refuses `import()` anywhere. */
function countNodes(node: AnyNode, state: State): void {
  state.nodes++;
  if (node.type === "ImportExpression") state.error ??= "import() is not available in the workspace";
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === "string") countNodes(child, state);
    } else if (value && typeof value === "object" && typeof value.type === "string") {
      countNodes(value, state);
    }
  }
}

/** The identifiers a declaration binds, including those inside destructuring patterns. */
function collectBoundNames(node: AnyNode, names: Set<string>): void {
  const visit = (pattern: AnyNode | null): void => {
    if (!pattern) return;
    switch (pattern.type) {
      case "Identifier": names.add(pattern.name); break;
      case "ObjectPattern": for (const property of pattern.properties) visit(property.type === "RestElement" ? property.argument : property.value); break;
      case "ArrayPattern": for (const element of pattern.elements) visit(element); break;
      case "RestElement": visit(pattern.argument); break;
      case "AssignmentPattern": visit(pattern.left); break;
    }
  };
  for (const declarator of node.declarations) visit(declarator.id);
}

function applyEdits(source: string, edits: Edit[]): string {
  edits.sort((a, b) => a.start - b.start || a.end - b.end);
  let out = "";
  let position = 0;
  for (const edit of edits) {
    if (edit.start < position) continue;
    out += source.slice(position, edit.start) + edit.text;
    position = edit.end;
  }
  return out + source.slice(position);
}
