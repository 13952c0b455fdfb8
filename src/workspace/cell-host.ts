/**
 * @module
 * The host side of a workspace's VM ({@link VmHost}): guest messages go to the broker; a host result the
 * guest gets as a promise becomes a pending id whose reply is handed over when the guest is idle, in the
 * order results arrived; timers are pending results settled by the host's clock; durable futures (`sleep`,
 * `waitForMessage`, …) are pending results settled by whoever settles the future — and when everything the
 * cell waits for is a durable future, the cell *suspends*.
 *
 * Every cell is journaled as its guest saw it (`cell-journal.ts`). With a {@link JournalSink}, the journal
 * is durable where it must be: an `intent` is durable before a side-effecting crossing runs, and its result
 * before the guest gets it. So a cell can be replayed — in a new VM after its VM was lost, or in another
 * process after a crash — without repeating a crossing whose result was recorded: the same code gets the
 * same replies at the same points and goes on live where the journal ends. A crossing that started and never
 * finished is *in doubt*: an idempotent tool is called again (with the same idempotency key), anything else
 * answers `InDoubtError`. A replayed cell that asks for something else than the journal holds ends with
 * `ReplayDivergence`.
 *
 * When the cell is over, results it did not await are abandoned: their replies are dropped, so no guest
 * code ever runs outside a cell.
 */
import { JournalReplay, describeMessage, hashMessage, type CrossingEffects, type CrossingKind, type JournalItem, type JournaledMessage, type ReplayedSettlement } from "./cell-journal.ts";
import { ASK_AGAIN, HeldReply, type CellHostOptions, type CellStart, type FutureOutcome, type FutureWaits, type GuestMessageHandler, type JournalSink, type TimerSource } from "./cell-host-contracts.ts";
import type { Delivery, IdleAnswer, VmHost } from "./executor.ts";
import { CODE_START_OP, errorReply, pendingReply, thrownReply } from "./guest/guest-protocol.ts";
import { parseUntrusted } from "./membrane/untrusted-json.ts";
import { childReply, futureKindOf, guestWait } from "./wait-messages.ts";
import { InDoubtError } from "../errors/in-doubt-error.ts";
import { ReplayDivergence } from "../errors/replay-divergence.ts";
import { armLongTimer } from "./long-timer.ts";
import { currentRegistries, withRegistries } from "../registries/registries.ts";

const hostTimers: TimerSource = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/** Longest delay a guest timer can ask for (as in Node, longer delays become 1 ms). */
const MAX_DELAY_MS = 2 ** 31 - 1;

interface Pending {
  /** Keeps the cell alive after its code finished (a `setTimeout`). */
  keepAlive: boolean;
  /** A durable future: waiting only for these, the cell may suspend. */
  durable?: boolean;
  /** A future still being opened (its state is being read): the cell does not suspend meanwhile. */
  opening?: boolean;
  cancel?: () => void;
  /** The message that started it. */
  seq: number;
}

/** The {@link VmHost} of one workspace. */
export class CellHost implements VmHost {
  readonly #handle: GuestMessageHandler;
  readonly #options: CellHostOptions;
  readonly #timers: TimerSource;
  // Guest messages arrive from the sandbox thread's listener, outside the step that made this host: they are
  // answered with that step's registries (enums, formatters, docs, tracer).
  readonly #registries = currentRegistries();
  /** Pending results of the current cell that have not settled. */
  readonly #pending = new Map<number, Pending>();
  /** Settled results of the current cell not yet handed to the guest. */
  #settled: Delivery[] = [];
  /** Pending results of the current cell that are timers (a timer that fired and was not handed over is no lost call). */
  readonly #timerIds = new Set<number>();
  #wake: (() => void) | undefined;
  #next = 1;
  #cell = 0;
  /** The current cell's journal, in memory (durable too when the cell has a sink). */
  #items: JournalItem[] = [];
  #sink: JournalSink | undefined;
  #futures: FutureWaits | undefined;
  #replay: JournalReplay | undefined;
  /** Journal items of the current cell whose effects the job's history holds from an earlier commit. */
  #committedItems = 0;
  /**
   * Positions of journal items whose effects this step's record holds already: replayed ones applied, live ones
   * made here. A replay in a new VM gives the rest again — never all of the journal on trust, since the lost VM
   * may have stopped before replaying it (a cell taken back from a stalled thread never started at all).
   */
  readonly #applied = new Set<number>();
  #seq = 0;
  /** While the cell's code runs: messages before it are restoring, never journaled or replayed. */
  #inCode = false;
  /** Effect crossings of this process still running, by seq (a VM lost meanwhile waits for them on replay). */
  readonly #running = new Map<number, Promise<string>>();
  /** The first divergence of a replayed cell from its journal. */
  divergence: string | undefined;
  /** Set when the journal could not be made durable (the lease was lost): the cell must stop, its step write nothing. */
  failure: Error | undefined;

