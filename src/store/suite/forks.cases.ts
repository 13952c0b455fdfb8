/**
 * @module
 * Conformance cases: variable versions and forks — a fork's variables are the original's as of the end of its
 * turn, the original is only read, and what cannot be forked is refused.
 */
import assert from "node:assert/strict";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import type { JobRow, Store, VariableRow } from "../store.ts";
import { sampleJob, sampleRecord, type SuiteContext } from "./suite-context.ts";

/** A job of three turns: `a` set at 0 (submitted), changed at 1, deleted at 2; `b` set at 1; `c` set at 2 and twice at 3. */
async function threeTurns(store: Store): Promise<JobRow> {
  const job = sampleJob();
  await store.insertJob(job, [{ name: "a", blob: "1", position: 0 }], []);
  const steps: Array<{ put?: VariableRow[]; deleted?: string[] }> = [
    {},
    { put: [{ name: "a", blob: "2", position: 0 }, { name: "b", blob: '"x"', position: 1 }] },
    { put: [{ name: "c", blob: "true", position: 2 }], deleted: ["a"] },
    { put: [{ name: "c", blob: "false", position: 2 }] },
    { put: [{ name: "c", blob: "null", position: 2 }] },
  ];
  // The first commit only asks for turn 1; each next one executes turn `turns` (as the commit finds it) and asks
  // for the next, but the last two, which are one turn's (a cell that waited, then ended).
  const turnsAfter = [1, 2, 3, 3, 3];
  for (const [index, step] of steps.entries()) {
    await store.commit({
      id: job.id, expectedVersion: index, job: { turns: turnsAfter[index]!, status: "STARTED" },
      ...(step.put ? { putVariables: step.put } : {}), ...(step.deleted ? { deleteVariables: step.deleted } : {}),
      appendHistory: [sampleRecord(index)],
    });
  }
  return (await store.getJob(job.id))!;
}

function forkOf(original: JobRow, turn: number, overrides: Partial<JobRow> = {}): JobRow & { forkedFrom: { jobId: string; turn: number } } {
  return { ...sampleJob({ turns: turn, historyLength: 1, ...overrides }), forkedFrom: { jobId: original.id, turn } };
}

/** Defines the fork cases. */
export function forkCases({ test }: SuiteContext): void {
  test("insertFork takes the original's variables as of the end of the fork's turn", async (store) => {
    const original = await threeTurns(store);
    const expected: Record<number, VariableRow[]> = {
      0: [{ name: "a", blob: "1", position: 0 }],
      1: [{ name: "a", blob: "2", position: 0 }, { name: "b", blob: '"x"', position: 1 }],
      2: [{ name: "b", blob: '"x"', position: 1 }, { name: "c", blob: "true", position: 2 }],
      3: [{ name: "b", blob: '"x"', position: 1 }, { name: "c", blob: "null", position: 2 }],
    };
    for (const [turn, variables] of Object.entries(expected)) {
      const fork = forkOf(original, Number(turn));
      await store.insertFork({ job: fork, history: [sampleRecord(0)], putVariables: [] });
      assert.deepEqual(await store.getVariables(fork.id), variables, `variables as of turn ${turn}`);
      assert.deepEqual(await store.getJob(fork.id), fork);
    }
  });

  test("insertFork puts the given variables over the copied ones and leaves the original as it was", async (store) => {
    const original = await threeTurns(store);
    const variables = await store.getVariables(original.id);
    const history = await store.getHistory(original.id);
    const fork = forkOf(original, 1);
    await store.insertFork({
      job: fork, history: [sampleRecord(0)], putVariables: [{ name: "z", blob: "9", position: 0 }, { name: "a", blob: "7", position: 5 }],
    });
    assert.deepEqual(await store.getVariables(fork.id), [
      { name: "a", blob: "7", position: 0 }, { name: "b", blob: '"x"', position: 1 }, { name: "z", blob: "9", position: 2 },
    ]);
    assert.deepEqual(await store.getJob(original.id), original);
    assert.deepEqual(await store.getVariables(original.id), variables);
    assert.deepEqual(await store.getHistory(original.id), history);
    assert.equal((await store.getJob(original.id))!.forkedFrom, undefined);
  });

  test("a fork can be forked again at its earlier turns, and its own changes are kept as versions", async (store) => {
    const original = await threeTurns(store);
    const fork = forkOf(original, 2);
    await store.insertFork({ job: fork, history: [sampleRecord(0)], putVariables: [] });
    await store.commit({ id: fork.id, expectedVersion: 0, job: { turns: 3 }, putVariables: [{ name: "d", blob: "4", position: 3 }] });
    const again = forkOf({ ...fork }, 1);
    await store.insertFork({ job: again, history: [sampleRecord(0)], putVariables: [] });
    assert.deepEqual(await store.getVariables(again.id), [{ name: "a", blob: "2", position: 0 }, { name: "b", blob: '"x"', position: 1 }]);
    const later = forkOf({ ...fork }, 3);
    await store.insertFork({ job: later, history: [sampleRecord(0)], putVariables: [] });
    assert.deepEqual((await store.getVariables(later.id)).map((variable) => variable.name), ["b", "c", "d"]);
  });

  test("insertFork refuses an unknown original, a turn it has not reached, and a row that does not say where it forks", async (store) => {
    const original = await threeTurns(store);
    const unknown = { ...forkOf(original, 0), forkedFrom: { jobId: "no-such-job", turn: 0 } };
    await assert.rejects(store.insertFork({ job: unknown, history: [sampleRecord(0)], putVariables: [] }), NoSuchJobError);
    await assert.rejects(store.insertFork({ job: forkOf(original, 4), history: [sampleRecord(0)], putVariables: [] }), /has 3 turns; there is no turn 4/);
    const mismatched = { ...forkOf(original, 2), turns: 1 };
    await assert.rejects(store.insertFork({ job: mismatched, history: [sampleRecord(0)], putVariables: [] }), /must be the turn it forks/);
    const { forkedFrom: _, ...plain } = forkOf(original, 1);
    // @ts-expect-error a fork without its origin is refused at run time too
    await assert.rejects(store.insertFork({ job: plain, history: [], putVariables: [] }), TypeError);
    await assert.rejects(store.insertJob(forkOf(original, 1), [], [sampleRecord(0)]), /is inserted with insertFork/);
    assert.equal(await store.getJob(unknown.id), null);
  });

  test("a job inserted at a later turn keeps its variables from that turn: earlier turns cannot be forked", async (store) => {
    const job = sampleJob({ turns: 2 });
    await store.insertJob(job, [{ name: "a", blob: "1", position: 0 }], []);
    await assert.rejects(store.insertFork({ job: forkOf(job, 1), history: [sampleRecord(0)], putVariables: [] }), /from turn 2 on/);
    const fork = forkOf(job, 2);
    await store.insertFork({ job: fork, history: [sampleRecord(0)], putVariables: [] });
    assert.deepEqual(await store.getVariables(fork.id), [{ name: "a", blob: "1", position: 0 }]);
  });
}
