/**
 * npm in a checkout of this repository, running on an older Node than the library needs (the machine's Node;
 * the repository's own code runs on the Node of its `node` devDependency): `npm install` does not warn that this
 * package needs Node 22.13 (its `devEngines` say what developing it needs; `engines` are for its users), and
 * `npm run statek` runs the CLI with no EBADENGINE warnings.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { describe, it } from "node:test";

const root = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; version: string };

/** A Node older than 22.13 with npm beside it, outside the repository. */
function olderNode(): string | undefined {
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (!dir || dir.startsWith(root) || dir.includes("node_modules")) continue;
    const node = join(dir, "node");
    if (!existsSync(node) || !existsSync(join(dir, "npm"))) continue;
    const [major = 0, minor = 0] = execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).trim().split(".").map(Number);
    if (major < 22 || (major === 22 && minor < 13)) return node;
  }
  return undefined;
}

const node = olderNode();
const bin = node ? dirname(node) : "";
/** A user's shell with that Node first: nothing of the npm run that started this test. */
const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== "NODE_OPTIONS" && key !== "NODE_TEST_CONTEXT"));
env["PATH"] = [bin, ...(process.env["PATH"] ?? "").split(delimiter).filter((dir) => dir !== bin && !dir.includes("node_modules"))].join(delimiter);
const npm = (args: readonly string[]) => spawnSync(join(bin, "npm"), args, { cwd: root, env, encoding: "utf8" });
const aboutThisPackage = new RegExp(`EBADENGINE[^\\n]*\\n[^\\n]*package: '${manifest.name}@`);

describe("npm in the repository on an older Node", { skip: node ? false : "no Node older than 22.13 with npm on the PATH" }, () => {
  it("npm install does not warn that this package needs a newer Node", () => {
    const result = npm(["install", "--dry-run", "--offline", "--no-audit", "--no-fund"]);
    assert.equal(result.status, 0, result.stderr);
    assert.doesNotMatch(result.stderr, aboutThisPackage);
  });

  it("npm run statek runs the CLI without EBADENGINE warnings", () => {
    const result = npm(["run", "--silent", "statek", "--", "--version"]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), manifest.version);
    assert.doesNotMatch(result.stderr, /EBADENGINE|EBADDEVENGINES/);
  });
});
