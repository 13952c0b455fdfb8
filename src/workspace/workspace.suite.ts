/**
 * @module
 * The conformance suite every {@link Executor} passes (DESIGN.md §6.5): it drives a real `Workspace`
 * through cells, persistence, the membrane and tools. Each cell runs in a freshly opened workspace restored
 * from the rows the previous cells stored, so every case also proves restore-from-store. An executor's test
 * file calls {@link runWorkspaceSuite}, then adds the cases only that executor has. The file name is not
 * `*.test.ts`, so the test runner never runs it on its own.
 */
import { describe, it } from "node:test";
import type { Executor } from "./executor.ts";
import { Session, type SuiteContext } from "./suite/harness.ts";
import { boundaryCases } from "./suite/boundary.suite.ts";
import { cellCases } from "./suite/cells.suite.ts";
import { codecCases } from "./suite/codec.suite.ts";
import { membraneCases } from "./suite/membrane.suite.ts";
import { realmGlobalCases } from "./suite/realm-globals.suite.ts";
import { realmCases } from "./suite/realm.suite.ts";
import { toolCases } from "./suite/tools.suite.ts";

/** How to run {@link runWorkspaceSuite} against one executor. */
export interface WorkspaceSuiteOptions {
  /** Shown as the suite's `describe` name, e.g. `quickjs`. */
  name: string;
  /** The executor under test (called once per workspace). */
  executor: () => Executor;
  /** Case names to skip, each with the reason. A name that is not a case fails the suite. */
  skip?: Record<string, string>;
}

/** Defines the conformance cases for one executor. */
export function runWorkspaceSuite({ name, executor, skip = {} }: WorkspaceSuiteOptions): void {
  describe(`Workspace conformance: ${name}`, () => {
    const names = new Set<string>();
    const context: SuiteContext = {
      test(caseName, body) {
        if (names.has(caseName)) throw new Error(`duplicate case name: ${caseName}`);
        names.add(caseName);
        it(caseName, { skip: skip[caseName] ?? false }, body);
      },
      session: (options) => new Session(executor, options),
      executor,
    };
    cellCases(context);
    codecCases(context);
    membraneCases(context);
    toolCases(context);
    boundaryCases(context);
    realmCases(context);
    realmGlobalCases(context);
    it("skip names only existing cases", { skip: false }, () => {
      const unknown = Object.keys(skip).filter((caseName) => !names.has(caseName));
      if (unknown.length) throw new Error(`skip names cases that do not exist: ${unknown.join(", ")}`);
    });
  });
}

export { Session, type SessionOptions, type SuiteContext } from "./suite/harness.ts";
