/**
 * Hostile code, native loops: built-ins that loop inside the engine, where QuickJS never calls its interrupt
 * handler (`Array.prototype.includes` over a huge array-like, BigInt arithmetic near the engine's limits).
 * The watchdog stops the sandbox thread a margin past the cell's CPU limit; the cell reads the usual
 * `TimeoutError` (and a notice that the thread was stopped), the hostile job's next cell runs in a VM rebuilt from its stored variables, and the
 * ordinary job beside it finishes (see `hostile-harness.ts`).
 */
import { hostileSuite } from "./hostile-harness.ts";

/** The cell reads the same error whether the engine or the watchdog stopped it (a notice says which). */
const NATIVE = "TimeoutError: the cell used more than its 300 ms CPU time limit and was stopped";

const HUGE = "{ length: 2 ** 53 - 1 }";

hostileSuite("hostile code: native loops", [
  { name: "includes over a huge array-like", code: `Array.prototype.includes.call(${HUGE}, 1)`, expect: NATIVE },
  { name: "indexOf over a huge array-like", code: `Array.prototype.indexOf.call(${HUGE}, 1)`, expect: NATIVE },
  { name: "lastIndexOf over a huge array-like", code: `Array.prototype.lastIndexOf.call(${HUGE}, 1)`, expect: NATIVE },
  { name: "join over a huge array-like", code: "Array.prototype.join.call({ length: 2 ** 32 - 1 })", expect: NATIVE },
  { name: "reverse over a huge array-like", code: `Array.prototype.reverse.call(${HUGE})`, expect: NATIVE },
  { name: "copyWithin over a huge array-like", code: `Array.prototype.copyWithin.call(${HUGE}, 0, 1)`, expect: NATIVE },
  { name: "sort over a huge array-like", code: "Array.prototype.sort.call({ length: 2 ** 32 - 1, 0: 1 })", expect: NATIVE },
  { name: "splice over a huge array-like", code: `Array.prototype.splice.call(${HUGE}, 0, 1)`, expect: NATIVE },
  { name: "a native loop after host calls and a saved variable", code: `const before = 1\nawait calendar.later(1)\nArray.prototype.includes.call(${HUGE}, 1)`, expect: NATIVE },
  // Either the engine refuses the size at once or it computes until stopped: both contain it, with a clear error.
  { name: "BigInt arithmetic near the engine's limits", code: "const x = 7n ** 5_000_000n\nx % 1000n", expect: /^(TimeoutError: the cell used more than its 300 ms CPU time limit and was stopped|RangeError: BigInt is too large to allocate)$/ },
]);
