/**
 * The anchor of bench/worker-steps: LangGraph.js with its SQLite checkpointer, stepping the equivalent of a
 * durable no-op step — a one-node graph (`START → step → END`) whose node increments a counter, invoked once per
 * step on a thread per job, every superstep checkpointed to a SQLite file (WAL, synchronous=FULL), with 1 and
 * with 100 threads invoked at once.
 *
 * LangGraph is not a dependency of STATEK: its checkpointer needs better-sqlite3, a native addon built for the
 * running Node. To run the comparison, install it in a directory of its own and name that directory:
 *
 * ```sh
 * mkdir /tmp/langgraph && cd /tmp/langgraph && npm init -y
 * npm install @langchain/langgraph @langchain/langgraph-checkpoint-sqlite @langchain/core
 * # better-sqlite3 is built for Node 24 (the project's Node); without network access to its prebuilt
 * # binaries, build it with Node 24's headers: npm_config_nodedir=<a Node 24 directory with include/node>
 * (cd node_modules/better-sqlite3 && npx node-gyp rebuild --release)
 * STATEK_BENCH_LANGGRAPH=/tmp/langgraph npm run bench -- worker-steps
 * ```
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What {@link loadLangGraph} found: a way to measure, or why it cannot. */
export type LangGraphBench = { steps(jobs: number, steps: number): Promise<number> } | { missing: string };

/** LangGraph from the directory named by STATEK_BENCH_LANGGRAPH, or why it is not there. */
export function loadLangGraph(directory = process.env.STATEK_BENCH_LANGGRAPH): LangGraphBench {
  if (!directory) return { missing: "not installed (set STATEK_BENCH_LANGGRAPH to a directory holding it; see bench/langgraph-steps.ts)" };
  let modules: { graph: any; sqlite: any };
  try {
    const require = createRequire(join(directory, "package.json"));
    modules = { graph: require("@langchain/langgraph"), sqlite: require("@langchain/langgraph-checkpoint-sqlite") };
    keepStatements(createRequire(require.resolve("@langchain/langgraph-checkpoint-sqlite"))("better-sqlite3"));
  } catch (error) {
    return { missing: `cannot load it from ${directory}: ${(error as Error).message.split("\n")[0]}` };
  }
  return { steps: (jobs, steps) => stepsPerSecond(modules, jobs, steps) };
}

/** Every statement prepared, kept for the life of the process (see {@link keepStatements}). */
const kept = new Map<unknown, Map<string, unknown>>();

/**
 * The saver prepares its statements on every call. On Node 24, better-sqlite3 (11 and 12) aborts the process when
 * the garbage collector finalizes a statement inside a microtask checkpoint ("Assertion failed: (env) != nullptr"
 * in `Statement::~Statement`), so each statement is prepared once per connection and never collected — which
 * only makes LangGraph faster — and pragmas are run without a statement object.
 */
function keepStatements(Database: { prototype: { prepare(this: unknown, sql: string): unknown; pragma(this: unknown, source: string): unknown } }): void {
  const prepare = Database.prototype.prepare;
  // `pragma` prepares natively, past `prepare`; the saver only sets pragmas, so running them is enough.
  Database.prototype.pragma = function (this: { exec(sql: string): void }, source: string) {
    this.exec(`PRAGMA ${source}`);
    return [];
  } as never;
  Database.prototype.prepare = function (this: unknown, sql: string) {
    let statements = kept.get(this);
    if (!statements) kept.set(this, (statements = new Map()));
    if (!statements.has(sql)) statements.set(sql, prepare.call(this, sql));
    return statements.get(sql);
  };
}

async function stepsPerSecond({ graph, sqlite }: { graph: any; sqlite: any }, jobs: number, steps: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-langgraph-"));
  try {
    const saver = sqlite.SqliteSaver.fromConnString(join(dir, "checkpoints.db"));
    saver.setup?.();
    // The durability STATEK's store uses (the saver's default is WAL with SQLite's default).
    saver.db.pragma("synchronous = FULL");
    const State = graph.Annotation.Root({ count: graph.Annotation({ reducer: (_old: number, value: number) => value, default: () => 0 }) });
    const app = new graph.StateGraph(State)
      .addNode("step", (state: { count: number }) => ({ count: state.count + 1 }))
      .addEdge(graph.START, "step")
      .addEdge("step", graph.END)
      .compile({ checkpointer: saver });
    let next = 0;
    const warmup = jobs * 2;
    let started = 0;
    const lane = async (thread: number) => {
      const config = { configurable: { thread_id: `job-${thread}` } };
      while (next < warmup + steps) {
        if (next++ === warmup) started = performance.now();
        await app.invoke({}, config);
      }
    };
    await Promise.all(Array.from({ length: jobs }, (_, thread) => lane(thread)));
    const rate = (steps * 1000) / (performance.now() - started);
    saver.db.close();
    return rate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
