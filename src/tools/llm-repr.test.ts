import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { OpaqueValue, llmRepr, registerFormatter } from "./llm-repr.ts";
import { tool } from "./tool.ts";

class Point {
  x: number;
  constructor(x: number) {
    this.x = x;
  }
}

describe("llmRepr", () => {
  it("formats primitives", () => {
    assert.equal(llmRepr(1.5), "1.5");
    assert.equal(llmRepr(-0), "-0");
    assert.equal(llmRepr(NaN), "NaN");
    assert.equal(llmRepr(12n), "12n");
    assert.equal(llmRepr(true), "true");
    assert.equal(llmRepr(null), "null");
    assert.equal(llmRepr(undefined), "undefined");
    assert.equal(llmRepr(Symbol("s")), "Symbol(s)");
    assert.equal(llmRepr('say "hi"'), '"say \\"hi\\""');
  });

  it("shows top-level strings raw only when asked", () => {
    assert.equal(llmRepr("plain", { rawStrings: true }), "plain");
    assert.equal(llmRepr(["nested"], { rawStrings: true }), '["nested"]');
  });

  it("formats arrays and truncates them", () => {
    assert.equal(llmRepr([1, 2, 3]), "[1,2,3]");
    assert.equal(llmRepr([]), "[]");
    const fifty = Array.from({ length: 50 }, (_, i) => i + 1);
    assert.equal(llmRepr(fifty, { maxItems: 3 }), "[1,2,3, …] (50 items total)");
    assert.equal(llmRepr(fifty.slice(0, 3), { maxItems: 3 }), "[1,2,3]");
    assert.equal(llmRepr(Array.from({ length: 30 }, () => 0)).endsWith(", …] (30 items total)"), true, "25 items by default");
  });

  it("formats records compactly", () => {
    assert.equal(llmRepr({ a: 1, b: "x" }), '{a:1,b:"x"}');
    assert.equal(llmRepr({ "two words": 1, $ok: 2 }), '{"two words":1,$ok:2}');
    assert.equal(llmRepr({ a: 1, b: 2, c: 3, d: 4 }, { maxItems: 2 }), "{a:1,b:2, …} (4 items total)");
    assert.equal(llmRepr(Object.assign(Object.create(null), { a: 1 })), "{a:1}");
    assert.equal(llmRepr({ _id: 7 }), "{_id:7}", "plain records show every key");
  });

  it("formats Map, Set and typed arrays", () => {
    assert.equal(llmRepr(new Map<unknown, unknown>([[1, "a"], ["k", { v: true }]])), 'Map{1=>"a","k"=>{v:true}}');
    assert.equal(llmRepr(new Set([1, "two"])), 'Set{1,"two"}');
    assert.equal(llmRepr(new Set([1, 2, 3]), { maxItems: 1 }), "Set{1, …} (3 items total)");
    assert.equal(llmRepr(new Uint8Array([1, 2])), "Uint8Array[1,2]");
    assert.equal(llmRepr(new BigInt64Array([3n])), "BigInt64Array[3n]");
  });

  it("formats dates without zero milliseconds", () => {
    assert.equal(llmRepr(new Date(Date.UTC(2026, 2, 10, 15, 0, 0))), "2026-03-10T15:00:00Z");
    assert.equal(llmRepr(new Date(Date.UTC(2026, 2, 10, 15, 0, 0, 250))), "2026-03-10T15:00:00.250Z");
    assert.equal(llmRepr(new Date(NaN)), "Invalid Date");
    assert.equal(llmRepr({ at: new Date(0) }), "{at:1970-01-01T00:00:00Z}");
  });

  it("formats regular expressions, errors and functions", () => {
    assert.equal(llmRepr(/a+b/gi), "/a+b/gi");
    assert.equal(llmRepr(new TypeError("bad")), "TypeError: bad");
    assert.equal(llmRepr(function named() {}), "[Function named]");
    assert.equal(llmRepr((() => () => 1)()), "[Function]");
  });

  it("formats class instances with their class name and without private members", () => {
    assert.equal(llmRepr(new Point(1)), "Point {x:1}");
    assert.equal(llmRepr([new Point(2)]), "[Point {x:2}]");
    class Account {
      _token = "secret";
      owner = "ana";
    }
    assert.equal(llmRepr(new Account()), 'Account {owner:"ana"}');
    class Money {
      cents = 150;
      toString() {
        return "$1.50";
      }
    }
    assert.equal(llmRepr(new Money()), "$1.50", "a class's own toString");
  });

  it("uses a custom [llmRepr.symbol]() method", () => {
    class Slot {
      [llmRepr.symbol]() {
        return "Slot(15:00)";
      }
    }
    assert.equal(llmRepr(new Slot()), "Slot(15:00)");
    assert.equal(llmRepr({ slots: [new Slot()] }), "{slots:[Slot(15:00)]}");
    const fn = Object.assign(() => 1, { [llmRepr.symbol]: () => "custom fn" });
    assert.equal(llmRepr(fn), "custom fn");
    assert.equal(llmRepr.symbol, Symbol.for("statek.llmRepr"));
  });

  it("accepts llmRepr itself as the computed key, as JavaScript writes it", () => {
    const value = { [llmRepr as unknown as symbol]() { return "js form"; } };
    assert.equal(llmRepr(value), "js form");
    const fromJs = new Function("llmRepr", "return { [llmRepr]() { return 'plain js ' + this.n }, n: 1 }")(llmRepr);
    assert.equal(llmRepr(fromJs), "plain js 1");
  });

  it("marks cycles, but repeats shared references", () => {
    const node: Record<string, unknown> = { name: "n" };
    node.self = node;
    assert.equal(llmRepr(node), '{name:"n",self:[Circular]}');
    const list: unknown[] = [1];
    list.push(list);
    assert.equal(llmRepr(list), "[1,[Circular]]");
    const shared = { s: 1 };
    assert.equal(llmRepr([shared, shared]), "[{s:1},{s:1}]");
  });

  it("summarises values nested deeper than maxDepth", () => {
    assert.equal(llmRepr({ a: { b: { c: { d: 1 } } } }), "{a:{b:{c:<Object>}}}");
    assert.equal(llmRepr({ a: [1, 2], m: new Map([[1, 1]]), p: new Point(1) }, { maxDepth: 1 }), "{a:<Array of 2 items>,m:<Map of 1 items>,p:<Point>}");
    assert.equal(llmRepr([[1]], { maxDepth: 0 }), "<Array of 1 items>");
  });

  it("uses formatters for classes the caller does not own", () => {
    class Point3 extends Point {}
    const formatters = new Map([[Point, (p: Point) => `P(${p.x})`]]);
    assert.equal(llmRepr([new Point(1), new Point3(2)], { formatters }), "[P(1),P(2)]");
    assert.equal(llmRepr(new Point(1)), "Point {x:1}", "only when passed");
  });

  it("uses formatters registered once, everywhere; a per-call formatter wins", () => {
    class Money {
      cents: number;
      constructor(cents: number) {
        this.cents = cents;
      }
    }
    registerFormatter(Money, (money) => `$${(money.cents / 100).toFixed(2)}`);
    assert.equal(llmRepr({ price: new Money(150) }), "{price:$1.50}");
    assert.equal(llmRepr(new Money(1), { formatters: new Map([[Money, () => "one cent"]]) }), "one cent");
    assert.throws(() => registerFormatter(Money, "x" as never), { name: "TypeError" });
  });

  it("shows a tool by its name", () => {
    const twice = tool({ name: "twice", description: "Doubles.", params: z.object({ x: z.number().describe("n") }), run: ({ x }) => x * 2 });
    assert.equal(llmRepr(twice), "[tool twice]");
    assert.equal(llmRepr({ op: twice }), "{op:[tool twice]}");
  });

  it("shows opaque values by their description", () => {
    assert.equal(llmRepr(new OpaqueValue("a Promise")), "[a Promise]");
  });
});

