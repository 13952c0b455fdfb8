/**
 * @module
 * What a workspace's cell host (`cell-host.ts`) works with: the handler of guest messages, the clock of its
 * timers, where its journal goes (`JournalSink`), how crossings are classified and their effects kept, the
 * durable futures it waits on, and where a cell starts.
 */
import type { CrossingEffects, CrossingKind, JournalItem, MessageDescriber } from "./cell-journal.ts";
import type { ApprovalDecision } from "../tools/approval.ts";

/** Answers a guest message; a promise stands for a result the guest receives later (a pending id). */
export type GuestMessageHandler = (op: string, args: readonly string[]) => string | Promise<string> | HeldReply;

/**
 * An answer the guest waits for in its call (it stays blocked, as for any synchronous answer) while the host
 * does asynchronous work first — reading workspace variables a tool call binds by name, say. What it settles to
 * is the answer proper: a reply, or a promise standing for a result the guest receives later.
 */
export class HeldReply {
  readonly answer: Promise<string | Promise<string>>;

  constructor(answer: Promise<string | Promise<string>>) {
    this.answer = answer;
  }
}

/** The timer source: `setTimeout`-like, returning a cancel function. Replaceable for tests and replay. */
export type TimerSource = (ms: number, fire: () => void) => () => void;

/** Where a cell's journal goes. Items are appended in order; `flush` makes all appended so far durable. */
export interface JournalSink {
  append(items: readonly JournalItem[]): void;
  /** Resolves once every item appended so far is durable; rejects when it cannot be (the lease was lost). */
  flush(): Promise<void>;
}

/**
 * The message a call in doubt is made again with when it may only ask for approval: `[op, ...args]` of the
 * original call. Hosts only: a guest that sends it gets a call that can ask but never run.
 */
export const ASK_AGAIN = "callAsking";

/** What the host knows about a crossing (the broker's policy). */
export interface CrossingPolicy {
  /** How the message is journaled. */
  kind(op: string, args: readonly string[]): CrossingKind;
  /** True for a tool declared `idempotent`: a call in doubt may be made again with the same key. */
  idempotent(op: string, args: readonly string[]): boolean;
  /**
   * True for a call of a tool that may need approval: in doubt, it is made again as {@link ASK_AGAIN} — it asks
   * for approval once more (nothing ran when it first asked) and answers `InDoubtError` if these arguments
   * would have run the tool.
   */
  asksFirst?(op: string, args: readonly string[]): boolean;
}

/** The step's record of each crossing's effects (console lines, tool-call records, error handlers). */
export interface EffectLedger {
  /** The message being answered now (effects made meanwhile, or later by closures made now, are its own). */
  current: number | undefined;
  /** The effects message `seq` made since the last call, and forgets them. */
  take(seq: number): CrossingEffects | undefined;
  /** Gives the step the effects of a crossing that is replayed rather than made again. */
  apply(effects: readonly CrossingEffects[]): void;
}

/**
 * How a future settled: with a value, or with an error the guest's `await` throws — or with a reply of the
 * protocol as it is (an approval that makes the guest call again, a child job's handle).
 */
export type FutureOutcome = { value: unknown } | { error: { name: string; message: string } } | { reply: string };

/** A child job a tool started, as its handle shows it to the guest. */
export interface ChildHandleInfo {
  id: string;
  role: string;
  /** `WAITING`, `STARTED`, `COMPLETED` or `ERROR`. */
  state: string;
}

/** The durable futures the guest waits for (`sleep`, `waitForMessage`, …): the job's business. */
export interface FutureWaits {
  /**
   * Opens the future that message `seq` waits for (`future(kind, data)`): resolves to its outcome when it is
   * settled already; otherwise the cell waits, and `settle` is called if it settles while the cell still runs
   * (else the cell suspends and a later step replays it). `durable: false` marks a wait kept in memory (a
   * short sleep): the cell does not suspend for it.
   */
  open(seq: number, kind: string, data: unknown, settle: (outcome: FutureOutcome) => void): Promise<{ outcome?: FutureOutcome; durable: boolean }>;
  /**
   * A wait whose outcome the journal already holds was replayed (waits are numbered in order: the message waits,
   * say) — agent code's own (`kind` as it asked) or a host-made one (`tool-approval`, `child`, `data` the wait's
   * with its `key`) — or (kind `child-started`) a reply that handed the guest a child job's handle, `data` its `{ id }`.
   */
  replayed?(seq: number, kind: string, data: unknown): void;
  /**
   * A sub-task crossing of agent code, answered as a guest reply: `state` (child `id`'s handle state, read
   * now), `find` (the handle of child `id`, or of the latest child when `id` is empty; `null` when there is
   * none), `complete` and `fail` (this job may end itself as a sub-task: it has a parent). A `TypeError` is the
   * guest's to read; anything else stops the cell.
   */
  task?(action: string, id: string): Promise<string>;
  /** Creates the child job a tool started (`ctx.startJob`; `data` as the tool's reply carried it), unless it exists. */
  startChild?(data: unknown): Promise<ChildHandleInfo>;
  /**
   * Checks that approval request `key` lets tool `tool` run now — this job's, approved, for this tool, not
   * used by another call than `callKey` — and marks it used; resolves to the decision (throws otherwise).
   */
  approvedCall?(key: string, tool: string, callKey: string): Promise<ApprovalDecision & { args: string }>;
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
  policy?: CrossingPolicy;
  effects?: EffectLedger;
  futures?: FutureWaits;
  /** The reply that hands the guest a future's outcome (values cross with the workspace's codec). */
  replyOf?: (outcome: FutureOutcome) => string;
  /**
   * A crossing found in doubt (started, never finished) is answered `error` (`InDoubtError: …`): the host makes
   * its record (a tool call's) as crossing `seq`'s effect.
   */
  onInDoubt?: (op: string, args: readonly string[], error: string, seq: number) => void;
  /** A tool's durable future resolved: its error handler (named in the future) registers now, with the value. */
  onFutureResolved?: (errorHandler: string, value: unknown, seq: number) => void;
}

/** Where a cell starts: fresh, or replaying a journal (with how many of its items the step already holds). */
export interface CellStart {
  journal?: readonly JournalItem[];
  /** Items whose effects are already in the job's history (a cell that suspended): not given again. */
  committedItems?: number;
  sink?: JournalSink;
  /** The cell's durable futures (else the workspace's, if any). */
  futures?: FutureWaits;
}
