/**
 * Restarting the test PostgreSQL server that `scripts/with-postgres.ts` started (it says where its programs, data
 * and log are): `pg_ctl restart -m immediate`, as the chaos tests do to it — every connection is cut, as in a
 * crash, and the server recovers from its log. As root, the server's programs run as `postgres`, like the script.
 */
import { spawn, spawnSync } from "node:child_process";
import { userInfo } from "node:os";
import { join } from "node:path";

/** Why the server cannot be restarted here, or `undefined` when it can. */
export function postgresRestartSkipReason(): string | undefined {
  const missing = ["STATEK_TEST_POSTGRES_BIN", "STATEK_TEST_POSTGRES_DATA", "STATEK_TEST_POSTGRES_LOG"].filter((name) => !process.env[name]);
  return missing.length ? `the PostgreSQL server was not started by scripts/with-postgres.ts (no ${missing.join(", ")})` : undefined;
}

/** Restarts the server at once (`-m immediate`) and waits until it accepts connections; resolves to how long it took. */
export function restartPostgres(): Promise<number> {
  const started = Date.now();
  const bin = process.env["STATEK_TEST_POSTGRES_BIN"]!;
  let ids: { uid: number; gid: number } | undefined;
  if (userInfo().uid === 0) {
    const [uid, gid] = ["-u", "-g"].map((flag) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim()));
    ids = { uid: uid!, gid: gid! };
  }
  const args = ["restart", "-D", process.env["STATEK_TEST_POSTGRES_DATA"]!, "-m", "immediate", "-w", "-t", "60", "-l", process.env["STATEK_TEST_POSTGRES_LOG"]!];
  return new Promise((resolve, reject) => {
    const child = spawn(join(bin, "pg_ctl"), args, { cwd: "/tmp", stdio: ["ignore", "pipe", "pipe"], ...(ids ?? {}) });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code, signal) => (code === 0 ? resolve(Date.now() - started) : reject(new Error(`pg_ctl restart failed (${code ?? signal}): ${output}`))));
  });
}
