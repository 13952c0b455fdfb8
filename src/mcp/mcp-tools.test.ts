import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { Agent, McpConnectionError, Statek, mcpTools, scriptedModel, type McpTools } from "../index.ts";
import { toolDeclaration } from "../docs/tool-docs.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const weatherServer = { command: process.execPath, args: [join(import.meta.dirname, "..", "..", "test", "fixtures", "mcp-weather-server.ts")] };

/** Runs one job whose model writes `cells` in turn (then exits), with `tools`. */
async function runCells(tools: McpTools, cells: string[]) {
  const agent = new Agent({ role: "forecaster", model: scriptedModel([...cells.map(ts), ts("exit()")]), tools });
  const statek = await Statek.open({ store: ":memory:", agents: [agent] });
  try {
    const { id } = await statek.submitJob(agent);
    return await statek.runJob(id);
  } finally {
    await statek.close();
  }
}

describe("mcpTools: a real MCP server's tools in a job", () => {
  let tools: McpTools;
  before(async () => {
    tools = await mcpTools(weatherServer, { timeoutMs: 400 });
  });
  after(() => tools.close());

  it("imports every tool with its description, an identifier name, its schema as parameters and its hints", () => {
    assert.deepEqual(tools.map((tool) => tool.name), ["get_forecast", "shout", "radar", "locate", "hang", "crash", "count"]);
    const forecast = tools[0]!;
    assert.equal(forecast.description, "Forecast for a city, one temperature per day.");
    assert.equal(forecast.readOnly, true, "readOnlyHint makes it read-only");
    assert.equal(tools[1]!.readOnly, false, "side-effecting unless marked read-only");
    assert.equal(tools[1]!.idempotent, true, "idempotentHint makes it idempotent");
    assert.deepEqual(forecast.parameterNames, ["city", "days"]);
    assert.match(toolDeclaration(forecast), /declare function get_forecast\(city: string, days\?: number\)/);
  });

  it("is called from a cell: structured content, text and images become workspace values", async () => {
    const view = await runCells(tools, [
      "const forecast = await get_forecast('Oslo', 2)\nconst loud = await shout({ text: 'hi' })\nconst image = await radar()\nforecast.temperatures.length",
    ]);
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.deepEqual(view.console, ["2"]);
    assert.deepEqual(view.variables.forecast, { city: "Oslo", temperatures: [10, 11] });
    assert.equal(view.variables.loud, "HI");
    assert.deepEqual(view.variables.image, { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" });
    const call = view.history.find((record) => record.kind === "tool-call" && record.data.name === "get_forecast");
    assert.ok(call?.kind === "tool-call" && call.data.error === undefined && /Oslo/.test(call.data.result ?? ""));
  });

  it("validates arguments against the server's schema before calling it", async () => {
    const view = await runCells(tools, ["await get_forecast('Oslo', 9)"]);
    assert.equal(view.console.length, 1);
    assert.match(view.console[0]!, /^ValidationError: get_forecast\(days\): /);
  });

  it("turns an error result into a tool error agent code can catch", async () => {
    const view = await runCells(tools, ["try { await locate('Atlantis') } catch (error) { print(error.name, '|', error.message) }"]);
    assert.deepEqual(view.console, ["McpToolError | no city called Atlantis"]);
  });

  it("gives a server that does not answer a clear tool error within the timeout; the job goes on", async () => {
    const started = performance.now();
    const view = await runCells(tools, ["await hang()", "print('still here')"]);
    assert.deepEqual(view.console, ["McpConnectionError: MCP server 'weather' did not answer hang within 400 ms", "still here"]);
    assert.equal(view.status, "DONE");
    assert.ok(performance.now() - started < 20_000);
  });

  it("gives a server that died a tool error, and starts it again for the next call", async () => {
    const view = await runCells(tools, ["await count()", "await crash()", "await count()"]);
    assert.equal(view.console[0], "1");
    assert.match(view.console[1]!, /^McpConnectionError: MCP server 'weather' closed the connection before answering crash/);
    assert.equal(view.console[2], "1", "a new server process answered");
  });
});

describe("mcpTools with a client the application connected", () => {
  it("uses it as it is and leaves it open on close()", async () => {
    const server = new McpServer({ name: "notes", version: "1.0.0" });
    server.registerTool("add-note", { description: "Adds a note.", inputSchema: { "note-text": z.string().describe("The note.") } },
      async (args) => ({ content: [{ type: "text", text: `saved: ${args["note-text"]}` }] }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "app", version: "1.0.0" });
    await client.connect(clientSide);
    const tools = await mcpTools(client, { prefix: "notes_" });
    assert.deepEqual(tools.map((tool) => tool.name), ["notes_add_note"]);
    assert.deepEqual(tools[0]!.parameterNames, ["note_text"], "a property name that is no identifier gets one");
    const view = await runCells(tools, ["await notes_add_note('milk')"]);
    assert.deepEqual(view.console, ["saved: milk"], "the argument goes back under the server's own name");
    await tools.close();
    assert.equal((await client.listTools()).tools.length, 1, "the application's client is still open");
    await client.close();
  });

  it("refuses unknown tool names in include, and a prefix that is not an identifier", async () => {
    const server = new McpServer({ name: "empty", version: "1.0.0" });
    server.registerTool("ping", { description: "Ping." }, async () => ({ content: [{ type: "text", text: "pong" }] }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "app", version: "1.0.0" });
    await client.connect(clientSide);
    await assert.rejects(mcpTools(client, { include: ["pong"] }), /empty has no tool 'pong' \(it has: ping\)/);
    await assert.rejects(mcpTools(client, { prefix: "a-b" }), /prefix must be an identifier/);
    await client.close();
  });

  it("names the command when the server cannot be started", async () => {
    await assert.rejects(mcpTools({ command: join(import.meta.dirname, "no-such-server") }, { connectTimeoutMs: 5000 }), /cannot connect to the MCP server .*no-such-server/);
  });

  it("McpConnectionError is retryable", () => {
    assert.equal(new McpConnectionError({ server: "s", toolName: "t", problem: "timeout", detail: "x" }).isRetryable, true);
  });
});
