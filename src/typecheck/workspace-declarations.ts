/**
 * @module
 * The declarations of a job's workspace variables, as one global script: each stored variable is declared
 * from what the cell that declared it said (a function, class, enum or namespace as written; an annotation;
 * a function expression's initializer) when that still describes what is stored, else by the type of its
 * stored value; a variable whose value was lost is `any`. The type aliases and interfaces of earlier cells
 * follow, except where a class of the same name took their place. What a cell written in JavaScript declared
 * goes into a JavaScript script of its own, so that it keeps JavaScript's meaning (`cell-language.ts`).
 */
import type { CellDefinitions } from "./cell-definitions.ts";
import type { StoredType } from "./stored-shape.ts";
import { writeShape } from "./type-shape.ts";

/** One stored variable and what it holds. */
export interface TypedVariable {
  readonly name: string;
  readonly type: StoredType;
}

/** The workspace's declarations: a TypeScript script, and a JavaScript one for what JavaScript cells declared. */
export interface WorkspaceDeclarations {
  readonly ts: string;
  readonly js: string;
}

/** The text of the workspace's declarations. */
export function workspaceDeclarations(variables: readonly TypedVariable[], definitions: CellDefinitions): WorkspaceDeclarations {
  const declared = new Set(variables.map((variable) => variable.name));
  // Classes first: instances stored in other variables are named by them.
  const classes = new Set<string>();
  for (const { name, type } of variables) {
    if (type.holds === "definition" && definitions.values.get(name)?.kind === "class") classes.add(name);
  }
  const names = { isClass: (name: string) => classes.has(name), isDeclared: (name: string) => declared.has(name) };
  const lines: string[] = [];
  const scripts: string[] = [];
  const valueNames = new Set<string>();
  for (const { name, type } of variables) {
    const definition = definitions.values.get(name);
    if (type.holds === "lost") {
      lines.push(`declare var ${name}: any;`);
      continue;
    }
    if (type.holds === "definition") {
      if (definition?.kind === "function" || definition?.kind === "class") {
        (definition.js ? scripts : lines).push(definition.text);
        valueNames.add(name);
      } else if (definition?.kind === "initialized") {
        (definition.js ? scripts : lines).push(`var ${name} = ${definition.text};`);
      } else {
        lines.push(`declare var ${name}: any;`);
      }
      continue;
    }
    if (definition?.kind === "annotated") lines.push(`declare var ${name}: ${definition.type};`);
    else if (definition?.kind === "enum" || definition?.kind === "namespace") {
      lines.push(definition.text);
      valueNames.add(name);
    } else lines.push(`declare var ${name}: ${writeShape(type.shape, names)};`);
  }
  for (const [name, text] of definitions.types) {
    if (!valueNames.has(name)) lines.push(text);
  }
  return { ts: lines.join("\n"), js: scripts.join("\n") };
}
