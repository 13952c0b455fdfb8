/**
 * @module
 * The options of {@link Statek}'s calls: opening a store, submitting a job, stepping and running it.
 */
import type { ModelOptions } from "../models/model-settings.ts";
import type { Store } from "../store/store.ts";
import type { ErrorHandler } from "../tools/error-handler.ts";
import type { WorkspaceLimits } from "../workspace/limits.ts";
import type { ExecutorChoice } from "../workspace/resolve-executor.ts";
import type { Agent } from "../agents/agent.ts";
import type { HarnessLimits } from "../agents/harness.ts";
import type { OnModelText } from "./events/job-events.ts";
import type { JobMetadata, JobSettings } from "../agents/job-settings.ts";
import type { WarmupSource } from "../agents/warmup-blocks.ts";
import type { CheckerThread } from "../typecheck/checker-thread.ts";
import type { Tracer } from "@opentelemetry/api";
import type { ClassDocs, FunctionDocs } from "../docs/class-docs.ts";

/** What {@link Statek.open} accepts. */
export interface StatekOptions {
  /**
   * A SQLite file path or `file:` URL, `":memory:"`, a `postgres://` URL, or a `Store`. Any other `scheme://`
   * is an `InvalidStoreUrlError`. @default the `STATEK_STORE` environment variable, else "./statek-data/statek.db"
   */
  store?: string | Store;
  /** Agents whose jobs this process runs. */
  agents?: readonly Agent[];
  /**
   * The categories shared-memory entries are filed under (matched without regard to case; an entry of another
   * is refused). @default ["PREFERENCE", "ENTITY", "VOCABULARY"]
   */
  memoryCategories?: readonly string[];
  /**
   * A folder of prompt definition files, `<role>.md` (metadata lines, `# System Prompt`, the prompt), applied to
   * the registered agent of each role: its system prompt and metadata (over the agent's; typed options given in
   * code win) and harness limits. Read and checked here: a bad file is an `InvalidPromptFileError` naming it and
   * the line.
   */
  promptDir?: string;
  /**
   * A folder of warmup files, `<role>.ts` (blocks split by `// ----------`, `// statek:` directives), run in every
   * job of the agent of that role after the agent's own warmup. Checked here, blocks compiled included.
   */
  warmupDir?: string;
  /** Application objects that persist by name: a job variable holding one is re-attached on resume. */
  bindings?: Readonly<Record<string, unknown>>;
  /**
   * Where agent code runs: `"quickjs"` (the sandbox), `"trusted"` (`node:vm` in this process — **not a
   * sandbox**, for trusted code only), or an `Executor`. @default "quickjs"
   */
  executor?: ExecutorChoice;
  /**
   * Workspace limits of every job (CPU time per cell, memory, console size, …); a bad value throws here. See
   * docs/security.md.
   */
  workspaceLimits?: Partial<WorkspaceLimits>;
  /** Not an option: workspace limits are {@link StatekOptions.workspaceLimits}; giving `limits` throws a `TypeError` saying so. */
  limits?: never;
  /** Harness limits of every job (turns, exceptions, tokens, cost), unless its agent or the job says otherwise. */
  harness?: HarnessLimits;
  /** Model turns a job may take unless its agent or the job says otherwise: a shorthand for `harness.maxTurns`. @default 50 */
  maxTurns?: number;
  /** Model strings, keys, providers, retries, timeouts and prices. */
  models?: ModelOptions;
  /** Box console output shown to the model in `<TAG>…</TAG>`, unless the agent or the job sets `xmlBoxConsole`. */
  xmlBoxConsole?: string;
  /** Jobs whose workspace VM and history stay warm in this process between steps. @default 100 */
  warmJobs?: number;
  /**
   * Memory the warm jobs' VMs may hold together; the least recently stepped are let go beyond it (a VM keeps
   * what its cells once touched). @default 268_435_456 (256 MiB)
   */
  warmMemoryBytes?: number;
  /**
   * How long a step's lease on its job lasts unless renewed (it is renewed at a quarter of this). A process
   * that dies holding one delays its job by at most this long; another process then takes it over and replays
   * what the dead one was doing. @default 30_000
   */
  leaseMs?: number;
  /**
   * Error handlers this process can run by name, besides those of the registered agents' tools — e.g. a
   * handler registered by a tool that this process's agents no longer have.
   */
  errorHandlers?: readonly ErrorHandler[];
  /**
   * Hears the model's reply text of every job this process steps, as it streams in (progress displays, live
   * chat); an agent's own `onModelText` hears its jobs' too. See {@link OnModelText}.
   *
   * @example
   * ```ts
   * Statek.open({ agents, onModelText: (delta, { job, attempt }) => progress.append(job.id, attempt, delta) });
   * ```
   */
  onModelText?: OnModelText;
  /**
   * The thread model-written cells are type-checked on (each job's `typeCheck` says what is done with their
   * errors; see docs/typed-cells.md). Give one — `new CheckerThread({ timeoutMs, maxHeapMb })` — for a thread of this
   * instance's own. @default the process's shared checker thread
   */
  typeCheckerThread?: CheckerThread;
  /**
   * Enum classes this instance's tools accept by member name (as `registerEnum` does for every instance): a
   * class, whose static instances are its members, or `[cls, members]`.
   *
   * @example
   * ```ts
   * Statek.open({ enums: [Severity, [Priority, { LOW: Priority.low, HIGH: Priority.high }]] });
   * ```
   */
  enums?: readonly (Function | readonly [Function, Readonly<Record<string, unknown>>])[];
  /**
   * How this instance shows values of classes to the model (as `registerFormatter` does for every instance,
   * which these win over): `[cls, formatter]` pairs.
   *
   * @example
   * ```ts
   * Statek.open({ formatters: [[Temporal.PlainDate, (date) => date.toString()]] });
   * ```
   */
  formatters?: readonly (readonly [abstract new (...args: any[]) => unknown, (value: any) => string])[];
  /** Docs of classes and functions for this instance's jobs (as `describeClass` does for every instance): `[target, docs]` pairs. */
  classDocs?: readonly (readonly [Function, ClassDocs | FunctionDocs])[];
  /** The OpenTelemetry tracer this instance's spans go to. @default the global tracer provider's `statek` tracer */
  tracer?: Tracer;
}

