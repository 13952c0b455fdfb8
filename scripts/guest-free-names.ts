/**
 * @module
 * The free names of a JavaScript source: every identifier it reads or writes that no declaration of its own
 * binds. Code shipped into the sandbox as source text must be self-contained, so its free names may only be
 * the realm's built-ins; `scripts/check-guest-sources.ts` applies this to every guest source.
 */
import { parse } from "acorn";

/** An acorn node, read structurally (acorn's own types are a closed union this walk does not need). */
interface Node {
  type: string;
  start: number;
  [key: string]: unknown;
}

interface Scope {
  names: Set<string>;
  parent: Scope | undefined;
  /** A function's scope (where `var` and `arguments` live). */
  isFunction: boolean;
}

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && typeof (value as Node).type === "string";

function children(node: Node): Node[] {
  const out: Node[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "type" || key === "start" || key === "end" || key === "loc" || key === "range") continue;
    if (Array.isArray(value)) for (const item of value) if (isNode(item)) out.push(item);
    if (isNode(value)) out.push(value);
  }
  return out;
}

/** The names a binding pattern declares. */
function patternNames(pattern: Node, out: string[] = []): string[] {
  switch (pattern.type) {
    case "Identifier": out.push(pattern.name as string); break;
    case "ObjectPattern": for (const property of pattern.properties as Node[]) patternNames(property.type === "RestElement" ? property : (property.value as Node), out); break;
    case "ArrayPattern": for (const element of pattern.elements as (Node | null)[]) if (element) patternNames(element, out); break;
    case "RestElement": patternNames(pattern.argument as Node, out); break;
    case "AssignmentPattern": patternNames(pattern.left as Node, out); break;
  }
  return out;
}

/** `var` declarations and (sloppy) function declarations of a function body, not looking into nested functions. */
function hoisted(node: Node, out: string[]): void {
  for (const child of children(node)) {
    if (/^(Function|ArrowFunction|Class)(Declaration|Expression)$/.test(child.type)) continue;
    if (child.type === "VariableDeclaration" && child.kind === "var") for (const declarator of child.declarations as Node[]) patternNames(declarator.id as Node, out);
    hoisted(child, out);
  }
}

/** Names declared directly in a block's statement list with block scope. */
function lexical(statements: Node[]): string[] {
  const out: string[] = [];
  for (const statement of statements) {
    if (statement.type === "VariableDeclaration" && statement.kind !== "var") for (const declarator of statement.declarations as Node[]) patternNames(declarator.id as Node, out);
    if ((statement.type === "FunctionDeclaration" || statement.type === "ClassDeclaration") && statement.id) out.push((statement.id as Node).name as string);
  }
  return out;
}

/**
 * The free names of `source` (a script), sorted, each with the offset of its first use. Property keys, member
 * names, labels and `new.target`/`import.meta` are not names; `arguments` is bound in every non-arrow function.
 */
