/**
 * @module
 * Checked futures (the seed's temporal functions): a future whose readiness a worker checks, for a state the
 * application can only query (an order shipped, a document approved elsewhere). The future's row keeps the
 * tool's name, the call's arguments and the interval; while the job waits, a worker that has the job's agent
 * calls the tool's `check(args)` on schedule and settles the future with the first value that is not
 * `undefined` (door `check`: the store wakes the job, which replays its cell up to the wait).
 *
 * One {@link FutureChecks} per worker: one timer for all checked futures, whatever their number, armed for the
 * earliest check due; the waiting ones are listed from the store's index of waiting futures by kind (so a
 * future created by another process, or before a restart, is found); at most `maxConcurrency` checks run at
 * once; a check that throws is retried later, each time waiting twice as long (up to an hour or its interval,
 * whichever is longer). Several workers may check one future: the first settlement wins.
 */
import type { FutureRow, JsonValue, Store } from "../store/store.ts";
import { withStoreRetries } from "../store/store-retries.ts";
import { prepareCall } from "../tools/invoke-tool.ts";
import { toReadableJson } from "../tools/readable-json.ts";
import type { Tool } from "../tools/tool.ts";
import type { FutureSignals } from "./future-signals.ts";
import { outcomeOf } from "./job-futures.ts";

/** Default of {@link FutureChecksOptions.maxConcurrency}. */
export const DEFAULT_CHECK_CONCURRENCY = 8;
/** The shortest gap between two listings of the waiting checked futures (a busy store hints all the time). */
const LIST_GAP_MS = 1_000;
/**
 * How long the list is trusted without a hint: a new checked future is written by a step's commit, which the
 * store reports (`subscribeWakeups`), so an idle worker sends nothing between hints but this rare look.
 */
const LIST_UNHINTED_MS = 60_000;
/** Checked futures read per listing. */
const LIST_LIMIT = 1_000;
/** The longest wait after failed checks (unless the future's own interval is longer). */
const MAX_BACKOFF_MS = 3_600_000;

/** What the checks of one worker need. */
export interface FutureChecksOptions {
  store: Pick<Store, "waitingFutures" | "settleFuture" | "getJob" | "subscribeWakeups">;
  signals: FutureSignals;
  /** Tool `name` of the agent `role` in this worker, or `undefined` when this worker does not run that agent. */
  toolOf(role: string, name: string): Tool | undefined;
  /** Checks running at once at most. @default 8 */
  maxConcurrency?: number;
  /** Hears a check that threw (or a future whose tool cannot be checked), with the future's key; must not throw. */
  onError(key: string, jobId: string | null, error: unknown): void;
  now?: () => number;
}

/** A checked future's record, as its row keeps it. */
interface CheckSpec {
  tool: string;
  args: Record<string, unknown>;
  everyMs: number;
}

/** One checked future as this worker schedules it. */
interface Scheduled {
  row: FutureRow;
  spec: CheckSpec;
  nextAt: number;
  failures: number;
  running: boolean;
}

/** Reads the spec a checked future's row keeps; `undefined` for a row without one (stored records are untrusted). */
function specOf(data: JsonValue): CheckSpec | undefined {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return undefined;
  const { tool, args, everyMs } = data;
  if (typeof tool !== "string" || typeof everyMs !== "number" || !(everyMs > 0)) return undefined;
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  return { tool, args: { ...args }, everyMs };
}

/** The checked futures of one worker, checked on schedule until {@link FutureChecks.stop}. */
export class FutureChecks {
  readonly #options: FutureChecksOptions;
  readonly #scheduled = new Map<string, Scheduled>();
  /** Roles of the jobs whose futures are scheduled (a job's role never changes). */
  readonly #roles = new Map<string, string>();
  readonly #running = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #listedAt = -Infinity;
  #listing: Promise<void> | undefined;
  /** A commit was heard since the last listing: list again once the gap has passed. */
  #hinted = false;
  #stopHints: (() => void) | undefined;
  #stopped = false;

  constructor(options: FutureChecksOptions) {
    this.#options = options;
  }

  /** Checks run now: futures being checked. */
  get checking(): number {
    return this.#running.size;
  }

