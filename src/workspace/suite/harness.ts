/**
 * @module
 * The harness the workspace conformance suite drives: a *session* is one job's sequence of cells, run either
 * **cold** — every cell opens a fresh {@link Workspace} from the variable rows the previous cells left (kept in a
 * plain array, as a store would keep them), runs, applies its `put` and `deleted` rows, and disposes the
 * workspace, so every cell proves that the workspace restores from what was stored — or **warm**: one workspace
 * stays open across the session's cells, as a worker keeps a job's VM between steps. The suite runs every case
 * both ways and compares what each cell printed and stored ({@link Transcript}): a warm VM must behave exactly
 * like one restored cold.
 */
import { forgingExecutor, type Forgery } from "./forging-executor.ts";
import type { VariableRow } from "../../store/store.ts";
import type { Tool } from "../../tools/tool.ts";
import type { Executor } from "../executor.ts";
import type { ExposedClasses } from "../membrane/exposed-classes.ts";
import { Workspace, type WorkspaceLimits, type WorkspaceOptions, type WorkspaceReport } from "../workspace.ts";

/** How a session keeps its workspace between cells. */
export type SessionMode = "cold" | "warm";

/** What each cell of a run printed and left stored, in the order the cells ran. */
export type Transcript = Array<{ session: number; cell: number; lines: string[]; rows: VariableRow[] }>;

/** What a session's workspaces are opened with. */
export interface SessionOptions {
  /** Guest texts to forge on their way to the host (a locked-down realm cannot forge them itself). */
  forgery?: Forgery;
  tools?: readonly Tool[];
  allowedTools?: readonly string[];
  allowHidden?: boolean;
  globals?: Record<string, unknown>;
  bindings?: Record<string, unknown>;
  exposed?: ExposedClasses;
  limits?: Partial<WorkspaceLimits>;
  clock?: () => number;
  random?: () => number;
  monotonic?: () => number;
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
  readonly #mode: SessionMode;
  readonly #transcript: Transcript | undefined;
  readonly #index: number;
  #cells = 0;
  #warm: Workspace | undefined;
  /** The stored variable rows, as a store would hold them. */
  rows: VariableRow[] = [];
  /** How many workspaces the session opened. */
  opened = 0;

  /** `transcript` (with this session's `index`) receives what every cell printed and stored. */
  constructor(executor: () => Executor, options: SessionOptions = {}, mode: SessionMode = "cold", transcript?: Transcript, index = 0) {
    this.#executor = executor;
    this.#options = options;
    this.#mode = mode;
    this.#transcript = transcript;
    this.#index = index;
  }

  /** Changes what later cells are opened with (another process may register other bindings). */
  reconfigure(options: SessionOptions): void {
    this.#options = { ...this.#options, ...options };
    this.#dropWarm();
  }

  /** Replaces a stored row's text behind the workspace's back, as a damaged store or another writer would. */
  replaceStored(name: string, blob: string): void {
    this.rows = this.rows.map((row) => (row.name === name ? { ...row, blob } : row));
    this.#dropWarm();
  }

  /** Frees the warm workspace, if any. */
  close(): void {
    this.#dropWarm();
  }

  #dropWarm(): void {
    this.#warm?.dispose();
    this.#warm = undefined;
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

  async #open(): Promise<Workspace> {
    if (this.#warm) return this.#warm;
    const options = this.#options;
    const open: WorkspaceOptions = {
      executor: options.forgery ? forgingExecutor(this.#executor(), options.forgery) : this.#executor(),
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
    if (options.monotonic) open.monotonic = options.monotonic;
    const workspace = await Workspace.open(open, this.rows);
    this.opened++;
    if (this.#mode === "warm") this.#warm = workspace;
    return workspace;
  }

  async #withWorkspace(work: (workspace: Workspace) => Promise<WorkspaceReport>): Promise<CellResult> {
    const workspace = await this.#open();
    let report: WorkspaceReport;
    try {
      report = await work(workspace);
    } finally {
      if (this.#mode === "cold" || !workspace.reusable) workspace.dispose();
      if (!workspace.reusable) this.#warm = undefined;
    }
    for (const row of report.put) {
      const index = this.rows.findIndex((existing) => existing.name === row.name);
      if (index >= 0) this.rows[index] = row;
      else this.rows.push(row);
    }
    this.rows = this.rows.filter((row) => !report.deleted.includes(row.name));
    const lines = report.console.map((entry) => `[${entry.stream}] ${entry.text}`);
    this.#transcript?.push({ session: this.#index, cell: this.#cells++, lines, rows: this.rows.map((row) => ({ ...row })) });
    return {
      ...report,
      lines,
      texts: (stream) => report.console.filter((entry) => entry.stream === stream).map((entry) => entry.text),
      notices: report.console.filter((entry) => entry.stream === "notice").map((entry) => entry.text),
    };
  }
}

/** A case of the suite: a stable name and its body. Skipped when the options name it. */
export type SuiteTest = (caseName: string, body: () => Promise<void>, options?: SuiteTestOptions) => void;

/** How a case runs. */
export interface SuiteTestOptions {
  /**
   * Run the case cold only, saying why a warm run must differ (agent code that runs while variables are
   * restored runs again in every new VM, and only there).
   */
  coldOnly?: string;
}

/** What each topic of the suite registers its cases with. */
export interface SuiteContext {
  test: SuiteTest;
  /** A new session (an empty job) against the executor under test. */
  session(options?: SessionOptions): Session;
  executor: () => Executor;
}
