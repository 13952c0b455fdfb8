/**
 * The incremental collect against the full collect over a randomized corpus of cells: seeded,
 * reproducible sequences of cells over a workspace with shared references, aliases, closures, classes and
 * functions that change globals, reaching variables by name and dynamically (`globalThis[name]`, `eval`, a
 * `Function` constructor, `with` inside `eval`, a sloppy function's `this`), joining them by ways the codec does not keep
 * (non-enumerable properties, closures, class prototypes, the agent's context), deleting and redefining them.
 * Each sequence runs in a workspace that collects incrementally and in one that encodes every variable, and
 * after every cell both must have printed the same and stored the same rows. A failure names the seed and
 * the cells; `STATEK_COLLECT_SEED=<seed>` runs that one sequence alone, `STATEK_COLLECT_SEEDS=<count>` that many.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Executor } from "./executor.ts";
import { createQuickJsExecutor } from "./quickjs/quickjs-executor.ts";
import { CollectPair } from "./suite/collect-pair.ts";
import { createTrustedExecutor } from "./trusted/trusted-executor.ts";

/** A small seeded generator (mulberry32): the same seed gives the same corpus everywhere. */
function generator(seed: number): { int(below: number): number; pick<T>(items: readonly T[]): T; chance(p: number): boolean } {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (below) => Math.floor(next() * below),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

/** Defines the classes and functions the cells use, and the first variables. */
const SETUP = [
  "class Counter { constructor(n) { this.n = n; this.log = [] } inc() { this.n++; this.log.push(this.n); return this } static made = 0 }",
  "class Node { constructor(label) { this.label = label; this.next = null } link(other) { this.next = other; return other } }",
  "function bump() { total.n++; return total.n }",
  "function grow(name, k) { globalThis[name]?.list?.push(k) }",
  "const total = { n: 0 }",
  "const big0 = Array.from({ length: 1000 }, (_, i) => i), big1 = Array.from({ length: 1000 }, (_, i) => -i)",
  "const v0 = { n: 0, list: [1, 2] }, v1 = [1, 2, 3], v2 = new Map([['a', { n: 1 }]]), v3 = new Set([1]), v4 = new Date(0)",
  "const v5 = new Counter(1), v6 = new Node('x'), v7 = { inner: { list: [] } }, v8 = v7.inner, v9 = [v0, v7.inner]",
].join("\n");

const NAMES = ["v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "w0", "w1", "total", "big0", "big1", "Counter", "Node"];

/** One statement; `try` keeps a statement about a missing variable from ending the cell. */
function statement(random: ReturnType<typeof generator>, names: readonly string[]): string {
  const a = random.pick(names);
  const b = random.pick(names);
  const k = random.int(100);
  const guard = (code: string) => `try { ${code} } catch {}`;
  const templates: Array<() => string> = [
    // Creating and replacing variables, sharing values between them.
    () => `var ${a} = { n: ${k}, list: [${k}] }`,
    () => `var ${a} = [${k}, { m: ${k} }]`,
    () => `var ${a} = new Map([['k${k}', [${k}]]])`,
    () => `var ${a} = new Counter(${k})`,
    () => `var ${a} = new Date(${k * 1000})`,
    () => `var ${a} = globalThis.${b}`,
    () => guard(`var ${a} = ${b}.list`),
    () => guard(`var ${a} = [${b}, ${k}]`),
    () => guard(`var ${a} = { ref: ${b}, again: ${b} }`),
    () => guard(`var ${a} = ${b}.inner`),
    () => guard(`var ${a} = ${b}.log`),
    () => `Object.assign(globalThis, { ${a}: { n: ${k} } })`,
    // Changing values through their names, aliases and shared references.
    () => guard(`${a}.n = ${k}`),
    () => guard(`${a}.list.push(${k})`),
    () => guard(`${a}.push(${k})`),
    () => guard(`${a}.inner.list.push(${k})`),
    () => guard(`${a}.ref.n = ${k}`),
    () => guard(`${a}[0].n = ${k}`),
    () => guard(`${a}.set('k${k}', ${k})`),
    () => guard(`${a}.get('a').n = ${k}`),
    () => guard(`${a}.add(${k})`),
    () => guard(`${a}.setTime(${k})`),
    () => guard(`${a}.inc()`),
    () => guard(`${a}.link(${b})`),
    () => guard(`${a}.next.label = 'n${k}'`),
    () => guard(`${a}[${k * 7}] = ${k}`),
    () => guard(`${a}.log.push(${k})`),
    // Workspace functions and class members that change globals.
    () => "bump()",
    () => `grow('${a}', ${k})`,
    () => "Counter.made++",
    () => guard(`${a}.constructor.made = ${k}`),
    () => `function f${k % 5}() { return ${a}.n = (${a}.n || 0) + 1 }`,
    () => guard(`f${k % 5}()`),
    // Reaching variables by names computed at run time.
    () => guard(`globalThis['${a}'].n = ${k}`),
    () => guard(`globalThis['v' + ${k % 10}].n = ${k}`),
    () => guard(`eval('${a}').n = ${k}`),
    () => guard(`(0, eval)('${a}.n = ${k}')`),
    () => guard(`Function('return ${a}')().n = ${k}`),
    () => guard(`[].map.constructor('${a}.n = ${k}')()`),
    () => guard(`(0, eval)('with (globalThis) { ${a}.n = ${k} }')`),
    () => guard(`(function () { this.${a}.n = ${k} })()`),
    () => guard(`for (const key of Object.keys(globalThis)) if (key === '${a}') globalThis[key].n = ${k}`),
    // Deleting and redefining without using the binding.
    () => `delete globalThis.${a}`,
    () => `Object.defineProperty(globalThis, '${a}', { value: { n: ${k} }, writable: true, enumerable: true, configurable: true })`,
    // Joins the codec does not keep: a warm VM keeps them, and a later cell may reach through them.
    () => guard(`Object.defineProperty(${a}, 'hidden', { value: ${b}, enumerable: false, configurable: true, writable: true })`),
    () => guard(`${a}.hidden.n = ${k}`),
    () => guard(`${a}.hidden.list.push(${k})`),
    () => guard(`${a}.reach = () => ${b}`),
    () => guard(`${a}.reach().n = ${k}`),
    () => guard(`Counter.prototype.shared = ${b}`),
    () => guard(`new Counter(0).shared.n = ${k}`),
    () => guard(`Counter.prototype.touch = function () { return ${b} }`),
    () => guard(`${a}.touch().n = ${k}`),
    () => guard(`config.keep = ${b}`),
    () => guard(`config.keep.n = ${k}`),
    // Timers, awaited or left to fire after the cell's code: their callbacks never throw, since a callback that
    // throws ends the cell and whether another timer's callback ran first would depend on wall-clock timing.
    () => guard(`setTimeout(() => { try { ${a}.n = ${k} } catch {} }, 1)`),
    () => `await new Promise((resolve) => setTimeout(() => { try { ${a}.n = ${k} } finally { resolve() } }, 1))`,
    // Reading only.
    () => guard(`print(JSON.stringify(${a}))`),
    () => `print(typeof ${a})`,
  ];
  return random.pick(templates)();
}

function corpus(seed: number, cells: number): string[] {
  const random = generator(seed);
  const out = [SETUP];
  for (let i = 0; i < cells; i++) {
    const count = 1 + random.int(3);
    out.push(Array.from({ length: count }, () => statement(random, NAMES)).join("\n"));
  }
  return out;
}

// `STATEK_COLLECT_SEED=<seed>` runs one sequence; `STATEK_COLLECT_SEEDS=<count>` runs that many (a long local run).
const only = process.env.STATEK_COLLECT_SEED;
const count = Number(process.env.STATEK_COLLECT_SEEDS ?? 16);
const SEEDS = only ? [Number(only)] : Array.from({ length: Number.isSafeInteger(count) && count > 0 ? count : 16 }, (_, i) => 1000 + i);
const CELLS = 40;

// A cell that throws while a timer of its own is pending says so in a notice, unless the host timer fired in the
// moment before the cell's end was handled: wall-clock timing, not the collect. The two runs are compared without it.
const NOT_TIMED = (line: string) => !/host calls? (was|were) still pending when the cell ended/.test(line);

async function runSequence(executor: () => Executor, mode: "warm" | "cold", seed: number): Promise<CollectPair> {
  const pair = new CollectPair({ executor, mode, globals: () => ({ config: { set: true } }), label: `seed ${seed} (${mode})`, compared: NOT_TIMED });
  try {
    for (const cell of corpus(seed, CELLS)) await pair.run(cell);
  } finally {
    pair.close();
  }
  return pair;
}

describe("incremental collect against the full collect (randomized corpus)", () => {
  it(`stores the same rows after every cell: ${SEEDS.length} sequences of ${CELLS} cells, warm (quickjs)`, async () => {
    let incremental = 0;
    let full = 0;
    for (const seed of SEEDS) {
      const pair = await runSequence(createQuickJsExecutor, "warm", seed);
      incremental += pair.incremental.encoded;
      full += pair.full.encoded;
    }
    // Not vacuous: the incremental side encoded markedly fewer variables than the full one (about half: these
    // cells reach several variables each, so groups grow fast; a real agent's cells reach far fewer).
    assert.ok(incremental < full * 0.7, `incremental ${incremental} vs full ${full}`);
  });

  it("stores the same rows after every cell, cold (quickjs, every cell in a VM restored from its side's rows)", async () => {
    for (const seed of SEEDS.slice(0, Math.max(2, SEEDS.length >> 3))) await runSequence(createQuickJsExecutor, "cold", seed);
  });

  it("stores the same rows after every cell, warm (trusted)", async () => {
    for (const seed of SEEDS.slice(0, Math.max(2, SEEDS.length >> 3))) await runSequence(createTrustedExecutor, "warm", seed);
  });
});
