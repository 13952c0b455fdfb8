/**
 * Hostile code, escapes: attempts to reach the host realm, host functions, other jobs' objects or the
 * workspace's own machinery. Each case also proves the worker survives, a concurrent job finishes and
 * memory stays bounded (see `hostile-harness.ts`).
 */
import assert from "node:assert/strict";
import { hostileSuite, type HostileCase } from "./hostile-harness.ts";

/**
 * `calendar.keep(…)` whose argument text reaches the host as `text`. Cells used to forge such texts by
 * replacing the guest's `JSON.stringify`; the locked-down realm no longer lets them (see realm.test.ts), so
 * the harness rewrites the message on its way — the host's checks must hold all the same.
 */
function forgedArguments(text: string): Pick<HostileCase, "code" | "forge"> {
  return { code: "calendar.keep({ any: 1 })", forge: { arguments: { member: "keep", text } } };
}

/** A variable `stolen` whose stored text reaches the host as `text` (see {@link forgedArguments}). */
function forgedVariable(text: string): Pick<HostileCase, "code" | "forge"> {
  return { code: "globalThis.stolen = 1", forge: { variable: { name: "stolen", text } } };
}

hostileSuite("hostile code: escapes", [
  {
    name: "constructor chain on a handle",
    code: "calendar.constructor.constructor('return process')().exit(1)",
    expect: "TypeError: Calendar.constructor is not accessible",
  },
  {
    name: "prototype of a handle",
    code: "Object.getPrototypeOf(calendar).constructor('return process')()",
    expect: "TypeError: cannot read property 'constructor' of null",
  },
  {
    name: "Function constructor inside the guest",
    code: "Function('return process')().exit(1)",
    expect: "ReferenceError: process is not defined",
  },
  {
    name: "constructor of a guest function",
    code: "print.constructor('return this')().process.exit(1)",
    expect: "TypeError: cannot read property 'exit' of undefined",
  },
  {
    name: "eval inside the guest",
    code: "eval('process.mainModule.require(\"child_process\")')",
    expect: "ReferenceError: process is not defined",
  },
  {
    name: "import() in the cell",
    code: "const fs = await import('node:fs')",
    expect: "SyntaxError: import() is not available in the workspace",
  },
  {
    name: "import() through eval",
    code: "await eval(\"import('node:fs')\")",
    expect: "ReferenceError: could not load module 'node:fs'",
  },
  {
    name: "require",
    code: "require('node:child_process').execSync('id')",
    expect: "ReferenceError: require is not defined",
  },
  {
    name: "prototype pollution through a handle",
    code: "calendar.__proto__.polluted = true",
    expect: "TypeError: Calendar.__proto__ is not accessible",
    check: () => assert.equal(({} as Record<string, unknown>).polluted, undefined),
  },
  {
    name: "prototype pollution through an argument",
    code: "calendar.keep(JSON.parse('{\"__proto__\": {\"polluted\": true}}'))\nif (!calendar.isPolluted()) throw new Error('the host was not polluted')",
    expect: "Error: the host was not polluted",
    check: (_view, calendar) => {
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.equal(Object.getPrototypeOf(calendar.received[0]), Object.prototype);
    },
  },
  {
    name: "a forged handle id",
    ...forgedArguments('{"v":{"$":"ref","i":0},"o":[{"t":"arr","v":[{"$":"h","id":9001}]}]}'),
    expect: "TypeError: unknown handle 9001: handles cannot be forged",
  },
  {
    name: "a forged reference to another binding",
    ...forgedArguments('{"v":{"$":"ref","i":0},"o":[{"t":"arr","v":[{"$":"h","k":"binding:counter"}]}]}'),
    expect: "TypeError: a host object can only be passed back as the handle it came in",
    check: (_view, calendar) => assert.deepEqual(calendar.received, []),
  },
  {
    name: "a forged stored reference to a binding the job was never given",
    ...forgedVariable('{"v":{"$":"h","k":"binding:adminVault","at":"stolen"}}'),
    expect: "stolen was not persisted: it refers to a host object this job was never given (binding:adminVault)",
  },
  {
    name: "a forged stored reference to another job's object",
    ...forgedVariable('{"v":{"$":"h","k":"binding:counter","at":"stolen"}}'),
    expect: "stolen was not persisted: it refers to a host object this job was never given (binding:counter)",
  },
  {
    name: "a host global constructor smuggled through the codec",
    ...forgedArguments('{"v":{"$":"ref","i":0},"o":[{"t":"ta","k":"Function","b":"00"}]}'),
    expect: 'TypeError: malformed value: unknown typed array "Function"',
  },
  {
    name: "a host method that returns the Function constructor",
    code: "calendar.functionConstructor()('return process')()",
    expect: "TypeError: the host's Function constructor cannot cross into the workspace",
  },
  {
    name: "Error stack tricks",
    code: "const e = (() => { try { calendar.fail() } catch (err) { return err } })()\nthrow new Error('stack: ' + e.stack)",
    expect: /^Error: stack: /,
    check: (view) => assert.ok(!view.console.some((entry) => /node:|\.ts:|node_modules/.test(entry)), "no host frames"),
  },
  {
    name: "V8 stack-trace hooks",
    code: "Error.prepareStackTrace = (e, frames) => frames[0].getThis()\nconst leaked = new Error('x').stack\nthrow new TypeError('the hook gave ' + typeof leaked)",
    expect: "TypeError: the hook gave string",
  },
  {
    name: "Symbol keys on a handle",
    code: "calendar[Symbol.for('nodejs.util.inspect.custom')] = () => process",
    expect: "TypeError: cannot set a symbol property on a host object (Calendar)",
  },
  {
    name: "Symbol.toPrimitive on an argument",
    code: "calendar.keep({ [Symbol.toPrimitive]() { throw new Error('coerced on the host') } })\nthrow new Error('never coerced: ' + typeof calendar[Symbol.toPrimitive])",
    expect: "Error: never coerced: undefined",
  },
  {
    name: "a Proxy passed to a host call",
    code: "calendar.keep(new Proxy({}, { ownKeys() { throw new Error('the trap ran in the sandbox') } }))",
    expect: "Error: the trap ran in the sandbox",
  },
  {
    name: "a thenable handle",
    code: "const awaited = await calendar\nthrow new Error('a handle is no thenable: ' + (awaited === calendar) + ' ' + typeof calendar.then)",
    expect: "Error: a handle is no thenable: true undefined",
  },
  {
    name: "reentrancy through a callback",
    code: "calendar.each((value) => { calendar.keep(value) })",
    expect: "TypeError: callback is not a function",
  },
  {
    name: "reentrancy through a getter while an argument is encoded",
    code: "calendar.keep({ get nested() { return calendar.keep('inner') } })\nthrow new Error('calls: ' + calendar.received.length)",
    expect: "Error: calls: 2",
  },
  {
    name: "the workspace's own cell runner",
    code: "__statek.run(async () => { exit('hijacked') })",
    expect: "TypeError: __statek.run is internal to the workspace",
  },
  {
    name: "deeply nested JSON sent to the host",
    ...forgedArguments("[".repeat(200_000) + "]".repeat(200_000)),
    expect: "TypeError: the data sent from the workspace is nested deeper than 32 levels",
  },
]);
