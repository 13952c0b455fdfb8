/**
 * @module
 * The workspace's resource limits: their defaults, and the check that turns a bad setting
 * into an error naming the option. Every limit has a clear message when agent code reaches it; see
 * `docs/security.md` for what each one protects.
 */
import { InvalidWorkspaceLimitError } from "../errors/invalid-workspace-limit-error.ts";
import { DEFAULT_VM_LIMITS, type VmLimits } from "./executor.ts";

/** All workspace limits. Pass any subset to `Statek.open({ workspaceLimits })`. */
export interface WorkspaceLimits extends VmLimits {
  /** CPU time per cell (time spent waiting for the host is not counted). @default 10_000 */
  cellTimeMs: number;
  /**
   * Wall-clock time per cell, host time included: its tool calls, timers and pending promises. Past it the cell
   * is stopped with a `TimeoutError` the model reads, its variables are saved, and the job goes on. (Waits on
   * durable futures — `sleep`, `waitForMessage`, … — suspend the cell instead, and do not count.) @default 60_000
   */
  cellWallTimeMs: number;
  /** Console characters per step; the rest is cut with a `[… N characters truncated]` marker. @default 50_000 */
  maxConsoleCharacters: number;
  /** Bytes of source per cell. @default 200_000 */
  maxSourceBytes: number;
  /** Syntax nodes per cell. @default 20_000 */
  maxSyntaxNodes: number;
  /** Host calls (tool calls, handle reads, writes and calls, clock and random reads) per cell. @default 100_000 */
  maxHostCalls: number;
  /**
   * Characters of arguments and results that may cross the boundary per cell (the host parses what the guest
   * sends, about 40 ns a character). @default 8 MiB
   */
  maxTransferCharacters: number;
  /** Host calls that may be pending (started, not settled) at once. @default 1_000 */
  maxPendingHostCalls: number;
}

/** Default {@link WorkspaceLimits}. */
export const DEFAULT_WORKSPACE_LIMITS: Readonly<WorkspaceLimits> = Object.freeze({
  ...DEFAULT_VM_LIMITS,
  cellTimeMs: 10_000,
  cellWallTimeMs: 60_000,
  maxConsoleCharacters: 50_000,
  maxSourceBytes: 200_000,
  maxSyntaxNodes: 20_000,
  maxHostCalls: 100_000,
  maxTransferCharacters: 8 * 1024 * 1024,
  maxPendingHostCalls: 1_000,
});

const NAMES = Object.keys(DEFAULT_WORKSPACE_LIMITS) as Array<keyof WorkspaceLimits>;

/** The defaults with `limits` applied; throws `InvalidWorkspaceLimitError` for an unknown or bad setting. */
export function resolveLimits(limits: Partial<WorkspaceLimits> = {}): WorkspaceLimits {
  for (const name of Object.keys(limits)) {
    if (!(NAMES as string[]).includes(name)) {
      throw new InvalidWorkspaceLimitError({ limit: name, value: (limits as Record<string, unknown>)[name], expected: `one of the known limits (${NAMES.join(", ")})` });
    }
  }
  const resolved = { ...DEFAULT_WORKSPACE_LIMITS };
  for (const name of NAMES) {
    const value = limits[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
      throw new InvalidWorkspaceLimitError({ limit: name, value, expected: "a positive integer" });
    }
    resolved[name] = value;
  }
  return resolved;
}

/** `64 MiB`, `256 KiB`, `900 bytes`: a size as an operator reads it. */
export function formatBytes(bytes: number): string {
  const MiB = 1024 * 1024;
  if (bytes >= MiB && bytes % (MiB / 4) === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 256 === 0) return `${bytes / 1024} KiB`;
  return `${bytes.toLocaleString("en-US")} bytes`;
}