  /** Lists the waiting checked futures and starts checking them on schedule. */
  start(): void {
    this.#stopHints = this.#options.store.subscribeWakeups(() => {
      this.#hinted = true;
      this.#tick();
    });
    this.#tick();
  }

  /** Stops checking; resolves once the checks in flight have ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopHints?.();
    clearTimeout(this.#timer);
    await this.#listing;
    await Promise.allSettled([...this.#running]);
  }

  #now(): number {
    return this.#options.now ? this.#options.now() : Date.now();
  }

  /** When the list is next read: soon after a hint, else after the unhinted interval. */
  #listDueAt(): number {
    return this.#listedAt + (this.#hinted ? LIST_GAP_MS : LIST_UNHINTED_MS);
  }

  #tick(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const now = this.#now();
    if (now >= this.#listDueAt() && !this.#listing) {
      // Counted from the start, so a store that keeps failing is asked once a gap, not in a loop.
      this.#listedAt = now;
      this.#hinted = false;
      this.#listing = this.#list()
        .catch((error: unknown) => this.#options.onError("", null, error))
        .finally(() => {
          this.#listing = undefined;
          this.#tick();
        });
      return;
    }
    this.#startDue(now);
    this.#arm(now);
  }

  async #list(): Promise<void> {
    const rows = await withStoreRetries(() => this.#options.store.waitingFutures({ kind: "checked", limit: LIST_LIMIT }));
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.key);
      const known = this.#scheduled.get(row.key);
      if (known) {
        known.row = row;
        continue;
      }
      const spec = specOf(row.data);
      if (!spec || row.jobId === null) continue;
      // First checked one interval after the wait began (at once for a future older than that: after a restart).
      this.#scheduled.set(row.key, { row, spec, nextAt: row.createdAt + spec.everyMs, failures: 0, running: false });
    }
    for (const [key, scheduled] of this.#scheduled) {
      if (!seen.has(key) && !scheduled.running) this.#scheduled.delete(key);
    }
    const jobs = new Set([...this.#scheduled.values()].map((scheduled) => scheduled.row.jobId));
    for (const jobId of this.#roles.keys()) if (!jobs.has(jobId)) this.#roles.delete(jobId);
  }

  #startDue(now: number): void {
    const limit = this.#options.maxConcurrency ?? DEFAULT_CHECK_CONCURRENCY;
    const due = [...this.#scheduled.values()].filter((scheduled) => !scheduled.running && scheduled.nextAt <= now).sort((a, b) => a.nextAt - b.nextAt);
    for (const scheduled of due) {
      if (this.#running.size >= limit) return;
      // Past its timeout: the job's own wake-up rejects it.
      if (scheduled.row.wakeAt !== null && scheduled.row.wakeAt <= now) {
        this.#scheduled.delete(scheduled.row.key);
        continue;
      }
      scheduled.running = true;
      const run = this.#check(scheduled).finally(() => {
        scheduled.running = false;
        this.#running.delete(run);
        this.#tick();
      });
      this.#running.add(run);
    }
  }

  #arm(now: number): void {
    if (this.#stopped) return;
    let next = this.#listDueAt();
    for (const scheduled of this.#scheduled.values()) if (!scheduled.running) next = Math.min(next, scheduled.nextAt);
    this.#timer = setTimeout(() => this.#tick(), Math.max(0, next - now));
    this.#timer.unref();
  }

  async #check(scheduled: Scheduled): Promise<void> {
    const { row, spec } = scheduled;
    const jobId = row.jobId!;
    try {
      const tool = await this.#toolFor(jobId, spec.tool);
      if (tool === undefined) {
        // Another worker runs this job's agent (or none does yet): look again later.
        scheduled.nextAt = this.#now() + spec.everyMs;
        return;
      }
      if (!tool.check) throw new TypeError(`tool ${tool.name} has no check(args): its future ${row.key} cannot be checked`);
      const call = prepareCall(tool, spec.args, { formal: true });
      const value: unknown = await tool.check(call.args);
      if (value === undefined) {
        scheduled.failures = 0;
        scheduled.nextAt = this.#now() + spec.everyMs;
        return;
      }
      const result = await withStoreRetries(() => this.#options.store.settleFuture(row.key, { state: "resolved", value: toReadableJson(value), door: "check" }));
      this.#scheduled.delete(row.key);
      const outcome = outcomeOf(result.future);
      if (result.settled && outcome) this.#options.signals.emit(row.key, outcome);
      if (result.settled) this.#options.signals.wake(jobId);
    } catch (error) {
      scheduled.failures++;
      scheduled.nextAt = this.#now() + Math.min(spec.everyMs * 2 ** scheduled.failures, Math.max(MAX_BACKOFF_MS, spec.everyMs));
      try {
        this.#options.onError(row.key, jobId, error);
      } catch {
        // A listener that throws does not stop the checks.
      }
    }
  }

  async #toolFor(jobId: string, name: string): Promise<Tool | undefined> {
    let role = this.#roles.get(jobId);
    if (role === undefined) {
      const job = await withStoreRetries(() => this.#options.store.getJob(jobId));
      if (!job) return undefined;
      role = job.role;
      this.#roles.set(jobId, role);
    }
    return this.#options.toolOf(role, name);
  }
}
