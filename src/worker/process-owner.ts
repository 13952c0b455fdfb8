/**
 * @module
 * Lease owners that say which process holds them, so that a worker can tell a dead one from a slow one. An
 * owner is `host:pid:nonce:space`, where `space` names this machine's boot and this process's PID namespace.
 * Another owner is *gone* when its space is ours (same boot, same PID namespace: its pid means the same
 * process to us) and no process has its pid. Then its leases can end at once instead of after `leaseMs`: a
 * restarted worker takes over its predecessor's jobs as soon as it starts.
 *
 * Only "no such process" counts as gone. A pid in use again by another process looks alive, and so does one of
 * another user's processes (`EPERM`): those leases simply expire. Containers that share a host name but not a
 * PID namespace have different spaces, so they never judge each other's pids. Where the space cannot be read
 * (no `/proc`), owners carry none and nobody is ever judged gone.
 */
import { createHash, randomUUID } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

/** This machine's boot and this process's PID namespace, hashed; undefined where they cannot be read. */
function readProcessSpace(): string | undefined {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const pids = readlinkSync("/proc/self/ns/pid");
    return boot && pids ? createHash("sha256").update(`${boot}\n${pids}`).digest("hex").slice(0, 12) : undefined;
  } catch {
    return undefined;
  }
}

// A fact about this process, read once when the module loads.
const SPACE = readProcessSpace();

function processSpace(): string | undefined {
  return SPACE;
}

/** A new lease owner for this process: `host:pid:nonce`, plus `:space` where it can be read. */
export function newProcessOwner(): string {
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const here = processSpace();
  return here === undefined ? owner : `${owner}:${here}`;
}

/**
 * True when `owner` was made by {@link newProcessOwner} in a process of this machine's boot and PID namespace
 * that no longer exists. False for anything else: other machines, other namespaces, owners of another form,
 * this process, and processes that exist.
 */
export function isGoneProcessOwner(owner: string): boolean {
  const here = processSpace();
  const parts = owner.split(":");
  if (here === undefined || parts.length < 4 || parts.at(-1) !== here) return false;
  const pidText = parts.at(-3)!;
  if (!/^[1-9][0-9]{0,9}$/.test(pidText)) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
