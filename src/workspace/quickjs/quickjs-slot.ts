/**
 * @module
 * A *slot*: one instance of the QuickJS-NG WebAssembly module with a memory of fixed maximum size. A VM
 * runs in a slot and owns it while it lives, so the VM's whole footprint — heap, stack, engine data — is
 * bounded by the slot's memory, whatever the guest allocates (QuickJS's own allocation limit alone can be
 * overrun). When a VM is done its slot may serve the next VM (see `quickjs-slot-pool.ts`), unless the engine
 * failed inside it.
 *
 * The slot also carries the fast path for host calls. quickjs-emscripten routes every call of a host
 * function through a generator-based scope that wraps each argument in a lifetime object; that costs ~9 µs
 * per call. A slot has exactly one host function (the guest's `send`), so it takes over the module's
 * C → JS callback and reads the string arguments and writes the string reply through the FFI directly.
 *
 * A slot's engine is made in one of two ways: new ({@link QuickJsSlot.newEngine}), or copied in from a
 * memory image of a bootstrapped VM ({@link QuickJsSlot.loadImage}, see `quickjs-image.ts`). Either way the
 * runtime and context are then wrapped in quickjs-emscripten's objects from their addresses, so the JS side
 * keeps nothing an image would lack.
 */
import {
  Lifetime, QuickJSRuntime, QuickJSWASMModule,
  type IntrinsicsFlags, type JSContextPointer, type JSRuntimePointer, type JSValuePointer, type QuickJSContext, type QuickJSEmscriptenModule, type QuickJSFFI,
} from "quickjs-emscripten-core";
import { errorReply, operationName } from "../guest/guest-protocol.ts";
import type { QuickJsImage } from "./quickjs-image.ts";
import { instantiateQuickJs, type QuickJsWasm } from "./quickjs-wasm.ts";
import { wasmApi, type WasmMemory } from "./wasm-api.ts";

const PAGE = 65536;
const SCRATCH_BYTES = 4096;

/** A runtime and context in a slot, as quickjs-emscripten's objects, with their addresses. */
export interface SlotEngine {
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  readonly runtimePointer: number;
  readonly contextPointer: number;
}

/** Receives one host call: the operation's name and its string arguments; returns the reply text. */
export type SlotReceiver = (op: string, args: string[]) => string;

const decoder = new TextDecoder();
const FAULT_REPLY = errorReply("InternalError", "the host failed to answer this call");

/** One module instance with a bounded memory. */
export class QuickJsSlot {
  readonly memory: WasmMemory;
  /** The most memory this slot can ever hold. */
  readonly limitBytes: number;
  readonly #module: SlotModule;
  readonly #raw: QuickJSEmscriptenModule;
  readonly #ffi: QuickJSFFI;
  #receiver: SlotReceiver | undefined;
  #scratch = 0;
  /** Set once an engine was made in the slot: its memory may hold anything from then on. */
  #used = false;
  /** Set when the engine may be in an unknown state (it aborted, or an exception unwound through it). */
  broken = false;
  /**
   * Set when a VM left its engine in the slot unfreed (see {@link abandonEngine}): only an image can be loaded
   * here again, since a new engine would be made next to the old one's allocations.
   */
  #abandoned = false;

  private constructor(memory: WasmMemory, limitBytes: number, raw: QuickJSEmscriptenModule, ffi: QuickJSFFI) {
    this.memory = memory;
    this.limitBytes = limitBytes;
    this.#raw = raw;
    this.#ffi = ffi;
    this.#module = new SlotModule(raw, ffi);
    const callbacks = raw.callbacks;
    callbacks.callFunction = (_asyncify, ctx, _this, argc, argv) => this.#call(ctx, argc, argv) as JSValuePointer;
    // The one host function holds no host value (the slot answers its calls), so there is nothing to free
    // when the engine frees it — and an engine from an image was never registered on this side at all.
    callbacks.freeHostRef = () => {};
  }

