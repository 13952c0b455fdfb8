import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { SandboxThread, SandboxThreadLostError } from "./sandbox-thread.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** True once `ref`'s object is collected (a few collections, with turns of the event loop between them). */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let round = 0; round < 20; round++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

describe("a sandbox thread that ended", () => {
  // The pool starts and ends extra threads all the time under load; each holds a 1 MiB shared channel, so one
  // kept after its end is a leak that grows with the process's uptime.
  for (const [how, end] of [
    ["closed", (thread: SandboxThread) => thread.close()],
    ["stopped", (thread: SandboxThread) => thread.terminate(new SandboxThreadLostError({ message: "stopped by the test" }))],
  ] as const) {
    it(`is collected once ${how}, with its channel`, async () => {
      let thread: SandboxThread | undefined = new SandboxThread({ settings: {} });
      await thread.command({ kind: "configure", settings: {} });
      const ref = new WeakRef(thread);
      end(thread);
      thread = undefined;
      assert.ok(await collected(ref), "the thread object (and its channel) was not collected");
    });
  }
});
