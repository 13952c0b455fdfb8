import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { QuickJsEngine } from "./quickjs-engine.ts";
import { QuickJsVm } from "./quickjs-vm.ts";

const engine = new QuickJsEngine();
const acquireSlot = (limitBytes: number, forImage?: boolean) => engine.slots.acquire(limitBytes, forImage);
const releaseSlot = (slot: Parameters<QuickJsEngine["slots"]["release"]>[0]) => engine.slots.release(slot);
const vmImage = (limits: { memoryBytes: number; stackBytes: number }, invokeTimeMs: number) => engine.images.image(limits, invokeTimeMs);

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

  it("gives a slot whose engine was left unfreed only to a VM copied from an image", async () => {
    const limit = 40 * 1024 * 1024;
    const image = await vmImage({ memoryBytes: limit, stackBytes: 256 * 1024 }, 5_000);
    assert.ok(image);
    const slot = await acquireSlot(limit, true);
    QuickJsVm.create(slot, { memoryBytes: limit, stackBytes: 256 * 1024 }, 5_000, releaseSlot, image).dispose();
    assert.equal(slot.needsImage, true);
    const forNew = await acquireSlot(limit);
    assert.notEqual(forNew, slot, "a VM made new does not get it");
    assert.equal(await acquireSlot(limit, true), slot, "a VM from an image does");
  });

  it("gives the slot back once when a VM fails to start", async () => {
    const slot = await acquireSlot(32 * 1024 * 1024);
    let released = 0;
    // An entry limit no bootstrap can meet: the VM fails to start and disposes itself.
    assert.throws(() => QuickJsVm.create(slot, { memoryBytes: 32 * 1024 * 1024, stackBytes: 256 * 1024 }, -1, () => released++), /the guest runtime failed to start|interrupted|TimeoutError/);
    assert.equal(released, 1);
  });
});
