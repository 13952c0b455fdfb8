/**
 * @module
 * Prompt placeholders: `{brief_tools}`, `{typed_brief_tools}` (the same lines with parameter
 * types), `{tools}`, `{detailed_tools}`, `{shared_var_names}` and job parameters `{name}`. Only known
 * placeholder names are replaced, in one pass, so braces anywhere else — JSON in a prompt, code or braces
 * inside a tool's description — are left exactly as they are.
 * Hidden tools and `_` tools never appear.
 *
 * A placeholder alone after a comment marker (`// {tools}` or `# {tools}`) is expanded as a block comment:
 * every line of the expansion gets the same marker, so the prompt's layout survives.
 */
import { isListed, type Tool } from "../tools/tool.ts";
import { briefLine, toolDeclaration, toolEntry } from "./tool-docs.ts";

/** What a prompt is rendered with. */
export interface PromptContext {
  /** Tools the model may see (hidden ones are dropped here too). */
  tools: readonly Tool[];
  /** The job's initial variables and their types. */
  sharedVars: ReadonlyArray<{ name: string; type: string }>;
  /** Job parameters; strings are inserted as is, other values as JSON. */
  params: Readonly<Record<string, unknown>>;
  /** What `{shared_memory}` says of the job's shared memory; empty for a job bound to none. */
  sharedMemory?: string;
}

const COMMENTED = /^([ \t]*(?:\/\/|#)[ \t]*)\{([A-Za-z_]\w*)\}[ \t]*$/;
const INLINE = /\{([A-Za-z_]\w*)\}/g;

/** Replaces the known placeholders of `template`. */
export function renderPrompt(template: string, context: PromptContext): string {
  const visible = context.tools.filter(isListed);
  const values: Record<string, () => string> = {
    brief_tools: () => visible.map((tool) => briefLine(tool)).join("\n") || "(none)",
    typed_brief_tools: () => visible.map((tool) => briefLine(tool, true)).join("\n") || "(none)",
    tools: () => visible.map(toolEntry).join("\n\n") || "(none)",
    detailed_tools: () => visible.map(toolDeclaration).join("\n\n") || "(none)",
    shared_var_names: () => context.sharedVars.map(({ name, type }) => `${name} (${type})`).join(", ") || "(none)",
    shared_memory: () => context.sharedMemory ?? "",
  };
  const valueOf = (name: string): string | undefined => {
    if (Object.prototype.hasOwnProperty.call(values, name)) return values[name]!();
    if (Object.prototype.hasOwnProperty.call(context.params, name)) {
      const value = context.params[name];
      return typeof value === "string" ? value : JSON.stringify(value);
    }
    return undefined;
  };
  // Lines are processed one by one so an expansion is never scanned again.
  return template.split("\n").map((line) => {
    const commented = COMMENTED.exec(line);
    if (commented) {
      const value = valueOf(commented[2]!);
      if (value !== undefined) {
        const marker = commented[1]!;
        return value.split("\n").map((text) => (text ? `${marker}${text}` : marker.trimEnd())).join("\n");
      }
    }
    return line.replace(INLINE, (whole, name: string) => valueOf(name) ?? whole);
  }).join("\n");
}
