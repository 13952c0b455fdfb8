/**
 * `statek mcp serve` as MCP clients see it: a real client (the SDK's) against the command run as its own
 * process, over stdio and over Streamable HTTP.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Agent, Statek, mcpTools, scriptedModel } from "../src/index.ts";

const root = join(import.meta.dirname, "..");
const bin = join(root, "bin", "statek.js");
const agents = join(root, "test", "fixtures", "mcp-agents.ts");

type Text = { type: string; text?: string };
const textOf = (result: Record<string, unknown>) => (result.content as Text[]).map((block) => block.text).join("\n");

/** The calls every transport must answer alike. */
async function checkServedTools(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name), ["add", "weekday", "divide"], "hidden tools never appear");
  const add = tools[0]!;
  assert.equal(add.description, "Adds two numbers.");
  assert.deepEqual(add.inputSchema.required, ["a", "b"]);
  assert.deepEqual(add.inputSchema.properties, { a: { type: "number", description: "First." }, b: { type: "number", description: "Second." } });
  assert.equal(add.annotations?.readOnlyHint, true);
  assert.deepEqual(tools[1]!.inputSchema.properties, { date: { type: "string", format: "date-time", description: "The date." } });

  assert.equal(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })), "5");
  const weekday = await client.callTool({ name: "weekday", arguments: { date: "2026-12-03" } });
  assert.equal(weekday.isError, undefined);
  assert.deepEqual(weekday.structuredContent, { day: "Thursday", iso: "2026-12-03T00:00:00.000Z" }, "an ISO string was prepared into a Date");
  const invalid = await client.callTool({ name: "add", arguments: { a: "two", b: 3 } });
  assert.equal(invalid.isError, true);
  assert.equal(textOf(invalid), `ValidationError: add(a): expected a number, got "two"`);
  const thrown = await client.callTool({ name: "divide", arguments: { a: 1, b: 0 } });
  assert.equal(thrown.isError, true);
  assert.equal(textOf(thrown), "dividing 1 by 0\nRangeError: division by zero", "what the tool printed comes first");
  await assert.rejects(client.callTool({ name: "_secret", arguments: {} }), /NameError: tool '_secret' not found/);
}

/** The JSON lines a server writes on stderr, as they arrive. */
class StderrLog {
  #text = "";
  #waiting: Array<() => void> = [];

  listen(stream: { on(event: "data", listener: (chunk: Buffer) => void): unknown }): void {
    stream.on("data", (chunk: Buffer) => {
      this.#text += chunk.toString();
      for (const wake of this.#waiting.splice(0)) wake();
    });
  }

  /** The complete lines so far, parsed. */
  lines(): Array<Record<string, unknown>> {
    return this.#text.slice(0, this.#text.lastIndexOf("\n") + 1).split("\n").filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Resolves once the lines satisfy `test` (stderr may trail the replies on stdout). */
  async until(test: (lines: Array<Record<string, unknown>>) => boolean): Promise<Array<Record<string, unknown>>> {
    while (!test(this.lines())) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    return this.lines();
  }

  get text(): string {
    return this.#text;
  }
}

const toolCalls = (lines: Array<Record<string, unknown>>) => lines.filter((line) => line.event === "tool-call");

describe("statek mcp serve over stdio", () => {
  let client: Client;
  const stderr = new StderrLog();
  before(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp", "serve", "--agents", agents, "--role", "calculator"],
      stderr: "pipe",
    });
    stderr.listen(transport.stderr!);
    client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
  });
  after(() => client.close());

  it("lists the agent's visible tools with their schemas and answers calls as a job would", async () => {
    await checkServedTools(client);
  });

  it("logs every call on stderr as a JSON line, and sends what the agents module logs there too", async () => {
    const lines = await stderr.until((lines) => toolCalls(lines).length >= 4);
    assert.match(stderr.text, /^agents module loaded$/m);
    assert.deepEqual(lines[0]!.event, "serving");
    assert.deepEqual(lines[0]!.tools, ["add", "weekday", "divide"]);
    const calls = toolCalls(lines);
    assert.deepEqual(calls.map((line) => line.name), ["add", "weekday", "add", "divide"]);
    assert.equal(calls[0]!.result, "5");
    assert.equal(calls[0]!.role, "calculator");
    assert.equal(calls[0]!.session, "stdio");
    assert.equal(calls[2]!.error, `ValidationError: add(a): expected a number, got "two"`);
  });
});

