/**
 * @module
 * Warm state of recently stepped jobs in this process: the job's history as read so far and its workspace
 * VM, valid for exactly one stored version of the job. A session is only reused when the job is still at the
 * version this process committed, so another process's step always forces a fresh read; a warm workspace
 * holds exactly what a cold restore from the store would give (see `Workspace`).
 */
import type { Workspace } from "../workspace/workspace.ts";
import type { Agent } from "./agent.ts";
import type { HistoryRecord } from "./history.ts";

/** What a session keeps between steps of one job. */
export interface JobSession {
  /** The job version this state corresponds to. */
  version: number;
  /** The agent the workspace was built for. */
  agent: Agent;
  history: HistoryRecord[];
  workspace: Workspace | undefined;
}

/** A bounded, least-recently-used set of {@link JobSession}s. */
export class JobSessions {
  readonly #capacity: number;
  readonly #sessions = new Map<string, JobSession>();

  /** @param capacity sessions kept at most; 0 disables warm sessions. */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** The session of job `id` if it is still current for `version` and `agent`; a stale one is dropped. */
  take(id: string, version: number, agent: Agent): JobSession | undefined {
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    this.#sessions.delete(id);
    if (session.version === version && session.agent === agent) return session;
    session.workspace?.dispose();
    return undefined;
  }

  /** The session of job `id` without taking it (a pushed message updates it in place), if there is one. */
  peek(id: string): JobSession | undefined {
    return this.#sessions.get(id);
  }

  /** Keeps a session as the most recently used, evicting the oldest beyond capacity. */
  keep(id: string, session: JobSession): void {
    if (this.#capacity <= 0) {
      session.workspace?.dispose();
      return;
    }
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
    while (this.#sessions.size > this.#capacity) {
      const [oldest, evicted] = this.#sessions.entries().next().value!;
      this.#sessions.delete(oldest);
      evicted.workspace?.dispose();
    }
  }

  /** Disposes every session. */
  clear(): void {
    for (const session of this.#sessions.values()) session.workspace?.dispose();
    this.#sessions.clear();
  }
}
