/**
 * @module
 * The free names of workspace code: the identifiers it reads that it never declares and the workspace does not
 * provide (its built-ins, the runtime's globals, timers and waits). What an agent's warmup reads this way must
 * come from outside — a job's variables — which is how an agent event finds the variable to arrive in.
 *
 * Declarations are collected from the whole code, whatever their scope: a name declared anywhere in it is not
 * free. That errs towards fewer free names, never towards inventing one.
 */
import { parse, type Node } from "acorn";
import { stripCellTypes } from "./cell-compiler.ts";
import { ENGINE_GLOBALS } from "./guest/guest-realm.ts";
import { WORKSPACE_EXTRA_GLOBALS, WORKSPACE_TIMERS, WORKSPACE_WAITS } from "./workspace-notes.ts";

type AnyNode = Node & Record<string, any>;

/** What the workspace itself provides: never a free name. */
const PROVIDED = new Set<string>([...ENGINE_GLOBALS, ...WORKSPACE_EXTRA_GLOBALS, ...WORKSPACE_TIMERS, ...WORKSPACE_WAITS, "arguments"]);

/**
 * The names `code` (TypeScript or JavaScript, a cell's syntax) reads without declaring, in order of first use.
 * @throws {SyntaxError} When the code cannot be parsed.
 */
export function freeNames(code: string): string[] {
  const stripped = stripCellTypes(code);
  const program = parse(stripped, { ecmaVersion: "latest", sourceType: "script", allowAwaitOutsideFunction: true }) as AnyNode;
  const declared = new Set<string>();
  const read: string[] = [];
  walk(program, declared, read);
  return [...new Set(read)].filter((name) => !declared.has(name) && !PROVIDED.has(name));
}

/** Collects the names a binding pattern declares. */
function declare(pattern: AnyNode | null | undefined, declared: Set<string>, read: string[]): void {
  if (!pattern) return;
  switch (pattern.type) {
    case "Identifier":
      declared.add(pattern.name);
      return;
    case "ObjectPattern":
      for (const property of pattern.properties as AnyNode[]) {
        if (property.type === "RestElement") declare(property.argument, declared, read);
        else {
          if (property.computed) walk(property.key, declared, read);
          declare(property.value, declared, read);
        }
      }
      return;
    case "ArrayPattern":
      for (const element of pattern.elements as AnyNode[]) declare(element, declared, read);
      return;
    case "RestElement":
      declare(pattern.argument, declared, read);
      return;
    case "AssignmentPattern":
      declare(pattern.left, declared, read);
      walk(pattern.right, declared, read);
      return;
    default:
      // A member expression as an assignment target (`({ a: obj.x } = …)`): it reads `obj`.
      walk(pattern, declared, read);
  }
}

function walk(node: AnyNode | null | undefined, declared: Set<string>, read: string[]): void {
  if (!node || typeof node.type !== "string") return;
  switch (node.type) {
    case "Identifier":
      read.push(node.name);
      return;
    case "VariableDeclarator":
      declare(node.id, declared, read);
      walk(node.init, declared, read);
      return;
    case "FunctionDeclaration":
    case "FunctionExpression":
    case "ArrowFunctionExpression":
      if (node.id) declared.add(node.id.name);
      for (const parameter of node.params as AnyNode[]) declare(parameter, declared, read);
      walk(node.body, declared, read);
      return;
    case "ClassDeclaration":
    case "ClassExpression":
      if (node.id) declared.add(node.id.name);
      walk(node.superClass, declared, read);
      walk(node.body, declared, read);
      return;
    case "CatchClause":
      declare(node.param, declared, read);
      walk(node.body, declared, read);
      return;
    case "MemberExpression":
      walk(node.object, declared, read);
      if (node.computed) walk(node.property, declared, read);
      return;
    case "Property":
    case "PropertyDefinition":
    case "MethodDefinition":
      if (node.computed) walk(node.key, declared, read);
      if (node.type === "Property" && node.shorthand) walk(node.value, declared, read);
      else walk(node.value, declared, read);
      return;
    case "LabeledStatement":
      walk(node.body, declared, read);
      return;
    case "BreakStatement":
    case "ContinueStatement":
    case "MetaProperty":
      return;
    case "AssignmentExpression":
      // `x = 1` at the top level of a cell declares a workspace variable as a side effect: it is not read.
      if (node.left.type === "Identifier") declared.add(node.left.name);
      else declare(node.left, declared, read);
      walk(node.right, declared, read);
      return;
    default:
      for (const [key, value] of Object.entries(node)) {
        if (key === "type" || key === "start" || key === "end" || key === "loc" || key === "range") continue;
        if (Array.isArray(value)) for (const item of value) walk(item as AnyNode, declared, read);
        else if (value && typeof value === "object") walk(value as AnyNode, declared, read);
      }
  }
}
