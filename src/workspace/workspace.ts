/**
 * @module
 * A job's workspace for one step: a VM with the job's variables restored, its tools and context in scope,
 * and the broker between them. It runs cells and formal tool calls and reports what changed — console
 * entries, tool calls, the variables to write and delete, `exit` — for the job runner to commit.
 */
import { NameError } from "../errors/name-error.ts";
import type { VariableRow } from "../store/store.ts";
import { callTool, formatError, type ToolCallRecord } from "../tools/call-tool.ts";
import type { ErrorHandler } from "../tools/error-handler.ts";
import { llmRepr } from "../tools/llm-repr.ts";
import type { Tool, ToolAgent, ToolContext } from "../tools/tool.ts";
import { compileCell } from "./cell-compiler.ts";
import type { Codec, CodecProblem } from "./codec/codec.ts";
import { ConsoleBuffer, type ConsoleEntry, type ConsoleStream } from "./console-buffer.ts";
import { DEFAULT_VM_LIMITS, type Executor, type Vm, type VmLimits } from "./executor.ts";
import { createBroker, formatPrinted } from "./membrane/broker.ts";
import { HandleTable } from "./membrane/handle-table.ts";
import { createHostCodec } from "./membrane/host-codec.ts";
import { HostReferences, type ExposedClasses } from "./membrane/host-references.ts";

/** All workspace limits (DESIGN.md §6.4). */
export interface WorkspaceLimits extends VmLimits {
  /** CPU time per cell. @default 10_000 */
  cellTimeMs: number;
  /** Console characters per step. @default 50_000 */
  maxConsoleCharacters: number;
  /** @default 200_000 */
  maxSourceBytes: number;
  /** @default 20_000 */
  maxSyntaxNodes: number;
}

/** Default {@link WorkspaceLimits}. */
export const DEFAULT_WORKSPACE_LIMITS: WorkspaceLimits = {
  ...DEFAULT_VM_LIMITS,
  cellTimeMs: 10_000,
  maxConsoleCharacters: 50_000,
  maxSourceBytes: 200_000,
  maxSyntaxNodes: 20_000,
};

/** What a workspace is built from. */
export interface WorkspaceOptions {
  executor: Executor;
  limits?: Partial<WorkspaceLimits>;
  /** The job; its metadata reaches tools as `ctx.job.metadata`. */
  job: { id: string; role: string; metadata?: Readonly<Record<string, unknown>> };
  /** The agent, for `ctx.agent`. @default `{ role: job.role, metadata: job.metadata }` */
  agent?: ToolAgent;
  /** Tools in scope by name. Hidden ones are installed too, but refused unless a cell allows them. */
  tools: readonly Tool[];
  /** Values in scope by name that are not workspace variables (the agent's context). */
  globals: Readonly<Record<string, unknown>>;
  /** Host objects that persist by name (`Statek.open({ bindings })` and the agent's context). */
  bindings: ReadonlyMap<string, unknown>;
  /** Classes whose objects persist by id (`statek.expose`). */
  exposed?: ExposedClasses;
  signal?: AbortSignal;
}

/** An error handler a tool registered, with its context (the tool's result) encoded for the store. */
export interface RegisteredErrorHandler {
  name: string;
  /** The codec text (persist mode) of the context. */
  context: string;
}

/** Options of {@link Workspace.runCell}. */
export interface RunCellOptions {
  /** The cell may call hidden tools (warmup code marked hidden). @default false */
  allowHiddenTools?: boolean;
}

/** What one cell or formal call did. */
export interface WorkspaceReport {
  console: ConsoleEntry[];
  toolCalls: ToolCallRecord[];
  /** `<ErrorName>: <message>` when the cell failed. */
  error?: string;
  /** Set when agent code called `exit`: the status, encoded for the store. */
  exitStatus?: string;
  /** Variables to write (changed or new). */
  put: VariableRow[];
  /** Variables the code deleted. */
  deleted: string[];
  /** Error handlers the tools called registered, in order (tools/error-handler.ts). */
  errorHandlers: RegisteredErrorHandler[];
}

/** One step's workspace. Create with {@link Workspace.open}; always {@link Workspace.dispose}. */
export class Workspace {
  readonly #options: WorkspaceOptions;
  readonly #limits: WorkspaceLimits;
  readonly #table = new HandleTable();
  readonly #codec: Codec;
  readonly #tools: Map<string, Tool>;
  readonly #references: HostReferences;
  readonly #stored = new Map<string, VariableRow>();
  #vm: Vm | undefined;
  #reusable = true;
  #console: ConsoleBuffer;
  #toolCalls: ToolCallRecord[] = [];
  #errorHandlers: RegisteredErrorHandler[] = [];
  #allowHidden = false;
  #exit: unknown = undefined;
  #exited = false;
  #nextPosition = 0;
  /** Notices from restoring (handles that could not be re-attached), shown with the next cell's output. */
  readonly restoreNotices: string[] = [];