export function freeNames(source: string): Map<string, number> {
  const program = parse(source, { ecmaVersion: "latest", sourceType: "script" }) as unknown as Node;
  const free = new Map<string, number>();
  const resolve = (name: string, scope: Scope | undefined, at: number) => {
    for (let current = scope; current; current = current.parent) if (current.names.has(name)) return;
    if (!free.has(name)) free.set(name, at);
  };
  const scopeOf = (parent: Scope | undefined, names: string[], isFunction = false): Scope => ({ names: new Set(names), parent, isFunction });

  const visitFunction = (node: Node, scope: Scope) => {
    const names: string[] = [];
    for (const param of node.params as Node[]) patternNames(param, names);
    if (node.type !== "ArrowFunctionExpression") names.push("arguments");
    if (node.type === "FunctionExpression" && node.id) names.push((node.id as Node).name as string);
    const body = node.body as Node;
    hoisted(body, names);
    const inner = scopeOf(scope, names, true);
    for (const param of node.params as Node[]) visitPattern(param, inner);
    if (body.type === "BlockStatement") visitBlock(body.body as Node[], inner);
    else visit(body, inner);
  };
  // A binding pattern: its default values and computed keys are expressions.
  const visitPattern = (pattern: Node, scope: Scope): void => {
    switch (pattern.type) {
      case "Identifier": return;
      case "ObjectPattern":
        for (const property of pattern.properties as Node[]) {
          if (property.type === "RestElement") visitPattern(property.argument as Node, scope);
          else {
            if (property.computed) visit(property.key as Node, scope);
            visitPattern(property.value as Node, scope);
          }
        }
        return;
      case "ArrayPattern": for (const element of pattern.elements as (Node | null)[]) if (element) visitPattern(element, scope); return;
      case "RestElement": visitPattern(pattern.argument as Node, scope); return;
      case "AssignmentPattern": visitPattern(pattern.left as Node, scope); visit(pattern.right as Node, scope); return;
      default: visit(pattern, scope); // a member expression as an assignment target
    }
  };
  const visitBlock = (statements: Node[], scope: Scope) => {
    const inner = scopeOf(scope, lexical(statements));
    for (const statement of statements) visit(statement, inner);
  };
  const visit = (node: Node, scope: Scope): void => {
    switch (node.type) {
      case "Identifier": resolve(node.name as string, scope, node.start); return;
      case "FunctionDeclaration": case "FunctionExpression": case "ArrowFunctionExpression": visitFunction(node, scope); return;
      case "BlockStatement": case "StaticBlock": visitBlock(node.body as Node[], scope); return;
      case "SwitchStatement": {
        visit(node.discriminant as Node, scope);
        const cases = node.cases as Node[];
        const inner = scopeOf(scope, lexical(cases.flatMap((each) => each.consequent as Node[])));
        for (const each of cases) for (const child of children(each)) visit(child, inner);
        return;
      }
      case "ForStatement": case "ForInStatement": case "ForOfStatement": {
        const head = (node.init ?? node.left) as Node | null;
        const inner = scopeOf(scope, head && head.type === "VariableDeclaration" && head.kind !== "var" ? lexical([head]) : []);
        for (const child of children(node)) visit(child, inner);
        return;
      }
      case "VariableDeclaration":
        for (const declarator of node.declarations as Node[]) {
          visitPattern(declarator.id as Node, scope);
          if (declarator.init) visit(declarator.init as Node, scope);
        }
        return;
      case "CatchClause": {
        const inner = scopeOf(scope, node.param ? patternNames(node.param as Node) : []);
        if (node.param) visitPattern(node.param as Node, inner);
        visit(node.body as Node, inner);
        return;
      }
      case "ClassDeclaration": case "ClassExpression": {
        const inner = scopeOf(scope, node.id ? [(node.id as Node).name as string] : []);
        if (node.superClass) visit(node.superClass as Node, inner);
        visit(node.body as Node, inner);
        return;
      }
      case "MethodDefinition": case "PropertyDefinition": case "Property":
        if (node.computed) visit(node.key as Node, scope);
        if (node.value) visit(node.value as Node, scope);
        return;
      case "MemberExpression":
        visit(node.object as Node, scope);
        if (node.computed) visit(node.property as Node, scope);
        return;
      case "AssignmentExpression": visitPattern(node.left as Node, scope); visit(node.right as Node, scope); return;
      case "LabeledStatement": visit(node.body as Node, scope); return;
      case "BreakStatement": case "ContinueStatement": case "MetaProperty": case "PrivateIdentifier": return;
      default: for (const child of children(node)) visit(child, scope);
    }
  };
  visitBlock(program.body as Node[], scopeOf(undefined, [...hoistedNames(program)], true));
  return new Map([...free].sort(([a], [b]) => a.localeCompare(b)));
}

function hoistedNames(program: Node): string[] {
  const out: string[] = [];
  hoisted(program, out);
  return out;
}
