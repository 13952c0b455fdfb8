/**
 * @module
 * The host side of a workspace's VM ({@link VmHost}): guest messages go to the broker; a host result the
 * guest gets as a promise becomes a pending id, and its reply is queued when it settles and handed to the
 * guest when the guest is idle, in the order results arrived. Timers (`setTimeout`, `setInterval`) are
 * pending results too, settled by the host's clock.
 *
 * Every cell is recorded as the guest saw it: each message's reply, and each batch of results handed over
 * while it was idle (`cell-record.ts`). When a VM is lost mid-cell through no fault of its own (its sandbox
 * thread was stopped for another job's cell), the workspace builds a new one and the cell is *replayed*: the
 * same code gets the same replies at the same points without the host being called again — nothing printed
 * twice, no tool run twice — and goes on live where the record ends. A replayed cell that asks for
 * something else than the record holds ends with `ReplayDivergence`.
 *
 * When the cell is over, results it did not await are abandoned: their replies are dropped, so no guest
 * code ever runs outside a cell. A cell stays alive while its code runs or awaits something pending, and
 * after its code finished while a `setTimeout` is pending (as a script does); intervals alone do not keep it.
 */
import { CellRecord, describeMessage, type MessageDescriber } from "./cell-record.ts";
import type { Delivery, IdleAnswer, VmHost } from "./executor.ts";
import { CODE_START_OP, errorReply, pendingReply, thrownReply } from "./guest/guest-protocol.ts";

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

/** What the cell host needs besides the broker. */
export interface CellHostOptions {
  timers?: TimerSource | undefined;
  /** Timers a cell may have pending at once (a flood of them is refused, like one of host calls). */
  maxTimers: number;
  /** Told when the cell's own code starts (restoring is over). */
  onCodeStart?: () => void;
  /** How a guest message is named in a `ReplayDivergence` (`calendar.move(…)`). */
  describe?: MessageDescriber;
}

/** The {@link VmHost} of one workspace. */
export class CellHost implements VmHost {
  readonly #handle: GuestMessageHandler;
  readonly #options: CellHostOptions;
  readonly #timers: TimerSource;
  /** Pending results of the current cell that have not settled. */
  readonly #pending = new Map<number, Pending>();
  /** Settled results of the current cell not yet handed to the guest. */
  #settled: Delivery[] = [];
  #wake: (() => void) | undefined;
  #next = 1;
  #cell = 0;
  #record: CellRecord;
  /** While the cell's code runs: messages before it are restoring, never recorded or replayed. */
  #inCode = false;
  /** The first divergence of a replayed cell from its record. */
  divergence: string | undefined;

  constructor(handle: GuestMessageHandler, options: CellHostOptions) {
    this.#handle = handle;
    this.#options = options;
    this.#timers = options.timers ?? hostTimers;
    this.#record = new CellRecord(options.describe);
  }

  receive(op: string, args: readonly string[]): string {
    if (op === CODE_START_OP) {
      this.#inCode = true;
      this.#options.onCodeStart?.();
      return "";
    }
    if (this.#inCode && this.#record.replaying) {
      const replayed = this.#record.replayMessage(op, args);
      if (typeof replayed === "string") return replayed;
      this.divergence ??= replayed.divergence;
      return errorReply("ReplayDivergence", this.divergence);
    }
    const reply = this.#live(op, args);
    if (this.#inCode) this.#record.message(op, args, reply);
    return reply;
  }

  #live(op: string, args: readonly string[]): string {
    if (this.divergence !== undefined) return errorReply("ReplayDivergence", this.divergence);
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
    if (this.divergence !== undefined) return { end: "finished" };
    if (this.#record.replaying) {
      const replayed = this.#record.replayIdle();
      if (replayed && "deliver" in replayed) return replayed;
      if (replayed) {
        this.divergence ??= replayed.divergence;
        return { end: "finished" };
      }
    }
    const cell = this.#cell;
    for (;;) {
      if (cell !== this.#cell) return { end: "finished" };
      if (this.#settled.length) {
        const deliver = this.#settled.splice(0);
        this.#record.delivered(deliver);
        return { deliver };
      }
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
    this.#record = new CellRecord(this.#options.describe);
    this.divergence = undefined;
    this.#inCode = false;
  }

  /**
   * Replays the current cell from its start in a new VM: what it was answered so far is answered again from
   * the record, and it goes on live from where the record ends.
   */
  replayCell(): void {
    this.#record.rewind();
    this.#inCode = false;
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
    if (timers >= this.#options.maxTimers) {
      return errorReply("RangeError", `too many timers pending at once (at most ${this.#options.maxTimers.toLocaleString("en-US")}, maxPendingHostCalls)`);
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
