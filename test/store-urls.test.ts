/**
 * Store strings as an operator types them, through the real `statek` command: a mistyped URL scheme is an
 * error naming the scheme (never a new SQLite file at a strange path), passwords never reach the screen, and
 * `STATEK_STORE` / `STATEK_AGENTS` stand in for `--store` / `--agents`. `Statek.open` follows the same rules.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { InvalidStoreUrlError, Statek } from "../src/index.ts";

const BIN = fileURLToPath(new URL("../bin/statek.js", import.meta.url));
const AGENTS = fileURLToPath(new URL("fixtures/worker-agents.ts", import.meta.url));

let directory: string;

/** Runs the CLI as a real child process, with `env` over an environment without STATEK_ variables. */
function statek(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("STATEK_")));
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { cwd: directory, encoding: "utf8", env: { ...base, ...env } }, (_error, stdout, stderr) => {
      resolve({ code: child.exitCode, stdout, stderr });
    });
  });
}

before(() => {
  directory = mkdtempSync(join(tmpdir(), "statek-store-urls-"));
});

after(() => rmSync(directory, { recursive: true, force: true }));

describe("store URLs on the command line", () => {
  it("a mistyped scheme is an error naming it, with the password masked, and creates nothing", async () => {
    const url = "postgress://u:secret@127.0.0.1/db";
    for (const args of [["jobs", "--store", url], ["worker", "--agents", AGENTS, "--store", url], ["submit", "listener", "--agents", AGENTS, "--store", url]]) {
      const result = await statek(args);
      assert.equal(result.code, 1, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, /unknown store URL scheme 'postgress' in postgress:\/\/u:\*\*\*@127\.0\.0\.1\/db/);
      assert.match(result.stderr, /postgres:\/\/ or postgresql:\/\/ URL, a file: URL, a file path/);
      assert.doesNotMatch(result.stdout + result.stderr, /secret/);
    }
    const viaEnv = await statek(["jobs"], { STATEK_STORE: "mysql://x:hunter2@y/z" });
    assert.equal(viaEnv.code, 1);
    assert.match(viaEnv.stderr, /unknown store URL scheme 'mysql'/);
    assert.doesNotMatch(viaEnv.stderr, /hunter2/);
    assert.deepEqual(readdirSync(directory), [], "no file or folder was created");
  });

  it("a PostgreSQL server that cannot be reached is named with its password masked", async () => {
    const result = await statek(["worker", "--agents", AGENTS, "--store", "postgres://app:topsecret@127.0.0.1:1/jobs"]);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/jobs/);
    assert.doesNotMatch(result.stdout + result.stderr, /topsecret/);
  });

  it("STATEK_STORE and STATEK_AGENTS stand in for --store and --agents", async () => {
    const store = join(directory, "ops.db");
    const env = { STATEK_STORE: store, STATEK_AGENTS: AGENTS };
    const missing = await statek(["jobs"], { STATEK_STORE: store });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, new RegExp(`no store at ${store.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(run a job first, or pass --store or set STATEK_STORE\\)`));
    const submitted = await statek(["submit", "listener", "--var", 'greeting="hi"'], env);
    assert.equal(submitted.code, 0, submitted.stderr);
    const id = submitted.stdout.trim();
    const listed = await statek(["jobs", "--json"], { STATEK_STORE: store });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as Array<{ id: string }>).map((job) => job.id), [id]);
    const fileUrl = await statek(["jobs", "--json", "--store", `file://${store}`]);
    assert.deepEqual((JSON.parse(fileUrl.stdout) as Array<{ id: string }>).map((job) => job.id), [id], "a file: URL names the same file");
    const flagWins = await statek(["jobs", "--store", join(directory, "other.db")], { STATEK_STORE: store });
    assert.equal(flagWins.code, 1, "--store wins over STATEK_STORE");
    assert.match(flagWins.stderr, /no store at .*other\.db/);
  });
});

describe("store URLs in Statek.open", () => {
  it("refuses an unknown scheme without creating a file", async () => {
    const cwd = process.cwd();
    process.chdir(directory);
    try {
      await assert.rejects(Statek.open({ store: "mysql://x:pw@y/z" }), (error: unknown) => {
        assert.ok(error instanceof InvalidStoreUrlError);
        assert.equal(error.url, "mysql://x:***@y/z");
        return true;
      });
      assert.equal(existsSync(join(directory, "mysql:")), false);
    } finally {
      process.chdir(cwd);
    }
  });

  it("opens STATEK_STORE when no store is given", async () => {
    const store = join(directory, "from-env.db");
    const saved = process.env["STATEK_STORE"];
    process.env["STATEK_STORE"] = store;
    try {
      const app = await Statek.open();
      await app.close();
      assert.ok(existsSync(store), "the store was created where STATEK_STORE says");
    } finally {
      if (saved === undefined) delete process.env["STATEK_STORE"];
      else process.env["STATEK_STORE"] = saved;
    }
  });
});
