/**
 * @module
 * Wake-up hints across processes on PostgreSQL: a store whose transaction holds a waking write sends `NOTIFY`
 * on its schema's channel inside that transaction, just before `COMMIT` (the server delivers it at the commit),
 * with the store object's own token as payload, so that it does not hear itself (the store core tells its
 * listeners of its own commits at once) — and every subscribed store `LISTEN`s on a connection of its own. The
 * server folds a transaction's identical notifications into one. A notification is only a hint: subscribers are also called at a slow
 * safety interval, so a lost notification costs latency, never a job.
 *
 * At start the listener tests itself: it notifies its own channel and waits for that notification. A
 * transaction-mode pooler (PgBouncer) accepts `LISTEN` and then silently delivers nothing; the self-test says
 * so in the log and falls back to polling at a twentieth of the safety interval. A lost listening connection
 * is logged, polled around, and reconnected with backoff.
 */
import { randomUUID } from "node:crypto";
import type { PostgresQueryable } from "./postgres-queries.ts";
import { errorMessage } from "../../errors/error-text.ts";

/** The slice of `pg`'s `Client` a listener uses. */
export interface ListenConnection extends PostgresQueryable {
  on(event: "notification", listener: (message: { channel: string; payload?: string | undefined }) => void): unknown;
  on(event: "error" | "end", listener: (error?: Error) => void): unknown;
  end(): Promise<void>;
}

/** How wake-ups reach a store. */
export interface PostgresWakeupsOptions {
  /** Where the listener's self-test `NOTIFY` is sent from (the store's pool). */
  notifier: PostgresQueryable;
  /** Opens the listening connection (connected). */
  connect: () => Promise<ListenConnection>;
  /** The channel: one per schema. */
  channel: string;
  pollIntervalMs: number;
  listenTestTimeoutMs: number;
  log: (message: string) => void;
  /** The server, password masked, for the log. */
  where: string;
}

/** How subscribers hear of wake-ups right now. */
export type WakeupMode = "idle" | "starting" | "listen" | "poll";

/** While `LISTEN` cannot be used, subscribers are called this many times per safety interval. */
const POLLS_PER_INTERVAL = 20;

/** The wake-ups of one store: its `NOTIFY`s and, while anyone subscribes, its `LISTEN`. */
export class PostgresWakeups {
  readonly #options: PostgresWakeupsOptions;
  /** The payload of this store object's own notifications, which its listener skips. */
  readonly #token = `store ${randomUUID()}`;
  readonly #listeners = new Set<() => void>();
  #mode: WakeupMode = "idle";
  #connection: ListenConnection | undefined;
  #poll: NodeJS.Timeout | undefined;
  #reconnect: NodeJS.Timeout | undefined;
  #failures = 0;
  #selfTest: { token: string; heard: () => void } | undefined;
  /** Bumped by every start and stop: a start that finds it changed gives up. */
  #generation = 0;

  constructor(options: PostgresWakeupsOptions) {
    this.#options = options;
  }

  /** How subscribers hear of wake-ups right now (`poll` after a failed self-test or a lost connection). */
  get mode(): WakeupMode {
    return this.#mode;
  }

