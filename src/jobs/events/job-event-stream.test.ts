import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Agent, Statek, scriptedModel, type JobEvent } from "../../index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

/** Takes events from `stream` until `last` says the one just taken is the last wanted. */
async function take(stream: AsyncIterator<JobEvent>, last: (event: JobEvent) => boolean): Promise<JobEvent[]> {
  const events: JobEvent[] = [];
  for (;;) {
    const next = await stream.next();
    if (next.done) return events;
    events.push(next.value);
    if (last(next.value)) return events;
  }
}

/** A compact description of an event, for comparing sequences. */
function describe_(event: JobEvent): string {
  switch (event.kind) {
    case "status-change":
      return `status ${event.previousStatus}->${event.status}`;
    case "step-end":
      return `step-end v${event.version} ${event.status}`;
    case "console":
      return `console ${event.text}`;
    case "model-text":
      return `text ${event.turn}`;
    case "future-settled":
      return `settled ${event.key}`;
    case "job-submitted":
      return `submitted ${event.role}`;
    case "message-pushed":
      return `pushed ${event.inbox}`;
    case "agent-breaker":
      return `breaker ${event.role} ${event.state}`;
    case "other":
      return `other ${event.name}`;
  }
}

const isDone = (event: JobEvent) => event.kind === "step-end" && event.status === "DONE";

let agents = 0;
/** An agent that prints, then exits (each job needs its own: a scripted model's turns are used up once). */
const newAgent = () => new Agent({ role: `evented-${agents++}`, model: scriptedModel([ts("print('hi')"), ts("exit(1)")]) });

async function withStatek<T>(work: (statek: Statek, agent: () => Agent) => Promise<T>, store = ":memory:"): Promise<T> {
  const statek = await Statek.open({ store });
  try {
    return await work(statek, newAgent);
  } finally {
    await statek.close();
  }
}

describe("statek.events", () => {
  it("yields a job's status changes, model text, console output and step commits in order", async () => {
    await withStatek(async (statek, agent) => {
      const { id } = await statek.submitJob(agent());
      const stream = statek.events({ jobId: id });
      const [events] = await Promise.all([take(stream, isDone), statek.runJob(id)]);
      await stream.return();
      const recorded = events.flatMap((event) => (event.kind === "model-text" ? [] : [event]));
      assert.deepEqual(events.map(describe_), [
        "submitted evented-0", "text 1", "status READY->STARTED", "step-end v1 STARTED",
        "text 2", "console hi", "step-end v2 STARTED",
        "status STARTED->DONE", "step-end v3 DONE",
      ]);
      for (const event of recorded) assert.equal(event.jobId, id);
      const ids = recorded.map((event) => event.id);
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b), "recorded events come in outbox order");
    });
  });

  it("without a filter starts with what happens after the call and covers every job", async () => {
    await withStatek(async (statek, agent) => {
      const before = await statek.submitJob(agent());
      await statek.runJob(before.id);
      const stream = statek.events();
      const { id } = await statek.submitJob(agent());
      const events = await Promise.all([take(stream, isDone), statek.runJob(id)]).then(([taken]) => taken);
      await stream.return();
      assert.ok(events.every((event) => event.jobId === id), "nothing of the job that ran before the stream opened");
      assert.equal(events.filter((event) => event.kind === "step-end").length, 3);
    });
  });

  it("a job's stream replays the job's recorded events first; afterId resumes after an event", async () => {
    await withStatek(async (statek, agent) => {
      const { id } = await statek.submitJob(agent());
      await statek.runJob(id);
      const all = await take(statek.events({ jobId: id }), isDone);
      assert.deepEqual(all.map(describe_).slice(1), [
        "status READY->STARTED", "step-end v1 STARTED", "console hi", "step-end v2 STARTED", "status STARTED->DONE", "step-end v3 DONE",
      ]);
      assert.match(describe_(all[0]!), /^submitted evented-\d+$/, "every store records the submit, in the job's first transaction");
      const second = all[2]!;
      assert.ok(second.kind !== "model-text");
      const resumed = await take(statek.events({ jobId: id, afterId: second.id }), isDone);
      assert.deepEqual(resumed.map(describe_), all.slice(3).map(describe_));
    });
  });

  it("return() ends the stream: a pending next() and later ones are done; close() ends open streams", async () => {
    await withStatek(async (statek) => {
      const stream = statek.events();
      const pending = stream.next();
      await stream.return();
      assert.deepEqual(await pending, { value: undefined, done: true });
      assert.deepEqual(await stream.next(), { value: undefined, done: true });
      const open = statek.events();
      const waiting = open.next();
      await statek.close();
      assert.deepEqual(await waiting, { value: undefined, done: true });
    });
  });

  it("leaving a for-await loop stops the stream; events of other jobs are filtered out", async () => {
    await withStatek(async (statek, agent) => {
      const [a, b] = [await statek.submitJob(agent()), await statek.submitJob(agent())];
      const seen: string[] = [];
      const reading = (async () => {
        for await (const event of statek.events({ jobId: b.id })) {
          seen.push(event.jobId);
          if (isDone(event)) break;
        }
      })();
      await statek.runJob(a.id);
      await statek.runJob(b.id);
      await reading;
      assert.ok(seen.length > 0 && seen.every((jobId) => jobId === b.id));
    });
  });

  it("keeps events it cannot read, as 'other' events that say why", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-events-"));
    try {
      await withStatek(async (statek, agent) => {
        const { id } = await statek.submitJob(agent());
        await statek.store.appendEvents([
          { jobId: id, kind: "status-change", data: { status: "SLEEPING" } },
          { jobId: id, kind: "app-note", data: { note: 1 } },
        ]);
        const taken = await take(statek.events({ jobId: id }), (event) => event.kind === "other" && event.name === "app-note");
        assert.equal(taken[0]?.kind, "job-submitted", "a file store records the submission (for other processes' workers)");
        const events = taken.filter((event) => event.kind === "other");
        assert.equal(events.length, 2);
        const [bad, note] = events;
        assert.ok(bad?.kind === "other" && note?.kind === "other");
        assert.equal(bad.name, "status-change");
        assert.match(bad.error ?? "", /^malformed status-change event: status: /);
        assert.deepEqual(note.data, { note: 1 });
        assert.equal(note.error, undefined);
      }, join(dir, "statek.db"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a pushed message that restarts a finished dialog job is a status change", async () => {
    await withStatek(async (statek) => {
      const agent = new Agent({ role: "chatty", metadata: { CHAT_STYLE: "MD_DIALOG" }, model: scriptedModel(["Hello!", "Bye!"]) });
      const { id } = await statek.submitJob(agent, { message: "Hi" });
      assert.equal((await statek.runJob(id)).status, "DONE");
      const stream = statek.events();
      await statek.pushMessage(id, "One more thing");
      const [restart] = await take(stream, () => true);
      await stream.return();
      assert.ok(restart?.kind === "status-change");
      assert.deepEqual([restart.previousStatus, restart.status, restart.reason], ["DONE", "STARTED", "a user message arrived"]);
    });
  });

  it("checks its filter", async () => {
    await withStatek(async (statek) => {
      assert.throws(() => statek.events({ jobId: "" }), /jobId must be a non-empty string/);
      assert.throws(() => statek.events({ afterId: -1 }), /afterId must be a non-negative integer/);
      assert.throws(() => statek.events({ pollMs: 20 } as never), /pollMs is not an option of events\(\): the store's wake-up subscription/);
      assert.throws(() => statek.events(null as never), /filter must be an object/);
    });
  });
});