  constructor(handle: GuestMessageHandler, options: CellHostOptions) {
    this.#handle = handle;
    this.#options = options;
    this.#timers = options.timers ?? hostTimers;
  }

  /** The durable futures of the current cell (the job's), if any. */
  get futures(): FutureWaits | undefined {
    return this.#futures;
  }

  /** The journal items of the current cell so far. */
  get journal(): readonly JournalItem[] {
    return this.#items;
  }

  /** True when the current cell waits only for durable futures (it suspended). */
  suspended = false;

  receive(op: string, args: readonly string[]): string | Promise<string> {
    return withRegistries(this.#registries, () => this.#receive(op, args));
  }

  #receive(op: string, args: readonly string[]): string | Promise<string> {
    if (op === CODE_START_OP) {
      this.#inCode = true;
      this.#seq = 0;
      this.#options.onCodeStart?.();
      return "";
    }
    if (!this.#inCode) return this.#answerLive(op, args, -1);
    const seq = this.#seq++;
    if (this.divergence !== undefined) return errorReply("ReplayDivergence", this.divergence);
    if (this.failure) return errorReply("InternalError", `the job's record could not be written: ${this.failure.message}`);
    const recorded = this.#replay?.nextMessage();
    if (recorded) return this.#replayMessage(seq, op, args, recorded);
    return this.#journaled(seq, op, args);
  }

  #describe(op: string, args: readonly string[]): string {
    return (this.#options.describe ?? describeMessage)(op, args);
  }

  // A message answered live and journaled by its kind.
  #journaled(seq: number, op: string, args: readonly string[]): string | Promise<string> {
    const kind = op === "timer" || op === "clearTimer" || op === "future" || op === "task" ? "read" : this.#options.policy?.kind(op, args) ?? "read";
    const hash = hashMessage(op, args);
    const what = this.#describe(op, args);
    if (kind !== "effect" || !this.#sink) {
      const reply = this.#answerLive(op, args, seq);
      if (typeof reply === "string") {
        this.#append({ t: "msg", seq, op, h: hash, w: what, r: reply, ...this.#effectsOf(seq) });
        return reply;
      }
      const cell = this.#cell;
      return reply.then((text) => {
        if (cell === this.#cell) this.#append({ t: "msg", seq, op, h: hash, w: what, r: text, ...this.#effectsOf(seq) });
        return text;
      });
    }
    // A side effect: its intent is durable before it runs, its result before the guest gets it. A result that
    // comes after its cell ended (the cell was stopped while the call ran) is the journal of no cell: not written.
    const cell = this.#cell;
    const running = (async () => {
      this.#append({ t: "intent", seq, op, h: hash, w: what });
      await this.#flush();
      const reply = await this.#answerLive(op, args, seq);
      if (cell !== this.#cell) return reply;
      this.#append({ t: "done", seq, r: reply, ...this.#effectsOf(seq) });
      await this.#flush();
      return reply;
    })();
    this.#running.set(seq, running);
    return running.finally(() => this.#running.delete(seq)).catch((error: unknown) => this.#lost(error));
  }

  #effectsOf(seq: number): { fx?: CrossingEffects } {
    const fx = this.#options.effects?.take(seq);
    return fx ? { fx } : {};
  }

  // The reply a journaled message gets again.
  #replayMessage(seq: number, op: string, args: readonly string[], recorded: JournaledMessage): string | Promise<string> {
    if (recorded.op !== op || recorded.hash !== hashMessage(op, args)) {
      this.#replay!.stop();
      this.divergence = new ReplayDivergence({ call: seq + 1, called: this.#describe(op, args), recorded: recorded.what }).message;
      return errorReply("ReplayDivergence", this.divergence);
    }
    // Crossings that touch nothing outside the step run again (the step's own state is rebuilt by them).
    if (op === "exit") void this.#answerLive(op, args, seq);
    if (this.#fresh(recorded.position)) {
      this.#applied.add(recorded.position);
      this.#options.effects?.apply(recorded.effects);
    }
    if (recorded.reply === undefined) return this.#inDoubt(seq, op, args, recorded);
    this.#noticeChild(seq, recorded.reply);
    const pending = /^p(\d+)$/.exec(recorded.reply);
    if (pending) this.#reopen(Number(pending[1]), seq, op, args, recorded);
    return recorded.reply;
  }

  // A replayed reply that handed the guest a child job's handle: the job still watches that child.
  #noticeChild(seq: number, reply: string): void {
    if (reply.charCodeAt(0) !== 99 /* c */) return;
    try {
      this.#futures?.replayed?.(seq, "child-started", parseUntrusted(reply.slice(1)));
    } catch {
      // Written by this host; a reply that does not parse names no child.
    }
  }

  /**
   * A wait whose outcome the journal holds is not opened again, but the job still watches it: an approval's
   * decision and a child's end go into the history once, whichever attempt at the step commits.
   */
  #noticeWait(seq: number, op: string, args: readonly string[], settled: ReplayedSettlement | undefined): void {
    const replayed = this.#futures?.replayed;
    if (!replayed) return;
    try {
      if (op === "future") replayed.call(this.#futures, seq, args[0] ?? "", args[1] ? parseUntrusted(args[1]) : null);
      const wait = settled?.wait;
      if (wait === undefined) return;
      const kind = futureKindOf(wait);
      if (kind === "approval" || kind === "child") replayed.call(this.#futures, seq, kind === "approval" ? "tool-approval" : "child", parseUntrusted(wait.slice(1)));
    } catch {
      // Written by this host and the guest's sanitized words; a text that does not parse names no wait.
    }
  }

  // An intent with no result: it was started and never finished (or it is still running in this process).
  #inDoubt(seq: number, op: string, args: readonly string[], recorded: JournaledMessage): string | Promise<string> {
    const running = this.#running.get(seq);
    if (running) return running;
    const policy = this.#options.policy;
    const idempotent = policy?.idempotent(op, args) === true;
    // A call that may need approval ran nothing if it asked: it asks again (same key), or is in doubt if it ran.
    if (idempotent || policy?.asksFirst?.(op, args)) {
      const again = (async () => {
        const reply = await (idempotent ? this.#answerLive(op, args, seq) : this.#answerLive(ASK_AGAIN, [op, ...args], seq));
        this.#append({ t: "done", seq, r: reply, ...this.#effectsOf(seq) });
        await this.#flush();
        return reply;
      })();
      return again.catch((error: unknown) => this.#lost(error));
    }
    const reply = this.#doubted(seq, op, args, recorded);
    this.#append({ t: "done", seq, r: reply, ...this.#effectsOf(seq) });
    return this.#flush().then(() => reply, (error: unknown) => this.#lost(error));
  }

  // A pending result the journal knows: keep waiting for it unless the journal delivers or settled it.
  #reopen(id: number, seq: number, op: string, args: readonly string[], recorded: JournaledMessage): void {
    this.#next = Math.max(this.#next, id + 1);
    if (this.#pending.has(id) || this.#settled.some((delivery) => delivery.id === id)) return;
    const replay = this.#replay!;
    if (replay.deliveredIds().has(id)) {
      this.#pending.set(id, { keepAlive: op === "timer" && args[1] !== "interval", seq });
      const delivered = replay.settles.get(id);
      // Delivered before: its record (a tool call's, its console lines) is the step's again unless committed.
      if (delivered) {
        this.#applySettled(delivered.effects);
        this.#noticeChild(seq, delivered.reply);
      }
      this.#noticeWait(seq, op, args, delivered);
      return;
    }
    const settled = replay.settles.get(id);
    if (settled && isFutureReply(settled.reply)) {
      const pending: Pending = { keepAlive: false, seq };
      this.#pending.set(id, pending);
      // The call's record ("awaiting approval") came with the wait; the wait opens again below.
      this.#applySettled(settled.effects);
      this.#awaitExternal(id, pending, settled.reply);
      return;
    }
    if (settled) {
      this.#pending.set(id, { keepAlive: false, seq });
      this.#noticeWait(seq, op, args, settled);
      this.#applySettled(settled.effects);
      this.#settle(id, settled.reply, false);
      return;
    }
    // Never settled: started again where that is safe, else in doubt.
    if (op === "timer") {
      const [msText, kind] = args;
      this.#pending.set(id, { keepAlive: kind !== "interval", seq });
      this.#pending.get(id)!.cancel = this.#timers(Math.max(0, Number(msText) || 0), () => this.#settle(id, ""));
      this.#timerIds.add(id);
    } else if (op === "future") {
      // The guest's own words again: sanitized as when it first asked (a refused wait was answered then, not here).
      const wait = guestWait(args);
      this.#pending.set(id, { keepAlive: false, durable: true, opening: true, seq });
      if (typeof wait === "string") this.#settleJournaled(id, wait);
      else void this.#openFuture(id, seq, wait);
    } else if (this.#options.policy?.kind(op, args) !== "effect" || this.#options.policy.idempotent(op, args)) {
      this.#pending.set(id, { keepAlive: false, seq });
      const handled = this.#handleLive(op, args, seq);
      // Held or not, the result comes as a pending one: the guest asked for it in an earlier attempt.
      const again = handled instanceof HeldReply ? handled.answer.then((inner) => inner) : handled;
      if (typeof again === "string") this.#settleJournaled(id, again);
      else again.then((text) => this.#settleJournaled(id, text), (error: unknown) => this.#settleJournaled(id, thrownReply(error)));
    } else {
      this.#pending.set(id, { keepAlive: false, seq });
      this.#settleJournaled(id, this.#doubted(seq, op, args, recorded));
    }
  }

  /** The effects of a replayed result's settlements that the step does not hold yet. */
  #applySettled(effects: ReadonlyArray<{ fx: CrossingEffects; position: number }>): void {
    const fresh = effects.filter((entry) => this.#fresh(entry.position));
    for (const entry of fresh) this.#applied.add(entry.position);
    if (fresh.length) this.#options.effects?.apply(fresh.map((entry) => entry.fx));
  }

  /** True when the effects of the journal item at `position` are neither committed nor in this step's record yet. */
  #fresh(position: number): boolean {
    return position >= this.#committedItems && !this.#applied.has(position);
  }

  /**
   * The `InDoubtError` reply of a crossing that was started and never finished; its record (a tool call's)
   * says so, made as the crossing's effect so that the journal keeps it with the reply.
   */
  #doubted(seq: number, op: string, args: readonly string[], recorded: JournaledMessage): string {
    const error = new InDoubtError({ call: recorded.what });
    this.#options.onInDoubt?.(op, args, `${error.name}: ${error.message}`, seq);
    return errorReply(error.name, error.message);
  }

  #answerLive(op: string, args: readonly string[], seq: number): string | Promise<string> {
    if (op === "timer") return this.#timer(args, seq);
    if (op === "clearTimer") {
      this.#clearTimer(Number(args[0]));
      return "";
    }
    if (op === "future") return this.#future(args, seq);
    if (op === "task") return this.#task(args);
    const reply = this.#handleLive(op, args, seq);
    // The guest waits in its call while the host does what the answer needs first.
    if (reply instanceof HeldReply) return reply.answer.then((inner) => this.#liveAnswer(inner, seq), (error: unknown) => thrownReply(error));
    return this.#liveAnswer(reply, seq);
  }

  // A live answer: a reply the guest gets now, or a host promise the guest gets as a pending result.
  #liveAnswer(reply: string | Promise<string>, seq: number): string | Promise<string> {
    if (typeof reply === "string") {
      if (!isFutureReply(reply)) return reply;
      // A tool started a child job: it is created now, and the guest gets its handle as the call's value.
      const child = futureKindOf(reply) === "child" ? this.#futures?.startChild : undefined;
      if (child) return child.call(this.#futures, parseUntrusted(reply.slice(1))).then((info) => childReply(info), (error: unknown) => this.#waitFailed(error));
      // The host call returned a durable future: the guest waits for it like for any pending result.
      const id = this.#open(false, seq);
      this.#settleJournaled(id, reply);
      return pendingReply(id);
    }
    const id = this.#open(false, seq);
    reply.then(
      (text) => this.#settleJournaled(id, text),
      (error: unknown) => this.#settleJournaled(id, thrownReply(error)),
    );
    return pendingReply(id);
  }

  #handleLive(op: string, args: readonly string[], seq: number): string | Promise<string> | HeldReply {
    const effects = this.#options.effects;
    if (effects) effects.current = seq;
    try {
      return this.#handle(op, args);
    } catch (error) {
      return thrownReply(error);
    } finally {
      if (effects) effects.current = undefined;
    }
  }

  // A sub-task's state, lookup or end (`guest-waits.ts`): the job answers from the store.
  #task([action = "", id = ""]: readonly string[]): string | Promise<string> {
    const task = this.#futures?.task;
    if (!task) return errorReply("TypeError", "sub-tasks need a job (this workspace runs without one)");
    return task.call(this.#futures, action, id).catch((error: unknown) => this.#waitFailed(error));
  }

  // A durable future: its reply comes when it settles (at once when it settled already).
  #future(args: readonly string[], seq: number): string {
    const refused = guestWait(args);
    if (typeof refused === "string") return refused;
    args = refused;
    const id = this.#open(false, seq);
    const pending = this.#pending.get(id)!;
    pending.durable = true;
    pending.opening = true;
    void this.#openFuture(id, seq, args);
    return pendingReply(id);
  }

  #awaitExternal(id: number, pending: Pending, reply: string): void {
    pending.durable = true;
    pending.opening = true;
    // Host-made waits: a tool's call waiting for approval, a child an async tool started, an application's future.
    const kind = futureKindOf(reply);
    void this.#openFuture(id, pending.seq, [kind === "approval" ? "tool-approval" : kind === "child" ? "child" : "external", reply.slice(1)]);
  }

