import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { describe, it } from "node:test";
import { isGoneProcessOwner, newProcessOwner } from "./process-owner.ts";

const hasProc = existsSync("/proc/self/ns/pid");

describe("process owners", () => {
  it("names the host, the pid, a nonce and (where /proc tells) the boot and PID namespace", () => {
    const owner = newProcessOwner();
    const parts = owner.split(":");
    assert.equal(parts[0], hostname());
    assert.equal(parts[1], String(process.pid));
    assert.match(parts[2]!, /^[0-9a-f]{8}$/);
    if (hasProc) assert.match(parts[3]!, /^[0-9a-f]{12}$/);
    assert.notEqual(newProcessOwner(), owner, "each Statek has its own");
  });

  it("judges a process of this machine gone only once it no longer exists", { skip: hasProc ? false : "no /proc here: nobody is judged gone" }, async () => {
    const space = newProcessOwner().split(":")[3];
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    await once(child, "spawn");
    const owner = `${hostname()}:${child.pid}:0badf00d:${space}`;
    assert.equal(isGoneProcessOwner(owner), false, "a running process is not gone");
    child.kill("SIGKILL");
    await once(child, "exit");
    assert.equal(isGoneProcessOwner(owner), true, "a process that exited is");
  });

  it("never judges this process, another namespace or machine, or an owner of another form", () => {
    const [host, , , space] = newProcessOwner().split(":");
    const unused = 4_000_000_000; // no such pid
    assert.equal(isGoneProcessOwner(newProcessOwner()), false, "this process");
    assert.equal(isGoneProcessOwner(`${host}:${unused}:0badf00d:ffffffffffff`), false, "another boot or PID namespace");
    assert.equal(isGoneProcessOwner(`${host}:${unused}:0badf00d`), false, "no namespace at all (an older owner)");
    for (const odd of ["", "worker-a", `${host}:0:0badf00d:${space}`, `${host}:-5:0badf00d:${space}`, `${host}:12ab:0badf00d:${space}`, `${host}:01:0badf00d:${space}`]) {
      assert.equal(isGoneProcessOwner(odd), false, JSON.stringify(odd));
    }
  });
});