  /**
   * The `NOTIFY` a write transaction sends before its `COMMIT`: the server delivers it when (and only if) the
   * transaction commits, with no round trip of its own.
   */
  get notifyQuery(): { text: string; values: unknown[] } {
    return { text: "SELECT pg_notify($1, $2)", values: [this.#options.channel, this.#token] };
  }

  /** Calls `listener` on every hint until the returned function is called. */
  watch(listener: () => void): () => void {
    this.#listeners.add(listener);
    if (this.#mode === "idle") void this.#start();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) void this.stop();
    };
  }

  /** Stops listening and polling; idempotent. */
  async stop(): Promise<void> {
    this.#generation++;
    this.#mode = "idle";
    clearInterval(this.#poll);
    clearTimeout(this.#reconnect);
    this.#poll = this.#reconnect = undefined;
    const connection = this.#connection;
    this.#connection = undefined;
    await connection?.end().catch(() => undefined);
  }

  #fire(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  #pollEvery(ms: number): void {
    clearInterval(this.#poll);
    // Not unref'd: a subscription keeps the process alive until it stops (the LISTEN socket would anyway).
    this.#poll = setInterval(() => this.#fire(), ms);
  }

  async #start(): Promise<void> {
    const generation = ++this.#generation;
    const { connect, channel, pollIntervalMs, log, where } = this.#options;
    this.#mode = "starting";
    // Until LISTEN is known to work, poll at the fallback rate.
    this.#pollEvery(pollModeMs(pollIntervalMs));
    let connection: ListenConnection | undefined;
    try {
      connection = await connect();
      if (generation !== this.#generation) return void (await connection.end().catch(() => undefined));
      this.#connection = connection;
      connection.on("notification", (message) => {
        if (message.channel !== channel) return;
        if (this.#selfTest && message.payload === this.#selfTest.token) return this.#selfTest.heard();
        if (message.payload === this.#token) return;
        this.#fire();
      });
      connection.on("error", () => this.#lost(generation, connection!));
      connection.on("end", () => this.#lost(generation, connection!));
      await connection.query(`LISTEN "${channel}"`);
      if (await this.#testListen()) {
        if (generation !== this.#generation) return;
        this.#failures = 0;
        this.#mode = "listen";
        this.#pollEvery(pollIntervalMs);
        this.#fire(); // whatever was committed while the listener started
      } else if (generation === this.#generation) {
        log(`STATEK PostgreSQL store at ${where}: the LISTEN self-test heard nothing within ${this.#options.listenTestTimeoutMs} ms ` +
          `(a transaction-mode pooler such as PgBouncer drops LISTEN silently; give the store a direct or session-mode connection ` +
          `as listenConnectionString); falling back to polling every ${pollModeMs(pollIntervalMs)} ms`);
        this.#mode = "poll";
        this.#connection = undefined;
        await connection.end().catch(() => undefined);
      }
    } catch (error) {
      if (generation !== this.#generation) return;
      log(`STATEK PostgreSQL store at ${where}: cannot listen for wake-ups (${errorMessage(error)}); polling until it can`);
      if (connection) this.#lost(generation, connection);
      else this.#scheduleReconnect(generation);
    }
  }

  /** Notifies its own channel and waits for the notification. */
  async #testListen(): Promise<boolean> {
    const token = `self-test ${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((resolve) => {
      this.#selfTest = { token, heard: () => resolve(true) };
      timer = setTimeout(() => resolve(false), this.#options.listenTestTimeoutMs);
    });
    try {
      await this.#options.notifier.query("SELECT pg_notify($1, $2)", [this.#options.channel, token]);
      return await heard;
    } finally {
      clearTimeout(timer);
      this.#selfTest = undefined;
    }
  }

  #lost(generation: number, connection: ListenConnection): void {
    if (generation !== this.#generation || this.#connection !== connection) return;
    this.#connection = undefined;
    void connection.end().catch(() => undefined);
    this.#options.log(`STATEK PostgreSQL store at ${this.#options.where}: lost the wake-up connection; polling until it is back`);
    this.#fire(); // notifications may have been missed
    this.#scheduleReconnect(generation);
  }

  #scheduleReconnect(generation: number): void {
    this.#mode = "poll";
    this.#pollEvery(pollModeMs(this.#options.pollIntervalMs));
    const delay = Math.min(30_000, 500 * 2 ** this.#failures++);
    clearTimeout(this.#reconnect);
    this.#reconnect = setTimeout(() => {
      if (generation === this.#generation) void this.#start();
    }, delay);
  }
}

/** How often subscribers are called while `LISTEN` cannot be used. */
function pollModeMs(pollIntervalMs: number): number {
  return Math.max(1, Math.floor(pollIntervalMs / POLLS_PER_INTERVAL));
}
