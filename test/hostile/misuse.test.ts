/**
 * Hostile code, misuse of what the job was given: hidden tools, tools outside its allowed set, private
 * members, members an exposed class denies, read-only fields, and changing host objects' shape. Each case
 * also proves the worker survives, a concurrent job finishes and memory stays bounded (see
 * `hostile-harness.ts`). The hostile agent has the tools `twice` (allowed), `wipe` (not allowed) and
 * `adminReset` (hidden); `meeting` is a `Meeting`, exposed with `deny: ["delete*"], readOnly: ["title"]`.
 */
import assert from "node:assert/strict";
import type { JobView } from "../../src/jobs/history/job-view.ts";
import { hostileSuite } from "./hostile-harness.ts";

/** The errors of the formal tool calls in a job's history. */
function formalErrors(view: JobView): string[] {
  return view.history.flatMap((record) => (record.kind === "tool-call" && record.data.origin === "formal" && record.data.error ? [record.data.error] : []));
}

hostileSuite("hostile code: misuse", [
  {
    name: "calling a hidden tool by name",
    code: "adminReset()",
    expect: "NameError: tool 'adminReset' is not exposed to this job",
  },
  {
    name: "calling a hidden tool formally",
    code: "print('formal call made')",
    toolCalls: [{ name: "adminReset", args: {} }],
    expect: "formal call made",
    check: (view) => assert.deepEqual(formalErrors(view), ["NameError: tool 'adminReset' is not exposed to this job"]),
  },
  {
    name: "calling a tool outside the job's allowed set",
    code: "wipe()",
    expect: "NameError: tool 'wipe' is not exposed to this job",
  },
  {
    name: "calling a tool outside the allowed set formally",
    code: "print('formal call made')",
    toolCalls: [{ name: "wipe", args: {} }],
    expect: "formal call made",
    check: (view) => assert.deepEqual(formalErrors(view), ["NameError: tool 'wipe' is not exposed to this job"]),
  },
  {
    name: "reading a private member",
    code: "calendar._secret",
    expect: "TypeError: Calendar._secret is not accessible (private member)",
  },
  {
    name: "reading a #private-style member",
    code: "calendar['#secret']",
    expect: "TypeError: Calendar.#secret is not accessible (private member)",
  },
  {
    name: "writing a read-only field",
    code: "meeting.title = 'hijacked'",
    expect: "TypeError: cannot set Meeting.title: it is read-only",
  },
  {
    name: "calling a denied method",
    code: "meeting.deleteForever()",
    expect: "TypeError: Meeting.deleteForever is not accessible (denied by statek.expose)",
  },
  {
    name: "adding a property to a host object",
    code: "calendar.backdoor = () => 1",
    expect: "TypeError: cannot add property 'backdoor' to Calendar",
  },
  {
    name: "replacing a host method",
    code: "calendar.fail = () => 'patched'",
    expect: "TypeError: cannot replace method Calendar.fail",
  },
  {
    name: "defining a getter on a host object",
    code: "Object.defineProperty(calendar, 'owner', { get() { return 'mallory' } })",
    expect: "TypeError: cannot define a property on a host object (Calendar)",
  },
  {
    name: "constructing from a host method",
    code: "new calendar.keep()",
    expect: "TypeError: not a constructor",
  },
  {
    name: "Object.prototype members of a host object",
    code: "calendar.__defineGetter__('owner', () => 'mallory')",
    expect: "TypeError: Calendar.__defineGetter__ is not accessible",
  },
]);
