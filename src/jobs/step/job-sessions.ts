/**
 * @module
 * Warm state of recently stepped jobs in this process: the job's history as read so far, what its last prompt
 * was built from, and its workspace VM, valid for exactly one stored version of the job. A session is only
 * reused when the job is still at the version this process committed, so another process's step always forces a
 * fresh read; a warm workspace holds exactly what a cold restore from the store would give (see `Workspace`).
 */
import type { Workspace } from "../../workspace/workspace.ts";
import type { JobMemory } from "../memory/job-memory.ts";
import type { Agent } from "../../agents/agent.ts";
import type { HistoryRecord } from "../history/history.ts";
import type { PromptMemory } from "../prompt/prompt-memory.ts";

/** What a session keeps between steps of one job. */
export interface JobSession {
  /** The job version this state corresponds to. */
  version: number;
  /** The agent the workspace was built for. */
  agent: Agent;
  history: HistoryRecord[];
  workspace: Workspace | undefined;
  /** What the job's last request was built from, so the next is built from the records added since. */
  prompt: PromptMemory;
  /** The job's shared memory, when it is bound to one (read again each step). */
  memory?: JobMemory;
}

/** Default bound on the memory the warm sessions' VMs hold together: 256 MiB. */
export const DEFAULT_WARM_MEMORY_BYTES = 256 * 1024 * 1024;

/**
 * What an idle VM that never grew past its initial reservation is charged: its runtime touches about half a
 * megabyte of it; the rest of the reservation is never resident (measured: ~0.5 MiB RSS per idle QuickJS VM).
 */
const UNGROWN_VM_BYTES = 1024 * 1024;

/**
 * A least-recently-used set of {@link JobSession}s, bounded by count and by the memory their VMs hold
 * together. A VM keeps the memory its cells once touched (twenty idle jobs whose VMs touched 56 MB held
 * 1.14 GiB), so a VM that grew is charged its whole reservation (`Workspace.memory().reservedBytes`); one that
 * never grew past what it was made with is charged {@link UNGROWN_VM_BYTES} (charging it the untouched
 * reservation, 16 MiB for QuickJS, would keep only sixteen jobs warm under the default bound). A session whose
 * VM alone is over the bound is not kept at all.
 */
export class JobSessions {
  readonly #capacity: number;
  readonly #maxBytes: number;
  readonly #sessions = new Map<string, JobSession>();
  /** What each kept session's VM held when it was kept (an idle VM does not grow). */
  readonly #bytes = new Map<string, number>();
  #held = 0;

  /**
   * @param capacity sessions kept at most; 0 disables warm sessions.
   * @param maxBytes memory the kept sessions' VMs may hold together.
   */
  constructor(capacity: number, maxBytes = DEFAULT_WARM_MEMORY_BYTES) {
    this.#capacity = capacity;
    this.#maxBytes = maxBytes;
  }

  /** The session of job `id` if it is still current for `version` and `agent`; a stale one is dropped. */
  take(id: string, version: number, agent: Agent): JobSession | undefined {
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    this.#forget(id);
    if (session.version === version && session.agent === agent) return session;
    session.workspace?.dispose();
    return undefined;
  }

  /** The session of job `id` without taking it (a pushed message updates it in place), if there is one. */
  peek(id: string): JobSession | undefined {
    return this.#sessions.get(id);
  }

  /** Keeps a session as the most recently used, evicting the least recently used beyond either bound. */
  keep(id: string, session: JobSession): void {
    if (this.#capacity <= 0) {
      session.workspace?.dispose();
      return;
    }
    this.#forget(id);
    const bytes = session.workspace ? heldBytes(session.workspace.memory()) : 0;
    this.#sessions.set(id, session);
    this.#bytes.set(id, bytes);
    this.#held += bytes;
    while (this.#sessions.size > this.#capacity || (this.#held > this.#maxBytes && this.#sessions.size > 0)) {
      const [oldest, evicted] = this.#sessions.entries().next().value!;
      this.#forget(oldest);
      evicted.workspace?.dispose();
    }
  }

  #forget(id: string): void {
    this.#held -= this.#bytes.get(id) ?? 0;
    this.#bytes.delete(id);
    this.#sessions.delete(id);
  }

  /** Lets go of job `id`'s session, if there is one (the job ended elsewhere: it was cancelled). */
  drop(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#forget(id);
    session.workspace?.dispose();
  }

  /** Number of sessions kept. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Disposes every session. */
  clear(): void {
    for (const session of this.#sessions.values()) session.workspace?.dispose();
    this.#sessions.clear();
    this.#bytes.clear();
    this.#held = 0;
  }
}

/** What a warm VM is charged against the memory bound (see {@link JobSessions}). */
function heldBytes({ reservedBytes, initialBytes }: { reservedBytes: number | undefined; initialBytes: number | undefined }): number {
  if (reservedBytes === undefined) return 0;
  return initialBytes !== undefined && reservedBytes <= initialBytes ? UNGROWN_VM_BYTES : reservedBytes;
}
