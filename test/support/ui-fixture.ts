/**
 * A store with jobs to look at and a running UI over it, for the UI's tests: a `DONE` job (code, console, a
 * tool call), a `SUSPENDED` one waiting for an external future (`payment:1`), a `SUSPENDED` one waiting for an
 * approval future and a child of the first. The UI gets the real `Statek`'s actions plus, where the `Statek` of
 * this branch has none yet (approvals, cancel, retry), stand-ins over the store that keep DESIGN §4's shapes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../../src/index.ts";
import { encodeHistoryRow } from "../../src/jobs/history/history-codec.ts";
import type { Store } from "../../src/store/store.ts";
import { startUi, type RunningUi } from "../../src/ui/serve-ui.ts";
import { uiActionsOf, type PendingApproval, type UiActions } from "../../src/ui/ui-actions.ts";
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
export async function startUiFixture(options: { tokens?: UiToken[]; fullActions?: boolean } = {}): Promise<UiFixture> {
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
  // `fullActions: false`: only the actions every Statek has, so the page's "unavailable" path is exercised.
  const own = uiActionsOf(statek);
  const actions: UiActions = options.fullActions === false
    ? { pushMessage: own.pushMessage, resolveFuture: own.resolveFuture, rejectFuture: own.rejectFuture }
    : { ...standInActions(store), ...own }; // the real ones where this Statek has them
  const ui = await startUi({ store, actions, port: 0, ...(options.tokens ? { tokens: options.tokens } : {}) });
  return {
    statek, store, ui, ids: { done, waiting, approval, child },
    async close() {
      await ui.close();
      await statek.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Approvals, cancel and retry over the store, with the shapes of DESIGN §4 (replaced by Statek's own at merge). */
function standInActions(store: Store): UiActions {
  const setStatus = async (id: string, status: "CANCELLED" | "STARTED", reason: string) => {
    const row = (await store.getJob(id))!;
    await store.commit({
      id, expectedVersion: row.version, job: { status },
      appendHistory: [encodeHistoryRow(row.historyLength, "status", Date.now(), { status, reason })],
      ...(status === "CANCELLED" ? { cancelFutures: true } : {}),
      events: [{ kind: "status", data: { status } }],
    });
  };
  return {
    async pendingApprovals(filter = {}): Promise<PendingApproval[]> {
      if (!filter.jobId) return [];
      const futures = await store.listFutures(filter.jobId, { state: "waiting" });
      return futures.filter((future) => future.kind === "approval").map((future) => {
        const data = future.data as { tool: string; args: unknown; summary?: string };
        return { jobId: filter.jobId!, requestId: future.key, tool: data.tool, args: data.args, summary: data.summary!, requestedAt: new Date(future.createdAt) };
      });
    },
    async approve(jobId, requestId, decision) {
      await store.settleFuture(requestId, { state: "resolved", value: { approved: true, note: decision.note ?? null, by: decision.by ?? null } });
    },
    async deny(jobId, requestId, decision) {
      await store.settleFuture(requestId, { state: "rejected", value: { name: "ApprovalDenied", message: decision.note ?? "denied" } });
    },
    cancelJob: (id, reason) => setStatus(id, "CANCELLED", reason ?? "cancelled"),
    retryJob: (id) => setStatus(id, "STARTED", "retried"),
  };
}
