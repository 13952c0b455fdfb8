/**
 * @module
 * `Statek`: the application's handle on a store of durable agent jobs — submit jobs, step and run them,
 * read them back.
 */
import { randomUUID } from "node:crypto";
import { context } from "@opentelemetry/api";
import { FutureSignals } from "../durable/future-signals.ts";
import { newProcessOwner } from "../worker/process-owner.ts";
import { NoSuchAgentError } from "../errors/no-such-agent-error.ts";
import { NoSuchJobError } from "../errors/no-such-job-error.ts";
import { openStore } from "../store/open-store.ts";
import { maskStoreLocation, resolveStoreSpec } from "../store/store-location.ts";
import type { JobFilter, JsonValue, Store } from "../store/store.ts";
import type { Executor } from "../workspace/executor.ts";
import { resolveLimits, type WorkspaceLimits } from "../workspace/limits.ts";
import { resolveExecutor } from "../workspace/resolve-executor.ts";
import { CheckerThread } from "../typecheck/checker-thread.ts";
import { TypeChecker } from "../typecheck/type-checker.ts";
import { typeCheckModeOf } from "../typecheck/type-check-mode.ts";
import { loadReferences } from "../workspace/decode-variables.ts";
import { ExposedClasses, type ExposeOptions } from "../workspace/membrane/host-references.ts";
import type { ErrorHandler } from "../tools/error-handler.ts";
import { Agent, withDefinitionFiles } from "../agents/agent.ts";
import { kindOf } from "../tools/with-article.ts";
import { ErrorHandlers } from "./step/error-handlers.ts";
import { toJobSummary, toJobView, type JobSummary, type JobView } from "./history/job-view.ts";
import { DEFAULT_MAX_TURNS, isFinal, releaseCarriedLease, runStep, type LeaseCarry, type StepEnvironment } from "./step/run-step.ts";
import { DEFAULT_WARM_MEMORY_BYTES, JobSessions } from "./step/job-sessions.ts";
import { createModelSettings, type ModelSettings } from "../models/model-settings.ts";
import { checkHarnessLimits, type HarnessLimits } from "../agents/harness.ts";
import { pushUserMessage } from "./operate/push-message.ts";
import { withStoreRetries } from "../store/store-retries.ts";
import { notifyModelText, type LiveJobEvent, type OnModelText } from "./events/job-events.ts";
import { DEFAULT_LEASE_MS, type StepTransaction } from "./step/step-transaction.ts";
import { cancelJob, cancelReason } from "./operate/cancel-job.ts";
import { retryJob } from "./operate/retry-job.ts";
import { LiveEventHub, type JobEventFilter, type JobEventStream } from "./events/job-event-stream.ts";
import { newJobRows } from "./operate/new-job.ts";
import { forkRows, type ForkJobOptions } from "./operate/fork-job.ts";
import { decideApproval, listPendingApprovals, type ApprovalDecisionOptions, type PendingApproval, type PendingApprovalFilter } from "./operate/approvals.ts";
import { rejection, settleFuture } from "./operate/settle-future.ts";
import { checkAgents, registriesOf, workspaceLimitsOf } from "./statek-checks.ts";
import { withRegistries, type Registries } from "../registries/registries.ts";
import { traceCarrierOf } from "../telemetry/trace-carrier.ts";
import { createWorker, type StatekWorker, type WorkerOptions } from "./statek-worker.ts";
import { encodeAgentEvent } from "./loops/agent-event-codec.ts";
import { eventVariableOf } from "./loops/event-variable.ts";
import { toAgentHealth, type AgentHealth } from "./loops/agent-health.ts";
import { agentsOverview, type AgentOverview } from "./operate/agents-overview.ts";
import type { RunJobOptions, StatekOptions, StepOptions, SubmitJobOptions } from "./statek-options.ts";
import { readDefinitionFiles, type DefinitionFiles } from "../agents/definition-files.ts";
import { checkMemoryCategories, memorySpecifiers } from "../agents/memory.ts";
import { memoryBindingOf, readJobMemory } from "./memory/job-memory-view.ts";
import { SharedMemory } from "./memory/shared-memory.ts";