  private constructor(options: WorkspaceOptions) {
    this.#options = options;
    this.#limits = { ...DEFAULT_WORKSPACE_LIMITS, ...options.limits };
    this.#console = new ConsoleBuffer(this.#limits.maxConsoleCharacters);
    this.#tools = new Map(options.tools.map((tool) => [tool.name, tool]));
    this.#references = new HostReferences({
      bindings: options.bindings,
      tools: options.tools,
      ...(options.exposed ? { exposed: options.exposed } : {}),
    });
    this.#codec = createHostCodec({
      table: this.#table,
      describeHandle: (value) => this.#references.describe(value),
      resolveKey: (key) => this.#references.resolve(key),
    });
  }

  /** Builds the VM, puts tools and context in scope, and restores `variables`. */
  static async open(options: WorkspaceOptions, variables: readonly VariableRow[]): Promise<Workspace> {
    const workspace = new Workspace(options);
    const limits = workspace.#limits;
    const broker = createBroker({
      table: workspace.#table,
      codec: workspace.#codec,
      console: { push: (stream, text) => workspace.#console.push(stream, text) },
      callTool: (tool, args) => workspace.#callTool(tool, args, "code"),
      exit: (status) => {
        workspace.#exited = true;
        workspace.#exit = status;
      },
      resolveKey: (key, path) => {
        const resolved = workspace.#references.resolve(key);
        if ("why" in resolved) workspace.restoreNotices.push(`${path} could not be restored: ${resolved.why}`);
        return resolved;
      },
    });
    workspace.#vm = await options.executor.createVm({
      limits: { memoryBytes: limits.memoryBytes, stackBytes: limits.stackBytes },
      host: broker,
    });
    try {
      const provided: Record<string, unknown> = { ...options.globals };
      for (const tool of options.tools) provided[tool.name] = tool;
      workspace.#vm.invoke("provide", workspace.#codec.encode(provided));
      const ordered = [...variables].sort((a, b) => a.position - b.position);
      await workspace.#references.preload(ordered.map((row) => row.blob));
      for (const row of ordered) workspace.#stored.set(row.name, row);
      workspace.#nextPosition = ordered.length ? ordered[ordered.length - 1]!.position + 1 : 0;
      workspace.#vm.invoke("restore", JSON.stringify(ordered.map((row) => [row.name, row.blob])));
    } catch (error) {
      workspace.dispose();
      throw error;
    }
    return workspace;
  }

  // A formal call's prints go into its result (`printed`), not the console: the model reads them there.
  #toolContext(printed?: string[]): ToolContext {
    const { id, role, metadata = {} } = this.#options.job;
    return {
      job: { id, role, metadata },
      agent: this.#options.agent ?? { role, metadata },
      print: (...values: unknown[]) => {
        if (printed) printed.push(formatPrinted(values));
        else this.#console.push("out", formatPrinted(values));
      },
      variable: (name) => this.variable(name),
      signal: this.#options.signal ?? new AbortController().signal,
    };
  }

  #callTool(tool: Tool, args: readonly unknown[] | Record<string, unknown>, origin: "code" | "formal", callId?: string): unknown {
    const printed = origin === "formal" ? [] : undefined;
    return callTool(tool, args, {
      origin,
      ...(callId === undefined ? {} : { callId }),
      ctx: this.#toolContext(printed),
      record: (record) => this.#toolCalls.push(record),
      allowHidden: this.#allowHidden,
      registerErrorHandler: (handler, context) => this.#registerErrorHandler(handler, context),
      ...(printed ? { printed: () => printed } : {}),
    });
  }

  #registerErrorHandler(handler: ErrorHandler, context: unknown): void {
    const { texts, problems } = this.#codec.encodeAll([["context", context]], "persist");
    for (const problem of problems) {
      this.#console.push("notice", `the context of error handler ${handler.name} was not persisted: ${problem.reason}`);
    }
    this.#errorHandlers.push({ name: handler.name, context: texts.context! });
  }

  /**
   * The job's variable (or provided context value) `name`, read live from the VM: plain data as a copy, host
   * objects as themselves; `undefined` when there is none. Tools reach it as `ctx.variable(name)`.
   */
  variable(name: string): { value: unknown } | undefined {
    let text: string;
    try {
      text = this.#requireVm().invoke("variable", name);
    } catch {
      return undefined;
    }
    return text === "" ? undefined : { value: this.#codec.decode(text) };
  }

  /** Runs one cell of agent code. */
  async runCell(code: string, options: RunCellOptions = {}): Promise<WorkspaceReport> {
    const vm = this.#requireVm();
    this.#begin();
    this.#allowHidden = options.allowHiddenTools === true;
    const compiled = compileCell(code, this.#limits);
    let error: string | undefined;
    if (compiled.kind === "empty") error = "Error: no code submitted.";
    else if (compiled.kind === "error") error = `${compiled.error.name}: ${compiled.error.message}`;
    else {
      const outcome = await vm.runCell(compiled.script, { timeLimitMs: this.#limits.cellTimeMs, signal: this.#options.signal });
      if (outcome.error) error = `${outcome.error.name}: ${outcome.error.message}`;
      if (outcome.poisoned) this.#reusable = false;
    }
    this.#allowHidden = false;
    if (error) this.#console.push("error", error);
    return this.#end(error);
  }

  /** Runs a formal tool call from the model through the same path as calls from code. */
  async callFormal(name: string, args: Record<string, unknown>, callId: string): Promise<WorkspaceReport> {
    this.#requireVm();
    this.#begin();
    const tool = this.#tools.get(name);
    if (!tool) {
      const error = formatError(new NameError({ identifier: name, problem: "tool-not-found" }));
      this.#toolCalls.push({ name, origin: "formal", callId, args: llmRepr(args, { maxDepth: 2, maxItems: 10 }), error, durationMs: 0 });
    } else {
      try {
        await this.#callTool(tool, args, "formal", callId);
      } catch {
        // Recorded by callTool; a formal call's error is its result.
      }
    }
    const report = this.#end(undefined);
    return report;
  }

  #begin(): void {
    this.#console = new ConsoleBuffer(this.#limits.maxConsoleCharacters);
    for (const notice of this.restoreNotices.splice(0)) this.#console.push("notice", notice);
    this.#toolCalls = [];
    this.#errorHandlers = [];
    this.#exited = false;
    this.#exit = undefined;
  }

  #end(error: string | undefined): WorkspaceReport {
    const changes = this.#collect();
    const report: WorkspaceReport = {
      console: this.#console.finish(),
      toolCalls: this.#toolCalls,
      put: changes.put,
      deleted: changes.deleted,
      errorHandlers: this.#errorHandlers,
    };
    if (error !== undefined) report.error = error;
    if (this.#exited) report.exitStatus = this.#codec.encodeAll([["exit", this.#exit]], "persist").texts.exit!;
    return report;
  }

  /** Encodes the variables and compares them with what is stored: only changes are reported. */
  #collect(): { put: VariableRow[]; deleted: string[] } {
    let collected: { texts: Record<string, string>; problems: CodecProblem[]; order: string[] };
    try {
      collected = JSON.parse(this.#requireVm().invoke("collect"));
    } catch (error) {
      this.#reusable = false;
      this.#console.push("notice", `the variables of this step could not be saved: ${formatError(error)}`);
      return { put: [], deleted: [] };
    }
    const put: VariableRow[] = [];
    const changedNames = new Set<string>();
    for (const name of collected.order) {
      const blob = collected.texts[name]!;
      const stored = this.#stored.get(name);
      if (stored?.blob === blob) continue;
      const row = { name, blob, position: stored?.position ?? this.#nextPosition++ };
      this.#stored.set(name, row);
      put.push(row);
      changedNames.add(name);
    }
    const present = new Set(collected.order);
    const deleted = [...this.#stored.keys()].filter((name) => !present.has(name));
    for (const name of deleted) this.#stored.delete(name);
    // A warm VM must hold what a cold restore would give: values that became tombstones are replaced now.
    if (collected.problems.length && changedNames.size) {
      const rows = [...this.#stored.values()].sort((a, b) => a.position - b.position);
      this.#requireVm().invoke("restore", JSON.stringify(rows.map((row) => [row.name, row.blob])));
    }
    for (const problem of collected.problems) {
      const root = /^[^.[]+/.exec(problem.path)?.[0] ?? problem.path;
      if (changedNames.has(root)) this.#console.push("notice", `${problem.path} was not persisted: ${problem.reason}`);
    }
    return { put, deleted };
  }

  #requireVm(): Vm {
    if (!this.#vm) throw new Error("the workspace is disposed");
    return this.#vm;
  }

  /** False once the VM hit a limit or lost track of its variables: the next step must start a fresh one. */
  get reusable(): boolean {
    return this.#reusable && this.#vm !== undefined;
  }

  /** Frees the VM. */
  dispose(): void {
    this.#vm?.dispose();
    this.#vm = undefined;
  }
}

export type { ConsoleEntry, ConsoleStream };
