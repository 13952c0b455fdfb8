/**
 * @module
 * Shared memory's rules, written once: what a context is (a set of specifiers, kept as their sorted JSON
 * array), which contexts a job reads (its own and every broader one — each context whose specifiers are a
 * subset of its own, the empty one included), which entry wins when several contexts hold a key (the most
 * specific, then the newest), and the categories entries are filed under (registered with
 * `Statek.open({ memoryCategories })`, matched without regard to case).
 */
import type { JsonValue, MemoryEntry } from "../store/store.ts";

/** The categories a process knows unless `Statek.open({ memoryCategories })` says otherwise. */
export const DEFAULT_MEMORY_CATEGORIES: readonly string[] = Object.freeze(["PREFERENCE", "ENTITY", "VOCABULARY"]);

/** Most specifiers a context may have (a job reads 2^n contexts). */
export const MAX_SPECIFIERS = 8;

/** How a job may use its shared memory. */
export type MemoryAccess = "read" | "write";

/** A job's binding to shared memory, as its `submitted` record keeps it. */
export interface MemoryBinding {
  /** The context's specifiers, sorted, without duplicates. */
  specifiers: string[];
  access: MemoryAccess;
}

/** An entry as a job or the application reads it: its key, what it holds, and the context it came from. */
export interface MemoryItem {
  key: string;
  category: string;
  value: JsonValue;
  description: string;
  /** The specifiers of the context holding it. */
  context: string[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The sorted, distinct specifiers of `given`, checked; `call` names the caller in errors.
 *
 * @throws {TypeError} For a specifier that is not a non-empty string, or more than {@link MAX_SPECIFIERS}.
 */
export function memorySpecifiers(given: readonly unknown[], call: string): string[] {
  if (!Array.isArray(given)) throw new TypeError(`${call}: memory specifiers must be strings such as "user:42", given as a list`);
  given.forEach((specifier, index) => {
    if (typeof specifier !== "string" || specifier.trim() === "" || specifier.length > 200) {
      throw new TypeError(`${call}: memory specifier ${index + 1} must be a non-empty string of at most 200 characters (such as "user:42"), got ${JSON.stringify(specifier) ?? String(specifier)}`);
    }
  });
  const specifiers = [...new Set(given.map((specifier) => String(specifier).trim()))].sort(bytewise);
  if (specifiers.length > MAX_SPECIFIERS) throw new TypeError(`${call}: a memory context has at most ${MAX_SPECIFIERS} specifiers, got ${specifiers.length}`);
  return specifiers;
}

/** Byte-wise order (the stores order contexts so). */
function bytewise(a: string, b: string): number {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return Buffer.compare(left, right);
}

/** The stored key of the context of `specifiers` (sorted, distinct). */
export function contextKey(specifiers: readonly string[]): string {
  return JSON.stringify(specifiers);
}

/** The contexts a job bound to `specifiers` reads: every subset's key, its own (the most specific) first. */
export function readableContexts(specifiers: readonly string[]): string[] {
  const keys: string[] = [];
  const count = specifiers.length;
  for (let mask = (1 << count) - 1; mask >= 0; mask--) keys.push(contextKey(specifiers.filter((_, index) => mask & (1 << index))));
  return keys;
}

/**
 * One entry per key from entries of several contexts: the one of the most specific context (most specifiers)
 * wins, then the most recently written. Ordered by key.
 */
export function mergeMemory(entries: readonly MemoryEntry[]): MemoryEntry[] {
  const chosen = new Map<string, { entry: MemoryEntry; size: number }>();
  for (const entry of entries) {
    const size = contextSpecifiers(entry.context).length;
    const held = chosen.get(entry.key);
    if (!held || size > held.size || (size === held.size && entry.updatedAt > held.entry.updatedAt)) chosen.set(entry.key, { entry, size });
  }
  return [...chosen.values()].map(({ entry }) => entry).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The specifiers of a stored context key (an unreadable one has none). */
export function contextSpecifiers(context: string): string[] {
  try {
    const parsed: unknown = JSON.parse(context);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === "string") : [];
  } catch {
    return [];
  }
}

/** An entry as applications and jobs read it. */
export function memoryItem(entry: MemoryEntry): MemoryItem {
  return {
    key: entry.key, category: entry.category, value: entry.value, description: entry.description, context: contextSpecifiers(entry.context),
    createdAt: new Date(entry.createdAt), updatedAt: new Date(entry.updatedAt),
  };
}

/** Checks `Statek.open({ memoryCategories })`; returns them upper-cased. */
export function checkMemoryCategories(categories: unknown): string[] {
  if (categories === undefined) return [...DEFAULT_MEMORY_CATEGORIES];
  if (!Array.isArray(categories) || categories.length === 0) throw new TypeError("Statek.open: memoryCategories must be a non-empty list of names such as \"PREFERENCE\"");
  return [...new Set(categories.map((category, index) => {
    if (typeof category !== "string" || !/^[A-Za-z][\w-]*$/.test(category)) {
      throw new TypeError(`Statek.open: memoryCategories[${index}] must be a name of letters, digits, _ and -, got ${JSON.stringify(category) ?? String(category)}`);
    }
    return category.toUpperCase();
  }))];
}

/** The registered category `category` names (case does not matter); a `TypeError` for an unknown one. */
export function memoryCategory(category: unknown, registered: readonly string[], call: string): string {
  const name = typeof category === "string" ? category.trim().toUpperCase() : "";
  if (!registered.includes(name)) {
    throw new TypeError(`${call}: unknown memory category ${JSON.stringify(category) ?? String(category)} (registered: ${registered.join(", ")})`);
  }
  return name;
}
