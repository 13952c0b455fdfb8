/**
 * @module
 * A job's workspace for one step: a VM with the job's variables restored, its tools and context in scope,
 * and the broker between them. It runs cells and formal tool calls and reports what changed — console
 * entries, tool calls, every crossing, the variables to write and delete, `exit` — for the job runner to
 * commit. A VM that hits a limit is discarded at once (its memory goes back to the worker) and the next cell
 * runs in a new VM rebuilt from the stored variables.
 */
import type { Context } from "@opentelemetry/api";
import { NameError } from "../errors/name-error.ts";
import type { VariableRow } from "../store/store.ts";
import { callTool, formatError } from "../tools/call-tool.ts";
import type { ErrorHandler } from "../tools/error-handler.ts";
import { llmRepr } from "../tools/llm-repr.ts";
import type { Tool, ToolContext } from "../tools/tool.ts";
import { compileCell } from "./cell-compiler.ts";
import type { Codec } from "./codec/codec.ts";
import type { ConsoleEntry, ConsoleStream } from "./console-buffer.ts";
import { CellEffects, type RegisteredErrorHandler } from "./cell-effects.ts";
import { valueReply } from "./guest/guest-protocol.ts";
import { durableFuture } from "../tools/durable-future.ts";
import { isPromise } from "node:util/types";
import { isJobRequest, type JobChange } from "../tools/job-request.ts";
import { boundTool, MAX_CREATED_TOOLS } from "../tools/created-tool.ts";
import type { ApprovalDecision } from "../tools/approval.ts";
import { CellHost } from "./cell-host.ts";
import type { JournalItem } from "./cell-journal.ts";
import type { CellOutcome, EntryCall, Vm } from "./executor.ts";
import { formatBytes, resolveLimits, type WorkspaceLimits } from "./limits.ts";
import { Broker, formatPrinted } from "./membrane/broker.ts";
import { CrossingJournal } from "./membrane/crossing-journal.ts";
import { HandleTable } from "./membrane/handle-table.ts";
import { createHostCodec } from "./membrane/host-codec.ts";
import { HostReferences } from "./membrane/host-references.ts";
import { visibleUnder } from "./membrane/member-policy.ts";
import { ReferenceGuard } from "./membrane/reference-guard.ts";
import { ToolAccess } from "./membrane/tool-access.ts";
import { readCollectReport } from "./collect-report.ts";
import { VariableReader } from "./workspace-variables.ts";
import type { WorkspaceCellOptions, WorkspaceOptions, WorkspaceReport } from "./workspace-options.ts";
import { StoredRows, tombstoneText, type Collected } from "./stored-rows.ts";

export { DEFAULT_WORKSPACE_LIMITS, type WorkspaceLimits } from "./limits.ts";
export type { WorkspaceCellOptions, WorkspaceOptions, WorkspaceReport } from "./workspace-options.ts";

/** How many times a cell is replayed in a new VM when its VM is lost for another job's cell. */
const MAX_REPLAYS = 5;
/** How many times a cell that never started (its sandbox thread was busy) is moved to a new VM. */
const MAX_MOVES = 20;
/**
 * How long a VM whose memory grew past what it was made with stays warm without a cell. Memory a VM touched stays
 * resident while it lives (WebAssembly memory cannot give pages back), so an idle one that grew is let go: the
 * worker gets the memory back, and the job's next cell runs in a VM rebuilt from its stored variables.
 */
export const RELEASE_GROWN_VM_AFTER_MS = 3_000;

