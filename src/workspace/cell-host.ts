/**
 * @module
 * The host side of a workspace's VM ({@link VmHost}): guest messages go to the broker; a host result the
 * guest gets as a promise becomes a pending id, and its reply is queued when it settles and handed to the
 * guest when the guest is idle, in the order results arrived. Timers (`setTimeout`, `setInterval`) are
 * pending results too, settled by the host's clock.
 *
 * When the cell is over, results it did not await are abandoned: their replies are dropped, so no guest
 * code ever runs outside a cell. A cell stays alive while its code runs or awaits something pending, and
 * after its code finished while a `setTimeout` is pending (as a script does); intervals alone do not keep it.
 */
import type { IdleAnswer, VmHost } from "./executor.ts";
import { errorReply, pendingReply, thrownReply } from "./guest/guest-protocol.ts";

/** Answers a guest message; a promise stands for a result the guest receives later (a pending id). */
export type GuestMessageHandler = (op: string, args: readonly string[]) => string | Promise<string>;

/** The timer source: `setTimeout`-like, returning a cancel function. Replaceable for tests and replay. */
export type TimerSource = (ms: number, fire: () => void) => () => void;

const hostTimers: TimerSource = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/** Longest delay a guest timer can ask for (as in Node, longer delays become 1 ms). */
const MAX_DELAY_MS = 2 ** 31 - 1;

interface Pending {
  /** Keeps the cell alive after its code finished (a `setTimeout`). */
  keepAlive: boolean;
  cancel?: () => void;
}

/** The {@link VmHost} of one workspace. */
export class CellHost implements VmHost {
  readonly #handle: GuestMessageHandler;
  readonly #timers: TimerSource;
  /** Pending results of the current cell that have not settled. */
  readonly #pending = new Map<number, Pending>();
  /** Settled results of the current cell not yet handed to the guest. */
  #settled: Array<{ id: number; reply: string }> = [];
  #wake: (() => void) | undefined;
  #next = 1;
  #cell = 0;

  readonly #maxTimers: number;

  /** `maxTimers`: timers a cell may have pending at once (a flood of them is refused, like one of host calls). */
  constructor(handle: GuestMessageHandler, options: { timers?: TimerSource | undefined; maxTimers: number }) {
    this.#handle = handle;
    this.#timers = options.timers ?? hostTimers;
    this.#maxTimers = options.maxTimers;
  }

  receive(op: string, args: readonly string[]): string {
    if (op === "timer") return this.#timer(args);
    if (op === "clearTimer") {
      this.#clearTimer(Number(args[0]));
      return "";
    }
    let reply: string | Promise<string>;
    try {
      reply = this.#handle(op, args);
    } catch (error) {
      return thrownReply(error);
    }
    if (typeof reply === "string") return reply;
    const id = this.#open(false);
    reply.then(
      (text) => this.#settle(id, text),
      (error: unknown) => this.#settle(id, thrownReply(error)),
    );
    return pendingReply(id);
  }

  async idle({ ended }: { ended: boolean }): Promise<IdleAnswer> {
    const cell = this.#cell;
    for (;;) {
      if (cell !== this.#cell) return { end: "finished" };
      if (this.#settled.length) return { deliver: this.#settled.splice(0) };
      if (ended && !this.#keptAlive()) return { end: "finished" };
      if (this.#pending.size === 0) return { end: "stalled" };
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  /** Starts a cell. */
  startCell(): void {
    this.endCell();
  }

  /** Ends a cell: results it left pending are abandoned. Returns how many were (timers not counted). */
  endCell(): number {
    let abandoned = this.#settled.length;
    for (const pending of this.#pending.values()) {
      if (pending.cancel) pending.cancel();
      else abandoned++;
    }
    this.#cell++;
    this.#pending.clear();
    this.#settled = [];
    this.#wake?.();
    this.#wake = undefined;
    return abandoned;
  }

  #keptAlive(): boolean {
    for (const pending of this.#pending.values()) if (pending.keepAlive) return true;
    return false;
  }

  #open(keepAlive: boolean): number {
    const id = this.#next++;
    this.#pending.set(id, { keepAlive });
    return id;
  }

  #settle(id: number, reply: string): void {
    if (!this.#pending.delete(id)) return;
    this.#settled.push({ id, reply });
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  // `timer(ms, kind)`: a pending result the host settles after `ms`; `kind` "interval" does not keep the cell alive.
  #timer([msText, kind]: readonly string[]): string {
    let timers = 0;
    for (const pending of this.#pending.values()) if (pending.cancel) timers++;
    if (timers >= this.#maxTimers) {
      return errorReply("RangeError", `too many timers pending at once (at most ${this.#maxTimers.toLocaleString("en-US")}, maxPendingHostCalls)`);
    }
    let ms = Number(msText);
    if (!(ms >= 0) || ms > MAX_DELAY_MS) ms = ms > MAX_DELAY_MS ? 1 : 0;
    const id = this.#open(kind !== "interval");
    const pending = this.#pending.get(id)!;
    pending.cancel = this.#timers(Math.floor(ms), () => this.#settle(id, ""));
    return pendingReply(id);
  }

  #clearTimer(id: number): void {
    const pending = this.#pending.get(id);
    if (!pending?.cancel) return;
    pending.cancel();
    this.#pending.delete(id);
    this.#wake?.();
  }
}
