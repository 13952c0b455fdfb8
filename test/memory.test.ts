/**
 * Shared memory through real jobs: the application's handle (set, get, list, delete), jobs bound to a context
 * reading it merged with broader ones, names in scope read-only, remember/listMemory, reads journaled across a
 * suspension, the prompt, and what `statek.getJob`, `statek show` and the UI's job page show.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, Statek, scriptedModel } from "../src/index.ts";
import { startUi } from "../src/ui/serve-ui.ts";
import { uiActionsOf } from "../src/ui/ui-actions.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const consoleOf = (view: { history: Array<{ kind: string; data: unknown }> }) =>
  view.history.filter((record) => record.kind === "console").map((record) => (record.data as { text: string }).text);

describe("shared memory: the application's handle", () => {
  it("sets, gets, lists and deletes entries; reads merge broader contexts, the most specific winning", async () => {
    const statek = await Statek.open({ store: ":memory:" });
    try {
      const both = statek.memory("user:42", "team:7");
      await both.set({ category: "preference", key: "tone", value: "formal", description: "Prefers formal" });
      await statek.memory("team:7").set({ category: "VOCABULARY", key: "greeting", value: { text: "Hello", formal: true } });
      await statek.memory("team:7").set({ category: "VOCABULARY", key: "tone", value: "casual" });
      await statek.memory().set({ category: "ENTITY", key: "company", value: "ACME" });
      await statek.memory("other").set({ category: "ENTITY", key: "secret", value: 1 });
      assert.deepEqual(both.specifiers, ["team:7", "user:42"]);
      assert.equal(await statek.memory("team:7", "user:42", "team:7").get("tone"), "formal", "order and duplicates ignored");
      assert.equal(await statek.memory("team:7").get("tone"), "casual");
      assert.equal(await both.get("secret"), undefined);
      assert.deepEqual((await both.list()).map((item) => [item.key, item.category, item.value, item.context]), [
        ["company", "ENTITY", "ACME", []], ["greeting", "VOCABULARY", { text: "Hello", formal: true }, ["team:7"]], ["tone", "PREFERENCE", "formal", ["team:7", "user:42"]],
      ]);
      assert.deepEqual((await both.list({ category: "vocabulary" })).map((item) => item.key), ["greeting"]);
      assert.equal(await both.delete("tone"), true);
      assert.equal(await both.delete("tone"), false);
      assert.equal(await both.get("tone"), "casual", "the broader context's entry shows once the specific one is gone");
    } finally {
      await statek.close();
    }
  });

  it("refuses bad input, naming what was wrong, and writes nothing", async () => {
    const statek = await Statek.open({ store: ":memory:", memoryCategories: ["Preference", "order-facts"] });
    try {
      const memory = statek.memory("user:42");
      await assert.rejects(memory.set({ category: "ENTITY", key: "tone", value: 1 }), /memory\.set: unknown memory category "ENTITY" \(registered: PREFERENCE, ORDER-FACTS\)/);
      await assert.rejects(memory.set({ category: "preference", key: "two words", value: 1 }), /key must be an identifier/);
      await assert.rejects(memory.set({ category: "preference", key: "tone", value: () => 1 }), TypeError);
      await memory.set({ category: "ORDER-facts", key: "lastOrder", value: 17 });
      assert.deepEqual((await memory.list()).map((item) => [item.key, item.category]), [["lastOrder", "ORDER-FACTS"]]);
      assert.throws(() => statek.memory("user:42", ""), /statek\.memory: memory specifier 2 must be a non-empty string/);
      assert.throws(() => statek.memory(...Array.from({ length: 9 }, (_, i) => `s${i}`)), /at most 8 specifiers/);
      const agent = new Agent({ role: "helper", model: scriptedModel([]) });
      await assert.rejects(statek.submitJob(agent, { memoryAccess: "write" }), /memoryAccess needs memory/);
      await assert.rejects(statek.submitJob(agent, { memory: ["user:42"], memoryAccess: "all" as never }), /memoryAccess must be "read" or "write"/);
      await assert.rejects(statek.submitJob(agent, { memory: "user:42" as never }), /memory specifiers must be strings/);
      assert.deepEqual(await statek.listJobs(), [], "no job was made");
    } finally {
      await statek.close();
    }
    await assert.rejects(Statek.open({ store: ":memory:", memoryCategories: [] }), /memoryCategories must be a non-empty list/);
  });
});

describe("shared memory, through real jobs", () => {
  it("a bound job reads its context merged with broader ones; names are in scope, read-only, listed in the prompt", async () => {
    const model = scriptedModel([
      ts("print(tone, greeting, typeof secret)\ntone = 'loud'"),
      ts("await remember('PREFERENCE', 'tone', 'loud', 'x')"),
      ts("exit([tone, greeting])"),
    ]);
    const agent = new Agent({ role: "helper", model });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      await statek.memory("user:42", "team:7").set({ category: "PREFERENCE", key: "tone", value: "formal", description: "Prefers formal" });
      await statek.memory("team:7").set({ category: "VOCABULARY", key: "greeting", value: "Hello", description: "How the team greets" });
      await statek.memory("other").set({ category: "ENTITY", key: "secret", value: 1 });
      const { id } = await statek.submitJob(agent, { message: "go", memory: ["team:7", "user:42"] });
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.deepEqual(view.exitStatus, ["formal", "Hello"]);
      assert.deepEqual(consoleOf(view), [
        "formal Hello undefined",
        "PermissionError: 'tone' is shared memory and read-only here; use remember(…)",
        `PermissionError: this job reads shared memory only (memoryAccess: "read"); it cannot remember 'tone'`,
      ]);
      assert.deepEqual(Object.keys(view.variables), [], "memory names never become workspace variables");
      assert.match(model.requests[0]!.system, /Available variables: greeting \(VOCABULARY, shared memory\), tone \(PREFERENCE, shared memory\)/);
      assert.doesNotMatch(model.requests[0]!.system, /remember\(/, "a read-only job is not told of remember");
      assert.deepEqual(view.memory?.entries.map((entry) => [entry.key, entry.value, entry.context]), [["greeting", "Hello", ["team:7"]], ["tone", "formal", ["team:7", "user:42"]]]);
      assert.equal(await statek.memory("team:7", "user:42").get("tone"), "formal", "the refused writes changed nothing");
    } finally {
      await statek.close();
    }
  });

  it("cells are type-checked with the memory names in scope (any) and remember declared: a real type error is still refused", async () => {
    const model = scriptedModel([
      ts("const n: number = 'x'\nprint(tone.length)"),
      ts("const t: string = tone\nawait remember('PREFERENCE', 'tone', t + '!', 'Louder')\nexit(t)"),
    ]);
    const agent = new Agent({ role: "helper", model });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      await statek.memory("user:5").set({ category: "PREFERENCE", key: "tone", value: "formal" });
      const view = await statek.runJob((await statek.submitJob(agent, { memory: ["user:5"], memoryAccess: "write" })).id);
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.equal(view.exitStatus, "formal");
      const checks = view.history.flatMap((record) => (record.kind === "type-check" ? [record.data] : []));
      assert.deepEqual(checks.map((check) => [check.outcome, check.errors.map((error) => [error.line, error.code])]), [["refused", [[1, 2322]]]]);
      assert.equal(await statek.memory("user:5").get("tone"), "formal!");
    } finally {
      await statek.close();
    }
  });

  it("a workspace variable of the same name shadows a memory value", async () => {
    const model = scriptedModel([ts("print(tone)\nexit(tone)")]);
    const agent = new Agent({ role: "helper", model });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      await statek.memory("user:1").set({ category: "PREFERENCE", key: "tone", value: "formal" });
      const view = await statek.runJob((await statek.submitJob(agent, { memory: ["user:1"], vars: { tone: "mine" } })).id);
      assert.equal(view.exitStatus, "mine");
    } finally {
      await statek.close();
    }
  });

  it("with write access, remember stores in the job's own context (seen by the next cell and later jobs); listMemory prints", async () => {
    const model = scriptedModel([
      ts("await remember('preference', 'tone', 'brief', 'Wants short answers')\nprint(typeof tone)"),
      ts("listMemory()\nlistMemory('ENTITY')"),
      ts("await remember('MOOD', 'x', 1, 'no such category')"),
      ts("exit(tone)"),
    ]);
    const agent = new Agent({ role: "helper", model });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      await statek.memory("team:7").set({ category: "VOCABULARY", key: "greeting", value: "Hello", description: "How the team greets" });
      const view = await statek.runJob((await statek.submitJob(agent, { memory: ["user:42", "team:7"], memoryAccess: "write" })).id);
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.equal(view.exitStatus, "brief");
      assert.deepEqual(consoleOf(view), [
        "undefined", // a remembered name is in scope from the next cell on
        `greeting (VOCABULARY) = "Hello" — How the team greets\ntone (PREFERENCE) = "brief" — Wants short answers`,
        "No shared memory in ENTITY.",
        `TypeError: unknown memory category "MOOD" (registered: PREFERENCE, ENTITY, VOCABULARY)`,
      ]);
      assert.match(model.requests[0]!.system, /remember\(category, key, value, description\) stores or changes one/);
      const stored = await statek.memory("team:7", "user:42").list();
      assert.deepEqual(stored.map((item) => [item.key, item.value, item.context]), [["greeting", "Hello", ["team:7"]], ["tone", "brief", ["team:7", "user:42"]]]);
      assert.equal(await statek.memory("team:7").get("tone"), undefined, "written in the job's own context, not a broader one");
      const records = view.history.filter((record) => record.kind === "tool-call").map((record) => (record.data as { name: string }).name);
      assert.deepEqual(records, ["remember", "listMemory", "listMemory", "remember"], "the tools' calls are recorded like any");
    } finally {
      await statek.close();
    }
  });

  it("a read is journaled: the cell replayed after a suspension gets what it read, later reads see the new value", async () => {
    const model = scriptedModel([
      ts("const before = tone\nconst said = await waitForMessage()\nprint(before, tone, said)\nexit(before)"),
    ]);
    const agent = new Agent({ role: "helper", model });
    const dir = mkdtempSync(join(tmpdir(), "statek-memory-"));
    const path = join(dir, "jobs.db");
    try {
      const first = await Statek.open({ store: path, agents: [agent] });
      await first.memory("user:1").set({ category: "PREFERENCE", key: "tone", value: "formal" });
      const { id } = await first.submitJob(agent, { memory: ["user:1"] });
      assert.equal((await first.runJob(id)).status, "SUSPENDED");
      await first.close();
      // Another process (a Statek that never ran the job) changes memory and resumes it from the store.
      const second = await Statek.open({ store: path, agents: [agent] });
      try {
        await second.memory("user:1").set({ category: "PREFERENCE", key: "tone", value: "casual" });
        await second.pushMessage(id, "ok");
        const view = await second.runJob(id);
        assert.equal(view.status, "DONE", view.error ?? "");
        assert.equal(view.exitStatus, "formal");
        assert.deepEqual(consoleOf(view), ["formal casual ok"]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a running job sees what another job remembered at its next step", async () => {
    const reader = new Agent({ role: "reader", model: scriptedModel([ts("print(typeof tone)\nconst m = await waitForMessage()"), ts("exit(tone)")]) });
    const writer = new Agent({ role: "writer", model: scriptedModel([ts("await remember('PREFERENCE', 'tone', 'warm', 'Set by the writer')\nexit(1)")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [reader, writer] });
    try {
      const read = (await statek.submitJob(reader, { memory: ["user:9"] })).id;
      assert.equal((await statek.runJob(read)).status, "SUSPENDED");
      assert.equal((await statek.runJob((await statek.submitJob(writer, { memory: ["user:9"], memoryAccess: "write" })).id)).status, "DONE");
      await statek.pushMessage(read, "go on");
      const view = await statek.runJob(read);
      assert.equal(view.exitStatus, "warm");
      assert.deepEqual(consoleOf(view), ["undefined"]);
    } finally {
      await statek.close();
    }
  });
});

describe("shared memory, shown to operators", () => {
  it("statek show and the UI's job page show the binding and the entries the job reads", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-memory-show-"));
    const path = join(dir, "jobs.db");
    const agent = new Agent({ role: "helper", model: scriptedModel([ts("exit(tone)")]) });
    const statek = await Statek.open({ store: path, agents: [agent] });
    try {
      await statek.memory("user:42").set({ category: "PREFERENCE", key: "tone", value: "formal", description: "Prefers formal" });
      await statek.memory().set({ category: "ENTITY", key: "company", value: { name: "ACME" } });
      const { id } = await statek.submitJob(agent, { memory: ["user:42"], memoryAccess: "write" });
      await statek.runJob(id);
      const bin = fileURLToPath(new URL("../bin/statek.js", import.meta.url));
      const shown = await new Promise<string>((resolve, reject) => {
        execFile(process.execPath, [bin, "show", id, "--store", path], { encoding: "utf8" }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
      });
      assert.match(shown, /^memory {4}user:42 · write\n {10}company \(ENTITY\) = \{"name":"ACME"\} \[global\]\n {10}tone \(PREFERENCE\) = "formal" — Prefers formal \[user:42\]$/m);
      const ui = await startUi({ store: statek.store, actions: uiActionsOf(statek), port: 0 });
      try {
        const page = await (await fetch(`${ui.url}/jobs/${id}`)).text();
        assert.match(page, /<h2 id="memory">Shared memory<\/h2><p class="meta">user:42 · write<\/p>/);
        assert.match(page, /<dt><code>tone<\/code> <span class="meta">PREFERENCE<\/span><\/dt>/);
        assert.match(page, /Prefers formal/);
        const json = await (await fetch(`${ui.url}/api/jobs/${id}`)).json() as { memory: { access: string; entries: Array<{ key: string }> } };
        assert.deepEqual([json.memory.access, json.memory.entries.map((entry) => entry.key)], ["write", ["company", "tone"]]);
      } finally {
        await ui.close();
      }
    } finally {
      await statek.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
