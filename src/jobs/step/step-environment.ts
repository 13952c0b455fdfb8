/**
 * @module
 * What a step runs against: the store, the executor, the registered agents and the process-wide settings.
 */
import type { Context } from "@opentelemetry/api";
import type { ModelSettings } from "../../models/model-settings.ts";
import type { Store } from "../../store/store.ts";
import type { Registries } from "../../registries/registries.ts";
import type { ErrorHandler } from "../../tools/error-handler.ts";
import type { Executor } from "../../workspace/executor.ts";
import type { TypeChecker } from "../../typecheck/type-checker.ts";
import type { ExposedClasses } from "../../workspace/membrane/host-references.ts";
import type { WorkspaceLimits } from "../../workspace/workspace.ts";
import type { FutureSignals } from "../../durable/future-signals.ts";
import type { Agent } from "../../agents/agent.ts";
import type { HarnessLimits } from "../../agents/harness.ts";
import type { LiveJobEvent } from "../events/job-events.ts";
import type { JobSessions } from "./job-sessions.ts";
import type { LateLease, StepTransaction } from "./step-transaction.ts";

/** Default turn limit of a job. */
export const DEFAULT_MAX_TURNS = 50;

/** What a step runs against. */
export interface StepEnvironment {
  store: Store;
  executor: Executor;
  /** Type-checks model-written cells before they run (each job's `TYPE_CHECK` says what to do with errors); none: cells run unchecked. */
  typeChecker?: TypeChecker;
  /** The instance's enums, formatters, class docs and tracer: current while a step runs. */
  registries: Registries;
  /** The registered agent for a role; throws `NoSuchAgentError`. */
  agentFor(role: string): Agent;
  /** Registers an agent in this process (a child job's, started with `ctx.startJob(agent)`); a `TypeError` for a role taken by another agent. */
  register?(agent: Agent): void;
  /** Application bindings (persist by name). */
  bindings: ReadonlyMap<string, unknown>;
  /** Classes whose objects persist by id. */
  exposed: ExposedClasses;
  limits: Partial<WorkspaceLimits>;
  /** Process-wide harness limits (an agent's own limits win). */
  harness: HarnessLimits;
  /** The model registry, retry policy and prices. */
  models: ModelSettings;
  /** The default XML tag console output is boxed in (a job's `XML_BOX_CONSOLE` wins). */
  xmlBoxConsole?: string;
  /** The error handler registered under `name` in this process (error-handlers.ts). */
  errorHandler(name: string): ErrorHandler | undefined;
  /** Warm sessions of this process. */
  sessions: JobSessions;
  signal?: AbortSignal;
  /** Who steps jobs in this process (the owner of its leases: `host:pid:random`). */
  owner: string;
  /**
   * How long a step's lease lasts unless renewed (it is renewed at a quarter of that): the length its claimer
   * took it for — a worker's own `leaseMs` for the jobs it claims, `Statek.open`'s otherwise.
   */
  leaseMs: number;
  /** Told when a step's lease went unrenewed for longer than it lasts (the event loop stalled past it). */
  onLeaseLate?(late: LateLease): void;
  /** In-process news of settled futures (a running cell that waits for one hears it at once). */
  signals: FutureSignals;
  /** The steps this process is running, by job id: `cancelJob` stops the one it preempts at once. */
  activeSteps?: Map<string, StepTransaction>;
  /**
   * The trace context of the step's span: model calls, cells and formal tool calls open their spans under it.
   * A child job started during the step stores `traceCarrierOf(env.trace)` (telemetry/trace-carrier.ts) in its
   * `submitted` record, so its own steps join the parent's trace.
   */
  trace?: Context;
  /** The registered shared-memory categories. @default PREFERENCE, ENTITY, VOCABULARY */
  memoryCategories?: readonly string[];
  /** Receives the events the step produces (model text as it streams); must not throw. */
  emit?(event: LiveJobEvent): void;
}
