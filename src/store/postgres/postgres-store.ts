/**
 * @module
 * The PostgreSQL {@link Store}, on `pg`: the store core (`../store-core.ts`, every rule of the contract) over
 * the PostgreSQL adapter (`postgres-adapter.ts`, SQL only). The contract's documentation is in `../store.ts`;
 * this file documents only what is particular to PostgreSQL. Only `store/postgres/` imports `pg`, and
 * `openStore` loads this file on first use, so SQLite users never load `pg`.
 */
import pg from "pg";
import { StoreCore } from "../store-core.ts";
import { PostgresAdapter } from "./postgres-adapter.ts";
import type { PostgresPool } from "./postgres-adapter.ts";
import { SCHEMA_NAME, maskConnectionString, splitConnectionString } from "./postgres-config.ts";
import type { PostgresStoreConfig } from "./postgres-config.ts";
import type { ListenConnection, WakeupMode } from "./postgres-wakeups.ts";

/**
 * A {@link Store} in a PostgreSQL database (one schema of it), shared by any number of processes.
 *
 * - **Opening and migrating are lazy**: the first call connects and runs the migrations under an advisory
 *   lock (several processes starting at once migrate once). `openStore` calls `migrate()` first.
 * - **Writes are group-committed**: writes of one event-loop turn share one transaction (a savepoint per
 *   write only when one of them failed, see `group-commit.ts`); a store runs its write transactions one at a time, reads in parallel on the pool.
 * - **Leases use the database's clock**, read once per transaction, so workers on machines whose clocks
 *   disagree still agree on expiry. Claims take rows `FOR UPDATE SKIP LOCKED` from partial indexes of the
 *   runnable jobs: concurrent claimers never wait for each other nor take the same job.
 * - **Wake-ups**: `subscribeWakeups` listens on the schema's channel (`LISTEN/NOTIFY`, a self-test at start,
 *   polling when it fails) with a safety poll.
 * - **Engine errors carry their retry policy**: a lost connection, a failover, a serialization failure or a
 *   deadlock is a `StoreError` with `isRetryable` true; messages name the server with its password masked.
 */
export class PostgresStore extends StoreCore {
  readonly #where: string;
  readonly #adapter: PostgresAdapter;
  /** The schema holding the store's tables. */
  readonly schema: string;

  constructor(config: PostgresStoreConfig) {
    if (typeof config?.connectionString !== "string" || config.connectionString === "") {
      throw new Error("PostgresStore: connectionString must be a postgres:// URL");
    }
    const where = maskConnectionString(config.connectionString);
    const fromUrl = splitConnectionString(config.connectionString);
    const schema = config.schema ?? fromUrl.schema ?? "statek";
    const poolSize = config.poolSize ?? fromUrl.poolSize ?? 10;
    const { pollIntervalMs = 5000, listenTestTimeoutMs = 2000, idleTransactionTimeoutMs = 10_000, lockTimeoutMs = 1000, log = (message: string) => console.warn(message) } = config;
    if (typeof schema !== "string" || !SCHEMA_NAME.test(schema)) {
      throw new Error(`PostgresStore: schema must be a lower-case SQL identifier (letters, digits, _), got ${JSON.stringify(schema)}`);
    }
    for (const [name, value, minimum] of [["poolSize", poolSize, 1], ["pollIntervalMs", pollIntervalMs, 1], ["listenTestTimeoutMs", listenTestTimeoutMs, 1], ["idleTransactionTimeoutMs", idleTransactionTimeoutMs, 1], ["lockTimeoutMs", lockTimeoutMs, 1]] as const) {
      if (!Number.isInteger(value) || value < minimum) throw new Error(`PostgresStore: ${name} must be an integer ≥ ${minimum}, got ${String(value)}`);
    }
    if (typeof log !== "function") throw new Error("PostgresStore: log must be a function");
    const listenUrl = config.listenConnectionString === undefined ? fromUrl.driverUrl : splitConnectionString(config.listenConnectionString).driverUrl;
    // Pipeline mode: a connection sends queued queries without waiting for the answers of those before them, so a
    // transaction's writes go out together (see PostgresTransaction).
    const pgPool = new pg.Pool({ connectionString: fromUrl.driverUrl, max: poolSize, application_name: "statek", pipeline: true });
    // A connection that breaks while checked out emits "error" on its client, which would crash the process
    // unheard; the query running on it (or the next) fails with the error instead, and is classified.
    pgPool.on("connect", (client) => client.on("error", () => undefined));
    const pool: PostgresPool = pgPool;
    const connectListener = async (): Promise<ListenConnection> => {
      const client = new pg.Client({ connectionString: listenUrl, application_name: "statek-wakeups" });
      client.on("error", () => undefined); // reported through the wake-ups' own "error" listener
      await client.connect();
      return client;
    };
    const adapter = new PostgresAdapter({ pool, connectListener, schema, where, pollIntervalMs, listenTestTimeoutMs, idleTransactionTimeoutMs, lockTimeoutMs, log });
    super(adapter);
    this.#adapter = adapter;
    this.#where = where;
    this.schema = schema;
  }

  /** How wake-up subscribers hear of changes right now: `listen`, `poll` (LISTEN failed its self-test, or its connection is lost), `starting` or `idle`. */
  get wakeupMode(): WakeupMode {
    return this.#adapter.wakeupMode;
  }

  protected override get storeName(): string {
    return `PostgresStore ${this.#where} schema ${this.schema}`;
  }
}

/** Creates a {@link PostgresStore}. Nothing is connected until the first call. */
export function createPostgresStore(config: PostgresStoreConfig): PostgresStore {
  return new PostgresStore(config);
}
