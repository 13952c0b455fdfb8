/**
 * What `Statek`'s calls refuse: one Agent object per role, and messages that name the public call the
 * application made, read correctly ("an Agent"), and name the path of a store that cannot be opened.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Agent, Statek, errorHandler, scriptedModel, tool } from "../index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const directory = mkdtempSync(join(tmpdir(), "statek-errors-"));
after(() => rmSync(directory, { recursive: true, force: true }));

describe("registering agents", () => {
  it("the same Agent object again is fine; a different one under its role is an error naming the role", async () => {
    const first = new Agent({ role: "assistant", model: scriptedModel([ts("exit(1)")]) });
    const second = new Agent({ role: "assistant", model: scriptedModel([ts("exit(2)")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [first, first] });
    try {
      statek.register(first);
      const { id } = await statek.submitJob(first);
      const message = "a different Agent is already registered with role 'assistant'; register each agent once and give each agent its own role";
      assert.throws(() => statek.register(second), { name: "TypeError", message: `register: ${message}` });
      await assert.rejects(statek.submitJob(second), { name: "TypeError", message: `submitJob: ${message}` });
      assert.equal((await statek.runJob(id)).exitStatus, 1, "the job still runs with the agent registered first");
      assert.equal((await statek.listJobs()).length, 1, "the refused submit stored nothing");
    } finally {
      await statek.close();
    }
    await assert.rejects(Statek.open({ store: ":memory:", agents: [first, second] }), {
      name: "TypeError",
      message: "Statek.open: agents[0] and agents[1] are different Agents with the same role 'assistant'; give each agent its own role",
    });
  });

  it("names the call and what it got instead of an Agent", async () => {
    const statek = await Statek.open({ store: ":memory:" });
    try {
      await assert.rejects(statek.submitJob({ role: "assistant" } as never), { name: "TypeError", message: "submitJob: expected an Agent, got a plain object" });
      assert.throws(() => statek.register(undefined as never), { name: "TypeError", message: "register: expected an Agent, got undefined" });
      assert.throws(() => statek.registerErrorHandler((() => 1) as never), {
        name: "TypeError", message: "registerErrorHandler: expected an error handler made with errorHandler({ name, run }), got a function",
      });
    } finally {
      await statek.close();
    }
    await assert.rejects(Statek.open({ store: ":memory:", agents: [{}] as never }), { name: "TypeError", message: "Statek.open: agents[0] is not an Agent (got a plain object)" });
    await assert.rejects(Statek.open({ store: ":memory:", agents: new Agent({ role: "a" }) as never }), {
      name: "TypeError", message: "Statek.open: agents must be an array of Agents, got an instance of Agent",
    });
    await assert.rejects(Statek.open({ store: ":memory:", errorHandlers: ["_release"] as never }), {
      name: "TypeError", message: "Statek.open: expected an error handler made with errorHandler({ name, run }), got a string",
    });
    await assert.rejects(Statek.open({ store: ":memory:", executor: 3 as never }), {
      name: "TypeError", message: 'Statek.open: executor: expected "quickjs", "trusted" or an Executor, got a number',
    });
    assert.throws(() => new Agent({ role: "a", tools: [{}] as never }), { name: "TypeError", message: "Agent 'a': every entry of tools must be made with tool() (got a plain object)" });
  });

  it("an agent whose tool brings a different error handler under a known name is refused by the call that registers it", async () => {
    const withHandler = (role: string) => {
      const release = errorHandler({ name: "_release", run: () => undefined });
      return new Agent({ role, tools: [tool({ name: "claim", description: "Claim.", errorHandler: release, run: () => "claimed" })] });
    };
    const statek = await Statek.open({ store: ":memory:", agents: [withHandler("first")] });
    try {
      await assert.rejects(statek.submitJob(withHandler("second")), { name: "TypeError", message: "submitJob: two different error handlers are named '_release'" });
    } finally {
      await statek.close();
    }
  });
});

describe("opening a store", () => {
  it("names the path when SQLite cannot open it", async () => {
    const file = join(directory, "not-a-directory");
    writeFileSync(file, "text");
    await assert.rejects(Statek.open({ store: join(file, "statek.db") }), {
      message: `SQLite cannot open ${join(file, "statek.db")}: cannot create the directory ${file} (EEXIST: file already exists, mkdir '${file}')`,
    });
    const junk = join(directory, "junk.db");
    writeFileSync(junk, "this is not a SQLite database, only text that is long enough to have a header".repeat(20));
    await assert.rejects(Statek.open({ store: junk }), { message: `SQLite cannot open ${junk}: file is not a database` });
  });

  it("refuses a store that is neither a path nor a Store", async () => {
    await assert.rejects(Statek.open({ store: "" }), { name: "TypeError", message: 'Statek.open: store must be a file path, ":memory:", a postgres:// URL or a Store, got ""' });
    await assert.rejects(Statek.open({ store: 5 as never }), { name: "TypeError", message: 'Statek.open: store must be a file path, ":memory:", a postgres:// URL or a Store, got a number' });
  });
});
