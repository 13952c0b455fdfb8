/**
 * @module
 * Whether a cell is TypeScript or plain JavaScript. A cell written without any TypeScript syntax is checked as
 * JavaScript (the compiler's `checkJs`): its object literals stay open to new properties, a class takes its
 * fields from what its constructor assigns, a parameter has no type unless JSDoc gives one — what JavaScript
 * code expects — while its calls and member uses are still checked against the declarations. Runs on the
 * checker's thread.
 */
import ts from "typescript";

const TYPE_SCRIPT_ONLY = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.TypeAliasDeclaration, ts.SyntaxKind.InterfaceDeclaration, ts.SyntaxKind.EnumDeclaration, ts.SyntaxKind.ModuleDeclaration,
  ts.SyntaxKind.AsExpression, ts.SyntaxKind.SatisfiesExpression, ts.SyntaxKind.NonNullExpression, ts.SyntaxKind.TypeAssertionExpression,
  ts.SyntaxKind.ImportEqualsDeclaration, ts.SyntaxKind.TypeParameter,
  ts.SyntaxKind.PublicKeyword, ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword, ts.SyntaxKind.ReadonlyKeyword,
  ts.SyntaxKind.AbstractKeyword, ts.SyntaxKind.DeclareKeyword, ts.SyntaxKind.OverrideKeyword,
]);

/** `ts` when `source` uses any TypeScript syntax (a type, an interface, `as`, `!`, a modifier, …), else `js`. */
export function cellLanguage(file: ts.SourceFile): "ts" | "js" {
  let typed = false;
  const visit = (node: ts.Node): void => {
    if (typed) return;
    // `extends Base` is a node the type ranges include, in JavaScript too: only its type arguments are TypeScript.
    if (ts.isExpressionWithTypeArguments(node)) {
      if (node.typeArguments) typed = true;
      else node.forEachChild(visit);
      return;
    }
    if (TYPE_SCRIPT_ONLY.has(node.kind) || ts.isTypeNode(node) || hasTypeScriptMarks(node)) {
      typed = true;
      return;
    }
    node.forEachChild(visit);
  };
  file.forEachChild(visit);
  return typed ? "ts" : "js";
}

/** `a?: T`, `x!: T`, `implements`, `f<T>()`: TypeScript marks on nodes JavaScript also has. */
function hasTypeScriptMarks(node: ts.Node): boolean {
  if (ts.isParameter(node)) return node.questionToken !== undefined || (ts.isIdentifier(node.name) && node.name.text === "this");
  if (ts.isPropertyDeclaration(node)) return node.questionToken !== undefined || node.exclamationToken !== undefined;
  if (ts.isVariableDeclaration(node)) return node.exclamationToken !== undefined;
  if (ts.isHeritageClause(node)) return node.token === ts.SyntaxKind.ImplementsKeyword;
  if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node)) return node.typeArguments !== undefined;
  return false;
}
