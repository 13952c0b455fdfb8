/** Making a QuickJS instance: a memory the module cannot link against is an error, not a hang. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { instantiateQuickJs, loadQuickJsWasm } from "./quickjs-wasm.ts";
import { wasmApi } from "./wasm-api.ts";

describe("instantiateQuickJs", () => {
  it("rejects when the instance cannot be made (a memory smaller than the module declares)", async () => {
    const wasm = await loadQuickJsWasm();
    const tooSmall = new wasmApi.Memory({ initial: 1, maximum: 1 });
    await assert.rejects(instantiateQuickJs(wasm, tooSmall), (error: Error) => /memory/i.test(error.message));
  });
});
