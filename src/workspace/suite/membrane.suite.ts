/**
 * @module
 * Workspace suite, the membrane: host objects cross as handles, the member policy holds,
 * identity survives both ways, bindings persist by name, and agent code never reaches the host realm.
 */
import assert from "node:assert/strict";
import type { SuiteContext } from "./harness.ts";

class Meeting {
  title: string;
  constructor(title: string) {
    this.title = title;
  }
}

class Calendar {
  _secret = "hidden";
  owner = "ana";
  count = 0;
  meetings = [new Meeting("standup"), new Meeting("review")];
  received: unknown[] = [];
  get size(): number {
    return this.meetings.length;
  }
  first(): Meeting {
    return this.meetings[0]!;
  }
  async later(n: number): Promise<number> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return n + 1;
  }
  async refuse(): Promise<never> {
    await Promise.resolve();
    throw new TypeError("not today");
  }
  fail(): never {
    throw new RangeError("no such day");
  }
  isMe(value: unknown): boolean {
    return value === this;
  }
  includes(value: unknown): boolean {
    return this.meetings.includes(value as Meeting);
  }
  keep(value: unknown): void {
    this.received.push(value);
  }
}

function fixture() {
  const calendar = new Calendar();
  const formatSlot = (n: number) => `slot ${n}`;
  return { calendar, formatSlot, globals: { calendar, cal: calendar, formatSlot }, bindings: { calendar } };
}

