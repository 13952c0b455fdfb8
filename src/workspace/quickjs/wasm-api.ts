/**
 * @module
 * The slice of the WebAssembly JavaScript API the QuickJS executor uses. The project's TypeScript libraries
 * (ES2023 without the DOM) do not declare it, so only what is called is declared here.
 */

/** A linear memory (`WebAssembly.Memory`). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

/** A compiled module (`WebAssembly.Module`). */
export type WasmModule = object;

/** An instance (`WebAssembly.Instance`). */
export type WasmInstance = object;

/** The imports object given to an instance. */
export type WasmImports = Record<string, Record<string, unknown>>;

interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: WasmImports): Promise<WasmInstance>;
}

/** The runtime's `WebAssembly` namespace. */
export const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
