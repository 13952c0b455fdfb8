/**
 * @module
 * The system tools of a job bound to shared memory: `remember(category, key, value, description)` stores (or
 * changes) an entry in the job's own context — only with `memoryAccess: "write"` — and `listMemory(category?)`
 * prints what the job reads. Both are made per job, over what the job runner gives them ({@link JobMemoryAccess}).
 */
import { z } from "zod";
import { PermissionError } from "../errors/permission-error.ts";
import { isIdentifier } from "../tools/is-identifier.ts";
import { tool, type Tool } from "../tools/tool.ts";
import type { JsonValue } from "../store/store.ts";
import type { MemoryAccess, MemoryItem } from "./memory.ts";

/** What the memory tools of one job work with. */
export interface JobMemoryAccess {
  readonly access: MemoryAccess;
  readonly categories: readonly string[];
  /** The entries the job reads (merged over its contexts), in a category or all. */
  items(category?: string): MemoryItem[];
  /** Stores an entry in the job's own context; `category` is a registered one, upper case. */
  remember(entry: { category: string; key: string; value: JsonValue; description: string }): Promise<void>;
}

/** Readable one-line form of a stored value. */
function shown(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** `remember` and `listMemory` over `memory`. */
export function memoryTools(memory: JobMemoryAccess): Tool[] {
  const category = (name: unknown): string => {
    const upper = typeof name === "string" ? name.trim().toUpperCase() : "";
    if (!memory.categories.includes(upper)) throw new TypeError(`unknown memory category ${JSON.stringify(name)} (registered: ${memory.categories.join(", ")})`);
    return upper;
  };
  const remember = tool({
    name: "remember",
    description: "Store a value in shared memory (or change one), for this job and later ones: it is in scope by its key from the next cell on.",
    params: z.object({
      category: z.string().describe(`The category: ${memory.categories.join(", ")}.`),
      key: z.string().describe("Its name (an identifier), such as tone or customerName."),
      value: z.json().describe("The value (JSON data)."),
      description: z.string().describe("What it means, in a few words."),
    }),
    returns: "Nothing.",
    system: true,
    // Writing the same entry again changes nothing: a call in doubt after a crash is made again.
    idempotent: true,
    run: async ({ category: given, key, value, description }) => {
      if (memory.access !== "write") throw new PermissionError({ key, problem: "read-only-job" });
      if (!isIdentifier(key)) throw new TypeError(`remember: the key must be an identifier, such as tone or customerName (got ${JSON.stringify(key)})`);
      await memory.remember({ category: category(given), key, value: value as JsonValue, description: description.trim() });
      return undefined;
    },
  });
  const listMemory = tool({
    name: "listMemory",
    description: "Print the shared memory this job reads (one category, or all): each key with its category, value and description.",
    params: z.object({ category: z.string().optional().describe("Only this category.") }),
    returns: "Nothing; the entries are printed.",
    system: true,
    readOnly: true,
    run: ({ category: given }, ctx) => {
      const items = memory.items(given === undefined ? undefined : category(given));
      if (!items.length) return void ctx.print(given === undefined ? "Shared memory is empty." : `No shared memory in ${category(given)}.`);
      ctx.print(items.map((item) => `${item.key} (${item.category}) = ${shown(item.value)}${item.description ? ` — ${item.description}` : ""}`).join("\n"));
    },
  });
  return [remember, listMemory];
}
