/**
 * @module
 * An agentic loop as `statek.worker({ loops })` takes it: an agent, and how many jobs it should have going —
 * `queueSize()`, the application's count of work waiting (an inbox, a table of tickets). The worker keeps
 * `min(free slots, queueSize − the agent's READY and WARMING_UP jobs)` new jobs of it.
 */
import { Agent } from "../../agents/agent.ts";
import { kindOf } from "../../tools/with-article.ts";

/** One agentic loop of a worker. */
export interface AgentLoop {
  /** The agent whose jobs the loop creates (registered with the worker's Statek too). */
  agent: Agent;
  /**
   * How much work is waiting for the agent (a count; 0 or less: none). Asked whenever the worker has free slots
   * — a step ended, or every `everyMs` — and awaited for at most `timeoutMs`; a failure or a timeout is reported
   * (`onActivity`: `loop-error`) and the loop goes on.
   */
  queueSize: () => number | Promise<number>;
  /** How long `queueSize` may take. @default 5_000 */
  timeoutMs?: number;
  /** How often `queueSize` is asked while slots stay free and no step ends. @default 1_000 */
  everyMs?: number;
}

/** Default of {@link AgentLoop.timeoutMs}. */
export const DEFAULT_LOOP_TIMEOUT_MS = 5_000;
/** Default of {@link AgentLoop.everyMs}. */
export const DEFAULT_LOOP_EVERY_MS = 1_000;

/** A loop with its defaults applied. */
export type CheckedLoop = Readonly<Required<AgentLoop>>;

/** Checks `statek.worker({ loops })`. @throws {TypeError} Naming the loop and what is wrong. */
export function checkLoops(loops: unknown): CheckedLoop[] {
  if (loops === undefined) return [];
  if (!Array.isArray(loops)) throw new TypeError(`worker: loops must be an array such as [{ agent, queueSize: () => inbox.count() }], got ${kindOf(loops)}`);
  const roles = new Set<string>();
  return loops.map((loop: unknown, index) => {
    const label = `worker: loops[${index}]`;
    if (typeof loop !== "object" || loop === null) throw new TypeError(`${label} must be an object such as { agent, queueSize }, got ${kindOf(loop)}`);
    const { agent, queueSize, timeoutMs = DEFAULT_LOOP_TIMEOUT_MS, everyMs = DEFAULT_LOOP_EVERY_MS } = loop as Record<string, unknown>;
    if (!(agent instanceof Agent)) throw new TypeError(`${label}.agent must be an Agent, got ${kindOf(agent)}`);
    if (typeof queueSize !== "function") throw new TypeError(`${label}.queueSize must be a function returning a number (or a promise of one), got ${kindOf(queueSize)}`);
    for (const [name, value] of [["timeoutMs", timeoutMs], ["everyMs", everyMs]] as const) {
      if (!(Number.isSafeInteger(value) && (value as number) >= 1)) throw new TypeError(`${label}.${name} must be an integer of at least 1 (milliseconds), got ${String(value)}`);
    }
    if (roles.has(agent.role)) throw new TypeError(`${label}: agent '${agent.role}' has a loop already; give each agent one loop`);
    roles.add(agent.role);
    return Object.freeze({ agent, queueSize: queueSize as AgentLoop["queueSize"], timeoutMs: timeoutMs as number, everyMs: everyMs as number });
  });
}
