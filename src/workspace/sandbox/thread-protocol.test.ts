import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MessageChannel, Worker } from "node:worker_threads";
import { SharedChannel } from "./shared-channel.ts";
import {
  COMMAND_SLOTS as CLAIM_SLOTS, ChannelProtocolError, ChannelState, CommandClaims, CommandMarks, SEQ_LIMIT, channelTransition, nextSeq,
} from "./thread-protocol.ts";

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

/** A small deterministic random source (mulberry32), so a failing run can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("sequence numbers", () => {
  it("run from 1 to SEQ_LIMIT and start over at 1; a number and its negation fit an Int32Array slot", () => {
    assert.equal(SEQ_LIMIT, 2 ** 31 - 1);
    assert.equal(nextSeq(1), 2);
    assert.equal(nextSeq(SEQ_LIMIT - 1), SEQ_LIMIT);
    assert.equal(nextSeq(SEQ_LIMIT), 1);
    assert.equal(nextSeq(0), 1, "0 stands for no command");
    const slot = new Int32Array(1);
    for (const seq of [1, SEQ_LIMIT]) {
      slot[0] = seq;
      assert.equal(slot[0], seq);
      slot[0] = -seq;
      assert.equal(slot[0], -seq);
    }
  });

  it("are refused out of range by claims and marks", () => {
    const claims = new CommandClaims(CommandClaims.allocate());
    const marks = new CommandMarks(CommandMarks.allocate());
    for (const seq of [0, -1, 2 ** 31, 1.5]) {
      assert.throws(() => claims.start(seq), RangeError);
      assert.throws(() => marks.cancel(seq), RangeError);
    }
  });
});

describe("the channel's transitions", () => {
  it("let each side make only its own moves", () => {
    assert.equal(channelTransition(ChannelState.IDLE, "call", "sandbox"), ChannelState.CALL);
    assert.throws(() => channelTransition(ChannelState.IDLE, "call", "host"), ChannelProtocolError);
    assert.throws(() => channelTransition(ChannelState.CALL, "ack", "sandbox"), ChannelProtocolError);
    assert.throws(() => channelTransition(ChannelState.NESTED, "reply", "host"), /the host side may not 'reply' in channel state 3/);
    assert.equal(channelTransition(ChannelState.NESTED_DONE, "reply", "host"), ChannelState.REPLY, "a late entry's result, then the reply");
  });
});

/**
 * The protocol as both threads run it, stepped in one thread in a random order: the host posts commands (their
 * sequence numbers starting just below the wrap), takes some back, cancels or stops the one running, answers
 * calls, and runs nested entries — waiting for some, giving up on others; the sandbox thread claims commands in
 * order, checks their marks, calls the host and answers nested entries. Both sides use the real claims, marks
 * and channel over shared memory.
 */
