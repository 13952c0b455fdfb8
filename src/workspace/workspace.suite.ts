/**
 * @module
 * The conformance suite every {@link Executor} passes: it drives a real `Workspace`
 * through cells, persistence, the membrane and tools. Every case runs cold (each cell in a freshly opened
 * workspace restored from the rows the previous cells stored, which proves restore-from-store) and warm (one
 * workspace kept across the cells), and the two runs must print and store the same. An executor's test
 * file calls {@link runWorkspaceSuite}, then adds the cases only that executor has. The file name is not
 * `*.test.ts`, so the test runner never runs it on its own.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Executor } from "./executor.ts";
import { Session, type SessionMode, type SuiteContext, type Transcript } from "./suite/harness.ts";
import { boundaryCases } from "./suite/boundary.suite.ts";
import { cellCases } from "./suite/cells.suite.ts";
import { codecCases } from "./suite/codec.suite.ts";
import { collectCases } from "./suite/collect.suite.ts";
import { membraneCases } from "./suite/membrane.suite.ts";
import { sandboxCases } from "./suite/sandbox.suite.ts";
import { textCases } from "./suite/texts.suite.ts";
import { realmGlobalCases } from "./suite/realm-globals.suite.ts";
import { realmCases } from "./suite/realm.suite.ts";
import { toolCases } from "./suite/tools.suite.ts";

/** How to run {@link runWorkspaceSuite} against one executor. */
export interface WorkspaceSuiteOptions {
  /** Shown as the suite's `describe` name, e.g. `quickjs`. */
  name: string;
  /**
   * Makes the executor under test. One executor serves the whole suite (its sandbox threads are made once) and is
   * closed after it.
   */
  executor: () => Executor;
  /** Case names to skip, each with the reason. A name that is not a case fails the suite. */
  skip?: Record<string, string>;
}

/**
 * Defines the conformance cases for one executor. Each case runs twice, cold (a fresh workspace per cell) and
 * warm (one workspace per session), and both runs must print and store the same (see `suite/harness.ts`).
 */
export function runWorkspaceSuite({ name, executor: make, skip = {} }: WorkspaceSuiteOptions): void {
  describe(`Workspace conformance: ${name}`, () => {
    let shared: Executor | undefined;
    const executor = () => (shared ??= make());
    after(() => shared?.close?.());
    const names = new Set<string>();
    // The run in progress: cases run one at a time, each once per mode.
    let run: { mode: SessionMode; transcript: Transcript; sessions: Session[] } | undefined;
    const inMode = async (mode: SessionMode, body: () => Promise<void>): Promise<Transcript> => {
      run = { mode, transcript: [], sessions: [] };
      const current = run;
      try {
        await body();
      } catch (error) {
        if (error instanceof Error) error.message = `(${mode}) ${error.message}`;
        throw error;
      } finally {
        for (const session of current.sessions) session.close();
        run = undefined;
      }
      return current.transcript;
    };
    const context: SuiteContext = {
      test(caseName, body, options = {}) {
        if (names.has(caseName)) throw new Error(`duplicate case name: ${caseName}`);
        names.add(caseName);
        it(caseName, { skip: skip[caseName] ?? false }, async () => {
          const cold = await inMode("cold", body);
          if (options.coldOnly) return;
          const warm = await inMode("warm", body);
          assertSameRuns(cold, warm);
        });
      },
      session: (options) => {
        if (!run) throw new Error("sessions are made inside a case");
        const session = new Session(executor, options, run.mode, run.transcript, run.sessions.length);
        run.sessions.push(session);
        return session;
      },
      executor,
    };
    cellCases(context);
    codecCases(context);
    membraneCases(context);
    toolCases(context);
    boundaryCases(context);
    sandboxCases(context);
    textCases(context);
    realmCases(context);
    realmGlobalCases(context);
    collectCases(context);
    it("skip names only existing cases", { skip: false }, () => {
      const unknown = Object.keys(skip).filter((caseName) => !names.has(caseName));
      if (unknown.length) throw new Error(`skip names cases that do not exist: ${unknown.join(", ")}`);
    });
  });
}

/** Warm and cold runs of a case printed and stored the same, cell by cell. */
function assertSameRuns(cold: Transcript, warm: Transcript): void {
  for (let i = 0; i < Math.max(cold.length, warm.length); i++) {
    const [a, b] = [cold[i], warm[i]];
    const where = a ? `session ${a.session}, cell ${a.cell}` : `cell ${i}`;
    assert.deepEqual(b?.lines, a?.lines, `warm and cold runs printed differently (${where})`);
    assert.deepEqual(b?.rows, a?.rows, `warm and cold runs stored different variables (${where})`);
  }
}

export { Session, type SessionMode, type SessionOptions, type SuiteContext, type Transcript } from "./suite/harness.ts";
