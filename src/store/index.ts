/**
 * @module
 * `statek/store`: the store contract, and the extension point for a store of your own. Applications pass a
 * `Store` to `Statek.open`. A new engine writes a {@link StoreAdapter} — the engine's reads, writes and
 * transactions, no rules — and gets a `Store` from `createStore(adapter)`, which adds every rule of the contract
 * (transitions, fences, first-writer-wins, group commit, decoding, the outbox reader and wake-ups); it then runs
 * the adapter conformance suite, `runAdapterSuite({ name, createAdapter, openSecond, damage })`, inside a
 * `node:test` file (a second connection and a way to corrupt rows unlock the concurrency and corrupt-row
 * cases), as the built-in SQLite and PostgreSQL adapters do. This entry only re-exports.
 */
// First: on a Node.js too old for STATEK, importing it fails with a message saying so.
import "../runtime/check-node-version.ts";

/** The contract and the shapes it stores. */
export { JOB_STATUSES, MAX_MEMORY_CONTEXTS } from "./store.ts";
export type {
  Store, StoreCallOptions, MemoryEntry, JobStatus, JobRow, VariableRow, HistoryRow, JobCommit, JobFilter, JsonValue, ClaimFilter, EventQuery, JobBrowseQuery,
  JobCountQuery, JobCursor, NextClaim, WakeupOrigin, EventFollower, EventFollow, FollowOptions, ForkOrigin, JobFork,
} from "./store.ts";
export { BREAKER_STATES } from "./agent-rows.ts";
export type { AgentEventRow, AgentJobSource, AgentJobsRequest, AgentJobsResult, AgentOutcome, AgentRow, BreakerState, NewJobRows } from "./agent-rows.ts";
export { FUTURE_KINDS, FUTURE_STATES, WAIT_DOORS } from "./durable-rows.ts";
export type {
  Fence, FutureKind, FutureRow, FutureSettlement, FutureState, Journal, JournalEntry, JobEventRow, Lease, NewFuture, NewJobEvent, SettleResult, WaitDoor,
} from "./durable-rows.ts";
export { ACTIVE_STATUSES, STATUS_TRANSITIONS, WAITING_STATUS } from "./store-rules.ts";
export { JobConflictError } from "../errors/job-conflict-error.ts";
export { LeaseLostError } from "../errors/lease-lost-error.ts";
export { NoSuchJobError } from "../errors/no-such-job-error.ts";
export { CorruptRecordError } from "../errors/corrupt-record-error.ts";
export { StoreError } from "../errors/store-error.ts";
export { WaitKindError } from "../errors/wait-kind-error.ts";

/** The extension point: an engine's adapter, and the store `createStore` makes of it. */
export { createStore } from "./create-store.ts";
export type { CreateStoreOptions } from "./create-store.ts";
export type {
  StoreAdapter, AdapterReads, AdapterTransaction, StoredRow, JobValues, HistoryValues, JournalValues, FutureValues, EventValues, JobQuery,
  JobPageQuery, EventRowQuery, ClaimQuery, AgentValues, AgentEventValues, MemoryValues, VariableVersionValues,
} from "./store-adapter.ts";

/** The conformance suites (of a store, of an adapter), and sample rows for an adapter's own tests. */
export { runAdapterSuite, runStoreSuite, sampleJob, sampleRecord } from "./store.suite.ts";
export type { AdapterSuiteOptions, DamageTarget, StoreSuiteOptions } from "./store.suite.ts";

/** The embedded SQLite store, and opening a store from a path. */
export { createSqliteStore, SqliteStore } from "./sqlite/sqlite-store.ts";
export { SQLITE_SYNCHRONOUS_MODES } from "./sqlite/sqlite-config.ts";
export type { SqliteStoreConfig, SqliteDatabase, SqliteStatement, SqliteSynchronousMode, SqliteValue } from "./sqlite/sqlite-config.ts";
export { openStore, DEFAULT_STORE_PATH } from "./open-store.ts";