function simulate(seed: number, steps: number): { started: number; takenBack: number; calls: number; nested: number; late: number; wrapped: boolean } {
  const next = random(seed);
  const { port1, port2 } = new MessageChannel();
  const buffer = SharedChannel.allocate();
  const host = { channel: new SharedChannel(buffer, port1, "host") };
  const sandbox = { channel: new SharedChannel(buffer, port2, "sandbox") };
  // Both sides share the claims and marks buffers.
  const claimsBuffer = CommandClaims.allocate();
  const marksBuffer = CommandMarks.allocate();
  const hostClaims = new CommandClaims(claimsBuffer);
  const threadClaims = new CommandClaims(claimsBuffer);
  const hostMarks = new CommandMarks(marksBuffer);
  const threadMarks = new CommandMarks(marksBuffer);

  let seq = SEQ_LIMIT - 40;
  let wrapped = false;
  const posted: number[] = [];
  const decided = new Map<number, "started" | "taken back">();
  /** The mark the host set for each command, to check the thread reads exactly that. */
  const markOf = new Map<number, "cancel" | "stop">();
  let running = 0;
  // The call in flight: its number, whether the host answered it, and the nested entry in flight.
  let call: { id: number; taken: boolean; answered: boolean; reply?: string } | undefined;
  let nested: { id: number; late: boolean } | undefined;
  let calls = 0;
  let nestedCount = 0;
  let late = 0;
  let nextCall = 1;
  let nextNested = 1;
  const state = () => host.channel.state();

  for (let step = 0; step < steps; step++) {
    const move = Math.floor(next() * 9);
    switch (move) {
      case 0: {
        // The host posts a command.
        seq = nextSeq(seq);
        if (seq === 1) wrapped = true;
        assert.ok(seq >= 1 && seq <= SEQ_LIMIT);
        posted.push(seq);
        break;
      }
      case 1: {
        // The host takes back a posted command that is not the one running.
        const candidates = posted.filter((candidate) => candidate !== running && !decided.has(candidate));
        if (!candidates.length) break;
        const target = candidates[Math.floor(next() * candidates.length)]!;
        if (hostClaims.takeBack(target)) decided.set(target, "taken back");
        break;
      }
      case 2: {
        // The thread moves to the next posted command, when none runs and no call is in flight.
        if (running || call || !posted.length) break;
        const first = posted.shift()!;
        if (threadClaims.start(first)) {
          assert.notEqual(decided.get(first), "taken back", `command ${first} was taken back, then started`);
          decided.set(first, "started");
          running = first;
        } else {
          assert.equal(decided.get(first), "taken back", `command ${first} was not started, yet not taken back`);
        }
        break;
      }
      case 3: {
        // The host marks the running command; the thread sees exactly that mark on it, and none on the others.
        if (!running) break;
        const how = next() < 0.5 ? "cancel" : "stop";
        if (how === "cancel") hostMarks.cancel(running);
        else hostMarks.stop(running);
        if (markOf.get(running) !== "cancel") markOf.set(running, how);
        assert.equal(threadMarks.cancelled(running), markOf.get(running) === "cancel");
        assert.equal(threadMarks.stopped(running), true);
        for (const other of posted) assert.equal(threadMarks.stopped(other), markOf.has(other), `command ${other} reads a mark set for another`);
        break;
      }
      case 4: {
        // The thread ends the running command (not while its guest waits in a call).
        if (!running || call) break;
        running = 0;
        break;
      }
      case 5: {
        // The running command's guest calls the host.
        if (!running || call || state() !== ChannelState.IDLE) break;
        call = { id: nextCall++, taken: false, answered: false };
        sandbox.channel.send("call", running, [`call ${call.id}`]);
        calls++;
        break;
      }
      case 6: {
        // The host takes a call; then answers it (a reply held while a nested entry it gave up on still runs), or
        // runs a nested entry first — and waits for it, or gives up on it.
        if (!call) break;
        if (state() === ChannelState.CALL && !call.taken) {
          assert.deepEqual(host.channel.read(), [`call ${call.id}`]);
          call.taken = true;
        } else if (call.taken && !call.answered && (state() === ChannelState.CALL || nested?.late) && next() < 0.4) {
          call.answered = true;
          call.reply = `reply ${call.id}`;
          if (!nested) host.channel.send("reply", running, [call.reply]);
        } else if (call.taken && !call.answered && state() === ChannelState.CALL && !nested) {
          nested = { id: nextNested++, late: false };
          host.channel.send("nested", running, [`entry ${nested.id}`]);
          nestedCount++;
        } else if (nested && !nested.late && state() !== ChannelState.CALL) {
          nested.late = true;
          late++;
        }
        break;
      }
      case 7: {
        // The thread answers a nested entry, or reads the reply to its call.
        if (state() === ChannelState.NESTED) {
          const [entry] = sandbox.channel.read();
          assert.equal(entry, `entry ${nested!.id}`);
          sandbox.channel.send("nested-done", running, [`result ${nested!.id}`]);
        } else if (state() === ChannelState.REPLY) {
          assert.deepEqual(sandbox.channel.read(), [`reply ${call!.id}`], "each call reads its own reply, once");
          sandbox.channel.signal("ack");
          call = undefined;
        }
        break;
      }
      case 8: {
        // The host takes a nested entry's result: to its waiter, or dropped if it gave up; then the held reply.
        if (state() !== ChannelState.NESTED_DONE || !nested) break;
        assert.deepEqual(host.channel.read(), [`result ${nested.id}`]);
        nested = undefined;
        if (call?.answered && call.reply) host.channel.send("reply", running, [call.reply]);
        else host.channel.signal("resume");
        break;
      }
    }
  }
  port1.close();
  port2.close();
  const started = [...decided.values()].filter((how) => how === "started").length;
  return { started, takenBack: decided.size - started, calls, nested: nestedCount, late, wrapped };
}

describe("the protocol's state machine (property test)", () => {
  it("decides every command once, delivers every mark to its command, every reply to its call, across the wrap", () => {
    let totals = { started: 0, takenBack: 0, calls: 0, nested: 0, late: 0, wraps: 0 };
    for (let seed = 1; seed <= 200; seed++) {
      const result = simulate(seed, 2_000);
      totals = {
        started: totals.started + result.started, takenBack: totals.takenBack + result.takenBack, calls: totals.calls + result.calls,
        nested: totals.nested + result.nested, late: totals.late + result.late, wraps: totals.wraps + (result.wrapped ? 1 : 0),
      };
    }
    assert.ok(totals.wraps > 150, `most runs wrapped past ${SEQ_LIMIT} (${totals.wraps} of 200)`);
    for (const [what, count] of Object.entries(totals)) assert.ok(count > 0, `the runs exercised ${what}`);
  });
});
