/**
 * Operating jobs across processes: a dialog message reaches `onMessage` only
 * after the commit that records it (a process killed at delivery leaves the message in history; a commit that
 * fails sends nothing), and `statek.events()` hears what another process commits.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, it } from "node:test";
import { Agent, Statek, scriptedModel, type JobEvent } from "../src/index.ts";
import { openStore, type JobCommit, type Store } from "../src/store/index.ts";

const FIXTURE = join(import.meta.dirname, "fixtures/operate-process.ts");

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), "statek-operate-"));
  return { store: join(dir, "statek.db"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A child process and the lines it prints, line by line. */
function child(...args: string[]) {
  const process_ = spawn(process.execPath, [FIXTURE, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: process_.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => process_.once("exit", (code) => resolve(code)));
  return {
    async line(): Promise<string> {
      const next = await lines.next();
      if (next.done) throw new Error("the child process ended without printing the line");
      return next.value;
    },
    kill: () => process_.kill("SIGKILL"),
    exited,
  };
}

describe("the dialog rule: onMessage after the commit", () => {
  it("a process killed while delivering a message leaves that message in the job's history", async () => {
    const dir = tempDir();
    try {
      const talker = child("dialog", dir.store);
      const id = (await talker.line()).replace(/^job /, "");
      assert.equal(await talker.line(), "delivered Your meeting is booked for Friday.");
      talker.kill();
      await talker.exited;
      const store = await openStore(dir.store);
      try {
        const dialog = (await store.getHistory(id)).filter((record) => record.kind === "dialog").map((record) => (record.data as { body?: unknown }).body);
        assert.deepEqual(dialog, ["Your meeting is booked for Friday."], "what the user got is in the history");
      } finally {
        await store.close();
      }
    } finally {
      dir.remove();
    }
  });

  it("a step whose commit fails sends nothing; its journaled reply is sent once, after the commit that records it", async () => {
    const real = await openStore(":memory:");
    let failures = 0;
    // The store as users have it, except that the first commit carrying a dialog message fails (disk full).
    const store: Store = new Proxy(real, {
      get(target, name) {
        const value: unknown = Reflect.get(target, name, target);
        if (name === "commit") {
          return async (change: JobCommit) => {
            if (failures === 0 && change.appendHistory?.some((record) => record.kind === "dialog")) {
              failures++;
              throw new Error("disk I/O error");
            }
            return target.commit(change);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const sent: string[] = [];
    const agent = new Agent({
      role: "talker",
      metadata: { CHAT_STYLE: "MD_DIALOG" },
      // One turn: the step that commits takes the reply journaled when it arrived, it does not ask again.
      model: scriptedModel(["First answer."]),
      onMessage: (body) => void sent.push(body),
    });
    const statek = await Statek.open({ store, agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent, { message: "Hello" });
      await assert.rejects(statek.step(id), /disk I\/O error/);
      assert.equal(failures, 1);
      assert.deepEqual(sent, [], "nothing reached the user before the commit");
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(sent, ["First answer."]);
      assert.deepEqual(view.history.flatMap((record) => (record.kind === "dialog" ? [record.data.body] : [])), ["First answer."]);
    } finally {
      await statek.close();
      await real.close();
    }
  });
});

describe("statek.events across processes", () => {
  it("hears the status changes, console output and step commits another process makes, in order", async () => {
    const dir = tempDir();
    const agent = new Agent({ role: "remote", model: scriptedModel([]) });
    const statek = await Statek.open({ store: dir.store, agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      const events: JobEvent[] = [];
      const reading = (async () => {
        for await (const event of statek.events({ jobId: id })) {
          events.push(event);
          if (event.kind === "step-end" && event.status === "DONE") break;
        }
      })();
      const runner = child("run", dir.store, id);
      assert.equal(await runner.exited, 0);
      await reading;
      assert.deepEqual(events.map((event) => {
        if (event.kind === "status-change") return `status ${event.status}`;
        if (event.kind === "console") return `console ${event.text}`;
        if (event.kind === "step-end") return `step-end ${event.version}`;
        return event.kind;
      }), ["job-submitted", "status STARTED", "step-end 1", "console from afar", "step-end 2", "status DONE", "step-end 3"]);
    } finally {
      await statek.close();
      dir.remove();
    }
  });

  it("a process that only waits for another process's events stays alive until one comes", async () => {
    const dir = tempDir();
    try {
      const listener = child("listen", dir.store);
      assert.equal(await listener.line(), "listening");
      const store = await openStore(dir.store);
      try {
        await store.appendEvents([{ jobId: "some-job", kind: "app-note", data: null }]);
      } finally {
        await store.close();
      }
      assert.equal(await listener.line(), "heard app-note");
      assert.equal(await listener.exited, 0);
    } finally {
      dir.remove();
    }
  });
});
