/**
 * Hostile code, the realm: attempts to change the guest realm — its frozen intrinsics,
 * prototype chains, the globals the runtime relies on — so that a later cell, the runtime or the host sees
 * something else. Each case also proves the worker survives, a concurrent job finishes and memory stays
 * bounded (see `hostile-harness.ts`).
 */
import assert from "node:assert/strict";
import { hostileSuite } from "./hostile-harness.ts";

hostileSuite("hostile code: the realm", [
  {
    name: "defining a property on a frozen intrinsic",
    code: "Object.defineProperty(Array.prototype, 'polluted', { value: 1 })",
    expect: "TypeError: object is not extensible",
  },
  {
    name: "redefining a built-in method",
    code: "Object.defineProperty(JSON, 'stringify', { value: () => 'forged' })",
    expect: "TypeError: property is not configurable",
  },
  {
    name: "replacing Object.prototype's prototype",
    code: "Object.prototype.__proto__ = { polluted: true }",
    expect: "TypeError: 'Immutable prototype object 'Object.prototype' cannot have their prototype set'",
  },
  {
    name: "__proto__ games through an instance",
    code: "[].__proto__.__proto__.polluted = 1;\n({}).__proto__.polluted = 2;\nObject.prototype.polluted = 3\nthrow new Error('polluted: ' + ({}).polluted + ' ' + [].polluted)",
    expect: "Error: polluted: undefined undefined",
  },
  {
    name: "Reflect.setPrototypeOf of intrinsics",
    code:
      "const changed = [Reflect.setPrototypeOf(Array.prototype, Object.create(null)), Reflect.setPrototypeOf(Function.prototype, null), " +
      "Reflect.setPrototypeOf(Math, { max: () => 0 }), Reflect.setPrototypeOf(Promise.prototype, null)]\n" +
      "throw new Error('changed: ' + changed.join() + ' ' + Math.max(1, 2))",
    expect: "Error: changed: false,false,false,false 2",
  },
  {
    name: "the override setter called on the intrinsic itself",
    code: "Object.getOwnPropertyDescriptor(Object.prototype, 'toString').set.call(Object.prototype, () => 'pwned')",
    expect: "TypeError: Cannot assign to read only property 'toString' of Object.prototype: built-ins are frozen in the workspace",
  },
  {
    name: "forging a text by replacing JSON.stringify",
    code:
      "JSON.stringify = () => '{\"v\":{\"$\":\"ref\",\"i\":0},\"o\":[{\"t\":\"arr\",\"v\":[{\"$\":\"h\",\"k\":\"binding:adminVault\"}]}]}'\n" +
      "globalThis.JSON = { stringify: JSON.stringify, parse: JSON.parse }\nprint('kept', calendar.keep({ any: 1 }))",
    expect: "kept 1",
    check: (_view, calendar) => assert.deepEqual(calendar.received, [{ any: 1 }]),
  },
  {
    name: "replacing the globals the runtime relies on",
    code:
      "const kept = { when: new Date(5), list: [1, 2] }\n" +
      "globalThis.Object = null\nglobalThis.Array = null\nglobalThis.Map = null\nglobalThis.Proxy = null\nglobalThis.Promise = null\n" +
      "globalThis.Reflect = null\nglobalThis.eval = () => 'evil'\nglobalThis.Date = null\nglobalThis.Error = null\n" +
      "print('runtime ok', calendar.keep({ any: 1 }), await calendar.later(1))",
    expect: "runtime ok 1 1",
    check: (view) => {
      const kept = view.variables.kept as { when: Date; list: number[] };
      assert.ok(kept.when instanceof Date);
      assert.deepEqual(kept.list, [1, 2]);
    },
  },
  {
    name: "deleting the globals the runtime relies on",
    code: "const deleted = [delete globalThis.JSON, delete globalThis.Object, delete globalThis.Symbol, delete globalThis.URL]\nthrow new Error('deleted: ' + deleted.join() + ' ' + typeof JSON)",
    expect: "Error: deleted: false,false,false,false object",
  },
  {
    name: "poisoning promise jobs the runtime schedules",
    code: "Promise.prototype.then = function () { throw new Error('hijacked') }\nPromise.resolve = () => null\nprint('awaited', await calendar.later(2))",
    expect: "awaited 2",
  },
  {
    name: "keeping realm state in an engine accessor",
    code: "Error.stackTraceLimit = 0\nRegExp.prototype.compile = null\nthrow new Error('limit ' + Error.stackTraceLimit + ' ' + typeof RegExp.prototype.compile + ' ' + typeof RegExp.$1)",
    expect: /^Error: limit \d+ (function|undefined) undefined$/,
  },
  {
    name: "a timing channel through the garbage collector",
    code: "new WeakRef({})",
    expect: "ReferenceError: WeakRef is not defined",
  },
  {
    name: "replacing performance.now",
    code: "Object.defineProperty(performance, 'now', { value: () => 0 })",
    expect: "TypeError: property is not configurable",
  },
]);
