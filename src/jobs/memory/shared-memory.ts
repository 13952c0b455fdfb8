/**
 * @module
 * `statek.memory(...specifiers)`: the application's handle on one context of shared memory — write, read, list
 * and delete its entries from outside any job (a user's settings page, an import). Reads see the context
 * merged with every broader one, as the context's jobs do.
 */
import type { JsonValue, Store } from "../../store/store.ts";
import { withStoreRetries } from "../../store/store-retries.ts";
import { isIdentifier } from "../../tools/is-identifier.ts";
import { contextKey, memoryCategory, memoryItem, mergeMemory, readableContexts, type MemoryItem } from "../../agents/memory.ts";
import { checkJson } from "../operate/submit-values.ts";

/** What {@link SharedMemory.set} writes. */
export interface MemoryWrite {
  /** A registered category (`PREFERENCE`, `ENTITY`, `VOCABULARY`, … in any case). */
  category: string;
  /** Its name in the context's jobs' cells: an identifier. */
  key: string;
  /** JSON data. */
  value: unknown;
  /** What it means, for the model. @default "" */
  description?: string;
}

/**
 * One context of shared memory.
 *
 * @example
 * ```ts
 * const memory = statek.memory("user:42", "team:7");
 * await memory.set({ category: "PREFERENCE", key: "tone", value: "formal", description: "Prefers formal" });
 * await memory.get("tone"); // "formal"
 * ```
 */
export class SharedMemory {
  /** The context's specifiers, sorted, without duplicates. */
  readonly specifiers: readonly string[];
  readonly #store: Store;
  readonly #categories: readonly string[];
  readonly #clock: () => number;

  /** Made by `statek.memory(…)`. */
  constructor(store: Store, specifiers: readonly string[], categories: readonly string[], clock: () => number = Date.now) {
    this.#store = store;
    this.specifiers = Object.freeze([...specifiers]);
    this.#categories = categories;
    this.#clock = clock;
  }

  /**
   * Writes an entry of this context (a new key, or a new value of one).
   * @throws {TypeError} For an unknown category, a key that is not an identifier, a value that is not JSON.
   */
  async set(entry: MemoryWrite): Promise<void> {
    const call = "memory.set";
    if (typeof entry !== "object" || entry === null) throw new TypeError(`${call}: expected { category, key, value, description? }`);
    const category = memoryCategory(entry.category, this.#categories, call);
    if (typeof entry.key !== "string" || !isIdentifier(entry.key)) {
      throw new TypeError(`${call}: key must be an identifier, such as tone or customerName (it is a name in cells), got ${JSON.stringify(entry.key)}`);
    }
    checkJson(entry.value, "value", call);
    if (entry.description !== undefined && typeof entry.description !== "string") throw new TypeError(`${call}: description must be a string`);
    const now = this.#clock();
    await withStoreRetries(() => this.#store.putMemory({
      context: contextKey(this.specifiers), key: entry.key, category, value: entry.value as JsonValue, description: entry.description?.trim() ?? "",
      createdAt: now, updatedAt: now,
    }));
  }

  /** The value of `key` as this context's jobs read it (merged with broader contexts), or `undefined`. */
  async get(key: string): Promise<JsonValue | undefined> {
    return (await this.#read()).find((item) => item.key === key)?.value;
  }

  /** The entries this context's jobs read, by key, optionally of one category. */
  async list(filter: { category?: string } = {}): Promise<MemoryItem[]> {
    const category = filter.category === undefined ? undefined : memoryCategory(filter.category, this.#categories, "memory.list");
    return (await this.#read()).filter((item) => category === undefined || item.category === category);
  }

  /** Deletes `key` from this context (broader contexts keep theirs); `false` when it had none. */
  delete(key: string): Promise<boolean> {
    if (typeof key !== "string" || key === "") throw new TypeError("memory.delete: key must be a non-empty string");
    return withStoreRetries(() => this.#store.deleteMemory(contextKey(this.specifiers), key));
  }

  async #read(): Promise<MemoryItem[]> {
    const entries = await withStoreRetries(() => this.#store.readMemory(readableContexts(this.specifiers)));
    return mergeMemory(entries).map(memoryItem);
  }
}
