/**
 * @module
 * The harness the workspace conformance suite drives: a *session* is one job's sequence of cells. Every cell
 * opens a fresh {@link Workspace} from the variable rows the previous cells left (kept in a plain array, as a
 * store would keep them), runs, applies its `put` and `deleted` rows, and disposes the workspace — so every
 * cell also proves that the workspace restores from what was stored.
 */
import type { VariableRow } from "../../store/store.ts";
import type { Tool } from "../../tools/tool.ts";
import type { Executor } from "../executor.ts";
import type { ExposedClasses } from "../membrane/exposed-classes.ts";
import { Workspace, type WorkspaceLimits, type WorkspaceOptions, type WorkspaceReport } from "../workspace.ts";

/** What a session's workspaces are opened with. */
export interface SessionOptions {
  tools?: readonly Tool[];
  allowedTools?: readonly string[];
  allowHidden?: boolean;
  globals?: Record<string, unknown>;
  bindings?: Record<string, unknown>;
  exposed?: ExposedClasses;
  limits?: Partial<WorkspaceLimits>;
  clock?: () => number;
  random?: () => number;
}

/** A cell's report, with the console in the forms tests read most. */
export interface CellResult extends WorkspaceReport {
  /** Every console entry as `[stream] text`, in order. */
  lines: string[];
  /** The texts of the entries of one stream. */
  texts(stream: string): string[];
  /** The notices of the cell (restore notices, persistence notices, truncation). */
  notices: string[];
}

/** One job's sequence of cells against one executor. */
export class Session {
  readonly #executor: () => Executor;
  #options: SessionOptions;
  /** The stored variable rows, as a store would hold them. */
  rows: VariableRow[] = [];
  /** Every workspace a cell ran in was opened fresh; this counts them. */
  opened = 0;

  constructor(executor: () => Executor, options: SessionOptions = {}) {
    this.#executor = executor;
    this.#options = options;
  }

  /** Changes what later cells are opened with (another process may register other bindings). */
  reconfigure(options: SessionOptions): void {
    this.#options = { ...this.#options, ...options };
  }

  /** The stored blob of a variable, or `undefined`. */
  blob(name: string): string | undefined {
    return this.rows.find((row) => row.name === name)?.blob;
  }

  /** Runs one cell in a freshly opened workspace and stores what changed. */
  async run(code: string): Promise<CellResult> {
    return this.#withWorkspace((workspace) => workspace.runCell(code));
  }

  /** Runs one formal tool call in a freshly opened workspace. */
  async formal(name: string, args: Record<string, unknown>, callId = "call-1"): Promise<CellResult> {
    return this.#withWorkspace((workspace) => workspace.callFormal(name, args, callId));
  }

  /** Runs a cell that must succeed and returns its console lines. */
  async ok(code: string): Promise<CellResult> {
    const result = await this.run(code);
    if (result.error !== undefined) throw new Error(`the cell failed: ${result.error}\n${result.lines.join("\n")}`);
    return result;
  }

  /** The `out` and `echo` text of a cell that must succeed, joined by newlines. */
  async output(code: string): Promise<string> {
    const result = await this.ok(code);
    return result.console.filter((entry) => entry.stream === "out" || entry.stream === "echo").map((entry) => entry.text).join("\n");
  }

  async #withWorkspace(work: (workspace: Workspace) => Promise<WorkspaceReport>): Promise<CellResult> {
    const options = this.#options;
    const open: WorkspaceOptions = {
      executor: this.#executor(),
      limits: { cellTimeMs: 2_000, ...options.limits },
      job: { id: "job-1", role: "tester" },
      tools: options.tools ?? [],
      globals: options.globals ?? {},
      bindings: new Map(Object.entries(options.bindings ?? {})),
    };
    if (options.allowedTools) open.allowedTools = options.allowedTools;
    if (options.allowHidden !== undefined) open.allowHidden = options.allowHidden;
    if (options.exposed) open.exposed = options.exposed;
    if (options.clock) open.clock = options.clock;
    if (options.random) open.random = options.random;
    const workspace = await Workspace.open(open, this.rows);
    this.opened++;
    let report: WorkspaceReport;
    try {
      report = await work(workspace);
    } finally {
      workspace.dispose();
    }
    for (const row of report.put) {
      const index = this.rows.findIndex((existing) => existing.name === row.name);
      if (index >= 0) this.rows[index] = row;
      else this.rows.push(row);
    }
    this.rows = this.rows.filter((row) => !report.deleted.includes(row.name));
    return {
      ...report,
      lines: report.console.map((entry) => `[${entry.stream}] ${entry.text}`),
      texts: (stream) => report.console.filter((entry) => entry.stream === stream).map((entry) => entry.text),
      notices: report.console.filter((entry) => entry.stream === "notice").map((entry) => entry.text),
    };
  }
}

/** A case of the suite: a stable name and its body. Skipped when the options name it. */
export type SuiteTest = (caseName: string, body: () => Promise<void>) => void;

/** What each topic of the suite registers its cases with. */
export interface SuiteContext {
  test: SuiteTest;
  /** A new session (an empty job) against the executor under test. */
  session(options?: SessionOptions): Session;
  executor: () => Executor;
}