/** One step's workspace. Create with {@link Workspace.open}; always {@link Workspace.dispose}. */
export class Workspace {
  readonly #options: WorkspaceOptions;
  readonly #limits: WorkspaceLimits;
  readonly #table = new HandleTable();
  readonly #codec: Codec;
  readonly #references: HostReferences;
  readonly #access: ToolAccess;
  readonly #guard = new ReferenceGuard();
  readonly #journal: CrossingJournal;
  readonly #broker: Broker;
  readonly #host: CellHost;
  readonly #stored: StoredRows;
  #vm: Vm | undefined;
  /** The entries the next cell must run first: a new VM gets its globals and variables; a warm one may need its variables again. */
  #pendingSetup: EntryCall[] = [];
  #closed = false;
  #busy = false;
  #admitted = 0;
  readonly #effects: CellEffects;
  /** The job's cell counter of the cell running now. */
  #cell = 0;
  /** The trace context of the cell or formal call running now (tool-call spans go under it). */
  #trace: Context | undefined;
  #exit: unknown = undefined;
  #exited = false;
  /** The reason `failTask(reason)` gave: the cell exited, and its job fails. */
  #failure: string | undefined = undefined;
  /** What the current VM held when it was made (see {@link memory}). */
  #initialBytes: number | undefined;
  /** Lets go of a VM that grew once it has been idle for {@link RELEASE_GROWN_VM_AFTER_MS}. */
  #release: NodeJS.Timeout | undefined;
  /** The last restore left references it could not resolve: a cold open would try (and report) them again. */
  #unresolved = false;
  /** A tool was made (`createTool`): the next cell gets a new VM, which has it in scope. */
  #rebuild = false;
  #createdTools = 0;
  /** The job's difficulty: as opened, then as framework tools raised it. */
  #difficulty: "L" | "M" | "H" | undefined;
  readonly #variables: VariableReader;

