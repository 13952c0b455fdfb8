/**
 * @module
 * Verdicts of checks already made, so that a cell checked again against the same input — the same cell text,
 * earlier cells, stored variable types and job declarations (tools, context, classes, globals) — is not sent to
 * the checker's thread again. The key is a SHA-256 of the whole input, so any change to what the outcome depends
 * on is a different key; the compiler and its options are fixed for the process. Only verdicts the input
 * decides are kept: a check that timed out or whose thread failed is not.
 */
import { createHash } from "node:crypto";
import type { CellCheckInput, CellCheckOutput } from "./type-check-result.ts";

/** Verdicts kept at most; the least recently used go first. */
export const MAX_CACHED_CHECKS = 512;

/** A bounded map from a check's whole input to what the checker's thread found. */
export class CheckCache {
  readonly #outputs = new Map<string, CellCheckOutput>();
  readonly #limit: number;

  constructor(limit = MAX_CACHED_CHECKS) {
    this.#limit = limit;
  }

  /** The key of `input`: a hash of every part of it, each length-prefixed so no two inputs share a key. */
  key(input: CellCheckInput): string {
    const hash = createHash("sha256");
    const part = (text: string): void => {
      hash.update(`${text.length}:`);
      hash.update(text);
    };
    part(input.declarations);
    part(String(input.cells.length));
    for (const cell of input.cells) part(cell);
    part(JSON.stringify(input.variables));
    part(input.cell);
    return hash.digest("hex");
  }

  /** What the check with `key` found, if it is kept (and it is then the most recently used). */
  get(key: string): CellCheckOutput | undefined {
    const output = this.#outputs.get(key);
    if (output) {
      this.#outputs.delete(key);
      this.#outputs.set(key, output);
    }
    return output;
  }

  /** Keeps what the check with `key` found. */
  set(key: string, output: CellCheckOutput): void {
    if (this.#limit === 0) return;
    this.#outputs.delete(key);
    this.#outputs.set(key, output);
    if (this.#outputs.size > this.#limit) this.#outputs.delete(this.#outputs.keys().next().value!);
  }

  /** How many verdicts are kept. */
  get size(): number {
    return this.#outputs.size;
  }
}
