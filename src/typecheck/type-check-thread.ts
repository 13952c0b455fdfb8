/**
 * @module
 * The entry point of the checker's thread (`node:worker_threads`): it loads the TypeScript compiler, warms it
 * with a first check, then checks the cells the scheduling thread sends, one at a time. A check that throws
 * (a cell nested too deeply for the compiler's recursion) answers with the error; the thread goes on.
 */
import { getHeapStatistics } from "node:v8";
import { parentPort } from "node:worker_threads";
import { CellProgram } from "./cell-program.ts";
import type { CheckRequest, CheckResponse } from "./type-check-protocol.ts";

const port = parentPort!;
const program = new CellProgram();
// Parsing the library and making the first type checker is most of a cold check: done before any job waits.
program.check({ declarations: "", cells: [], variables: [], cell: "print(1)" });
port.postMessage({ id: 0, ready: true } satisfies CheckResponse);

port.on("message", (request: CheckRequest) => {
  if ("heap" in request) {
    const heap = getHeapStatistics();
    port.postMessage({ id: request.id, heap: { usedBytes: heap.used_heap_size, totalBytes: heap.total_heap_size } } satisfies CheckResponse);
    return;
  }
  const started = performance.now();
  let response: CheckResponse;
  try {
    response = { id: request.id, output: program.check(request.input), durationMs: performance.now() - started };
  } catch (error) {
    response = { id: request.id, failure: error instanceof Error ? `${error.name}: ${error.message}` : String(error), durationMs: performance.now() - started };
  }
  port.postMessage(response);
});