describe("statek mcp serve --http", () => {
  let server: ChildProcess;
  let url: string;
  const stderr = new StderrLog();
  before(async () => {
    server = spawn(process.execPath, [bin, "mcp", "serve", "--agents", agents, "--role", "calculator", "--http"], { stdio: ["ignore", "ignore", "pipe"] });
    stderr.listen(server.stderr!);
    const exited = new Promise<never>((_, reject) => server.once("exit", (code) => reject(new Error(`the server exited (${code}): ${stderr.text}`))));
    const lines = await Promise.race([stderr.until((lines) => lines.some((line) => line.event === "listening")), exited]);
    url = String(lines.find((line) => line.event === "listening")!.url);
  });
  after(async () => {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    assert.equal(await exited, 0, "SIGTERM stops the server cleanly");
  });

  it("listens on a loopback address", () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it("serves the same tools to a Streamable HTTP client, a session each", async () => {
    const first = new Client({ name: "test", version: "1.0.0" });
    await first.connect(new StreamableHTTPClientTransport(new URL(url)));
    const second = new Client({ name: "test", version: "1.0.0" });
    await second.connect(new StreamableHTTPClientTransport(new URL(url)));
    await checkServedTools(first);
    assert.equal(textOf(await second.callTool({ name: "add", arguments: { a: 1, b: 1 } })), "2");
    await first.close();
    await second.close();
    const lines = await stderr.until((lines) => toolCalls(lines).length >= 5);
    const sessions = new Set(toolCalls(lines).map((line) => line.session));
    assert.equal(sessions.size, 2, "each client's calls are logged with its own session");
  });

  it("is what mcpTools({ url }) imports: a job elsewhere calls the agent's tools over HTTP", async () => {
    const tools = await mcpTools({ url }, { prefix: "calc_" });
    try {
      assert.deepEqual(tools.map((tool) => [tool.name, tool.readOnly]), [["calc_add", true], ["calc_weekday", false], ["calc_divide", false]]);
      const model = scriptedModel([
        "```ts\nconst sum = await calc_add(2, 3)\nconst day = await calc_weekday('2026-12-03T09:00:00Z')\nprint(sum, day.day)\nawait calc_divide(1, 0)\n```",
        "```ts\nexit()\n```",
      ]);
      const agent = new Agent({ role: "remote-user", tools, model });
      const statek = await Statek.open({ store: ":memory:", agents: [agent] });
      const view = await statek.runJob((await statek.submitJob(agent)).id);
      await statek.close();
      assert.deepEqual(view.console, ["5 Thursday", "McpToolError: dividing 1 by 0\nRangeError: division by zero"]);
    } finally {
      await tools.close();
    }
  });

  it("refuses a request whose Host is not the server's (DNS rebinding)", async () => {
    const { port } = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const sent = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { host: `evil.example:${port}`, "content-type": "application/json" } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      sent.on("error", reject);
      sent.end("{}");
    });
    assert.equal(status, 403);
  });

  it("refuses a browser page of another origin (the MCP specification's Origin check)", async () => {
    const { port } = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const sent = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { origin: "https://evil.example", "content-type": "application/json" } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      sent.on("error", reject);
      sent.end("{}");
    });
    assert.equal(status, 403);
  });
});

describe("statek mcp serve: usage", () => {
  it("names the roles when --role names none, and the module when it exports no agent", async () => {
    const { main } = await import("../src/cli/main.ts");
    const capture = () => {
      const out = { text: "", write(text: string) { out.text += text; } };
      return out;
    };
    let stderr = capture();
    assert.equal(await main(["mcp", "serve", "--agents", agents], { stdout: capture(), stderr }), 2);
    assert.match(stderr.text, /--role is needed: the module has several agents \(calculator, other\)/);
    stderr = capture();
    assert.equal(await main(["mcp", "serve", "--agents", agents, "--role", "nobody"], { stdout: capture(), stderr }), 2);
    assert.match(stderr.text, /no agent with role 'nobody' in the module \(roles: calculator, other\)/);
    stderr = capture();
    assert.equal(await main(["mcp", "serve", "--agents", join(root, "test", "fixtures", "mcp-weather-server.ts.missing")], { stdout: capture(), stderr }), 1);
    assert.match(stderr.text, /no agents module at .*mcp-weather-server\.ts\.missing/);
    stderr = capture();
    assert.equal(await main(["mcp", "list"], { stdout: capture(), stderr }), 2);
    assert.match(stderr.text, /unknown action 'list'/);
  });
});