  /** Instantiates the module with a memory of at most `limitBytes`. */
  static async create(wasm: QuickJsWasm, limitBytes: number, initialBytes: number): Promise<QuickJsSlot> {
    const memory = new wasmApi.Memory({ initial: initialBytes / PAGE, maximum: Math.floor(limitBytes / PAGE) });
    // The slot reports engine aborts as errors (the glue's own printing is silenced).
    const raw = await instantiateQuickJs(wasm, memory);
    raw.type = "sync";
    return new QuickJsSlot(memory, Math.floor(limitBytes / PAGE) * PAGE, raw, new wasm.Ffi(raw));
  }

  /**
   * A new runtime with one context (default intrinsics) and the slot's host function as the global
   * `sendName`. The function's body never runs: the slot answers its calls directly. No handle outlives
   * the call, so an image of this engine holds none that its copies would lack.
   */
  newEngine(sendName: string): SlotEngine {
    if (this.#abandoned) throw new Error("the slot holds an engine that was not freed; only an image can be loaded into it");
    this.#prepare();
    const ffi = this.#ffi;
    const runtimePointer = ffi.QTS_NewRuntime() as number;
    const contextPointer = ffi.QTS_NewContext(runtimePointer as JSRuntimePointer, 0 as IntrinsicsFlags) as number;
    const { runtime, context } = this.#module.adopt(runtimePointer, contextPointer);
    const send = context.newFunction(sendName, () => undefined);
    const global = context.getMemory(runtimePointer as JSRuntimePointer).heapValueHandle(ffi.QTS_GetGlobalObject(contextPointer as JSContextPointer));
    context.setProp(global, sendName, send);
    global.dispose();
    send.dispose();
    return { runtime, context, runtimePointer, contextPointer };
  }

  /**
   * Makes the slot's memory `image` and returns the image's engine. Whatever an earlier VM left in the
   * slot's memory is overwritten (see {@link QuickJsImage.applyTo}).
   */
  loadImage(image: QuickJsImage): SlotEngine {
    const used = this.#used;
    this.#prepare();
    image.applyTo(this.memory, used);
    this.#abandoned = false;
    const { runtime: runtimePointer, context: contextPointer } = image.pointers;
    return { ...this.#module.adopt(runtimePointer, contextPointer), runtimePointer, contextPointer };
  }

  #prepare(): void {
    if (this.broken) throw new Error("the slot's engine failed; it cannot hold another");
    this.#used = true;
    // The scratch buffer belonged to the earlier engine's heap (an image has its own allocator state).
    this.#scratch = 0;
  }

  /** Routes calls of the slot's host function to `receiver` (the VM that owns the slot now). */
  attach(receiver: SlotReceiver | undefined): void {
    this.#receiver = receiver;
  }

  /**
   * Leaves the slot's engine as it is instead of freeing it. Freeing a runtime walks all of its objects (~1 ms
   * for a small workspace, more for a large one); loading an image overwrites all of that memory anyway.
   */
  abandonEngine(): void {
    this.#abandoned = true;
  }

  /** True when the slot's last engine was abandoned: the next must come from an image. */
  get needsImage(): boolean {
    return this.#abandoned;
  }

  /** True once an engine was made in the slot (its memory may hold anything since). */
  get used(): boolean {
    return this.#used;
  }

  /** Bytes of memory the slot holds from the worker now. */
  get reservedBytes(): number {
    return this.memory.buffer.byteLength;
  }

  #call(ctx: number, argc: number, argv: number): number {
    const ffi = this.#ffi;
    try {
      // The first argument is the operation's code, a number: it needs no text decoding.
      const op = operationName(ffi.QTS_GetFloat64(ctx as never, ffi.QTS_ArgvGetJSValueConstPointer(argv as never, 0)));
      const args = new Array<string>(Math.max(argc - 1, 0));
      for (let i = 1; i < argc; i++) {
        const chars = ffi.QTS_GetString(ctx as never, ffi.QTS_ArgvGetJSValueConstPointer(argv as never, i)) as unknown as number;
        if (chars === 0) {
          args[i - 1] = "";
          continue;
        }
        args[i - 1] = this.#readString(chars);
        ffi.QTS_FreeCString(ctx as never, chars as never);
      }
      const reply = this.#receiver ? this.#receiver(op, args) : "";
      return this.#replyValue(ctx, reply);
    } catch {
      // Nothing may unwind through the engine's frames. The host's own stack or memory ran out: say so if
      // there is room for the words.
      try {
        return this.#newString(ctx, FAULT_REPLY);
      } catch {
        return 0;
      }
    }
  }

