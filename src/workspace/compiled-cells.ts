/**
 * @module
 * A bounded, least-recently-used memory of compiled cells. The same reply text is compiled several times in its
 * life (deciding whether a reply has runnable code, then running it, then replaying it after a suspension or a
 * lost VM), and type stripping plus parsing is a sizeable share of the scheduling thread's time per step, so the
 * second compile of a text reuses the first's result. The result depends on the source and on the two size limits
 * only (the compiler reads no other state), so those three make the key.
 */

/** How many compiled cells are kept at most. */
export const MAX_COMPILED_CELLS = 512;

/** How many UTF-16 code units of source the kept cells may hold together (a cell's script is about its size). */
export const MAX_COMPILED_CHARACTERS = 4_000_000;

/**
 * Compiled cells by size limits and source, oldest use first. The results handed out are shared between callers,
 * so the caller of {@link CompiledCells.remember} must give a value nobody can change (a frozen one).
 */
export class CompiledCells<T> {
  /** Keyed by the limits first, so a lookup never builds a key string as long as the source. */
  readonly #byLimits = new Map<string, Map<string, Entry<T>>>();
  /** Every kept entry in use order (a Set keeps insertion order; a hit moves its entry to the end). */
  readonly #order = new Set<Entry<T>>();
  #characters = 0;

  /** The result kept for `source` under `limits`, marking it as the most recently used; `undefined` when none. */
  recall(limits: string, source: string): T | undefined {
    const entry = this.#byLimits.get(limits)?.get(source);
    if (entry === undefined) return undefined;
    this.#order.delete(entry);
    this.#order.add(entry);
    return entry.result;
  }

  /** Keeps `result` for `source` under `limits`, forgetting the least recently used beyond either bound. */
  remember(limits: string, source: string, result: T): void {
    if (source.length > MAX_COMPILED_CHARACTERS) return;
    let entries = this.#byLimits.get(limits);
    if (!entries) this.#byLimits.set(limits, (entries = new Map()));
    if (entries.has(source)) return;
    const entry = { limits, source, result };
    entries.set(source, entry);
    this.#order.add(entry);
    this.#characters += source.length;
    while (this.#order.size > MAX_COMPILED_CELLS || this.#characters > MAX_COMPILED_CHARACTERS) {
      const oldest = this.#order.values().next().value!;
      this.#order.delete(oldest);
      const kept = this.#byLimits.get(oldest.limits)!;
      kept.delete(oldest.source);
      if (kept.size === 0) this.#byLimits.delete(oldest.limits);
      this.#characters -= oldest.source.length;
    }
  }

  /** How many results are kept. */
  get size(): number {
    return this.#order.size;
  }
}

interface Entry<T> {
  limits: string;
  source: string;
  result: T;
}
