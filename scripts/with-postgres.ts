/**
 * `node scripts/with-postgres.ts <command> [args…]`: starts a private PostgreSQL server, runs the command with
 * `STATEK_TEST_POSTGRES` naming it, then stops the server and removes its files — whatever the command did,
 * and on Ctrl-C too. `npm run test:pg` (a developer) and `.ci/run` (CI) both go through here, so the server is
 * started one way only.
 *
 * The server is Debian's `postgresql` package (`/usr/lib/postgresql/<version>/bin`, or `pg_config --bindir`),
 * started with its own data directory in the system's temp directory, on 127.0.0.1 and a free port, with its
 * socket in that directory, `trust` authentication and a superuser named `statek`. PostgreSQL refuses to run as
 * root: as root the server runs as the `postgres` user (the package creates it). Settings skip the flushes to
 * disk (`fsync=off`; `WITH_POSTGRES_DURABLE=1` keeps PostgreSQL's defaults, for benchmarks): this server is
 * thrown away when the command ends, and a machine crash is not among the tests' faults. A commit still reaches
 * the operating system before it is acknowledged (`synchronous_commit` stays on), so it survives the server's
 * own crash and an immediate restart — which the chaos tests make, and count on.
 *
 * The command also gets `STATEK_TEST_POSTGRES_BIN`, `STATEK_TEST_POSTGRES_DATA` and `STATEK_TEST_POSTGRES_LOG` (the
 * server's programs, data directory and log), so a test can restart the server (test/support/postgres-control.ts).
 *
 * Exits with the command's exit code; 2 when no server can be started (the message says how to install one).
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

const command = process.argv.slice(2);
if (command.length === 0) {
  console.error("usage: node scripts/with-postgres.ts <command> [args…]   (e.g. npm test)");
  process.exit(2);
}

/** The directory of PostgreSQL's server programs (`initdb`, `pg_ctl`), or `undefined`. */
function findBinaries(): string | undefined {
  const fromConfig = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  const candidates: string[] = [];
  if (fromConfig.status === 0) candidates.push(fromConfig.stdout.trim());
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join(debian, version, "bin")));
  }
  return candidates.find((directory) => existsSync(join(directory, "initdb")) && existsSync(join(directory, "pg_ctl")));
}

/** A TCP port nobody listens on right now on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

const binaries = findBinaries();
if (binaries === undefined) {
  console.error("with-postgres: no PostgreSQL server programs found (initdb, pg_ctl). On Debian: apt-get install postgresql");
  process.exit(2);
}

// As root, the server runs as `postgres`; otherwise as whoever runs this script.
const asRoot = userInfo().uid === 0;
let serverUser: { uid: number; gid: number } | undefined;
if (asRoot) {
  const ids = ["-u", "-g"].map((flag) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" }));
  if (ids.some((result) => result.status !== 0)) {
    console.error("with-postgres: running as root needs the `postgres` user (created by Debian's postgresql package)");
    process.exit(2);
  }
  serverUser = { uid: Number(ids[0]!.stdout.trim()), gid: Number(ids[1]!.stdout.trim()) };
}

/** Runs a server program as the server's user, inheriting nothing but errors. */
function runServerProgram(program: string, args: string[]): void {
  const result = spawnSync(join(binaries!, program), args, {
    encoding: "utf8",
    ...(serverUser ? { uid: serverUser.uid, gid: serverUser.gid } : {}),
    cwd: tmpdir(),
  });
  if (result.status !== 0) throw new Error(`${program} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
}

const root = mkdtempSync(join(tmpdir(), "statek-postgres-"));
const data = join(root, "data");
if (serverUser) {
  chownSync(root, serverUser.uid, serverUser.gid);
  chmodSync(root, 0o700);
}
const port = await freePort();
const url = `postgres://statek@127.0.0.1:${port}/postgres`;

let started = false;
let stopped = false;
function stopServer(): void {
  if (stopped) return;
  stopped = true;
  try {
    if (started) runServerProgram("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]);
  } catch (error) {
    console.error(`with-postgres: ${(error as Error).message}`);
  }
  rmSync(root, { recursive: true, force: true });
}

let child: ReturnType<typeof spawn> | undefined;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    // Whoever stops us may not wait for the command to end (timeout, npm): pass the signal on, stop the
    // server at once, and leave.
    if (child && child.exitCode === null) child.kill(signal);
    stopServer();
    process.exit(128 + (signal === "SIGINT" ? 2 : signal === "SIGTERM" ? 15 : 1));
  });
}

let exitCode = 2;
try {
  runServerProgram("initdb", ["-D", data, "-U", "statek", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  // A throw-away server skips the flushes, unless a benchmark wants a durable one (WITH_POSTGRES_DURABLE=1). With
  // synchronous_commit off, an immediate restart would drop commits already acknowledged: the chaos runs would see
  // the server lose pushed messages and step records, not anything the store did.
  const durable = process.env["WITH_POSTGRES_DURABLE"] === "1";
  const options = [
    `-c listen_addresses=127.0.0.1`, `-p ${port}`, `-k ${root}`, "-c max_connections=200",
    ...(durable ? [] : ["-c fsync=off", "-c full_page_writes=off"]),
  ].join(" ");
  runServerProgram("pg_ctl", ["start", "-D", data, "-w", "-t", "60", "-l", join(root, "server.log"), "-o", options]);
  started = true;
  console.error(`with-postgres: PostgreSQL on 127.0.0.1:${port} (data in ${data}); STATEK_TEST_POSTGRES=${url}`);
  exitCode = await new Promise<number>((resolve) => {
    // The chaos tests restart the server (`pg_ctl restart -m immediate`): they need its programs, data and log.
    const control = { STATEK_TEST_POSTGRES_BIN: binaries!, STATEK_TEST_POSTGRES_DATA: data, STATEK_TEST_POSTGRES_LOG: join(root, "server.log") };
    child = spawn(command[0]!, command.slice(1), { stdio: "inherit", env: { ...process.env, STATEK_TEST_POSTGRES: url, ...control } });
    child.once("error", (error) => {
      console.error(`with-postgres: cannot run ${command[0]}: ${error.message}`);
      resolve(127);
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
} catch (error) {
  console.error(`with-postgres: ${(error as Error).message}`);
} finally {
  stopServer();
}
process.exit(exitCode);
