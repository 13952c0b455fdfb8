/**
 * Hostile code, cells without an end and reads that never return: timers that keep a cell alive for ever, a host
 * promise that never settles, a loop of side-effecting calls (each journaled durably) that only its host-call
 * budget ends, and a variable whose getter never returns, read by the host while the guest waits in a call — by
 * argument binding and from inside a tool. Each ends with a clear error, the hostile job goes on to its next
 * turns, the concurrent job finishes and memory stays bounded (see `hostile-harness.ts`).
 */
import assert from "node:assert/strict";
import { hostileSuite } from "./hostile-harness.ts";

/** The wall-clock limit of these cases. */
const WALL = "TimeoutError: the cell ran for more than its 1 s wall-clock limit (cellWallTimeMs), counting the time its host calls, timers and promises took, and was stopped";
const TRAP = "globalThis.trap = { get value() { for (;;) {} } }";

hostileSuite("hostile code: cells without an end, reads that never return", [
  {
    name: "a timer that sets itself again for ever",
    code: "const again = () => setTimeout(again, 40)\nagain()",
    limits: { cellWallTimeMs: 1_000 },
    expect: WALL,
  },
  {
    name: "an interval kept alive by a promise that never settles",
    code: "let ticks = 0\nsetInterval(() => ticks++, 20)\nawait new Promise(() => {})",
    limits: { cellWallTimeMs: 1_000 },
    expect: WALL,
  },
  {
    name: "a host promise that never settles",
    code: "const noted = 'kept'\nawait calendar.slow().then(() => new Promise(() => {}))",
    limits: { cellWallTimeMs: 1_000 },
    expect: WALL,
    check: (view) => assert.ok(!view.console.some((entry) => /could not be saved/.test(entry)), "the cell's variables were saved"),
  },
  {
    name: "a loop of side-effecting tool calls (two durable writes each)",
    code: "for (;;) twice(1)",
    limits: { maxHostCalls: 2_000, cellTimeMs: 30_000 },
    expect: "ResourceLimitError: the cell made too many host calls (limit maxHostCalls = 2,000)",
  },
  {
    name: "a variable whose getter never returns, bound to a tool's argument by its name",
    code: `${TRAP}\nlet failures = 0\nfor (let i = 0; i < 3; i++) try { twice('trap') } catch (error) { failures++; print(error.name + ': ' + error.message) }\nprint(failures)`,
    // The getter runs on the cell's clock: it spends the cell's CPU time, and the cell ends at its limit.
    expect: /^TimeoutError: variable trap could not be read: .+; pass the value itself rather than its name$/,
    check: (view) => {
      assert.ok(view.console.includes("3"), "every read failed with an error the cell could catch");
      assert.ok(view.console.includes("TimeoutError: the cell used more than its 300 ms CPU time limit and was stopped"));
    },
  },
  {
    name: "a variable whose getter never returns, read by a tool while it runs",
    code: `${TRAP}\nlet failures = 0\nfor (let i = 0; i < 50; i++) try { peek() } catch (error) { failures++; if (i < 2) print(error.name + ': ' + error.message) }\nprint(failures)`,
    expect: /^TimeoutError: variable trap could not be read: reading the workspace took longer than \d+ ms \(the host does not wait longer while the cell runs\); pass the value itself rather than its name$/,
    check: (view) => {
      assert.ok(view.console.includes("50"), "every read failed");
      assert.ok(
        view.console.some((entry) => /^TimeoutError: variable trap could not be read: an earlier read of the workspace during this cell took longer/.test(entry)),
        "after the first, the host no longer waits at all",
      );
    },
  },
]);
