/**
 * The peers of the PostgreSQL benchmarks (DBOS Transact, graphile-worker) are never dependencies of STATEK: they
 * are installed into a directory of their own, named by STATEK_BENCH_PEERS, and loaded from there.
 *
 * ```sh
 * mkdir /tmp/peers && cd /tmp/peers && npm init -y && npm install @dbos-inc/dbos-sdk graphile-worker
 * STATEK_BENCH_PEERS=/tmp/peers npx node scripts/with-postgres.ts npm run bench -- postgres-peers
 * ```
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

/** A peer's module and its version, or why it cannot be loaded. */
export type Peer<T> = { module: T; version: string } | { missing: string };

/** Loads package `name` from the STATEK_BENCH_PEERS directory. */
export function loadPeer<T>(name: string, directory = process.env.STATEK_BENCH_PEERS): Peer<T> {
  if (!directory) return { missing: "not installed (set STATEK_BENCH_PEERS to a directory holding it; see bench/peers/peer-modules.ts)" };
  try {
    const require = createRequire(join(directory, "package.json"));
    // Read from the directory, not required: a package's `exports` may not list its package.json.
    const version = (JSON.parse(readFileSync(join(directory, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
    return { module: require(name) as T, version };
  } catch (error) {
    return { missing: `cannot load ${name} from ${directory}: ${(error as Error).message.split("\n")[0]}` };
  }
}

/** The wall clock in milliseconds with sub-millisecond precision, comparable across processes of one machine. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}