export type { RunJobOptions, StatekOptions, StepOptions, SubmitJobOptions } from "./statek-options.ts";
export type { ForkJobOptions } from "./operate/fork-job.ts";

/**
 * A connection to a store of durable jobs.
 *
 * @example
 * ```ts
 * const statek = await Statek.open({ store: ":memory:", agents: [agent] });
 * const { id } = await statek.submitJob(agent, { vars: { today: new Date() } });
 * const view = await statek.runJob(id);
 * console.log(view.status, view.console);
 * await statek.close();
 * ```
 */
export class Statek {
  readonly store: Store;
  readonly #ownsStore: boolean;
  /** The agents this process runs, by role, as it runs them (definition files applied). */
  readonly #agents = new Map<string, Agent>();
  /** The agent each role was registered with (before its definition files were applied). */
  readonly #given = new Map<string, Agent>();
  readonly #files: DefinitionFiles;
  readonly #memoryCategories: readonly string[];
  readonly #bindings: Map<string, unknown>;
  readonly #executor: Executor;
  readonly #typeChecker: TypeChecker;
  /** Set when the executor was made here (from a name): closing this instance closes it (its sandbox threads). */
  readonly #ownsExecutor: boolean;
  readonly #workspaceLimits: Partial<WorkspaceLimits>;
  readonly #harness: HarnessLimits;
  readonly #models: ModelSettings;
  readonly #xmlBoxConsole: string | undefined;
  readonly #running = new Map<string, Promise<unknown>>();
  readonly #exposed = new ExposedClasses();
  readonly #sessions: JobSessions;
  readonly #errorHandlers = new ErrorHandlers();
  readonly #onModelText: OnModelText | undefined;
  /** This instance's enums, formatters, class docs and tracer, over the process-wide ones. */
  readonly #registries: Registries;
  /** The owner of this process's leases. */
  readonly #owner = newProcessOwner();
  readonly #leaseMs: number;
  readonly #signals = new FutureSignals();
  readonly #live = new LiveEventHub();
  readonly #steps = new Map<string, StepTransaction>();
  readonly #workers = new Set<StatekWorker>();
  #closed = false;

  private constructor(store: Store, ownsStore: boolean, options: StatekOptions, files: DefinitionFiles, ownsExecutor = false) {
    this.store = store;
    this.#files = files;
    this.#memoryCategories = checkMemoryCategories(options.memoryCategories);
    this.#ownsStore = ownsStore;
    this.#ownsExecutor = ownsExecutor;
    this.#bindings = new Map(Object.entries(options.bindings ?? {}));
    this.#executor = resolveExecutor(options.executor);
    this.#typeChecker = new TypeChecker(options.typeCheckerThread);
    this.#workspaceLimits = { ...workspaceLimitsOf(options) };
    this.#harness = checkHarnessLimits({ maxTurns: options.maxTurns ?? DEFAULT_MAX_TURNS, ...options.harness }, "Statek.open");
    this.#models = createModelSettings(options.models);
    this.#xmlBoxConsole = options.xmlBoxConsole;
    this.#sessions = new JobSessions(options.warmJobs ?? 100, options.warmMemoryBytes ?? DEFAULT_WARM_MEMORY_BYTES);
    this.#onModelText = options.onModelText;
    this.#registries = registriesOf(options);
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    for (const handler of options.errorHandlers ?? []) this.#errorHandlers.register(handler, "Statek.open");
    for (const agent of options.agents ?? []) this.#register(agent, "Statek.open");
  }

