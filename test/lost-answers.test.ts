/**
 * A write whose commit landed but whose answer never came back (the connection cut right after the server read
 * its `COMMIT`) is retried by the caller's store retries; the retry must find its own write, not do it again or
 * report it as someone else's. A TCP proxy between the application and PostgreSQL lets the server read the
 * whole transaction and cuts the application off before the answer.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";
import { POSTGRES_URL, freshSchema, postgresSkipReason } from "./support/postgres-server.ts";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

/** A Statek on a fresh schema of the test server, reached through a proxy the test can cut. */
async function throughProxy(agent: Agent, body: (statek: Statek, proxy: TcpProxy) => Promise<void>): Promise<void> {
  const proxy = await startTcpProxy("127.0.0.1", Number(new URL(POSTGRES_URL!).port));
  const url = new URL(POSTGRES_URL!);
  url.port = String(proxy.port);
  url.searchParams.set("schema", freshSchema());
  const statek = await Statek.open({ store: url.toString(), agents: [agent] });
  try {
    await body(statek, proxy);
  } finally {
    await statek.close();
    await proxy.close();
  }
}

describe("a write whose answer was lost (PostgreSQL)", { skip: postgresSkipReason() ?? false }, () => {
  it("pushMessage: the message is appended once", async () => {
    const agent = new Agent({ role: "listener", model: scriptedModel([ts("const m = await waitForMessage()\nexit(m)")]) });
    await throughProxy(agent, async (statek, proxy) => {
      const { id } = await statek.submitJob(agent);
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      const cut = proxy.cutAfter("COMMIT");
      await statek.pushMessage(id, "hello");
      await cut;
      const view = await statek.runJob(id);
      assert.deepEqual(view.history.filter((record) => record.kind === "user-message").map((record) => record.data.text), ["hello"]);
      assert.equal(view.status, "DONE");
      assert.equal(view.exitStatus, "hello");
    });
  });

  it("approve: the decision stands and is reported as made, not as decided already", async () => {
    const sent: number[] = [];
    const transfer = tool({
      name: "transfer", description: "Moves money.", params: z.object({ n: z.number().describe("How much.") }), needsApproval: true,
      run: ({ n }) => {
        sent.push(n);
        return `sent ${n}`;
      },
    });
    const agent = new Agent({ role: "payer", model: scriptedModel([ts("exit(await transfer({ n: 5 }))")]), tools: [transfer] });
    await throughProxy(agent, async (statek, proxy) => {
      const { id } = await statek.submitJob(agent);
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      const [request] = await statek.pendingApprovals({ jobId: id });
      assert.ok(request);
      const cut = proxy.cutAfter("COMMIT");
      await statek.approve(id, request.requestId, { by: "alice", note: "ok" });
      await cut;
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.equal(view.exitStatus, "sent 5");
      assert.deepEqual(sent, [5]);
      assert.deepEqual(view.history.flatMap((record) => (record.kind === "approval" ? [[record.data.by, record.data.approved]] : [])), [["alice", true]]);
    });
  });
});
