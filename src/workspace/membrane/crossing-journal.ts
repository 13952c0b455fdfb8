/**
 * @module
 * The record of every crossing a cell makes: tool calls, handle reads, writes and calls,
 * clock and random reads, printing and `exit`, in order, each with the texts that crossed. The durable
 * journal (a later issue) can store these records as they are and replay a cell against them. The journal
 * also enforces the per-cell crossing limits, which bound what one cell can make the host hold.
 */
import { ResourceLimitError } from "../../errors/resource-limit-error.ts";
import { errorText } from "../../errors/error-text.ts";

/** What kind of crossing a record is. */
export type CrossingOp = "get" | "set" | "has" | "keys" | "call" | "tool" | "now" | "monotonic" | "random" | "print" | "exit" | "shared";

/** One crossing of the boundary, in a form the durable journal can keep. */
export interface Crossing {
  /** Position in the cell, from 0. */
  seq: number;
  op: CrossingOp;
  /** `write` when the crossing may change host state (a replay must not repeat it); `read` otherwise. */
  effect: "read" | "write";
  /** What was called: a reference key (`tool:twice`, `binding:calendar`, `x:Meeting:42`) or `Class#id`. */
  target: string | undefined;
  /** The member read, written or called. */
  member: string | undefined;
  /** The arguments as the guest sent them (the protocol's texts). */
  args: string | undefined;
  /** The reply the guest was given (for a pending call: the reply it settled with). */
  result: string | undefined;
  /** `<Name>: <message>` when the crossing failed. */
  error: string | undefined;
  /** True while an asynchronous host call has not settled (it stays true when the cell abandoned it). */
  pending: boolean | undefined;
}

/** The per-cell limits the journal enforces. */
export interface CrossingLimits {
  maxHostCalls: number;
  maxTransferCharacters: number;
  maxPendingHostCalls: number;
}

/** The crossings of the current cell. */
export class CrossingJournal {
  readonly #limits: CrossingLimits;
  #records: Crossing[] = [];
  #transferred = 0;
  /**
   * The current cell's host promises that have not settled. Calls a cell abandoned stop counting when it ends:
   * a warm workspace must behave like one opened cold, which never sees an earlier cell's calls.
   */
  #cellPending = new Set<Crossing>();

  constructor(limits: CrossingLimits) {
    this.#limits = limits;
  }

  #printFailed = false;

  /** Notes that a print failed; true the first time in the cell (the one failure worth showing). */
  notePrintFailure(): boolean {
    const first = !this.#printFailed;
    this.#printFailed = true;
    return first;
  }

  /** Starts a new cell's record. */
  begin(): void {
    this.#printFailed = false;
    this.#records = [];
    this.#transferred = 0;
    this.#cellPending = new Set();
  }

  /**
   * Records a crossing about to happen; throws `ResourceLimitError` when the cell is past a limit (checked
   * before the host does anything, so a refused call has no effect).
   */
  open(op: CrossingOp, effect: "read" | "write", target: string | undefined, member: string | undefined, args: string | undefined): Crossing {
    const limits = this.#limits;
    if (this.#records.length >= limits.maxHostCalls) {
      throw new ResourceLimitError({ limit: "maxHostCalls", bound: limits.maxHostCalls, message: "the cell made too many host calls" });
    }
    if (this.#cellPending.size >= limits.maxPendingHostCalls) {
      throw new ResourceLimitError({
        limit: "maxPendingHostCalls", bound: limits.maxPendingHostCalls, message: "too many host calls are pending at once; await some of them first",
      });
    }
    this.#count(args);
    // Every record has the same shape (absent fields are `undefined`): one hidden class, cheap to make.
    const record: Crossing = { seq: this.#records.length, op, effect, target, member, args, result: undefined, error: undefined, pending: undefined };
    this.#records.push(record);
    return record;
  }

  /** Completes a record with the reply the guest is given. */
  close(record: Crossing, reply: string): void {
    this.#count(reply);
    record.result = reply;
  }

  /** Completes a record with a failure. Never throws, whatever was thrown. */
  fail(record: Crossing, error: unknown): void {
    try {
      record.error = errorText(error);
    } catch {
      record.error = "Error: a value that could not be described was thrown";
    }
  }

  /** Marks a record as an asynchronous call (refused by {@link open} while too many are outstanding). */
  startPending(record: Crossing): void {
    this.#cellPending.add(record);
    record.pending = true;
  }

  /**
   * Completes an asynchronous call. The call stops counting as pending in every case; then its reply counts
   * against the transfer limit of its cell (if that cell is still running), and may throw `ResourceLimitError`.
   */
  endPending(record: Crossing, reply: string): void {
    record.pending = false;
    if (this.#cellPending.delete(record)) this.#count(reply);
    record.result = reply;
  }

  /** The records of the current cell. */
  records(): Crossing[] {
    return this.#records;
  }

  #count(text: string | undefined): void {
    if (text === undefined) return;
    this.#transferred += text.length;
    if (this.#transferred > this.#limits.maxTransferCharacters) {
      throw new ResourceLimitError({
        limit: "maxTransferCharacters", bound: this.#limits.maxTransferCharacters, message: "the cell moved too much data across the sandbox boundary",
      });
    }
  }
}
