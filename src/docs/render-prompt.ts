/**
 * @module
 * Prompt placeholders (DESIGN.md §5): `{brief_tools}`, `{tools}`, `{detailed_tools}`, `{shared_var_names}`
 * and job parameters `{name}`. Only known placeholder names are replaced; any other braces (JSON in a prompt,
 * code in a description) are left as they are. Hidden tools never appear.
 */
import type { Tool } from "../tools/tool.ts";
import { briefLine, toolDeclaration, toolEntry } from "./tool-docs.ts";

/** What a prompt is rendered with. */
export interface PromptContext {
  /** Tools the model may see (hidden ones are dropped here too). */
  tools: readonly Tool[];
  /** The job's initial variables and their types. */
  sharedVars: ReadonlyArray<{ name: string; type: string }>;
  /** Job parameters; strings are inserted as is, other values as JSON. */
  params: Readonly<Record<string, unknown>>;
}

/** Replaces the known placeholders of `template`. */
export function renderPrompt(template: string, context: PromptContext): string {
  const visible = context.tools.filter((tool) => !tool.hidden);
  const values: Record<string, () => string> = {
    brief_tools: () => visible.map(briefLine).join("\n") || "(none)",
    tools: () => visible.map(toolEntry).join("\n\n") || "(none)",
    detailed_tools: () => visible.map(toolDeclaration).join("\n\n") || "(none)",
    shared_var_names: () => context.sharedVars.map(({ name, type }) => `${name} (${type})`).join(", ") || "(none)",
  };
  return template.replace(/\{([A-Za-z_][\w]*)\}/g, (whole, name: string) => {
    if (Object.prototype.hasOwnProperty.call(values, name)) return values[name]!();
    if (Object.prototype.hasOwnProperty.call(context.params, name)) {
      const value = context.params[name];
      return typeof value === "string" ? value : JSON.stringify(value);
    }
    return whole;
  });
}
