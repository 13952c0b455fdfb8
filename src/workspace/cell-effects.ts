/**
 * @module
 * What a cell leaves in its step's record — console entries, tool-call records, error-handler registrations —
 * with each crossing's share kept apart ({@link EffectLedger}): the durable journal stores a crossing's
 * effects with its result, so a replay that does not make the crossing again still gives the step its full
 * record. Effects made while no crossing is being answered (restore notices, the cell's error) are the
 * cell's own and are not journaled.
 */
import type { ToolCallRecord } from "../tools/call-tool.ts";
import { decodeJobChanges, type JobChange } from "../tools/job-request.ts";
import type { CrossingEffects } from "./cell-journal.ts";
import type { EffectLedger } from "./cell-host.ts";
import { ConsoleBuffer, type ConsoleStream } from "./console-buffer.ts";

/** An error handler a tool registered, with its context (the tool's result) encoded for the store. */
export interface RegisteredErrorHandler {
  name: string;
  /** The codec text (persist mode) of the context. */
  context: string;
}

const STREAMS: readonly string[] = ["out", "err", "echo", "error", "notice"];

/** The effects of the current cell, by crossing. */
export class CellEffects implements EffectLedger {
  readonly #maxConsoleCharacters: number;
  console: ConsoleBuffer;
  toolCalls: ToolCallRecord[] = [];
  errorHandlers: RegisteredErrorHandler[] = [];
  /** Changes framework tools asked of the job (difficulty, tools made, messages, exit). */
  jobChanges: JobChange[] = [];
  /** Hears each job change as it is pushed or replayed (the workspace applies tools made and exits). */
  onJobChange: ((change: JobChange) => void) | undefined;
  current: number | undefined;
  #bySeq = new Map<number, CrossingEffects>();

  constructor(maxConsoleCharacters: number) {
    this.#maxConsoleCharacters = maxConsoleCharacters;
    this.console = new ConsoleBuffer(maxConsoleCharacters);
  }

  /** A new cell (or formal call): nothing recorded yet. */
  reset(): void {
    this.console = new ConsoleBuffer(this.#maxConsoleCharacters);
    this.toolCalls = [];
    this.errorHandlers = [];
    this.jobChanges = [];
    this.current = undefined;
    this.#bySeq = new Map();
  }

  #of(seq: number | undefined): CrossingEffects | undefined {
    if (seq === undefined || seq < 0) return undefined;
    let effects = this.#bySeq.get(seq);
    if (!effects) this.#bySeq.set(seq, (effects = {}));
    return effects;
  }

  /** A console entry, made by crossing `seq` (default: the one being answered). */
  pushConsole(stream: ConsoleStream, text: string, seq: number | undefined = this.current): void {
    this.console.push(stream, text);
    const effects = this.#of(seq);
    if (effects) (effects.console ??= []).push({ stream, text });
  }

  /** A tool-call record, made by crossing `seq`. */
  pushToolCall(record: ToolCallRecord, seq: number | undefined = this.current): void {
    this.toolCalls.push(record);
    const effects = this.#of(seq);
    if (effects) (effects.toolCalls ??= []).push(record);
  }

  /** An error-handler registration, made by crossing `seq`. */
  pushErrorHandler(handler: RegisteredErrorHandler, seq: number | undefined = this.current): void {
    this.errorHandlers.push(handler);
    const effects = this.#of(seq);
    if (effects) (effects.errorHandlers ??= []).push(handler);
  }

  /** A change a framework tool asked of the job, made by crossing `seq`. */
  pushJobChange(change: JobChange, seq: number | undefined = this.current): void {
    this.jobChanges.push(change);
    const effects = this.#of(seq);
    if (effects) (effects.job ??= []).push(change);
    this.onJobChange?.(change);
  }

  take(seq: number): CrossingEffects | undefined {
    const effects = this.#bySeq.get(seq);
    this.#bySeq.delete(seq);
    return effects && (effects.console || effects.toolCalls || effects.errorHandlers || effects.job) ? effects : undefined;
  }

  apply(effects: readonly CrossingEffects[]): void {
    for (const fx of effects) {
      for (const entry of fx.console ?? []) this.console.push((STREAMS.includes(entry.stream) ? entry.stream : "out") as ConsoleStream, entry.text);
      // Records come from this job's own journal, written by this code: their shape is the one written.
      for (const record of fx.toolCalls ?? []) this.toolCalls.push(record as ToolCallRecord);
      for (const handler of fx.errorHandlers ?? []) this.errorHandlers.push(handler);
      for (const change of decodeJobChanges(fx.job)) {
        this.jobChanges.push(change);
        this.onJobChange?.(change);
      }
    }
  }
}