/**
 * What {@link Statek.submitJob} accepts. The settings of {@link JobSettings} (`chatStyle`, `toolsScope`,
 * `harness`, …) set this job's own, over its agent's; `metadata` sets them by their metadata names
 * (`CHAT_STYLE`, …), and the typed option wins where both are given.
 */
export interface SubmitJobOptions extends JobSettings {
  /** The job's initial workspace variables (`user`, `calendar`, `today`). */
  vars?: Readonly<Record<string, unknown>>;
  /** Job parameters (JSON values), available to prompt placeholders as `{name}`. */
  params?: Readonly<Record<string, unknown>>;
  /** The user's opening message. */
  message?: string;
  /** Warmup code for this job, run before its agent's warmup and before the model is first asked. */
  warmup?: WarmupSource;
  /** Tools this job's code may call, replacing the agent's `allowedTools`; names must be the agent's tools. */
  allowedTools?: readonly string[];
  /** Metadata of this job, over its agent's: settings by their metadata names, and the application's own values. */
  metadata?: JobMetadata;
  /**
   * Binds the job to shared memory: the specifiers of its context (`["user:42", "team:7"]`, order and duplicates
   * ignored). It reads that context merged with every broader one; their names are in scope in its cells,
   * read-only. See docs/memory.md.
   */
  memory?: readonly string[];
  /** `"write"` lets the job store entries with `remember(…)`. @default "read" */
  memoryAccess?: "read" | "write";
  /**
   * The user's locale (`"pl-PL"`, `"de"`): the model is told to answer only in its language (a rule in the system
   * prompt, a hint after each user message; `languageRule` / `languageHint` switch them off). Child jobs inherit it.
   */
  locale?: string;
}

/** Options of {@link Statek.runJob}. */
export interface RunJobOptions extends StepOptions {
  /** Stop after this many steps even if the job is not finished. */
  maxSteps?: number;
}

/** Options of {@link Statek.step}. */
export interface StepOptions {
  /**
   * Abandons the step in progress (the model call, the running cell): nothing of it is committed, the job stays
   * as it was, and the call rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

