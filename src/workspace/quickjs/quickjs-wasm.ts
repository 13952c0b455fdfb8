/**
 * @module
 * The parts of QuickJS-NG that instances are made from: the compiled WebAssembly module, the Emscripten loader
 * and the FFI class. Each sandbox thread loads them once (`quickjs-engine.ts`); every instance (see
 * `quickjs-slot.ts`) has its own fixed-size memory.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { EmscriptenModuleLoaderOptions, QuickJSEmscriptenModule, QuickJSFFI, QuickJSSyncVariant } from "quickjs-emscripten-core";
import variantExport from "@jitl/quickjs-ng-wasmfile-release-sync";
import { wasmApi, type WasmImports, type WasmInstance, type WasmMemory, type WasmModule } from "./wasm-api.ts";

// The package's one declaration file is typed as CommonJS; the ESM entry Node loads has the variant as default.
const variant = variantExport as unknown as QuickJSSyncVariant;

/** Bytes of memory the module declares as its initial size; no instance can have less. */
export const QUICKJS_MIN_MEMORY_BYTES = 16 * 1024 * 1024;

/** What instances are made from. */
export interface QuickJsWasm {
  readonly module: WasmModule;
  /** Runs the Emscripten glue for one instance. */
  readonly load: (options: EmscriptenModuleLoaderOptions & Record<string, unknown>) => Promise<QuickJSEmscriptenModule>;
  readonly Ffi: new (module: QuickJSEmscriptenModule) => QuickJSFFI;
}

/**
 * Compiles the QuickJS WebAssembly module (~5 ms: V8 compiles its functions lazily). Each sandbox pool compiles it
 * once and hands it to its threads, so a new thread does not compile it again.
 */
export async function compileQuickJs(): Promise<WasmModule> {
  const bytes = await readFile(createRequire(import.meta.url).resolve("@jitl/quickjs-ng-wasmfile-release-sync/wasm"));
  return wasmApi.compile(bytes);
}

/** The compiled module (`compiled`, or compiled now) with the Emscripten loader and FFI class instances are made from. */
export async function loadQuickJsWasm(compiled?: WasmModule | Promise<WasmModule>): Promise<QuickJsWasm> {
  const [module, loaderImport, Ffi] = await Promise.all([
    Promise.resolve(compiled ?? compileQuickJs()),
    variant.importModuleLoader(),
    variant.importFFI(),
  ]);
  const load = unwrapDefault(loaderImport) as QuickJsWasm["load"];
  return { module, load, Ffi };
}

/**
 * Runs the Emscripten glue for one instance of the process's compiled module, over `memory` (which bounds it).
 * The glue's own printing is silenced: engine aborts are reported as errors by whoever made the instance.
 */
export function instantiateQuickJs(wasm: QuickJsWasm, memory: WasmMemory): Promise<QuickJSEmscriptenModule> {
  // The glue waits for `done` and has no failure callback: a failed instantiation rejects this promise instead.
  return new Promise((resolve, reject) => {
    wasm.load({
      wasmMemory: memory,
      instantiateWasm(imports: WasmImports, done: (instance: WasmInstance) => void) {
        wasmApi.instantiate(wasm.module, imports).then(done, reject);
        return {};
      },
      printErr() {},
      print() {},
    }).then(resolve, reject);
  });
}

function unwrapDefault(value: unknown): unknown {
  let current = value as { default?: unknown };
  while (current && typeof current !== "function" && current.default) current = current.default as { default?: unknown };
  return current;
}