export function membraneCases({ test, session }: SuiteContext): void {
  test("membrane: host objects are live handles", async () => {
    const { calendar, globals, bindings } = fixture();
    const s = session({ globals, bindings });
    assert.equal(await s.output("print(typeof calendar, calendar.owner, calendar.count)"), "object ana 0");
    calendar.owner = "bo";
    assert.equal(await s.output("calendar.owner"), "bo", "not a copy");
    const result = await s.ok("print(calendar.meetings.length)");
    assert.deepEqual(result.put, [], "globals are not workspace variables");
  });

  test("membrane: sync and async host methods", async () => {
    const { globals, bindings } = fixture();
    const s = session({ globals, bindings });
    assert.equal(await s.output("calendar.first().title"), "standup");
    assert.equal(await s.output("const pending = calendar.later(1)\nprint(typeof pending.then, await pending, await calendar.later(41))"), "function 2 42");
  });

  test("membrane: writing an existing public field reaches the host", async () => {
    const { calendar, globals, bindings } = fixture();
    const s = session({ globals, bindings });
    await s.ok("calendar.count = 3; calendar.owner = 'cy'");
    assert.equal(calendar.count, 3);
    assert.equal(calendar.owner, "cy");
    assert.equal((await s.run("calendar.first = 1")).error, "TypeError: cannot replace method Calendar.first");
  });

  test("membrane: adding a property to a host object is refused", async () => {
    const { calendar, globals, bindings } = fixture();
    const s = session({ globals, bindings });
    assert.equal((await s.run("calendar.extra = 1")).error, "TypeError: cannot add property 'extra' to Calendar");
    assert.equal("extra" in calendar, false);
    assert.equal((await s.run("delete calendar.owner")).error, "TypeError: cannot delete a property of a host object (Calendar)");
    assert.equal((await s.run("Object.defineProperty(calendar, 'x', { value: 1 })")).error, "TypeError: cannot define a property on a host object (Calendar)");
    assert.equal((await s.run("Object.setPrototypeOf(calendar, {})")).error, "TypeError: cannot change the prototype of a host object (Calendar)");
  });

  test("membrane: private and reflective members are refused", async () => {
    const { calendar, globals, bindings } = fixture();
    const s = session({ globals, bindings });
    const cases: Array<[string, string]> = [
      ["calendar._secret", "TypeError: Calendar._secret is not accessible (private member)"],
      ["calendar['#secret']", "TypeError: Calendar.#secret is not accessible (private member)"],
      ["calendar.constructor", "TypeError: Calendar.constructor is not accessible"],
      ["calendar.prototype", "TypeError: Calendar.prototype is not accessible"],
      ["calendar.__proto__", "TypeError: Calendar.__proto__ is not accessible"],
      ["calendar._secret = 'x'", "TypeError: Calendar._secret is not accessible (private member)"],
      ["formatSlot.constructor", "TypeError: function formatSlot.constructor is not accessible"],
    ];
    for (const [code, expected] of cases) assert.equal((await s.run(code)).error, expected, code);
    assert.equal(calendar._secret, "hidden");
  });

  test("membrane: Object.prototype members are refused", async () => {
    const { globals, bindings } = fixture();
    const s = session({ globals, bindings });
    const cases: Array<[string, string]> = [
      ["calendar.hasOwnProperty('owner')", "TypeError: Calendar.hasOwnProperty is not accessible (built-in member)"],
      ["calendar.valueOf()", "TypeError: Calendar.valueOf is not accessible (built-in member)"],
      ["calendar.isPrototypeOf({})", "TypeError: Calendar.isPrototypeOf is not accessible (built-in member)"],
      ["formatSlot.call(null, 1)", "TypeError: function formatSlot.call is not accessible (built-in member)"],
    ];
    for (const [code, expected] of cases) assert.equal((await s.run(code)).error, expected, code);
  });

  test("membrane: Object.keys and in list public fields", async () => {
    const { globals, bindings } = fixture();
    const s = session({ globals, bindings });
    assert.equal(
      await s.output("print(Object.keys(calendar), 'owner' in calendar, '_secret' in calendar, 'first' in calendar, 'nope' in calendar)"),
      '["owner","count","meetings","received"] true false true false',
    );
    assert.equal(await s.output("JSON.stringify(calendar.first())"), '{"title":"standup"}');
  });

  test("membrane: a handle prints with its llmRepr text", async () => {
    const { globals, bindings } = fixture();
    const s = session({ globals, bindings });
    const text = 'Calendar {owner:"ana",count:0,meetings:[Meeting {title:"standup"},Meeting {title:"review"}],received:[]}';
    assert.equal(await s.output("`${calendar}`"), text);
    assert.equal(await s.output("calendar"), text);
    assert.equal(await s.output("print(String(calendar.first()))"), 'Meeting {title:"standup"}');
  });

  test("membrane: host getters work", async () => {
    const { calendar, globals, bindings } = fixture();
    const s = session({ globals, bindings });
    assert.equal(await s.output("calendar.size"), "2");
    calendar.meetings.push(new Meeting("retro"));
    assert.equal(await s.output("calendar.size"), "3");
  });

  test("membrane: host errors surface as Name: message and are catchable", async () => {
    const { globals, bindings } = fixture();
    const s = session({ globals, bindings });
    assert.equal((await s.run("calendar.fail()")).error, "RangeError: no such day");
    assert.equal((await s.run("await calendar.refuse()")).error, "TypeError: not today");
    assert.equal(
      await s.output("try { calendar.fail() } catch (e) { print(e.name, e.message, e instanceof Error) }\n" +
        "try { await calendar.refuse() } catch (e) { print(e.name, e.message) }"),
      "RangeError no such day true\nTypeError not today",
    );
  });

  test("membrane: a handle passed back arrives as the original host object", async () => {
    const { calendar, globals, bindings } = fixture();
    const s = session({ globals, bindings });
    assert.equal(await s.output("print(calendar.isMe(calendar), calendar.isMe({}), calendar.includes(calendar.first()))"), "true false true");
    await s.ok("calendar.keep([calendar.first(), { plain: calendar }])");
    const [kept] = calendar.received as [[Meeting, { plain: Calendar }]];
    assert.equal(kept[0], calendar.meetings[0]);
    assert.equal(kept[1].plain, calendar);
  });

  test("membrane: the same host object is the same guest proxy", async () => {
    const { globals, bindings } = fixture();
    const s = session({ globals, bindings });
    assert.equal(
      await s.output("print(calendar === cal, calendar.first() === calendar.first(), calendar.meetings[1] === calendar.meetings[1], calendar.first === calendar.first)"),
      "true true true true",
    );
  });

  test("membrane: bindings persist by name across restore", async () => {
    const { calendar, globals, bindings } = fixture();
    const s = session({ globals, bindings });
    const first = await s.ok("const mine = calendar; const box = { cal: calendar, list: [calendar] }");
    assert.deepEqual(first.notices, []);
    assert.match(s.blob("mine") ?? "", /binding:calendar/);
    assert.equal(await s.output("print(mine === calendar, box.cal === calendar, box.list[0] === mine, mine.owner)"), "true true true ana");
    calendar.owner = "dee";
    assert.equal(await s.output("mine.owner"), "dee");
  });

  test("membrane: a handle to a non-binding host object becomes a tombstone", async () => {
    const { globals, bindings } = fixture();
    const s = session({ globals, bindings });
    const result = await s.run("const meeting = calendar.first()\nmeeting.title");
    assert.deepEqual(result.texts("echo"), ["standup"]);
    const why = "a Meeting host object that is neither a binding nor of an exposed class";
    assert.deepEqual(result.notices, [`meeting was not persisted: ${why}`]);
    assert.equal((await s.run("meeting.title")).error, `ReferenceError: meeting was not persisted: ${why}`);
    assert.deepEqual((await s.ok("1")).notices, [], "told once");
  });

  test("membrane: a binding missing at restore is a notice, and comes back", async () => {
    const { calendar, globals, bindings } = fixture();
    const s = session({ globals, bindings });
    await s.ok("const calendar2 = calendar; const holder = { inner: { cal: calendar } }");
    s.reconfigure({ globals: {}, bindings: {} });
    const missing = await s.run("print('still here')");
    assert.deepEqual(missing.texts("out"), ["still here"]);
    assert.deepEqual([...missing.notices].sort(), [
      "calendar2 could not be restored: binding 'calendar' is not registered in this process",
      "holder.inner.cal could not be restored: binding 'calendar' is not registered in this process",
    ]);
    assert.deepEqual(missing.put, [], "the stored reference is kept");
    assert.match((await s.run("calendar2.owner")).error ?? "", /^ReferenceError: calendar2 .*binding 'calendar' is not registered in this process$/);
    s.reconfigure({ bindings: { calendar } });
    assert.equal(await s.output("print(calendar2.owner, holder.inner.cal === calendar2)"), "ana true");
  });

  test("membrane: the notice names the variable and the binding", async () => {
    const { calendar } = fixture();
    const s = session({ bindings: { x: calendar }, globals: { calendar } });
    await s.ok("const x = calendar");
    assert.match(s.blob("x") ?? "", /binding:x/);
    s.reconfigure({ bindings: {} });
    const result = await s.run("1");
    assert.deepEqual(result.notices, ["x could not be restored: binding 'x' is not registered in this process"]);
  });

  test("membrane: agent code cannot reach the host realm", async () => {
    const { globals, bindings } = fixture();
    const s = session({ globals, bindings });
    assert.equal(
      await s.output("print(typeof process, typeof require, typeof fetch, typeof __statekSend, 'process' in globalThis, Object.getOwnPropertyNames(globalThis).filter((n) => /statekSend/.test(n)).length)"),
      "undefined undefined undefined undefined false 0",
    );
    assert.equal((await s.run("calendar.constructor.constructor('return process')()")).error, "TypeError: Calendar.constructor is not accessible");
    assert.equal(await s.output("print(Object.getPrototypeOf(calendar), calendar instanceof Object)"), "null false");
    assert.equal(
      await s.output("const Fn = calendar.first.constructor\nprint(Fn === Function, Fn('return typeof process')(), typeof console.log.constructor('return this')().process)"),
      "true undefined undefined",
    );
  });

  test("membrane: host functions in scope are callable handles", async () => {
    const { globals, bindings } = fixture();
    const s = session({ globals, bindings });
    assert.equal(await s.output("print(typeof formatSlot, formatSlot(3))"), "function slot 3");
  });
}
