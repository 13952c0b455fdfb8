/**
 * @module
 * `statek/store`: the store contract, for applications that pass a `Store` to `Statek.open` and for third-party
 * stores. An implementation runs the same conformance suite as the built-in SQLite store —
 * `runStoreSuite({ name, create, openSecond, damage })` inside a `node:test` file (a second connection and a way
 * to corrupt rows unlock the concurrency and corrupt-row cases) — then adds the cases only its engine has. This
 * entry only re-exports.
 */

/** The contract and the shapes it stores. */
export { JOB_STATUSES } from "./store.ts";
export type {
  Store, StoreCallOptions, JobStatus, JobRow, VariableRow, HistoryRow, JobCommit, JobFilter, JsonValue, ClaimFilter, EventQuery,
} from "./store.ts";
export { FUTURE_KINDS, FUTURE_STATES, WAIT_DOORS } from "./durable-rows.ts";
export type {
  Fence, FutureKind, FutureRow, FutureSettlement, FutureState, Journal, JournalEntry, JobEventRow, Lease, NewFuture, NewJobEvent, SettleResult, WaitDoor,
} from "./durable-rows.ts";
export { STATUS_TRANSITIONS } from "./store-rules.ts";
export { JobConflictError } from "../errors/job-conflict-error.ts";
export { LeaseLostError } from "../errors/lease-lost-error.ts";
export { NoSuchJobError } from "../errors/no-such-job-error.ts";
export { CorruptRecordError } from "../errors/corrupt-record-error.ts";
export { StoreError } from "../errors/store-error.ts";
export { WaitKindError } from "../errors/wait-kind-error.ts";

/** The conformance suite every store passes, and sample rows for an adapter's own tests. */
export { runStoreSuite, sampleJob, sampleRecord } from "./store.suite.ts";
export type { DamageTarget, StoreSuiteOptions } from "./store.suite.ts";

/** The embedded SQLite store, and opening a store from a path. */
export { createSqliteStore, SqliteStore } from "./sqlite/sqlite-store.ts";
export { SQLITE_SYNCHRONOUS_MODES } from "./sqlite/sqlite-config.ts";
export type { SqliteStoreConfig, SqliteDatabase, SqliteStatement, SqliteSynchronousMode, SqliteValue } from "./sqlite/sqlite-config.ts";
export { openStore, DEFAULT_STORE_PATH } from "./open-store.ts";
