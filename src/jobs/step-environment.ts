/**
 * @module
 * What a step runs against: the store, the executor, the registered agents and the process-wide settings.
 */
import type { Store } from "../store/store.ts";
import type { ErrorHandler } from "../tools/error-handler.ts";
import type { Executor } from "../workspace/executor.ts";
import type { ExposedClasses } from "../workspace/membrane/host-references.ts";
import type { WorkspaceLimits } from "../workspace/workspace.ts";
import type { Agent } from "./agent.ts";
import type { JobSessions } from "./job-sessions.ts";

/** Default turn limit of a job. */
export const DEFAULT_MAX_TURNS = 50;

/** What a step runs against. */
export interface StepEnvironment {
  store: Store;
  executor: Executor;
  /** The registered agent for a role; throws `NoSuchAgentError`. */
  agentFor(role: string): Agent;
  /** Application bindings (persist by name). */
  bindings: ReadonlyMap<string, unknown>;
  /** Classes whose objects persist by id. */
  exposed: ExposedClasses;
  limits: Partial<WorkspaceLimits>;
  defaultMaxTurns: number;
  /** The error handler registered under `name` in this process (error-handlers.ts). */
  errorHandler(name: string): ErrorHandler | undefined;
  /** Warm sessions of this process. */
  sessions: JobSessions;
  signal?: AbortSignal;
}
