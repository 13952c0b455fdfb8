/**
 * @module
 * `createStore(adapter)`: a {@link Store} over an engine's {@link StoreAdapter} — the extension point for a
 * store of your own. The adapter holds SQL (or whatever the engine speaks) only; everything the contract
 * promises beyond it — input checks, status transitions, version and lease fences, first-writer-wins
 * settlements, group commit, decoding and corrupt-row handling, error classification, the outbox reader and
 * wake-ups — is the store core's, written once (`store-core.ts`).
 */
import type { StoreAdapter } from "./store-adapter.ts";
import { StoreCore } from "./store-core.ts";
import type { Store } from "./store.ts";

/** What {@link createStore} accepts besides the adapter. */
export interface CreateStoreOptions {
  /** Names the store in errors (`store is closed (<name>)`). @default "<dialect> store" */
  name?: string;
}

/** Every method an adapter must have (`StoreAdapter` and its reads). */
const ADAPTER_METHODS = [
  "migrate", "transaction", "classifyError", "close", "now", "readJob", "readJobs", "readJobPage", "countJobsByStatus", "readVariables",
  "readHistory", "readJournal", "readFuture", "readFutures", "readWaitingFutures", "readEvents", "readLastEventId", "readNextClaim",
  "readLeaseOwners", "readAgents", "countAgentEvents", "readAgentEvents",
] as const;

/**
 * A store over `adapter`. Nothing is opened until the first call, which runs `adapter.migrate()` first.
 *
 * @throws {TypeError} When `adapter` lacks a method of {@link StoreAdapter} (each one missing is named), or its
 * `dialect` or `supportsMultipleProcesses`.
 *
 * @example
 * ```ts
 * import { createStore, runAdapterSuite } from "statek/store";
 * const store = createStore(new MyEngineAdapter({ url }));
 * const statek = await Statek.open({ store, agents: [agent] });
 * ```
 */
export function createStore(adapter: StoreAdapter, options: CreateStoreOptions = {}): Store {
  if (typeof adapter !== "object" || adapter === null) throw new TypeError("createStore: expected a StoreAdapter");
  const missing = ADAPTER_METHODS.filter((method) => typeof Reflect.get(adapter, method) !== "function");
  if (missing.length) throw new TypeError(`createStore: the adapter has no ${missing.join(", ")} (see StoreAdapter in statek/store)`);
  if (typeof adapter.dialect !== "string" || adapter.dialect === "") throw new TypeError("createStore: the adapter's dialect must be a non-empty string");
  if (typeof adapter.supportsMultipleProcesses !== "boolean") throw new TypeError("createStore: the adapter's supportsMultipleProcesses must be a boolean");
  if (options.name !== undefined && (typeof options.name !== "string" || options.name === "")) throw new TypeError("createStore: name must be a non-empty string");
  return new StoreCore(adapter, options.name ?? `${adapter.dialect} store`);
}
