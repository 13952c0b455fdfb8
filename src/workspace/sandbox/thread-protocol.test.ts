import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { COMMAND_SLOTS as CLAIM_SLOTS, CommandClaims } from "./thread-protocol.ts";

describe("command claims", () => {
  it("give a command to whichever side claims it first, and only to it", () => {
    const buffer = CommandClaims.allocate();
    const thread = new CommandClaims(buffer);
    const scheduler = new CommandClaims(buffer);
    assert.equal(thread.start(1), true);
    assert.equal(scheduler.takeBack(1), false, "started: it cannot be taken back");
    assert.equal(thread.start(1), true, "asking again changes nothing");
    assert.equal(scheduler.takeBack(2), true);
    assert.equal(thread.start(2), false, "taken back: the thread skips it");
    // A slot is reused by the command CLAIM_SLOTS later; what the earlier one left does not decide it.
    assert.equal(scheduler.takeBack(1 + CLAIM_SLOTS), true);
    assert.equal(thread.start(2 + CLAIM_SLOTS), true);
  });

  it("decide every race between two threads exactly once", async () => {
    const buffer = CommandClaims.allocate();
    // [0]: posted up to; [1]: the other thread is done up to (a thread's answers bound what is posted ahead).
    const counters = new Int32Array(new SharedArrayBuffer(8));
    const ahead = 4;
    const commands = 20_000;
    const behind = 2;
    // The other thread starts commands in order as they are posted, as a sandbox thread does, with the real class.
    const source = `
      const { parentPort, workerData } = require("node:worker_threads");
      import(workerData.module).then(({ CommandClaims }) => {
        const claims = new CommandClaims(workerData.buffer);
        const counters = new Int32Array(workerData.counters);
        const started = [];
        for (let seq = 1; seq <= workerData.commands; seq++) {
          while (Atomics.load(counters, 0) < seq) {}
          if (claims.start(seq)) started.push(seq);
          Atomics.store(counters, 1, seq);
        }
        parentPort.postMessage(started);
      });`;
    const module = new URL("./thread-protocol.ts", import.meta.url).href;
    const worker = new Worker(source, { eval: true, workerData: { buffer, counters: counters.buffer, commands, module } });
    const startedPromise = new Promise<number[]>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    const scheduler = new CommandClaims(buffer);
    const takenBack = new Set<number>();
    // Post each command (at most `ahead` beyond what the other thread finished), then try to take back the one
    // posted `behind` before it: the other thread is starting commands right around there, so both sides win some.
    for (let seq = 1; seq <= commands + behind; seq++) {
      while (Atomics.load(counters, 1) < Math.min(seq, commands) - ahead) {
        // The other thread catches up.
      }
      if (seq <= commands) Atomics.store(counters, 0, seq);
      if (seq > behind && scheduler.takeBack(seq - behind)) takenBack.add(seq - behind);
    }
    const started = await startedPromise;
    await worker.terminate();
    assert.deepEqual(started.filter((seq) => takenBack.has(seq)), [], "no command both started and taken back");
    assert.equal(started.length + takenBack.size, commands, "every command decided");
    assert.ok(started.length > 0 && takenBack.size > 0, `both sides won some (${started.length} started, ${takenBack.size} taken back)`);
  });
});
