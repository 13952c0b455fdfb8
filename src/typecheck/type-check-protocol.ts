/**
 * @module
 * The messages between the scheduling thread and the checker's thread.
 */
import type { CellCheckInput, CellCheckOutput } from "./type-check-result.ts";

/** A cell to check, or (`heap`) a question about the thread's memory. */
export type CheckRequest = { readonly id: number; readonly input: CellCheckInput } | { readonly id: number; readonly heap: true };

/** The answer to a {@link CheckRequest} (`id` 0 with `ready`: the thread has warmed up). */
export interface CheckResponse {
  readonly id: number;
  readonly ready?: true;
  readonly output?: CellCheckOutput;
  /** The check threw: `<ErrorName>: <message>`. */
  readonly failure?: string;
  /** How long the check took on the checker's thread. */
  readonly durationMs?: number;
  /** The thread's V8 heap, answering a `heap` request. */
  readonly heap?: HeapUsage;
}

/** A checker thread's V8 heap. */
export interface HeapUsage {
  readonly usedBytes: number;
  readonly totalBytes: number;
}