describe("llmRepr: the numbered scenarios, in JavaScript values", () => {
  class User {
    name: string;
    age: number;
    _token = "hidden";
    constructor(name: string, age: number) {
      this.name = name;
      this.age = age;
    }
  }
  class Empty {}

  it("§10.46 nested values beyond the depth are summaries: <Array of 3 items>, <Map of 0 items>, <User>", () => {
    assert.equal(llmRepr({ list: [1, 2, 3], map: new Map(), user: new User("a", 1) }, { maxDepth: 1 }), "{list:<Array of 3 items>,map:<Map of 0 items>,user:<User>}");
    assert.equal(llmRepr([2, -5, 1.5, "abc", "", true, null]), '[2,-5,1.5,"abc","",true,null]');
  });

  it("§10.47 arrays truncate after maxItems with the total; exactly maxItems has no notice", () => {
    assert.equal(llmRepr([1, 2, 3, 4, 5], { maxItems: 3 }), "[1,2,3, …] (5 items total)");
    assert.equal(llmRepr([1, 2, 3], { maxItems: 3 }), "[1,2,3]");
    assert.equal(llmRepr(["a", "b"]), '["a","b"]');
  });

  it("§10.48 sets, maps and records truncate the same way", () => {
    assert.equal(llmRepr({ a: 1, b: 2, c: 3 }, { maxItems: 1 }), "{a:1, …} (3 items total)");
    assert.equal(llmRepr({ a: 1, b: 2, c: 3 }, { maxItems: 2 }), "{a:1,b:2, …} (3 items total)");
    assert.equal(llmRepr(new Set([99])), "Set{99}");
    assert.equal(llmRepr(new Set()), "Set{}");
  });

  it("§10.49 class instances show their class and public fields; empty ones their class", () => {
    assert.equal(llmRepr(new User("alice", 30)), 'User {name:"alice",age:30}');
    assert.equal(llmRepr(new Empty()), "Empty {}");
  });

  it("§10.52 elements use their own representation: the llmRepr hook, else a class's toString", () => {
    class Tag {
      label: string;
      constructor(label: string) {
        this.label = label;
      }
      toString() {
        return `#${this.label}`;
      }
    }
    class Both extends Tag {
      [llmRepr.symbol]() {
        return `both:${this.label}`;
      }
    }
    assert.equal(llmRepr([new Tag("python"), new Tag("dev")]), "[#python,#dev]");
    assert.equal(llmRepr({ a: new Both("x") }), "{a:both:x}", "the hook beats toString");
  });

  it("§10.54 a top-level string is raw for printing, quoted inside values", () => {
    assert.equal(llmRepr("hello", { rawStrings: true }), "hello");
    assert.equal(llmRepr(["hello"], { rawStrings: true }), '["hello"]');
    assert.equal(llmRepr([null, null, null]), "[null,null,null]");
    assert.equal(llmRepr({ a: null }), "{a:null}");
  });
});
