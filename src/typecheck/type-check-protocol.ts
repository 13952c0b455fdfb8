/**
 * @module
 * The messages between the scheduling thread and the checker's thread.
 */
import type { CellCheckInput, CellCheckOutput } from "./type-check-result.ts";

/** A cell to check. */
export interface CheckRequest {
  readonly id: number;
  readonly input: CellCheckInput;
}

/** The answer to a {@link CheckRequest} (`id` 0 with `ready`: the thread has warmed up). */
export interface CheckResponse {
  readonly id: number;
  readonly ready?: true;
  readonly output?: CellCheckOutput;
  /** The check threw: `<ErrorName>: <message>`. */
  readonly failure?: string;
  /** How long the check took on the checker's thread. */
  readonly durationMs?: number;
}
