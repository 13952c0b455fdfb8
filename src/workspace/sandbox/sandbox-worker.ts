/**
 * @module
 * The entry point of a sandbox thread (`node:worker_threads`): one {@link ThreadRuntime} runs the scheduling
 * thread's commands. The thread's heap is collected on request (`vm.measureMemory` with eager execution starts a
 * full collection at once), so that the memory of module instances it let go returns to the system without
 * waiting for V8's idle-time collection, which comes seconds later.
 */
import { measureMemory } from "node:vm";
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { ThreadRuntime } from "./thread-runtime.ts";
import type { PostedCommand, ThreadData } from "./thread-protocol.ts";

// The collection above is the one reason this thread calls `vm.measureMemory`: its experimental-feature notice
// would only confuse whoever reads the application's output.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  if (String(warning instanceof Error ? warning.message : warning).includes("vm.measureMemory")) return;
  (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
}) as typeof process.emitWarning;

const runtime = new ThreadRuntime({
  data: workerData as ThreadData & { port: MessagePort },
  post: (result) => parentPort!.postMessage(result),
  collect: async () => {
    await measureMemory({ execution: "eager" });
  },
});
parentPort!.on("message", (command: PostedCommand) => runtime.receive(command));