  /** The NUL-terminated UTF-8 string at `pointer`. Short ASCII strings (ids, member names) skip TextDecoder. */
  #readString(pointer: number): string {
    const heap = this.#raw.HEAPU8;
    let end = pointer;
    let ascii = true;
    while (heap[end] !== 0) {
      if (heap[end]! >= 0x80) ascii = false;
      end++;
    }
    if (ascii && end - pointer <= 32) {
      let text = "";
      for (let i = pointer; i < end; i++) text += String.fromCharCode(heap[i]!);
      return text;
    }
    return decoder.decode(heap.subarray(pointer, end));
  }

  /**
   * The engine value for a reply. Replies that stand for `undefined`, a number, a boolean or `null` become
   * that value itself (see `guest-protocol.ts`), so the guest needs no string to read them.
   */
  #replyValue(ctx: number, reply: string): number {
    if (reply === "") return 0;
    const ffi = this.#ffi;
    switch (reply.charCodeAt(0)) {
      case 110 /* n */:
        return ffi.QTS_NewFloat64(ctx as never, Number(reply.slice(1))) as unknown as number;
      case 98 /* b */:
        return ffi.QTS_DupValuePointer(ctx as never, reply === "b1" ? ffi.QTS_GetTrue() : ffi.QTS_GetFalse()) as unknown as number;
      case 122 /* z */:
        return ffi.QTS_DupValuePointer(ctx as never, ffi.QTS_GetNull()) as unknown as number;
    }
    return this.#newString(ctx, reply);
  }

  /** A new engine string holding `text`; 0 when no memory is left for it (the guest sees no reply). */
  #newString(ctx: number, text: string): number {
    const raw = this.#raw;
    if (this.#scratch === 0) this.#scratch = raw._malloc(SCRATCH_BYTES);
    let buffer = this.#scratch;
    let size = SCRATCH_BYTES;
    if (text.length * 3 + 1 > SCRATCH_BYTES) {
      size = raw.lengthBytesUTF8(text) + 1;
      if (size > SCRATCH_BYTES) buffer = raw._malloc(size);
    }
    if (buffer === 0) return 0;
    raw.stringToUTF8(text, buffer as never, size);
    const value = this.#ffi.QTS_NewString(ctx as never, buffer as never) as unknown as number;
    if (buffer !== this.#scratch) raw._free(buffer);
    return value;
  }
}

/** The module with access to its callback registry, which quickjs-emscripten keeps for its own runtimes. */
class SlotModule extends QuickJSWASMModule {
  /** quickjs-emscripten's objects for the runtime and context at these addresses, as `newRuntime` makes them. */
  adopt(runtimePointer: number, contextPointer: number): { runtime: QuickJSRuntime; context: QuickJSContext } {
    const rt = new Lifetime(runtimePointer as JSRuntimePointer, undefined, (pointer) => {
      this.ffi.QTS_FreeRuntime(pointer);
      this.callbacks.deleteRuntime(pointer);
    });
    const runtime = new QuickJSRuntime({ module: this.module, ffi: this.ffi, rt, callbacks: this.callbacks });
    const context = runtime.newContext({ contextPointer: contextPointer as JSContextPointer });
    // The runtime's memory measures use this context rather than making one of their own.
    runtime.context = context;
    return { runtime, context };
  }
}
