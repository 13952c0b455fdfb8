/** `STATEK-ACL` rules. `§10.N` in a test name numbers the scenario it covers. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DENY_ALL, GRANT_ALL, defaultAclFrom, hasAccess, parseAcl } from "./acl.ts";

describe("ACL", () => {
  it("§10.67 parsing: grant/deny, prefix rules, role scopes; header, blank and other lines ignored", () => {
    assert.deepEqual(parseAcl("+*"), [{ access: "grant", name: "", isPrefix: true, scope: [] }]);
    assert.deepEqual(parseAcl("STATEK-ACL:\n\n  -update_*: MessageDispatcher, Researcher  \n"), [
      { access: "deny", name: "update_", isPrefix: true, scope: ["MessageDispatcher", "Researcher"] },
    ]);
    assert.deepEqual(parseAcl("  +  getSlots  \n# comment\n-x:"), [
      { access: "grant", name: "getSlots", isPrefix: false, scope: [] },
      { access: "deny", name: "x", isPrefix: false, scope: [] },
    ]);
    assert.deepEqual(parseAcl(""), []);
    assert.deepEqual(parseAcl("STATEK-ACL:"), []);
  });

  it("§10.68 access: empty denies; last matching rule wins; scoped rules only for listed roles", () => {
    assert.equal(hasAccess([], "anything"), false);
    assert.equal(hasAccess(parseAcl("+*"), "anything"), true);
    assert.equal(hasAccess(parseAcl("+getSlots"), "getSlots"), true);
    assert.equal(hasAccess(parseAcl("+getSlots"), "other"), false);
    assert.equal(hasAccess(parseAcl("+*\n-getSlots\n+getSlots"), "getSlots"), true);
    const acl = parseAcl("+*\n-getSlots\n-update*: MessageDispatcher");
    assert.deepEqual(["readData", "getSlots", "updateSlot"].map((name) => hasAccess(acl, name)), [true, false, true]);
    assert.equal(hasAccess(acl, "updateSlot", "MessageDispatcher"), false);
    assert.equal(hasAccess(acl, "updateSlot", "Researcher"), true);
    assert.equal(hasAccess([], "x", undefined, true), true, "a configurable fallback");
  });

  it("the job's default ACL: GRANT (default), DENY, or rules", () => {
    assert.equal(defaultAclFrom(undefined), GRANT_ALL);
    assert.equal(defaultAclFrom("grant"), GRANT_ALL);
    assert.equal(defaultAclFrom("DENY"), DENY_ALL);
    assert.deepEqual(defaultAclFrom("+*\n-internal*"), parseAcl("+*\n-internal*"));
  });
});
