import assert from "node:assert/strict";
import { request } from "node:http";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent } from "../agents/agent.ts";
import { scriptedModel } from "../models/scripted-model.ts";
import { tool } from "../tools/tool.ts";
import { serveMcpHttp } from "./mcp-serve.ts";

const agent = new Agent({
  role: "calculator",
  model: scriptedModel([]),
  tools: [tool({ name: "add", description: "Adds.", params: z.object({ a: z.number().describe("a"), b: z.number().describe("b") }), readOnly: true, run: ({ a, b }) => a + b })],
});

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0", id: 1, method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1.0.0" } },
});

/** POSTs an initialize request to `url` with these headers; resolves to the status and the body. */
function post(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = request(
      { host: hostname, port, path: pathname, method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } },
      (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    sent.on("error", reject);
    sent.end(INITIALIZE);
  });
}

describe("the MCP HTTP server's Origin check", () => {
  it("refuses a page of another origin, and lets the server's own and clients that send none through", async () => {
    const server = await serveMcpHttp(agent);
    try {
      const own = new URL(server.url).origin;
      const refused = await post(server.url, { origin: "http://evil.example" });
      assert.equal(refused.status, 403);
      assert.match(refused.body, /forbidden: Origin \\"http:\/\/evil\.example\\" is not allowed \(allow it with allowedOrigins, or --allow-origin\)/);
      assert.equal((await post(server.url, { origin: "null" })).status, 403, "a sandboxed page's null origin is refused");
      assert.equal((await post(server.url, { origin: own.replace(/:\d+$/, ":1") })).status, 403, "another port is another origin");
      assert.equal((await post(server.url, { origin: own })).status, 200);
      assert.equal((await post(server.url, { origin: own.replace("127.0.0.1", "localhost") })).status, 200);
      assert.equal((await post(server.url, {})).status, 200, "a client that is not a browser sends no Origin");
    } finally {
      await server.close();
    }
  });

  it("lets the origins the application allows through, and refuses an allowed origin that is not one", async () => {
    const server = await serveMcpHttp(agent, { allowedOrigins: ["https://app.example"] });
    try {
      assert.equal((await post(server.url, { origin: "https://app.example" })).status, 200);
      assert.equal((await post(server.url, { origin: "https://app.example.evil" })).status, 403);
    } finally {
      await server.close();
    }
    await assert.rejects(serveMcpHttp(agent, { allowedOrigins: ["https://app.example/path"] }), /allowedOrigins: "https:\/\/app\.example\/path" is not an origin/);
    await assert.rejects(serveMcpHttp(agent, { allowedOrigins: ["app.example"] }), /allowedOrigins: "app\.example" is not an origin/);
  });
});
