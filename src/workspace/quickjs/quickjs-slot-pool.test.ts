import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { acquireSlot, releaseSlot } from "./quickjs-slot-pool.ts";
import { QuickJsVm } from "./quickjs-vm.ts";

describe("quickjs slot pool", () => {
  it("gives a slot released twice to one VM only (two VMs in one slot would hear each other's guest)", async () => {
    const slot = await acquireSlot(32 * 1024 * 1024);
    releaseSlot(slot);
    releaseSlot(slot);
    const first = await acquireSlot(32 * 1024 * 1024);
    const second = await acquireSlot(32 * 1024 * 1024);
    assert.equal(first, slot);
    assert.notEqual(second, first);
  });

  it("gives the slot back once when a VM fails to start", async () => {
    const slot = await acquireSlot(32 * 1024 * 1024);
    let released = 0;
    // An entry limit no bootstrap can meet: the VM fails to start and disposes itself.
    assert.throws(() => QuickJsVm.create(slot, { memoryBytes: 32 * 1024 * 1024, stackBytes: 256 * 1024 }, -1, () => released++), /the guest runtime failed to start|interrupted|TimeoutError/);
    assert.equal(released, 1);
  });
});