  /**
   * Opens (and migrates) the store and registers the agents. Every option is checked before the store is
   * opened, so a bad one leaves nothing open. Without a `store` option, the `STATEK_STORE` environment variable
   * names the store, else `./statek-data/statek.db`.
   *
   * @throws {TypeError} Naming the first bad option (`Statek.open: …`), or two different agents with one role.
   * @throws {InvalidStoreUrlError} For a store URL of an unknown scheme (`mysql://…`).
   */
  static async open(options: StatekOptions = {}): Promise<Statek> {
    if (typeof options !== "object" || options === null) throw new TypeError(`Statek.open: expected options such as { store: ":memory:" }, got ${kindOf(options)}`);
    const executor = resolveExecutor(options.executor, "Statek.open");
    executor.checkLimits?.(resolveLimits(workspaceLimitsOf(options)));
    checkHarnessLimits({ maxTurns: options.maxTurns ?? DEFAULT_MAX_TURNS, ...options.harness }, "Statek.open");
    checkAgents(options.agents);
    checkMemoryCategories(options.memoryCategories);
    for (const name of ["promptDir", "warmupDir"] as const) {
      const value = options[name];
      if (value !== undefined && (typeof value !== "string" || value.trim() === "")) throw new TypeError(`Statek.open: ${name} must be a folder path, got ${kindOf(value)}`);
    }
    const files = readDefinitionFiles(options);
    if (options.onModelText !== undefined && typeof options.onModelText !== "function") throw new TypeError("Statek.open: onModelText must be a function");
    if (options.typeCheckerThread !== undefined && !(options.typeCheckerThread instanceof CheckerThread)) {
      throw new TypeError(`Statek.open: typeCheckerThread must be a CheckerThread, got ${kindOf(options.typeCheckerThread)}`);
    }
    if (options.leaseMs !== undefined && !(Number.isInteger(options.leaseMs) && options.leaseMs >= 100)) {
      throw new TypeError(`Statek.open: leaseMs must be an integer of at least 100 (milliseconds), got ${String(options.leaseMs)}`);
    }
    for (const name of ["warmJobs", "warmMemoryBytes"] as const) {
      const value = options[name];
      if (value !== undefined && !(Number.isInteger(value) && value >= 0)) throw new TypeError(`Statek.open: ${name} must be a non-negative integer, got ${String(value)}`);
    }
    const spec = options.store ?? resolveStoreSpec(undefined);
    if (typeof spec === "string" ? spec.trim() === "" : typeof spec !== "object" || spec === null || typeof spec.migrate !== "function") {
      throw new TypeError(`Statek.open: store must be a file path, ":memory:", a postgres:// URL or a Store, got ${typeof spec === "string" ? JSON.stringify(maskStoreLocation(spec)) : kindOf(spec)}`);
    }
    const store = await openStore(spec);
    try {
      return new Statek(store, typeof spec === "string", { ...options, executor }, files, typeof options.executor !== "object");
    } catch (error) {
      if (typeof spec === "string") await store.close();
      throw error;
    }
  }

  /**
   * Registers an agent so this process can run its jobs. Registering the same agent again does nothing; a
   * different agent under a role already registered is a `TypeError` naming the role (each role names one
   * agent, so a job never silently runs with another definition).
   */
  register(agent: Agent): void {
    this.#register(agent, "register");
  }

