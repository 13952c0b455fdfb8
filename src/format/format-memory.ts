/**
 * @module
 * A job's shared memory as the CLI and the UI show it: one line for its binding (`user:42, team:7 · write`),
 * then each entry it reads: its key, category, value (cut when long), description and the context it came from.
 */
import type { JobMemoryView } from "../jobs/memory/job-memory-view.ts";
import type { MemoryItem } from "../agents/memory.ts";

/** The longest value text shown before it is cut. */
const VALUE_CHARS = 200;

/** The binding: its specifiers (or "global" for none) and its access. */
export function formatMemoryBinding(memory: Pick<JobMemoryView, "specifiers" | "access">): string {
  return `${memory.specifiers.length ? memory.specifiers.join(", ") : "global"} · ${memory.access}`;
}

/** One entry: `tone (PREFERENCE) = "formal" — Prefers formal [team:7, user:42]`. */
export function formatMemoryEntry(entry: MemoryItem, options: { full?: boolean } = {}): string {
  const text = JSON.stringify(entry.value);
  const value = options.full || text.length <= VALUE_CHARS ? text : `${text.slice(0, VALUE_CHARS)}… (${text.length.toLocaleString("en-US")} characters)`;
  const context = entry.context.length ? entry.context.join(", ") : "global";
  return `${entry.key} (${entry.category}) = ${value}${entry.description ? ` — ${entry.description}` : ""} [${context}]`;
}
