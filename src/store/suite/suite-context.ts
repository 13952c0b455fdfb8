/**
 * @module
 * What the conformance cases share: the suite's options (how to make a store, a second connection to it, and
 * damage to its rows), the case declaration, and sample rows.
 */
import { randomUUID } from "node:crypto";
import type { HistoryRow, JobRow, Store } from "../store.ts";

/**
 * Where {@link StoreSuiteOptions.damage} writes a value the field cannot hold — text that is not JSON in a JSON
 * column, an unknown status or state, text in an integer column — bypassing the store's checks.
 */
export type DamageTarget =
  | { table: "jobs"; jobId: string; field: "params" | "status" | "state" | "turns" | "wakeAt" }
  | { table: "history"; jobId: string; seq: number }
  | { table: "variables"; jobId: string; name: string }
  | { table: "journal"; jobId: string; index: number }
  | { table: "futures"; key: string; field: "value" | "state" }
  | { table: "events"; id: number };

/** How to run `runStoreSuite` against one store configuration. */
export interface StoreSuiteOptions {
  /** Shown as the suite's `describe` name, e.g. `sqlite :memory:`. */
  name: string;
  /** A fresh, empty store for one case. The suite migrates and closes it. */
  create: () => Promise<Store>;
  /**
   * A second connection to the database of `store` (another `Store` instance, as another process would open),
   * for the cases where two connections race: migrations, commits, claims, fencing. Omit it for stores that
   * cannot be shared (`:memory:`); those cases are then skipped, saying so.
   */
  openSecond?: (store: Store) => Promise<Store>;
  /**
   * Damages one stored field of `store` behind its back (raw SQL), for the corrupt-row cases. Resolves to false
   * when the engine cannot hold such a value (a typed column); that field's check is then left out. Omit it and
   * the corrupt-row cases are skipped, saying so.
   */
  damage?: (store: Store, target: DamageTarget) => Promise<boolean>;
  /** Case names to skip, each with the reason. */
  skip?: Record<string, string>;
}

/** What each group of cases receives. */
export interface SuiteContext {
  /** Declares a case; its body gets the case's fresh, migrated store. */
  test(name: string, body: (store: Store) => Promise<void>): void;
  /** Like `test`, for a case that needs `openSecond`; `second` is closed after the case. */
  testShared(name: string, body: (store: Store, second: Store) => Promise<void>): void;
  /** Like `test`, for a case that needs `damage`. */
  testDamage(name: string, body: (store: Store, damage: (target: DamageTarget) => Promise<boolean>) => Promise<void>): void;
}

/** A job with sensible defaults, for tests. */
export function sampleJob(overrides: Partial<JobRow> = {}): JobRow {
  return {
    id: randomUUID(),
    role: "assistant",
    status: "READY",
    params: {},
    metadata: {},
    parentId: null,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    version: 0,
    turns: 0,
    pendingSeq: null,
    historyLength: 0,
    exitStatus: null,
    error: null,
    usage: {},
    state: {},
    wakeAt: null,
    cell: 0,
    ...overrides,
  };
}

/** A history record for tests. */
export function sampleRecord(seq: number, data: HistoryRow["data"] = { n: seq }): HistoryRow {
  return { seq, kind: "console", at: 1_700_000_000_000 + seq, data };
}

/** Inserts a sample job with no variables or history and returns it. */
export async function insertSample(store: Store, overrides: Partial<JobRow> = {}): Promise<JobRow> {
  const job = sampleJob(overrides);
  await store.insertJob(job, [], []);
  return job;
}