  #register(agent: unknown, call: string): asserts agent is Agent {
    if (!(agent instanceof Agent)) throw new TypeError(`${call}: expected an Agent, got ${kindOf(agent)}`);
    const given = this.#given.get(agent.role);
    if (given === agent || this.#agents.get(agent.role) === agent) return;
    if (given) {
      throw new TypeError(
        `${call}: a different Agent is already registered with role '${agent.role}'; register each agent once and give each agent its own role`,
      );
    }
    const runs = withDefinitionFiles(agent, { prompt: this.#files.prompts.get(agent.role), warmup: this.#files.warmups.get(agent.role) });
    this.#errorHandlers.collect(runs, call);
    this.#given.set(agent.role, agent);
    this.#agents.set(agent.role, runs);
  }

  /**
   * The agent registered under `role`, as this process runs it: with its prompt and warmup files applied
   * (`promptDir`, `warmupDir`), so `statek.agent(role).description` is the file's `DESCRIPTION`. `undefined` for
   * a role not registered.
   */
  agent(role: string): Agent | undefined {
    return this.#agents.get(role);
  }

  /**
   * Lets this process run an error handler by name when a job fails (the handlers of registered agents'
   * tools are known already). A different handler under a name already taken is a `TypeError`.
   */
  registerErrorHandler(handler: ErrorHandler): void {
    this.#errorHandlers.register(handler, "registerErrorHandler");
  }

  /**
   * Registers an application class with the workspace. With `id` and `load`, objects of the class persist by
   * id: a variable holding one is stored as a reference and re-loaded with `load(id)` on resume. With
   * `allow`, `deny` and `readOnly`, the broker narrows what agent code may do with them (see docs/security.md).
   *
   * @example
   * ```ts
   * statek.expose(Meeting, {
   *   id: (meeting) => meeting.id,
   *   load: (id) => calendar.meeting(id),
   *   deny: ["delete*"],
   *   readOnly: ["id", "organizer"],
   * });
   * ```
   */
  expose<T>(cls: abstract new (...args: any[]) => T, options: ExposeOptions<T>): void {
    this.#exposed.register(cls, options);
  }

  #agentFor(role: string): Agent {
    const agent = this.#agents.get(role);
    if (!agent) throw new NoSuchAgentError({ role, registeredRoles: [...this.#agents.keys()] });
    return agent;
  }

  #scope(agent: Agent | undefined) {
    const bindings = new Map(this.#bindings);
    for (const [name, value] of Object.entries(agent?.context ?? {})) bindings.set(name, value);
    return { bindings, tools: agent?.registry.all ?? [], exposed: this.#exposed };
  }

  #check(): void {
    if (this.#closed) throw new Error("this Statek instance is closed");
  }

  /**
   * Creates a job in `READY`; registers its agent. Throws a `TypeError` for variables or parameters that cannot
   * be stored, and for bad settings.
   *
   * @example
   * ```ts
   * const { id } = await statek.submitJob(agent, { vars: { user, calendar }, message: "Move my planning.", harness: { maxCost: 0.2 } });
   * ```
   */
  async submitJob(agent: Agent, options: SubmitJobOptions = {}): Promise<{ id: string }> {
    this.#check();
    this.#register(agent, "submitJob");
    const runs = this.#agentFor(agent.role);
    // The trace the job is submitted in (when the application traces): its steps join it, wherever they run.
    const trace = traceCarrierOf(context.active());
    const { job, variables, history } = newJobRows(runs, options, this.#scope(runs), { id: randomUUID(), parentId: null, call: "submitJob", ...(trace ? { trace } : {}) });
    // The store appends the job's `job-submitted` event in the same transaction: other processes hear of it.
    await withStoreRetries(() => this.store.insertJob(job, variables, history));
    this.#signals.wake(job.id);
    return { id: job.id };
  }

  /**
   * The shared-memory context of `specifiers` (order and duplicates ignored; none is the global context every
   * bound job reads): set, get, list and delete its entries. See docs/memory.md.
   *
   * @example
   * ```ts
   * await statek.memory("user:42").set({ category: "PREFERENCE", key: "tone", value: "formal", description: "Prefers formal" });
   * ```
   */
  memory(...specifiers: string[]): SharedMemory {
    this.#check();
    return new SharedMemory(this.store, memorySpecifiers(specifiers, "statek.memory"), this.#memoryCategories);
  }

  /** Runs one step of a job and returns its view. Steps of one job never overlap within a process. */
  async step(id: string, options: StepOptions = {}): Promise<JobView> {
    this.#check();
    await this.#serialized(id, () => runStep(this.#environment(options.signal), id));
    return this.#requireJob(id);
  }

  /**
   * Delivers a user message into a job. In the dialog styles (`MD_DIALOG`, `DIRECT`) it is the user's next
   * turn, and a `DONE` dialog job starts again; in the others it is shown to the model with the console output
   * of the step it arrived in.
   *
   * @throws {NoSuchJobError} For an unknown job.
   * @throws {JobFinishedError} For a `FAILED` job, or a `DONE` job of a non-dialog style.
   *
   * @example
   * ```ts
   * await statek.pushMessage(id, "Move it to Friday instead.");
   * const view = await statek.runJob(id);
   * ```
   */
  async pushMessage(id: string, message: string): Promise<JobView> {
    this.#check();
    if (typeof message !== "string") throw new TypeError("pushMessage: message must be a string");
    await this.#serialized(id, () => pushUserMessage(this.store, this.#sessions, this.#signals, id, message));
    return this.#requireJob(id);
  }

  /**
   * Settles the durable future `key` a tool returned (`ctx.future(key)`) with `value` (JSON data). The first
   * settlement wins: resolves to `false` when the future was settled already. A job waiting for it wakes.
   *
   * @example
   * ```ts
   * app.post("/webhooks/payment", async (req) => statek.resolveFuture(`payment:${req.body.id}`, req.body.status));
   * ```
   */
  resolveFuture(key: string, value: unknown = null): Promise<boolean> {
    this.#check();
    return settleFuture(this.store, this.#signals, "resolveFuture", key, { state: "resolved", value: value === undefined ? null : (value as JsonValue), door: "application" });
  }

  /** Settles the durable future `key` with an error: the waiting code's `await` throws it. First settlement wins. */
  rejectFuture(key: string, error: Error | string): Promise<boolean> {
    this.#check();
    return settleFuture(this.store, this.#signals, "rejectFuture", key, { state: "rejected", value: rejection(error, "rejectFuture"), door: "application" });
  }

  /**
   * Cancels a job that has not finished, and its descendants: `CANCELLED`, `reason` in its history and view
   * `error`, waits cancelled, error handlers run; a step running it elsewhere can write nothing more.
   * @throws {InvalidJobStatusError} For a job that is `DONE`, `FAILED` or `CANCELLED`. @throws {NoSuchJobError}
   */
  async cancelJob(id: string, reason?: string): Promise<JobView> {
    this.#check();
    await withRegistries(this.#registries, () => cancelJob(this.#environment(), id, cancelReason(reason)));
    return this.#requireJob(id);
  }

  /**
   * Resumes a `FAILED` job from its last committed state, in the status it was running in (see docs/jobs.md);
   * step or run it to go on. @throws {InvalidJobStatusError} For a job that is not `FAILED`. @throws {NoSuchJobError}
   */
  async retryJob(id: string): Promise<JobView> {
    this.#check();
    await this.#serialized(id, () => retryJob(this.store, id));
    return this.#requireJob(id);
  }

  /**
   * Forks job `id`: a new `READY` job with the workspace (variables) and history it had at the end of turn
   * `atTurn` (the turn numbers `statek show` shows; 0 is the end of warmup), run by `agent` (default: the
   * original's), asking `model` if given, after `message`, with `vars` bound over the copied variables. It starts
   * by asking its model; the original is untouched. The fork's view has `forkedFrom: { jobId, turn }`. See
   * docs/agents.md. @throws {ForkTurnError} For a turn the job has not reached or not ended. @throws {NoSuchJobError}
   *
   * @example
   * ```ts
   * const { id: retry } = await statek.forkJob(id, { atTurn: 3, model: "openai/gpt-5", message: "The lookup tool is fixed; try again." });
   * ```
   */
  async forkJob(id: string, options: ForkJobOptions): Promise<{ id: string }> {
    this.#check();
    if (options?.agent !== undefined) this.#register(options.agent, "forkJob");
    const fork = await forkRows(this.store, id, options, {
      id: randomUUID(), agentFor: (role) => this.#agents.get(role), scope: (agent) => this.#scope(agent),
    });
    await withStoreRetries(() => this.store.insertFork(fork));
    this.#signals.wake(fork.job.id);
    return { id: fork.job.id };
  }

  /**
   * Approves a job's approval request (see {@link Statek.pendingApprovals}): the waiting call runs once, with
   * the decision in `ctx.approval` (`requestApproval` resolves to the note). The first decision wins.
   *
   * @throws {NoSuchJobError} / {NoSuchApprovalError} For an unknown job or request.
   * @throws {ApprovalDecidedError} When it was decided already (naming that decision).
   * @throws {JobNotWaitingError} When the job has finished or was cancelled.
   *
   * @example
   * ```ts
   * for (const request of await statek.pendingApprovals()) await statek.approve(request.jobId, request.requestId, { note: "ok", by: "alice" });
   * ```
   */
  approve(jobId: string, requestId: string, options: ApprovalDecisionOptions = {}): Promise<void> {
    this.#check();
    return decideApproval(this.store, this.#signals, "approve", jobId, requestId, options);
  }

  /** Denies a job's approval request: the waiting code throws `ApprovalDenied: <note>`. Errors as {@link Statek.approve}. */
  deny(jobId: string, requestId: string, options: ApprovalDecisionOptions = {}): Promise<void> {
    this.#check();
    return decideApproval(this.store, this.#signals, "deny", jobId, requestId, options);
  }

  /** The approval requests jobs wait for, oldest first (all jobs', or one job's, or one agent role's). */
  pendingApprovals(filter: PendingApprovalFilter = {}): Promise<PendingApproval[]> {
    this.#check();
    return listPendingApprovals(this.store, filter);
  }

  /**
   * Steps a job until it is `DONE`, `FAILED` or `CANCELLED`, or `SUSPENDED` (waiting for a timer, a message, a
   * future), or `maxSteps` is reached, and returns its view.
   */
  async runJob(id: string, options: RunJobOptions = {}): Promise<JobView> {
    this.#check();
    const maxSteps = options.maxSteps ?? Infinity;
    // The steps run back to back under one lease (no claim per step); other calls for this job wait.
    await this.#serialized(id, async () => {
      const carry: LeaseCarry = {};
      try {
        for (let steps = 0; steps < maxSteps; steps++) {
          const status = await runStep(this.#environment(options.signal), id, carry);
          // A suspended job waits for something to happen; stepping it now would only suspend it again.
          if (isFinal(status) || status === "SUSPENDED") break;
        }
      } finally {
        await releaseCarriedLease(carry);
      }
    });
    return this.#requireJob(id);
  }

  /**
   * Job events in order: status changes, step commits and console output as committed (here or by another process),
   * and model text as it streams here. `for await (const event of statek.events({ jobId }))`; see docs/jobs.md.
   */
  events(filter: JobEventFilter = {}): JobEventStream {
    this.#check();
    return this.#live.open(this.store, filter);
  }

  /** A job's view, or `null` when there is no such job. */
  async getJob(id: string): Promise<JobView | null> {
    this.#check();
    const row = await withStoreRetries(() => this.store.getJob(id));
    if (!row) return null;
    const [variables, history] = await withStoreRetries(() => Promise.all([this.store.getVariables(id), this.store.getHistory(id)]));
    const texts = variables.map((variable) => variable.blob);
    if (row.exitStatus !== null) texts.push(row.exitStatus);
    const references = await loadReferences(texts, this.#scope(this.#agents.get(row.role)));
    const view = toJobView(row, variables, history, references);
    const binding = memoryBindingOf(view.history);
    if (binding) view.memory = await readJobMemory(this.store, binding);
    return view;
  }

  /** Jobs matching the filter, newest first. */
  async listJobs(filter: JobFilter = {}): Promise<JobSummary[]> {
    this.#check();
    return (await this.store.listJobs(filter)).map(toJobSummary);
  }

  /**
   * A worker that runs the store's jobs as a service: claims under leases, at most `maxConcurrency` steps at
   * once, wake-ups by events, graceful stop (docs/worker.md). `await statek.worker({ maxConcurrency: 50 }).start()`
   */
  worker(options: WorkerOptions = {}): StatekWorker {
    this.#check();
    // The compiler's cold start (about a second of CPU) is paid now, not by a started or restarted worker's first cells.
    if ([...this.#agents.values()].some((agent) => typeCheckModeOf(agent.metadata) !== "off")) this.#typeChecker.thread.warm();
    return createWorker({
      store: this.store,
      owner: this.#owner,
      signals: this.#signals,
      leaseMs: this.#leaseMs,
      register: (agent, call) => this.#register(agent, call),
      roles: () => [...this.#agents.keys()],
      environment: (signal) => this.#environment(signal),
      track: (worker, running) => void (running ? this.#workers.add(worker) : this.#workers.delete(worker)),
      agentFor: (role) => this.#agentFor(role),
      agentJobRows: (agent, id, event) =>
        newJobRows(agent, event ? { encodedVars: [event] } : {}, this.#scope(agent), { id, parentId: null, call: event ? "pushAgentEvent" : "agent loop" }),
    }, options);
  }

  /**
   * Queues `event` — any value a job's variable can hold — for the agent `role`: a worker running that agent
   * makes exactly one job of it, the event bound to the agent's event variable (its `eventVariable`, else the one
   * name its warmup reads without declaring it). Durable: it survives restarts until a job is made of it.
   *
   * @throws {NoEventVariableError} When the agent is registered here and has no variable to bind events to.
   * @throws {TypeError} When the event cannot be stored (naming what), or `role` is not a role.
   *
   * @example
   * ```ts
   * await statek.pushAgentEvent("order_handler", { id: 17, total: 40 });
   * ```
   */
  async pushAgentEvent(role: string, event: unknown): Promise<void> {
    this.#check();
    if (typeof role !== "string" || role === "") throw new TypeError(`pushAgentEvent: role must be an agent's role, got ${kindOf(role)}`);
    const agent = this.#agents.get(role);
    if (agent) eventVariableOf(agent);
    const blob = encodeAgentEvent(event, this.#scope(agent));
    await withStoreRetries(() => this.store.pushAgentEvent(role, blob));
  }

  /** The agent's circuit breaker and queued events (`{ role, state: "closed" | "open", reason?, openedAt?, queuedEvents, … }`). */
  async agentHealth(role: string): Promise<AgentHealth> {
    this.#check();
    const [row] = await withStoreRetries(() => this.store.agents([role]));
    return toAgentHealth(row!);
  }

  /**
   * Every agent registered here or known to the store (a breaker, queued events), by role: its jobs by status,
   * its loop's last queue size, its queued events and its breaker — what `statek agents` and the UI show.
   */
  agents(): Promise<AgentOverview[]> {
    this.#check();
    return withStoreRetries(() => agentsOverview(this.store, [...this.#agents.keys()]));
  }

  /** Closes the agent's circuit breaker (events queued meanwhile are kept) and returns its health. */
  async resetAgent(role: string): Promise<AgentHealth> {
    this.#check();
    await withStoreRetries(() => this.store.resetAgent(role));
    return this.agentHealth(role);
  }

  /** Stops this instance's workers (with their default grace), waits for running steps, then closes the store if this instance opened it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#live.closeAll();
    await Promise.allSettled([...this.#workers].map((worker) => worker.stop()));
    await Promise.allSettled(this.#running.values());
    this.#sessions.clear();
    if (this.#ownsExecutor) this.#executor.close?.();
    if (this.#ownsStore) await this.store.close();
  }

  async #requireJob(id: string): Promise<JobView> {
    const view = await this.getJob(id);
    if (!view) throw new NoSuchJobError({ jobId: id });
    return view;
  }

  #environment(signal?: AbortSignal): StepEnvironment {
    return {
      ...(signal ? { signal } : {}),
      store: this.store,
      executor: this.#executor,
      typeChecker: this.#typeChecker,
      registries: this.#registries,
      agentFor: (role) => this.#agentFor(role),
      register: (agent) => this.#register(agent, "ctx.startJob"),
      bindings: this.#bindings,
      exposed: this.#exposed,
      limits: this.#workspaceLimits,
      harness: this.#harness,
      models: this.#models,
      ...(this.#xmlBoxConsole ? { xmlBoxConsole: this.#xmlBoxConsole } : {}),
      sessions: this.#sessions,
      owner: this.#owner,
      leaseMs: this.#leaseMs,
      signals: this.#signals,
      activeSteps: this.#steps,
      errorHandler: (name) => this.#errorHandlers.get(name),
      memoryCategories: this.#memoryCategories,
      emit: (event) => this.#emit(event),
    };
  }

  /** Hands a live job event to its listeners: the job's agent's, the process-wide one, then `statek.events()`. */
  #emit(event: LiveJobEvent): void {
    notifyModelText(this.#agents.get(event.role)?.onModelText, event);
    notifyModelText(this.#onModelText, event);
    this.#live.emit(event);
  }

  async #serialized<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#running.get(id) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.#running.set(id, settled);
    try {
      return await next;
    } finally {
      if (this.#running.get(id) === settled) this.#running.delete(id);
    }
  }
}
