/**
 * @module
 * The conformance suite every {@link Store} passes. A test file calls {@link runStoreSuite} once per store
 * configuration the environment offers (`test/store-conformance.test.ts` loops over them), then adds the cases
 * only its engine has; an engine of your own calls {@link runAdapterSuite} with its adapter. The cases live in
 * `suite/`, one file per part of the contract; neither this file nor those are `*.test.ts`, so the test runner
 * never runs them on their own.
 */
import { afterEach, beforeEach, describe, it } from "node:test";
import { createStore } from "./create-store.ts";
import type { StoreAdapter } from "./store-adapter.ts";
import type { Store } from "./store.ts";
import { agentCases } from "./suite/agents.cases.ts";
import { browseCases } from "./suite/browse.cases.ts";
import { damageCases } from "./suite/damage.cases.ts";
import { eventCases } from "./suite/events.cases.ts";
import { forkCases } from "./suite/forks.cases.ts";
import { futureCases } from "./suite/futures.cases.ts";
import { jobCases } from "./suite/jobs.cases.ts";
import { journalCases } from "./suite/journal.cases.ts";
import { leaseCases } from "./suite/leases.cases.ts";
import { memoryCases } from "./suite/memory.cases.ts";
import { sharedCases } from "./suite/shared.cases.ts";
import { waitCases } from "./suite/waits.cases.ts";
import type { DamageTarget, StoreSuiteOptions, SuiteContext } from "./suite/suite-context.ts";

export { sampleJob, sampleRecord } from "./suite/suite-context.ts";
export type { DamageTarget, StoreSuiteOptions } from "./suite/suite-context.ts";

/**
 * Defines the conformance cases for one store configuration (inside a `node:test` file).
 *
 * @example
 * ```ts
 * runStoreSuite({ name: "sqlite :memory:", create: async () => createSqliteStore({ path: ":memory:" }) });
 * ```
 */
export function runStoreSuite(options: StoreSuiteOptions): void {
  const { name, create, openSecond, damage, skip = {} } = options;
  describe(`Store conformance: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await create();
      await store.migrate();
    });
    afterEach(async () => {
      await store.close();
    });
    const context: SuiteContext = {
      test: (caseName, body) => void it(caseName, { skip: skip[caseName] ?? false }, () => body(store)),
      testShared: (caseName, body) => {
        const reason = skip[caseName] ?? (openSecond ? false : "this store cannot be opened twice (no openSecond)");
        it(caseName, { skip: reason }, async () => {
          const second = await openSecond!(store);
          try {
            await second.migrate();
            await body(store, second);
          } finally {
            await second.close();
          }
        });
      },
      testDamage: (caseName, body) => {
        const reason = skip[caseName] ?? (damage ? false : "no damage hook to corrupt rows with");
        it(caseName, { skip: reason }, () => body(store, (target) => damage!(store, target)));
      },
    };
    jobCases(context);
    leaseCases(context);
    journalCases(context);
    futureCases(context);
    waitCases(context);
    eventCases(context);
    browseCases(context);
    damageCases(context);
    sharedCases(context);
    memoryCases(context);
    agentCases(context);
    forkCases(context);
  });
}

/** How to run {@link runAdapterSuite} against an engine's adapter. */
export interface AdapterSuiteOptions {
  /** Shown as the suite's `describe` name. */
  name: string;
  /** A fresh adapter over an empty database, for one case. The suite wraps it with `createStore`, migrates and closes it. */
  createAdapter: () => StoreAdapter | Promise<StoreAdapter>;
  /**
   * A second adapter over the database of `first` (another connection, as another process would open), for the
   * cases where two connections race. Omit it for a database that cannot be shared; those cases are skipped.
   */
  openSecond?: (first: StoreAdapter) => StoreAdapter | Promise<StoreAdapter>;
  /** Damages one stored field of the database behind `adapter` (see {@link StoreSuiteOptions.damage}). */
  damage?: (adapter: StoreAdapter, target: DamageTarget) => Promise<boolean>;
  /** Case names to skip, each with the reason. */
  skip?: Record<string, string>;
}

/**
 * Defines the conformance cases for an engine's adapter, run through `createStore` (inside a `node:test`
 * file): what a third-party store runs to show that the rules above its adapter hold on its engine.
 *
 * @example
 * ```ts
 * import { runAdapterSuite } from "statek/store";
 * runAdapterSuite({ name: "my engine", createAdapter: () => new MyEngineAdapter({ url: freshDatabase() }) });
 * ```
 */
export function runAdapterSuite(options: AdapterSuiteOptions): void {
  const { name, createAdapter, openSecond, damage, skip } = options;
  const adapters = new WeakMap<Store, StoreAdapter>();
  const wrap = async (adapter: StoreAdapter | Promise<StoreAdapter>) => {
    const opened = await adapter;
    const store = createStore(opened);
    adapters.set(store, opened);
    return store;
  };
  runStoreSuite({
    name,
    create: () => wrap(createAdapter()),
    ...(openSecond ? { openSecond: (store: Store) => wrap(openSecond(adapters.get(store)!)) } : {}),
    ...(damage ? { damage: (store: Store, target: DamageTarget) => damage(adapters.get(store)!, target) } : {}),
    ...(skip ? { skip } : {}),
  });
}