  private constructor(options: WorkspaceOptions, variables: readonly VariableRow[]) {
    this.#options = options;
    this.#limits = resolveLimits(options.limits);
    this.#effects = new CellEffects(this.#limits.maxConsoleCharacters);
    this.#effects.onJobChange = (change) => this.#applyJobChange(change);
    this.#difficulty = options.job.difficulty;
    this.#access = new ToolAccess({ tools: options.tools, allowed: options.allowedTools, allowHidden: options.allowHidden });
    this.#references = new HostReferences({
      bindings: options.bindings,
      tools: options.tools,
      ...(options.exposed ? { exposed: options.exposed } : {}),
    });
    this.#codec = createHostCodec({ table: this.#table, describeHandle: (value) => this.#references.describe(value) });
    this.#journal = new CrossingJournal(this.#limits);
    this.#stored = new StoredRows(variables);
    this.#variables = new VariableReader({
      liveVm: () => (this.#busy && this.#pendingSetup.length === 0 ? this.#vm : undefined),
      codec: this.#codec,
      stored: this.#stored,
      provided: () => this.#provided(),
      resolveKey: (key) => this.#references.resolve(key),
    });
    this.#guard.admitStored(variables.map((row) => row.blob));
    this.#broker = new Broker({
      table: this.#table,
      codec: this.#codec,
      journal: this.#journal,
      access: this.#access,
      console: { push: (stream, text) => this.#effects.pushConsole(stream, text) },
      callTool: (tool, args, askOnly) => this.#variables.withBound(() => this.#callTool(tool, args, "code", undefined, this.#effects.current, undefined, askOnly)),
      bindArguments: (tool, args) => this.#variables.bindArguments(tool, args),
      callApproved: (tool, args, key) => this.#variables.withBound(() => this.#callApproved(tool, args, key)),
      refused: (tool, args, error) => this.#recordRefusal(tool.name, args, error, "code"),
      exit: (status, failure) => {
        this.#exited = true;
        this.#exit = status;
        this.#failure = failure;
      },
      resolveKey: (key, path) => {
        // Restoring may run agent code (a class's static blocks): it must not name what the job was never given.
        this.#admitIssued();
        if (!this.#guard.holds(key)) return { why: `it refers to a host object this job was never given (${key})` };
        // A handle issued in this session resolves to its object at once (it may not have been preloaded).
        const issued = this.#table.withKey(key);
        if (issued) return { value: issued.value };
        const resolved = this.#references.resolve(key);
        if ("why" in resolved) {
          this.#unresolved = true;
          this.#effects.pushConsole("notice", `${path} could not be restored: ${resolved.why}`, undefined);
        }
        return resolved;
      },
      clock: options.clock ?? Date.now,
      random: options.random ?? Math.random,
      ...(options.monotonic ? { monotonic: options.monotonic } : {}),
      policyOf: (value) => this.#references.policyOf(value),
      sharedValue: (name) => options.memory?.value(name),
    });
    this.#host = new CellHost(this.#broker.channel, {
      timers: options.timers,
      maxTimers: this.#limits.maxPendingHostCalls,
      // Stored references may be resolved only while variables are restored, before the cell's own code.
      onCodeStart: () => {
        this.#broker.restoring = false;
      },
      describe: (op, args) => this.#broker.describe(op, args),
      policy: this.#broker.policy,
      effects: this.#effects,
      onInDoubt: (op, args, error, seq) => {
        const record = this.#broker.inDoubtRecord(op, args, error);
        if (record) this.#effects.pushToolCall(record, seq);
      },
      ...(options.futures ? { futures: options.futures } : {}),
      onFutureResolved: (name, value, seq) => {
        const handler = options.tools.find((tool) => tool.errorHandler?.name === name)?.errorHandler;
        if (handler) this.#registerErrorHandler(handler, value, seq);
      },
      replyOf: (outcome) => ("value" in outcome ? valueReply(outcome.value, (value) => this.#codec.encode(value)) : ""),
    });
  }

  /**
   * Loads the host objects `variables` refer to and builds the VM. The tools, the context and the variables
   * are put into it by the first cell, under that cell's limits: restoring runs agent code (class static
   * blocks, getters), and what it does belongs to a cell.
   */
  static async open(options: WorkspaceOptions, variables: readonly VariableRow[]): Promise<Workspace> {
    const workspace = new Workspace(options, variables);
    await workspace.#references.preload(variables.map((row) => row.blob));
    await workspace.#startVm();
    return workspace;
  }

  /** A new VM; the next cell provides its globals and restores the stored variables first. */
  async #startVm(): Promise<Vm> {
    const limits = this.#limits;
    const vm = await this.#options.executor.createVm({
      limits: { memoryBytes: limits.memoryBytes, stackBytes: limits.stackBytes },
      host: this.#host,
    });
    this.#pendingSetup = [{ entry: "provide", args: [this.#codec.encode(this.#provided())] }, this.#restoreCall()];
    this.#initialBytes = vm.reservedMemory();
    this.#vm = vm;
    return vm;
  }

  /** The values in scope by name that are not workspace variables: the context, then the tools. */
  #provided(): Record<string, unknown> {
    const provided: Record<string, unknown> = { ...this.#options.globals };
    for (const tool of this.#access.inScope()) provided[tool.name] = tool;
    return provided;
  }

  #restoreCall(): EntryCall {
    return { entry: "restore", args: [this.#stored.restoreText()] };
  }

  // A formal call's prints go into its result (`printed`), not the console: the model reads them there.
  // `seq`: the crossing the call is (its effects are journaled with it, and its idempotency key names it).
  #toolContext(seq: number | undefined, printed?: string[]): ToolContext {
    const { id, role, metadata = {} } = this.#options.job;
    let children = 0;
    const difficulty = this.#difficulty;
    return {
      job: { id, role, metadata, ...(difficulty ? { difficulty } : {}) },
      agent: this.#options.agent ?? { role, metadata },
      print: (...values: unknown[]) => {
        if (printed) printed.push(formatPrinted(values));
        else this.#effects.pushConsole("out", formatPrinted(values), seq);
      },
      variable: (name) => this.variable(name),
      signal: this.#options.signal ?? new AbortController().signal,
      idempotencyKey: `${id}:${this.#cell}:${seq ?? "formal"}`,
      future: (key, futureOptions) => durableFuture(key, futureOptions),
      startJob: (agentOrRole, startOptions) => {
        // A child is started once the journal records the call: only a crossing of agent code has one.
        if (seq === undefined) throw new TypeError("ctx.startJob: only calls from agent code can start child jobs (not formal tool calls)");
        if (!this.#options.startJob) throw new TypeError("ctx.startJob: this workspace runs without a job");
        return this.#options.startJob(agentOrRole, startOptions, `${id}:${this.#cell}:${seq}:child:${children++}`);
      },
    };
  }

  // Tool access was checked by the broker (code) or callFormal (formal) before this runs. A framework tool's
  // changes to the job are kept with the call's crossing; agent code gets the result alone.
  #callTool(
    tool: Tool, args: readonly unknown[] | Record<string, unknown>, origin: "code" | "formal", callId?: string,
    seq = this.#effects.current, approved?: ApprovalDecision & { args: string }, askOnly?: Error,
  ): unknown {
    const value = this.#runTool(tool, args, origin, callId, seq, approved, askOnly);
    const unwrap = (result: unknown) => {
      if (!isJobRequest(result)) return result;
      for (const change of result.changes) this.#effects.pushJobChange(change, seq);
      return result.result;
    };
    return isPromise(value) ? value.then(unwrap) : unwrap(value);
  }

  /** What a framework tool asked of the job that the workspace itself carries out: tools made, the job's end. */
  #applyJobChange(change: JobChange): void {
    if (change.type === "difficulty") {
      const order = ["L", "M", "H"];
      if (this.#difficulty === undefined || order.indexOf(change.level) > order.indexOf(this.#difficulty)) this.#difficulty = change.level;
    } else if (change.type === "exit") {
      this.#exited = true;
      this.#exit = change.status;
    } else if (change.type === "tool") {
      const { spec } = change;
      const base = this.#access.named(spec.base);
      if (!base || this.#access.named(spec.name) || this.#createdTools >= MAX_CREATED_TOOLS) return;
      const made = boundTool(spec, base);
      this.#access.add(made, base);
      this.#references.addTool(made);
      this.#createdTools++;
      this.#rebuild = true;
    }
  }

  #runTool(
    tool: Tool, args: readonly unknown[] | Record<string, unknown>, origin: "code" | "formal", callId: string | undefined,
    seq: number | undefined, approved: (ApprovalDecision & { args: string }) | undefined, askOnly?: Error,
  ): unknown {
    const printed = origin === "formal" ? [] : undefined;
    return callTool(tool, args, {
      origin,
      ...(callId === undefined ? {} : { callId }),
      ...(approved ? { approved, approvedArgs: approved.args } : {}),
      ...(askOnly ? { askOnly } : {}),
      ctx: this.#toolContext(seq, printed),
      visible: visibleUnder((value) => this.#references.policyOf(value)),
      record: (record) => this.#effects.pushToolCall(record, seq),
      registerErrorHandler: (handler, context) => this.#registerErrorHandler(handler, context, seq),
      ...(printed ? { printed: () => printed } : {}),
      ...(this.#trace ? { trace: this.#trace } : {}),
    });
  }

  // A `needsApproval` tool's call made again once approved: the job checks the approval (and uses it up) first.
  async #callApproved(tool: Tool, args: unknown[], key: string): Promise<unknown> {
    const seq = this.#effects.current;
    const futures = this.#host.futures;
    if (!futures?.approvedCall) throw new TypeError(`${tool.name}: an approved call needs a job`);
    let decision;
    try {
      decision = await futures.approvedCall(key, tool.name, `${this.#options.job.id}:${this.#cell}:${seq ?? "formal"}`);
    } catch (error) {
      // A refusal is the guest's to read; the store failing (past its retries) stops the cell instead.
      if (!(error instanceof TypeError)) this.#host.fail(error);
      throw error;
    }
    return this.#callTool(tool, args, "code", undefined, seq, decision);
  }

  #recordRefusal(name: string, args: unknown, error: Error, origin: "code" | "formal", callId?: string): void {
    this.#effects.pushToolCall({
      name, origin, ...(callId === undefined ? {} : { callId }),
      args: llmRepr(args, { maxDepth: 2, maxItems: 10 }), error: formatError(error), durationMs: 0,
    });
  }

  #registerErrorHandler(handler: ErrorHandler, context: unknown, seq: number | undefined): void {
    const { texts, problems } = this.#codec.encodeAll([["context", context]], "persist");
    for (const problem of problems) {
      this.#effects.pushConsole("notice", `the context of error handler ${handler.name} was not persisted: ${problem.reason}`, seq);
    }
    this.#effects.pushErrorHandler({ name: handler.name, context: texts.context! }, seq);
  }

  /**
   * The job's variable (or provided context value) `name`: plain data as a copy, host objects as themselves;
   * `undefined` when there is none. Tools reach it as `ctx.variable(name)`. While the guest waits for a host
   * call (a tool's argument binding, the synchronous part of a tool's `run`) it is read live from the VM;
   * otherwise it is the value saved at the end of the last cell — the same, since no agent code ran since. A live
   * read that takes the guest too long throws a `TimeoutError` (see `workspace-variables.ts`).
   */
  variable(name: string): { value: unknown } | undefined {
    return this.#variables.variable(name);
  }

  /** Runs one cell of agent code. */
  async runCell(code: string, options: WorkspaceCellOptions = {}): Promise<WorkspaceReport> {
    this.#enter();
    clearTimeout(this.#release);
    this.#access.cellAllowsHidden = options.allowHiddenTools === true;
    this.#trace = options.trace;
    try {
      if (this.#vm && (!this.#vm.usable || this.#vm.contended || this.#rebuild)) this.#discardVm();
      this.#rebuild = false;
      const vm = this.#vm ?? (await this.#startVm());
      this.#begin();
      const compiled = compileCell(code, this.#limits);
      let error: string | undefined;
      let outcome: CellOutcome = {};
      let journal: readonly JournalItem[] = [];
      if (compiled.kind === "empty") error = "Error: no code submitted.";
      else if (compiled.kind === "error") error = `${compiled.error.name}: ${compiled.error.message}`;
      else {
        this.#host.startCell(options.journal);
        this.#cell = options.cell ?? this.#options.cell ?? 0;
        outcome = await this.#runScript(vm, compiled.script);
        // A VM lost for another job's cell is rebuilt and the cell replayed from its record (a few times at most).
        // A cell that never started (its thread was busy: a loaded machine) moves on without using up a replay.
        for (let attempt = 1, moves = 0; outcome.lost && attempt <= MAX_REPLAYS; outcome.notStarted && moves < MAX_MOVES ? moves++ : attempt++) {
          // Every thread may look stalled when the machine itself is starved: give them a moment, longer each time.
          if (outcome.notStarted && moves > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 25 * 2 ** moves)));
          this.#discardVm();
          this.#host.replayCell();
          outcome = await this.#runScript(await this.#startVm(), compiled.script);
        }
        if (this.#host.failure) {
          // The journal could not be made durable (the lease moved to another worker): the step writes nothing.
          const failure = this.#host.failure;
          this.#host.endCell();
          this.#discardVm();
          throw failure;
        }
        if (this.#host.divergence !== undefined) outcome = { ...outcome, error: { name: "ReplayDivergence", message: this.#host.divergence }, suspended: false };
        journal = this.#host.journal;
        outcome = this.#withAbandoned(outcome, outcome.suspended ? 0 : this.#host.endCell());
        if (outcome.error) error = `${outcome.error.name}: ${outcome.error.message}`;
      }
      if (error) this.#effects.pushConsole("error", error, undefined);
      const report = this.#end(error, outcome, compiled.kind === "script" && !outcome.suspended);
      report.journal = journal;
      if (outcome.suspended) {
        // The cell waits for durable futures: the job resumes it by replaying its journal in a new VM.
        report.suspended = true;
        this.#host.endCell();
      }
      if (outcome.poisoned || !vm.usable) this.#discardVm();
      return report;
    } finally {
      this.#access.cellAllowsHidden = false;
      this.#busy = false;
      this.#releaseIfGrown();
    }
  }

  #releaseIfGrown(): void {
    const reserved = this.#vm?.reservedMemory();
    if (reserved === undefined || this.#initialBytes === undefined || reserved <= this.#initialBytes) return;
    this.#release = setTimeout(() => {
      if (!this.#busy && !this.#closed) this.#discardVm();
    }, RELEASE_GROWN_VM_AFTER_MS);
    this.#release.unref();
  }

  async #runScript(vm: Vm, script: string): Promise<CellOutcome> {
    const setup = this.#pendingSetup;
    this.#pendingSetup = [];
    this.#broker.restoring = setup.length > 0;
    if (setup.length) this.#unresolved = false;
    // Shared memory may have changed since the last cell (another job wrote): its names are given again.
    const memory = this.#options.memory;
    const before = memory ? [...setup, { entry: "share", args: [JSON.stringify(memory.names())] }] : setup;
    try {
      return await vm.runCell(script, {
        timeLimitMs: this.#limits.cellTimeMs,
        wallTimeMs: this.#limits.cellWallTimeMs,
        ...(this.#options.signal ? { signal: this.#options.signal } : {}),
        before,
        after: { entry: "collect", args: this.#options.collect === "full" ? ["full"] : [] },
      });
    } finally {
      this.#broker.restoring = false;
    }
  }

  #withAbandoned(outcome: CellOutcome, abandoned: number): CellOutcome {
    if (!abandoned) return outcome;
    const calls = abandoned === 1 ? "1 host call was" : `${abandoned.toLocaleString("en-US")} host calls were`;
    this.#effects.pushConsole("notice", `${calls} still pending when the cell ended; await host calls inside the cell (their results were discarded)`);
    return outcome;
  }

  /** The variables as stored now, in definition order (the rows of the last commit and this step's changes). */
  storedVariables(): VariableRow[] {
    return this.#stored.ordered();
  }

  /** The tool agent code and the model know by `name` in this workspace, if any. */
  tool(name: string): Tool | undefined {
    return this.#access.named(name);
  }

  /**
   * Runs a formal tool call from the model through the same checks as calls from code; `allowHiddenTools` for a
   * call of warmup code marked hidden (`// statek: as tool`).
   */
  async callFormal(name: string, args: Record<string, unknown>, callId: string, options: { trace?: Context; allowHiddenTools?: boolean } = {}): Promise<WorkspaceReport> {
    this.#enter();
    this.#trace = options.trace;
    this.#access.cellAllowsHidden = options.allowHiddenTools === true;
    try {
      this.#begin();
      const tool = this.#access.named(name);
      const refusal = !tool ? new NameError({ identifier: name, problem: "tool-not-found" }) : this.#access.refusal(tool);
      if (refusal || !tool) {
        this.#recordRefusal(name, args, refusal!, "formal", callId);
      } else {
        try {
          await this.#callTool(tool, args, "formal", callId);
        } catch {
          // Recorded by callTool; a formal call's error is its result.
        }
      }
      // No agent code ran, so no variable changed.
      const report: WorkspaceReport = {
        console: this.#effects.console.finish(), toolCalls: this.#effects.toolCalls, toolCallPositions: this.#effects.toolCallPositions, crossings: [], put: [], deleted: [], errorHandlers: this.#effects.errorHandlers,
      };
      if (this.#effects.jobChanges.length) report.jobChanges = this.#effects.jobChanges;
      if (this.#exited) report.exitStatus = this.#exitText();
      return report;
    } finally {
      this.#access.cellAllowsHidden = false;
      this.#busy = false;
    }
  }

  #enter(): void {
    if (this.#closed) throw new Error("the workspace is disposed");
    if (this.#busy) throw new Error("the workspace is busy: it runs one cell or formal call at a time");
    this.#busy = true;
  }

  #begin(): void {
    this.#effects.reset();
    this.#journal.begin();
    this.#exited = false;
    this.#exit = undefined;
    this.#failure = undefined;
  }

  #end(error: string | undefined, outcome: CellOutcome, ran: boolean): WorkspaceReport {
    const changes: { put: VariableRow[]; deleted: string[]; encoded?: number } =
      !ran ? { put: [], deleted: [] } : outcome.broken ? this.#lostChanges(outcome) : this.#collect(outcome.after);
    const report: WorkspaceReport = {
      console: this.#effects.console.finish(),
      toolCalls: this.#effects.toolCalls,
      toolCallPositions: this.#effects.toolCallPositions,
      crossings: this.#journal.records(),
      put: changes.put,
      deleted: changes.deleted,
      errorHandlers: this.#effects.errorHandlers,
    };
    if (this.#effects.jobChanges.length) report.jobChanges = this.#effects.jobChanges;
    if (error !== undefined) report.error = error;
    if (outcome.limit) report.limit = outcome.limit;
    if (changes.encoded !== undefined) report.encodedVariables = changes.encoded;
    if (this.#exited && !outcome.broken) {
      report.exitStatus = this.#exitText();
      if (this.#failure !== undefined) report.taskFailure = this.#failure;
    }
    return report;
  }

  #lostChanges(outcome: CellOutcome): { put: VariableRow[]; deleted: string[] } {
    // Only a watchdog stop breaks a VM at its time limit: the engine itself could not stop the code.
    const why = outcome.limit === "time" ? "the cell was stopped inside a built-in the engine could not interrupt, so its sandbox thread was stopped; " : "";
    this.#effects.pushConsole("notice", `${why}the variables this cell changed were not saved: the workspace continues from the variables saved before it`);
    return { put: [], deleted: [] };
  }

  /** An exit status as the store keeps it (a framework tool's, replayed from a journal). */
  encodeExit(status: unknown): string {
    const saved = this.#exit;
    this.#exit = status;
    try {
      return this.#exitText();
    } finally {
      this.#exit = saved;
    }
  }

  #exitText(): string {
    const text = this.#codec.encodeAll([["exit", this.#exit]], "persist").texts.exit!;
    this.#admitIssued();
    const unknown = this.#guard.unknownReferences(text);
    return unknown.length ? tombstoneText(`the exit status refers to a host object this job was never given`, "exit") : text;
  }

  /** Lets the guard know the keys of every handle issued since it last looked. */
  #admitIssued(): void {
    if (this.#table.size === this.#admitted) return;
    for (const entry of this.#table.entries()) if (entry.id > this.#admitted && entry.key) this.#guard.admit(entry.key);
    this.#admitted = this.#table.size;
  }

  /** Reads the variables the cell's `collect` reported and compares them with what is stored: only changes are reported. */
  #collect(after: CellOutcome["after"]): { put: VariableRow[]; deleted: string[]; encoded?: number } {
    let collected: Collected;
    try {
      if (!after) throw new TypeError("the workspace did not report its variables");
      if ("error" in after) throw Object.assign(new Error(`${after.error.name}: ${after.error.message}`), { guest: after.error });
      collected = readCollectReport(after.text);
    } catch (error) {
      this.#effects.pushConsole("notice", `the variables of this step could not be saved: ${this.#collectFailure(error)}`);
      this.#discardVm();
      return { put: [], deleted: [] };
    }
    this.#admitIssued();
    const changes = this.#stored.apply(collected, this.#guard);
    for (const notice of changes.refused) this.#effects.pushConsole("notice", notice);
    // A warm VM must hold what a cold restore would give: values that became tombstones are restored again
    // before the next cell (when any stored text holds one — what a full collect reports as problems), and
    // classes re-declared against variables that changed; references a restore could not resolve get another
    // chance (and their notices are shown again), as in a cold open. The guest may ask for a restore too (it
    // starts the groups of its incremental collect over).
    const touched = [...changes.changed, ...changes.deleted];
    const tombstones = collected.problems.length || changes.refused.length || this.#stored.holdsTombstones();
    if ((tombstones && changes.changed.size) || this.#unresolved || this.#stored.classesMention(touched) || collected.regroup === true) {
      if (!this.#pendingSetup.length) this.#pendingSetup = [this.#restoreCall()];
    }
    for (const problem of collected.problems) {
      const path = String(problem?.path ?? "");
      const root = /^[^.[]+/.exec(path)?.[0] ?? path;
      if (changes.changed.has(root)) this.#effects.pushConsole("notice", `${path} was not persisted: ${String(problem?.reason ?? "")}`);
    }
    const encoded = Number.isSafeInteger(collected.encoded) ? { encoded: collected.encoded! } : {};
    return { put: changes.put, deleted: changes.deleted, ...encoded };
  }

  #collectFailure(error: unknown): string {
    const guest = (error as { guest?: { name?: string; message?: string } }).guest;
    if (guest && /out of memory/.test(String(guest.message))) {
      return `the workspace ran out of memory while saving them (memoryBytes = ${formatBytes(this.#limits.memoryBytes)}); it continues from the variables saved before`;
    }
    if (guest?.name === "TimeoutError") return "saving them took longer than the runtime's time limit; the workspace continues from the variables saved before";
    return formatError(error);
  }

  /** Frees the VM now; the next cell rebuilds one from the stored variables. */
  #discardVm(): void {
    this.#vm?.dispose();
    this.#vm = undefined;
    this.#pendingSetup = [];
  }

  /** False once the workspace is disposed. (A VM that hit a limit is replaced, so the workspace stays usable.) */
  get reusable(): boolean {
    return !this.#closed;
  }

  /**
   * The VM's memory: guest heap in use, bytes held from the worker, what the VM held when it was made (an
   * executor may reserve memory up front that stays untouched until the guest needs it), and the bound.
   */
  memory(): { readonly usedBytes: number | undefined; reservedBytes: number | undefined; initialBytes: number | undefined; limitBytes: number } {
    const vm = this.#vm;
    return {
      // As the VM last measured it (a walk of the heap, which the VM does not repeat at every cell).
      get usedBytes() {
        return vm?.memoryUsage();
      },
      reservedBytes: vm?.reservedMemory(),
      initialBytes: this.#vm ? this.#initialBytes : undefined,
      limitBytes: this.#limits.memoryBytes,
    };
  }

  /** Frees the VM. */
  dispose(): void {
    this.#closed = true;
    clearTimeout(this.#release);
    this.#discardVm();
  }
}

export type { ConsoleEntry, ConsoleStream, RegisteredErrorHandler };
