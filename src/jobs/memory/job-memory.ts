/**
 * @module
 * A running job's shared memory: what it reads (its context merged with the broader ones, entries of
 * registered categories), read again at the start of each step that runs code or asks the model, so a value
 * another job wrote is seen; the names it puts in the workspace's scope; and its `remember`/`listMemory` tools,
 * which write through the store and show the write to the rest of the step at once.
 */
import type { JsonValue, MemoryEntry, Store } from "../../store/store.ts";
import { withStoreRetries } from "../../store/store-retries.ts";
import type { Tool } from "../../tools/tool.ts";
import type { WorkspaceMemory } from "../../workspace/workspace-options.ts";
import { contextKey, memoryItem, mergeMemory, readableContexts, type MemoryAccess, type MemoryBinding, type MemoryItem } from "../../agents/memory.ts";
import { memoryTools, type JobMemoryAccess } from "../../agents/memory-tools.ts";

/** One job's shared memory (see the module comment). */
export class JobMemory implements WorkspaceMemory, JobMemoryAccess {
  readonly access: MemoryAccess;
  readonly categories: readonly string[];
  readonly #store: Store;
  readonly #specifiers: readonly string[];
  #entries: MemoryEntry[] = [];
  #tools: Tool[] | undefined;
  /** The names in scope for the cell running now, fixed when it started (see {@link pinNames}). */
  #pinned: ReadonlyArray<readonly [string, string]> | undefined;

  constructor(store: Store, binding: MemoryBinding, categories: readonly string[]) {
    this.#store = store;
    this.#specifiers = binding.specifiers;
    this.access = binding.access;
    this.categories = categories;
  }

  /** Reads the job's memory again (what other jobs and the application wrote since). */
  async refresh(): Promise<void> {
    const entries = await withStoreRetries(() => this.#store.readMemory(readableContexts(this.#specifiers)));
    this.#entries = mergeMemory(entries.filter((entry) => this.categories.includes(entry.category)));
  }

  names(): ReadonlyArray<readonly [string, string]> {
    return this.#pinned ?? this.#entries.map((entry) => [entry.key, entry.category] as const);
  }

  /**
   * Fixes the names in scope for one cell, until {@link unpinNames}: a cell replayed after a suspension must see
   * the names its first run saw (whether `typeof tone` crosses to the host depends on them), whatever memory holds now.
   */
  pinNames(names: ReadonlyArray<readonly [string, string]>): void {
    this.#pinned = names;
  }

  /** Ends {@link pinNames}. */
  unpinNames(): void {
    this.#pinned = undefined;
  }

  value(name: string): { value: unknown } | undefined {
    const entry = this.#entries.find((candidate) => candidate.key === name);
    return entry ? { value: entry.value } : undefined;
  }

  items(category?: string): MemoryItem[] {
    return this.#entries.filter((entry) => category === undefined || entry.category === category).map(memoryItem);
  }

  async remember(entry: { category: string; key: string; value: JsonValue; description: string }): Promise<void> {
    const now = Date.now();
    const stored: MemoryEntry = { context: contextKey(this.#specifiers), ...entry, createdAt: now, updatedAt: now };
    await withStoreRetries(() => this.#store.putMemory(stored));
    // The job's own context is the most specific it reads: its entry is the one it sees from now on.
    this.#entries = mergeMemory([...this.#entries.filter((known) => known.key !== entry.key), stored]);
  }

  /** `remember` and `listMemory`, made once per job. */
  tools(): Tool[] {
    this.#tools ??= memoryTools(this);
    return this.#tools;
  }
}