  async #openFuture(id: number, seq: number, [kind = "", text = ""]: readonly string[]): Promise<void> {
    const futures = this.#futures;
    const cell = this.#cell;
    const data = text ? parseUntrusted(text) : null;
    const settle = (outcome: FutureOutcome) => {
      if (cell !== this.#cell) return;
      const handler = kind === "external" && typeof data === "object" && data !== null ? (data as { errorHandler?: unknown }).errorHandler : undefined;
      if (typeof handler === "string" && "value" in outcome) {
        const effects = this.#options.effects;
        if (effects) effects.current = seq;
        try {
          this.#options.onFutureResolved?.(handler, outcome.value, seq);
        } finally {
          if (effects) effects.current = undefined;
        }
      }
      this.#settleJournaled(id, this.#replyOf(outcome));
    };
    if (!futures) {
      // A workspace outside a job: sleeps are plain timers; nothing else can come.
      const ms = kind === "timer" && typeof data === "object" && data !== null ? Number((data as { ms?: unknown }).ms) : NaN;
      if (ms >= 0) {
        const pending = this.#pending.get(id);
        if (pending) {
          pending.durable = false;
          pending.keepAlive = true;
          pending.cancel = armLongTimer(Math.min(ms, Number.MAX_SAFE_INTEGER), () => settle({ value: undefined }), this.#timers);
          this.#timerIds.add(id);
        }
        return;
      }
      settle({ error: { name: "TypeError", message: `${kind === "message" ? "waitForMessage()" : kind === "approval" ? "requestApproval()" : "this wait"} needs a job (this workspace runs without one)` } });
      return;
    }
    try {
      const opened = await futures.open(seq, kind, data, settle);
      const pending = this.#pending.get(id);
      if (pending) {
        pending.durable = opened.durable;
        pending.opening = false;
      }
      if (opened.outcome) settle(opened.outcome);
      else this.#wake?.();
    } catch (error) {
      const pending = this.#pending.get(id);
      if (pending) pending.opening = false;
      const reply = this.#waitFailed(error);
      if (!this.failure) this.#settleJournaled(id, reply);
    }
  }

  /**
   * A wait that could not be opened: a `TypeError` (a wait the job refuses) is the guest's to read; anything else
   * is the store failing past its retries (or the lease lost), which never reaches agent code — the cell stops,
   * and its step writes nothing (the job stays as it was, to be stepped again).
   */
  #waitFailed(error: unknown): string {
    if (error instanceof TypeError) return thrownReply(error);
    return this.#lost(error);
  }

