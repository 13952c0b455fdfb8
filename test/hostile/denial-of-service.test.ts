/**
 * Hostile code, denial of service: endless loops, floods and memory bombs. Each ends with a clear message,
 * the VM that hit a limit is replaced by one rebuilt from the stored variables, the concurrent job finishes,
 * and no VM ever holds more memory than its bound (see `hostile-harness.ts`).
 */
import assert from "node:assert/strict";
import { hostileSuite } from "./hostile-harness.ts";

const TIMEOUT = "TimeoutError: the cell used more than its 300 ms CPU time limit and was stopped";
const MEMORY = "MemoryLimitError: the cell ran out of memory: the workspace VM is limited to 32 MiB (memoryBytes); the VM was discarded";
/** Allocation loops end at whichever bound they reach first on this machine: the memory bound or the CPU limit. */
const MEMORY_OR_TIME = new RegExp(`^(${MEMORY.replace(/[()]/g, "\\$&")}|${TIMEOUT})$`);

hostileSuite("hostile code: denial of service", [
  { name: "while (true)", code: "while (true) {}", expect: TIMEOUT },
  { name: "an endless async loop", code: "for (;;) await null", expect: TIMEOUT },
  { name: "a microtask flood", code: "const spin = () => Promise.resolve().then(spin)\nspin()\nawait new Promise(() => {})", expect: MEMORY_OR_TIME },
  { name: "deep recursion", code: "function down(n) { return down(n + 1) + 1 }\ndown(0)", expect: "RangeError: Maximum call stack size exceeded" },
  {
    name: "deep recursion through host calls",
    code: "function down(n) { calendar.noop(); return down(n + 1) + 1 }\ndown(0)",
    expect: "RangeError: Maximum call stack size exceeded",
  },
  {
    name: "recursion through Proxy traps",
    code: "const loop = new Proxy({}, { get: (target, key, receiver) => receiver[key] })\nloop.anything",
    expect: "RangeError: Maximum call stack size exceeded",
  },
  { name: "a string memory bomb", code: "const big = 'x'.repeat(2 ** 28)", expect: MEMORY },
  {
    name: "a string built by doubling",
    code: "let s = 'x'\nfor (let i = 0; i < 40; i++) s = (s + s).slice(0)\ns.length",
    expect: MEMORY_OR_TIME,
  },
  { name: "an array memory bomb", code: "const rows = []\nfor (;;) rows.push(new Array(100_000).fill(rows.length))", expect: MEMORY },
  { name: "a typed-array memory bomb", code: "const chunks = []\nfor (;;) chunks.push(new Uint8Array(1 << 20))", expect: MEMORY },
  { name: "one huge typed array", code: "const bytes = new Float64Array(64 * 1024 * 1024)", expect: MEMORY },
  {
    name: "a Map memory bomb (100-character strings)",
    code: "const m = new Map()\nfor (let i = 0; ; i++) m.set(i, 'x'.repeat(100) + i)",
    expect: MEMORY,
    limits: { cellTimeMs: 5_000 },
  },
  {
    // QuickJS-NG's own allocation count misses most of these (it adds 8 bytes per allocation in this build): the
    // bound that holds is the VM's fixed WebAssembly memory.
    name: "an array of small objects, past QuickJS's own allocation count",
    code: "const rows = []\nfor (let i = 0; ; i++) rows.push({ i })",
    expect: MEMORY,
    limits: { cellTimeMs: 5_000 },
  },
  {
    name: "a Map of short strings, past QuickJS's own allocation count",
    code: "const m = new Map()\nfor (let i = 0; ; i++) m.set(i, 'k' + i)",
    expect: MEMORY,
    limits: { cellTimeMs: 5_000 },
  },
  { name: "an ArrayBuffer past the address space", code: "new ArrayBuffer(2 ** 31)", expect: "RangeError: invalid array buffer length" },
  { name: "a catastrophic regular expression", code: "/^(a+)+$/.test('a'.repeat(40) + 'b')", expect: TIMEOUT },
  {
    name: "huge console output",
    code: "for (let i = 0; i < 100_000; i++) print('x'.repeat(1_000))",
    expect: /^\[… [\d,]+ characters truncated\]$/,
    check: (view) => assert.ok(view.console.join("").length < 200_000, "the console stayed within its budget"),
  },
  {
    name: "a flood of huge error messages",
    code: "for (let i = 0; i < 100; i++) console.error('y'.repeat(1_000_000))",
    // Each message costs both sides time: on a busy machine the CPU limit may come before the transfer limit.
    expect: new RegExp(`^(ResourceLimitError: the cell moved too much data across the sandbox boundary \\(limit maxTransferCharacters = 8,388,608\\)|${TIMEOUT})$`),
    check: (view) => {
      assert.ok(view.console.some((entry) => /^\[… [\d,]+ characters truncated\]$/.test(entry)), "the output was cut with a marker");
      assert.ok(view.console.join("").length < 200_000, "the console stayed within its budget");
    },
  },
  { name: "a promise flood", code: "for (let i = 0; i < 1e8; i++) new Promise(() => {})", expect: MEMORY_OR_TIME },
  {
    name: "a flood of pending host calls",
    code: "for (let i = 0; i < 5_000; i++) calendar.slow()",
    // On a loaded machine the CPU limit may come first (each crossing takes the guest's thread some time).
    expect: new RegExp(`^(ResourceLimitError: too many host calls are pending at once; await some of them first \\(limit maxPendingHostCalls = 1,000\\)|${TIMEOUT})$`),
  },
  {
    name: "a flood of host calls",
    code: "for (;;) calendar.noop()",
    // On a loaded machine each crossing takes the guest's thread longer, and the CPU limit may come first.
    expect: new RegExp(`^(ResourceLimitError: the cell made too many host calls \\(limit maxHostCalls = 20,000\\)|${TIMEOUT})$`),
  },
  {
    name: "a BigInt too large to cross",
    code: "print(16n ** 200000n)",
    expect: "RangeError: a BigInt of 200001 digits cannot cross the sandbox boundary (at most 100000)",
  },
  {
    name: "a getter that never returns while variables are saved",
    code: "globalThis.trap = { get forever() { while (true) {} } }",
    expect: "the variables of this step could not be saved: saving them took longer than the runtime's time limit; the workspace continues from the variables saved before",
  },
  {
    name: "an array of 4 billion holes while variables are saved",
    code: "const holes = []\nholes.length = 2 ** 32 - 1",
    // Walking the holes takes time and memory: which limit stops the save first depends on the machine's speed.
    expect: /^(the variables of this step could not be saved: saving them took longer than the runtime's time limit; the workspace continues from the variables saved before|holes was not persisted: the workspace ran out of memory while saving it)$/,
  },
  {
    name: "a thrown value whose message never ends",
    code: "throw { get message() { while (true) {} } }",
    expect: TIMEOUT,
  },
  {
    name: "a cell larger than the source limit",
    code: `const padding = "${"p".repeat(210_000)}"`,
    expect: /^RangeError: the cell is too large \(210,01\d bytes; the limit is 200,000\)$/,
  },
  {
    name: "a cell with too many syntax nodes",
    code: `const numbers = [${Array.from({ length: 25_000 }, () => "1").join(",")}]`,
    expect: /^RangeError: the cell is too large \([\d,]+ syntax nodes; the limit is 20,000\)$/,
  },
  {
    name: "a cell nested too deeply to compile",
    code: `const deep = ${"[".repeat(20_000)}${"]".repeat(20_000)}`,
    expect: "RangeError: the cell is nested too deeply to compile",
  },
]);
