/**
 * @module
 * What every executor's VM does with the guest's messages, whatever realm it runs: answer them through the
 * {@link HostChannel}, turn host promises into pending ids the guest is told about when they settle, notice
 * the end of a cell, and never let a host exception escape into the engine (an exception unwinding through
 * WebAssembly frames would leave the engine in an unknown state).
 *
 * A host promise belongs to the cell that started it. Its reply is queued when it settles and handed to the
 * guest by the cell loop, inside the cell's CPU budget. When the cell ends, its unsettled promises are
 * abandoned: their results are dropped, so no guest code ever runs outside a cell.
 */
import type { HostChannel } from "./executor.ts";
import { pendingReply, thrownReply } from "./guest/guest-protocol.ts";

/** How the guest reported the end of a cell. */
export interface CellEnd {
  error?: { name: string; message: string };
}

/** The host side of one VM's message traffic. */
export class HostLink {
  #host: HostChannel;
  /** Host promises of the current cell that have not settled yet. */
  readonly #pending = new Set<number>();
  /** Settled host promises of the current cell whose replies the guest has not been given yet. */
  #settled: Array<[number, string]> = [];
  #wake: (() => void) | undefined;
  #next = 1;
  #cell = 0;
  /** Set when the guest reported the end of the current cell. */
  ended: CellEnd | undefined;

  constructor(host: HostChannel) {
    this.#host = host;
  }

  /** Sends the guest's messages to `host` from now on (a VM made ahead of time gets its workspace's broker). */
  connect(host: HostChannel): void {
    this.#host = host;
  }

  /** Answers one guest message. Never throws. */
  receive(op: string, args: string[]): string {
    if (op === "done") {
      this.ended = args[0] ? { error: parseEnd(args[0]) } : {};
      return "";
    }
    let reply: string | Promise<string>;
    try {
      reply = this.#host(op, args);
    } catch (error) {
      return thrownReply(error);
    }
    if (typeof reply === "string") return reply;
    const id = this.#next++;
    const cell = this.#cell;
    this.#pending.add(id);
    const settle = (text: string) => {
      if (cell !== this.#cell) return;
      this.#pending.delete(id);
      this.#settled.push([id, text]);
      this.#wake?.();
    };
    reply.then(settle, (error: unknown) => settle(thrownReply(error)));
    return pendingReply(id);
  }

  /** Starts a cell: forgets how the previous one ended. */
  startCell(): void {
    this.ended = undefined;
  }

  /** Ends a cell: host promises it left unsettled are abandoned. Returns how many were. */
  endCell(): number {
    const abandoned = this.#pending.size + this.#settled.length;
    this.#cell++;
    this.#pending.clear();
    this.#settled = [];
    return abandoned;
  }

  /** True when the cell waits for host promises that have not settled. */
  get waiting(): boolean {
    return this.#pending.size > 0;
  }

  /** The replies of host promises that settled since the last call, in order. */
  takeSettled(): Array<[number, string]> {
    const settled = this.#settled;
    this.#settled = [];
    return settled;
  }

  /** Resolves as soon as a host promise of the current cell has settled (at once if one already has). */
  whenSettled(): Promise<void> {
    if (this.#settled.length) return Promise.resolve();
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        resolve();
      };
    });
  }
}
function parseEnd(text: string): { name: string; message: string } {
  try {
    const info = JSON.parse(text) as { name?: unknown; message?: unknown };
    return { name: String(info.name ?? "Error"), message: String(info.message ?? "") };
  } catch {
    return { name: "Error", message: "the cell ended with an error that could not be read" };
  }
}