  /** Stops the cell: something it needs from outside the guest failed (see {@link CellHost.failure}). */
  fail(error: unknown): void {
    this.#lost(error);
  }

  #replyOf(outcome: FutureOutcome): string {
    if ("error" in outcome) return errorReply(outcome.error.name, outcome.error.message);
    if ("reply" in outcome) return outcome.reply;
    return this.#options.replyOf ? this.#options.replyOf(outcome) : "";
  }

  async idle({ ended }: { ended: boolean }): Promise<IdleAnswer> {
    if (this.divergence !== undefined || this.failure) return { end: "finished" };
    const replayed = this.#replay?.nextDelivery();
    if (replayed) {
      for (const { id } of replayed) {
        this.#pending.delete(id);
        this.#settled = this.#settled.filter((delivery) => delivery.id !== id);
      }
      return { deliver: replayed };
    }
    const cell = this.#cell;
    for (;;) {
      if (cell !== this.#cell || this.failure) return { end: "finished" };
      if (this.#settled.length) {
        const deliver = this.#settled.splice(0);
        this.#append({ t: "deliver", ids: deliver.map((delivery) => delivery.id) });
        return { deliver };
      }
      if (ended && !this.#keptAlive()) return { end: "finished" };
      if (this.#pending.size === 0) return { end: "stalled" };
      if (this.#waitsOnlyForFutures()) {
        // Suspending: the journal up to here must be durable, so a resumed cell finds the same waits.
        try {
          await this.#flush();
        } catch (error) {
          this.#lost(error);
          return { end: "finished" };
        }
        if (this.#settled.length) continue;
        this.suspended = true;
        return { end: "suspended" };
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #waitsOnlyForFutures(): boolean {
    if (!this.#sink) return false;
    for (const pending of this.#pending.values()) if (!pending.durable || pending.opening) return false;
    return this.#pending.size > 0;
  }

  /** Starts a cell: fresh, or replaying the journal of an earlier attempt (`start.journal`). */
  startCell(start: CellStart = {}): void {
    this.endCell();
    this.#items = start.journal ? [...start.journal] : [];
    this.#replay = start.journal?.length ? new JournalReplay(start.journal) : undefined;
    this.#committedItems = start.committedItems ?? 0;
    this.#applied.clear();
    this.#sink = start.sink;
    this.#futures = start.futures ?? this.#options.futures;
    this.divergence = undefined;
    this.failure = undefined;
    this.suspended = false;
    this.#inCode = false;
    this.#seq = 0;
    if (this.#replay) {
      for (const item of start.journal ?? []) {
        if (item.t === "settle") this.#next = Math.max(this.#next, item.id + 1);
        if ((item.t === "msg" || item.t === "done") && /^p\d+$/.test(item.r)) this.#next = Math.max(this.#next, Number(item.r.slice(1)) + 1);
      }
    }
  }

  /**
   * Replays the current cell from its start in a new VM (its VM was lost): what it was answered so far is
   * answered again from the journal, and it goes on live where the journal ends.
   */
  replayCell(): void {
    this.#replay = this.#items.length ? new JournalReplay(this.#items) : undefined;
    // What the lost attempt replayed or made is in the step already (`#applied`); the rest is given now.
    this.#inCode = false;
    this.#seq = 0;
  }

  /** Ends a cell: results it left pending are abandoned. Returns how many were (timers and futures not counted). */
  endCell(): number {
    let abandoned = this.#settled.filter((delivery) => !this.#timerIds.has(delivery.id)).length;
    for (const pending of this.#pending.values()) {
      if (pending.cancel) pending.cancel();
      else if (!pending.durable) abandoned++;
    }
    this.#cell++;
    this.#pending.clear();
    this.#settled = [];
    this.#timerIds.clear();
    this.#running.clear();
    this.#wake?.();
    this.#wake = undefined;
    return abandoned;
  }

  #append(item: JournalItem): void {
    if (!this.#inCode) return;
    // A live item's effects were made in this step's record as it ran.
    this.#applied.add(this.#items.length);
    this.#items.push(item);
    this.#sink?.append([item]);
  }

  async #flush(): Promise<void> {
    if (this.#sink) await this.#sink.flush();
  }

  #lost(error: unknown): string {
    this.failure ??= error instanceof Error ? error : new Error(String(error));
    this.#wake?.();
    return errorReply("InternalError", `the job's record could not be written: ${this.failure.message}`);
  }

  #keptAlive(): boolean {
    for (const pending of this.#pending.values()) if (pending.keepAlive) return true;
    return false;
  }

  #open(keepAlive: boolean, seq: number): number {
    const id = this.#next++;
    this.#pending.set(id, { keepAlive, seq });
    return id;
  }

  // A result arrived: journaled (durable before it is handed over), then queued for the idle guest. A durable
  // future instead (a tool's `ctx.future`) is journaled as such and waited for.
  #settleJournaled(id: number, reply: string): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#append({ t: "settle", id, r: reply, ...this.#effectsOf(pending.seq) });
    if (isFutureReply(reply)) {
      this.#awaitExternal(id, pending, reply);
      return;
    }
    if (!this.#sink) {
      this.#settle(id, reply);
      return;
    }
    this.#sink.flush().then(() => this.#settle(id, reply), (error: unknown) => this.#lost(error));
  }

  #settle(id: number, reply: string, wake = true): void {
    if (!this.#pending.delete(id)) return;
    this.#settled.push({ id, reply });
    if (!wake) return;
    const waker = this.#wake;
    this.#wake = undefined;
    waker?.();
  }

  // `timer(ms, kind)`: a pending result the host settles after `ms`; `kind` "interval" does not keep the cell alive.
  #timer([msText, kind]: readonly string[], seq: number): string {
    let timers = 0;
    for (const pending of this.#pending.values()) if (pending.cancel) timers++;
    if (timers >= this.#options.maxTimers) {
      return errorReply("RangeError", `too many timers pending at once (at most ${this.#options.maxTimers.toLocaleString("en-US")}, maxPendingHostCalls)`);
    }
    let ms = Number(msText);
    if (!(ms >= 0) || ms > MAX_DELAY_MS) ms = ms > MAX_DELAY_MS ? 1 : 0;
    const id = this.#open(kind !== "interval", seq);
    const pending = this.#pending.get(id)!;
    pending.cancel = this.#timers(Math.floor(ms), () => this.#settleJournaled(id, ""));
    this.#timerIds.add(id);
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

export type { CrossingKind, JournalItem };
export type * from "./cell-host-contracts.ts";

/** True for the host-internal reply that stands for a durable future (`tools/durable-future.ts`). */
function isFutureReply(reply: string): boolean {
  return reply.charCodeAt(0) === 102 /* f */;
}
