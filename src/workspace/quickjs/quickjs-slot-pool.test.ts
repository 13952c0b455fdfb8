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

describe("quickjs slot pool: memory", () => {
  const limits = { memoryBytes: 64 * 1024 * 1024, stackBytes: 256 * 1024 };

  it("keeps a slot whose VM touched little, drops one whose VM grew, and has the thread collect what it dropped", async () => {
    let collections = 0;
    let collected!: () => void;
    const collection = new Promise<void>((resolve) => (collected = resolve));
    const thread = new QuickJsEngine({
      collect: async () => {
        collections++;
        collected();
      },
    });
    const small = await thread.takeVm(limits, 5_000);
    const smallSlot = small.slot;
    small.connect(() => "", () => false, () => {}).invoke("begin", []);
    small.dispose();
    assert.equal(await thread.slots.acquire(limits.memoryBytes, true), smallSlot, "a slot that served a small VM is kept");
    for (let round = 0; round < 2; round++) {
      const grown = await thread.takeVm(limits, 5_000);
      const grownSlot = grown.slot;
      grown.connect(() => "", () => false, () => {});
      grown.start("globalThis.parts = []; for (let i = 0; i < 40; i++) parts.push(new Uint8Array(1 << 20).fill(1))", 5_000, 60_000, [], undefined);
      assert.ok(grownSlot.reservedBytes > 40 * 1024 * 1024);
      grown.dispose();
      assert.notEqual(await thread.slots.acquire(limits.memoryBytes, true), grownSlot, "a slot whose VM grew is let go");
    }
    await collection;
    assert.equal(collections, 1, "one collection for the slots let go together");
  });
});
