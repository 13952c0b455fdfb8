/**
 * A store with jobs to look at and a running UI over it, for the UI's tests: a `DONE` job (code, console, a
 * tool call), a `SUSPENDED` one waiting for an external future (`payment:1`), a `SUSPENDED` one waiting for an
 * approval future and a child of the first. The UI gets the real `Statek`'s actions.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../../src/index.ts";
import type { Store } from "../../src/store/store.ts";
import { startUi, type RunningUi } from "../../src/ui/serve-ui.ts";
import { uiActionsOf } from "../../src/ui/ui-actions.ts";
import type { UiToken } from "../../src/ui/ui-access.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

/** What a fixture holds. */
export interface UiFixture {
  statek: Statek;
  store: Store;
  ui: RunningUi;
  ids: { done: string; waiting: string; approval: string; child: string };
  close(): Promise<void>;
}

/** Builds the store and starts the UI (port 0). */
export async function startUiFixture(options: { tokens?: UiToken[] } = {}): Promise<UiFixture> {
  const dir = mkdtempSync(join(tmpdir(), "statek-ui-"));
  const pay = tool({
    name: "requestPayment",
    description: "Asks the bank for a payment; the answer comes later.",
    params: z.object({ id: z.number().describe("Payment id.") }),
    run: ({ id }, ctx) => ctx.future(`payment:${id}`),
  });
  const lookup = tool({
    name: "lookup",
    description: "Looks a word up.",
    params: z.object({ word: z.string().describe("The word.") }),
    run: ({ word }) => `${word}: a greeting`,
  });
  const worker = new Agent({
    role: "worker",
    tools: [lookup],
    model: scriptedModel([ts("// say hello\nconst word = 'hello'\nconst meaning = await lookup(word)\nprint(meaning)\nexit({ word, n: 42 })")]),
  });
  const payer = new Agent({ role: "payer", tools: [pay], model: scriptedModel([ts("const answer = await requestPayment(1)\nprint('bank says', answer)\nexit(answer)")]) });
  const statek = await Statek.open({ store: join(dir, "statek.db"), agents: [worker, payer] });
  const done = (await statek.submitJob(worker)).id;
  await statek.runJob(done);
  const waiting = (await statek.submitJob(payer)).id;
  await statek.runJob(waiting);
  const store = statek.store;
  // A job waiting for an approval (the approvals engine is not on this branch: its future row is written as it will be).
  const approval = (await statek.submitJob(worker)).id;
  const row = (await store.getJob(approval))!;
  await store.commit({
    id: approval, expectedVersion: row.version,
    job: { status: "SUSPENDED" },
    createFutures: [{ key: `${approval}:0:1`, jobId: approval, kind: "approval", wakeAt: null, data: { tool: "moveMeeting", args: { to: "Friday" }, summary: "Move the board meeting" } }],
  });
  const child = (await statek.submitJob(worker)).id;
  const childRow = (await store.getJob(child))!;
  // Parentage is set at submit time by child jobs (not on this branch): written directly.
  await store.commit({ id: child, expectedVersion: childRow.version, job: { parentId: done } });
  const ui = await startUi({ store, actions: uiActionsOf(statek), port: 0, ...(options.tokens ? { tokens: options.tokens } : {}) });
  return {
    statek, store, ui, ids: { done, waiting, approval, child },
    async close() {
      await ui.close();
      await statek.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
