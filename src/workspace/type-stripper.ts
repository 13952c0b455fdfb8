/**
 * @module
 * TypeScript's types stripped from a cell with `amaro` (Node's own stripper, SWC compiled to WebAssembly). A cell
 * nested deeply enough (some hundreds of levels of functions, a couple of thousand brackets) overflows the stack
 * inside the WebAssembly code; the unwinding leaves the instance's own stack pointer wrong, and every later call —
 * for every job of the process — fails with `memory access out of bounds`. So after such a failure the stripper
 * is loaded again, a fresh instance (~100 ms, once per hostile cell), before it strips anything else.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The slice of amaro the compiler calls. */
interface Amaro {
  transformSync(source: string, options: { mode: "strip-only" | "transform" }): { code: string };
}

const require = createRequire(import.meta.url);

/**
 * One loaded instance of amaro, replaced when a stack overflow breaks it. It is loaded when the stripper is made
 * (compiling its WebAssembly takes the thread ~0.1 s: not in the middle of a step, whose lease is being renewed).
 */
export class TypeStripper {
  #amaro: Amaro | undefined = load();

  /** The code without its types; throws what amaro throws (a `RangeError` for a cell nested too deeply). */
  transform(source: string, mode: "strip-only" | "transform"): string {
    const amaro = (this.#amaro ??= load());
    try {
      return amaro.transformSync(source, { mode }).code;
    } catch (error) {
      if (error instanceof RangeError || isWasmTrap(error)) {
        this.#amaro = undefined;
        throw new RangeError("the cell is nested too deeply to compile", { cause: error });
      }
      throw error;
    }
  }
}

/** A fresh instance: the module and its WebAssembly loaded again (its file is read from the module cache of no one). */
function load(): Amaro {
  const index = require.resolve("amaro");
  for (const file of [index, join(dirname(index), "internal.js")]) delete require.cache[file];
  return require(index) as Amaro;
}

function isWasmTrap(error: unknown): boolean {
  const runtimeError = (globalThis as { WebAssembly?: { RuntimeError?: new () => Error } }).WebAssembly?.RuntimeError;
  return runtimeError !== undefined && error instanceof runtimeError;
}
