/**
 * @module
 * What earlier cells declared, with their types, read from their TypeScript source (the workspace keeps
 * only the stripped JavaScript): top-level functions, classes, enums and namespaces as written; `let x: T`
 * annotations; `const f = (a: number) => …` initializers; type aliases and interfaces, which exist only in the
 * source. A later declaration of a name replaces an earlier one, as in the workspace. Runs on the checker's
 * thread (it parses with the TypeScript compiler).
 */
import ts from "typescript";
import { cellLanguage } from "./cell-language.ts";

/**
 * How an earlier cell declared a name that has a value. `js` marks source from a cell written in JavaScript,
 * which is declared as JavaScript (see `cell-language.ts`).
 */
export type ValueDefinition =
  /** `function f(…) {…}` (with its overloads), `class C {…}`, `enum E {…}`, `namespace N {…}`: the source as written. */
  | { readonly kind: "function" | "class" | "enum" | "namespace"; readonly text: string; readonly js: boolean }
  /** `let x: T = …`: the annotation. */
  | { readonly kind: "annotated"; readonly type: string }
  /** `const f = (a: number) => …` (a function or class expression): the initializer. */
  | { readonly kind: "initialized"; readonly text: string; readonly js: boolean }
  /** Declared without a type to read: the stored value says what it is. */
  | { readonly kind: "plain" };

/** What a run of cells declared, the latest declaration of each name. */
export interface CellDefinitions {
  readonly values: ReadonlyMap<string, ValueDefinition>;
  /** Type aliases and interfaces by name (interfaces of one cell merged, as in that cell). */
  readonly types: ReadonlyMap<string, string>;
}

/** The declarations of one cell, in order. */
interface CellDeclarations {
  readonly values: ReadonlyArray<readonly [string, ValueDefinition]>;
  readonly types: ReadonlyArray<readonly [string, string]>;
}

/** Remembers what recent cells declared, by their source (one per checker thread; bounded). */
export class DefinitionsReader {
  readonly #cells = new Map<string, CellDeclarations>();
  readonly #maxCells: number;

  constructor(maxCells = 4_000) {
    this.#maxCells = maxCells;
  }

  /** The declarations of `cells`, earliest first: later ones replace earlier ones of the same name. */
  read(cells: readonly string[]): CellDefinitions {
    const values = new Map<string, ValueDefinition>();
    const types = new Map<string, string>();
    for (const source of cells) {
      const declared = this.#declarations(source);
      for (const [name, definition] of declared.values) {
        values.delete(name);
        values.set(name, definition);
      }
      for (const [name, text] of declared.types) {
        types.delete(name);
        types.set(name, text);
      }
    }
    return { values, types };
  }

  #declarations(source: string): CellDeclarations {
    const known = this.#cells.get(source);
    if (known) {
      // Most recently used last.
      this.#cells.delete(source);
      this.#cells.set(source, known);
      return known;
    }
    const declared = declarationsOf(source);
    this.#cells.set(source, declared);
    if (this.#cells.size > this.#maxCells) this.#cells.delete(this.#cells.keys().next().value!);
    return declared;
  }
}

function declarationsOf(source: string): CellDeclarations {
  const file = ts.createSourceFile("/statek/earlier-cell.ts", source, ts.ScriptTarget.ESNext, true, ts.ScriptKind.TS);
  const js = cellLanguage(file) === "js";
  const values: Array<readonly [string, ValueDefinition]> = [];
  const types = new Map<string, string[]>();
  const text = (node: ts.Node) => source.slice(node.getStart(file), node.end);
  // Overload signatures (no body) before a function's implementation belong to it.
  let overloads: { name: string; texts: string[] } | undefined;
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name) {
      const name = statement.name.text;
      if (overloads?.name !== name) overloads = { name, texts: [] };
      overloads.texts.push(text(statement));
      if (statement.body) {
        values.push([name, { kind: "function", text: overloads.texts.join("\n"), js }]);
        overloads = undefined;
      }
      continue;
    }
    overloads = undefined;
    if (ts.isClassDeclaration(statement) && statement.name) {
      values.push([statement.name.text, { kind: "class", text: text(statement), js }]);
    } else if (ts.isEnumDeclaration(statement)) {
      values.push([statement.name.text, { kind: "enum", text: text(statement), js }]);
    } else if (ts.isModuleDeclaration(statement) && ts.isIdentifier(statement.name) && !hasDeclareModifier(statement)) {
      values.push([statement.name.text, { kind: "namespace", text: text(statement), js }]);
    } else if (ts.isVariableStatement(statement) && !hasDeclareModifier(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) continue;
        values.push([declaration.name.text, variableDefinition(declaration, text, js)]);
      }
    } else if (ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement)) {
      const name = statement.name.text;
      // Two interfaces of one name in one cell merge; a type alias replaces what was before it.
      const merged = ts.isInterfaceDeclaration(statement) ? types.get(name) ?? [] : [];
      types.delete(name);
      types.set(name, [...merged, text(statement)]);
    }
  }
  return { values, types: [...types].map(([name, texts]) => [name, texts.join("\n")] as const) };
}

function variableDefinition(declaration: ts.VariableDeclaration, text: (node: ts.Node) => string, js: boolean): ValueDefinition {
  if (declaration.type) return { kind: "annotated", type: text(declaration.type) };
  const init = declaration.initializer && skipParentheses(declaration.initializer);
  if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init) || ts.isClassExpression(init))) {
    return { kind: "initialized", text: text(init), js };
  }
  return { kind: "plain" };
}

function skipParentheses(node: ts.Expression): ts.Expression {
  let current = node;
  while (ts.isParenthesizedExpression(current)) current = current.expression;
  return current;
}

function hasDeclareModifier(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.DeclareKeyword);
}
