/**
 * `mcpServer`'s idempotency keys: unique per call, across sessions and server restarts. A stdio server has one
 * session name for every client, and each client numbers its JSON-RPC requests from the start again, so a key
 * built from those alone repeats — and a payment API deduplicating by it would drop a real charge.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { z } from "zod";
import { Agent, mcpServer, tool } from "../index.ts";

describe("idempotency keys over MCP", () => {
  it("differ for every call: in one session, and in a server started again with the same session name", async () => {
    const keys: string[] = [];
    const charge = tool({
      name: "charge", description: "Charges a card.", params: z.object({ cents: z.number().describe("Amount.") }), idempotent: true,
      run: ({ cents }, ctx) => {
        keys.push(ctx.idempotencyKey);
        return `charged ${cents}`;
      },
    });
    const agent = new Agent({ role: "billing", tools: [charge] });
    // Two lifetimes of `statek mcp serve` over stdio: the same session name, a new client each time.
    for (let restart = 0; restart < 2; restart++) {
      const server = await mcpServer(agent, { defaultSession: "stdio" });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: "app", version: "1.0.0" });
      await client.connect(clientSide);
      for (let call = 0; call < 2; call++) await client.callTool({ name: "charge", arguments: { cents: 100 } });
      await client.close();
      await server.close();
    }
    assert.equal(keys.length, 4);
    assert.equal(new Set(keys).size, 4, `every call has its own key: ${keys.join(", ")}`);
    for (const key of keys) assert.match(key, /^mcp:stdio:\d+:[0-9a-f-]{36}$/);
  });
});
