/**
 * Enums, formatters and class docs belong to a `Statek` instance: two instances in one process, each with its
 * own, never see each other's; the process-wide forms are every instance's fallback.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, describeClass, registerFormatter, scriptedModel, tool } from "../index.ts";

class Severity {
  static readonly INFO = new Severity(1);
  static readonly ERROR = new Severity(3);
  readonly level: number;
  constructor(level: number) {
    this.level = level;
  }
}

class Money {
  readonly cents: number;
  constructor(cents: number) {
    this.cents = cents;
  }
}

class Ledger {
  total(): number {
    return 0;
  }
}

const alert = tool({
  name: "alert", description: "Raises an alert.", params: z.object({ level: z.instanceof(Severity).describe("How bad.") }),
  run: ({ level }) => level.level,
});
const price = tool({ name: "price", description: "The price.", run: () => new Money(1250) });

let runs = 0;

/** Runs one cell on `statek` with `ledger` in scope (a new agent each time), returning the console. */
async function run(statek: Statek, code: string): Promise<{ console: string[] }> {
  const model = scriptedModel(["```ts\n" + code + "\nexit()\n```"]);
  const agent = new Agent({ role: `runner${++runs}`, tools: [alert, price], context: { ledger: new Ledger() }, model, systemPrompt: "Tools:\n{detailed_tools}" });
  const view = await statek.runJob((await statek.submitJob(agent)).id);
  return { console: view.console };
}

describe("registries owned by a Statek", () => {
  it("keep two instances' enums, formatters and class docs apart", async () => {
    const a = await Statek.open({
      store: ":memory:",
      enums: [Severity],
      formatters: [[Money, (money: Money) => `A:${money.cents}`]],
      classDocs: [[Ledger, { description: "The A ledger.", members: { total: "The sum." } }]],
    });
    const b = await Statek.open({ store: ":memory:", formatters: [[Money, (money: Money) => `B:${money.cents}`]] });
    try {
      const inA = await run(a, 'print(alert("ERROR"))\nprice()\ndocstr(ledger)');
      assert.deepEqual(inA.console.slice(0, 2), ["3", "A:1250"]);
      assert.match(inA.console.join("\n"), /The A ledger\./);

      // B has no Severity enum, so its type checker knows the string for the mistake it is: marked as deliberate.
      const inB = await run(b, 'try {\n  // @ts-expect-error\n  alert("ERROR")\n} catch (error) { print(error.name) }\nprice()\ndocstr(ledger)');
      assert.deepEqual(inB.console.slice(0, 2), ["ValidationError", "B:1250"], "B has no Severity enum and its own formatter");
      assert.doesNotMatch(inB.console.join("\n"), /The A ledger\./);

      // A again, after B ran: nothing of B's leaked into it.
      assert.deepEqual((await run(a, 'print(alert("INFO"))\nprice()')).console, ["1", "A:1250"]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("fall back to the process-wide registrations, which an instance's own win over", async () => {
    class Coin {
      readonly value = 2;
    }
    registerFormatter(Coin, (coin) => `global coin ${coin.value}`);
    describeClass(Coin, { description: "A coin, documented for every instance." });
    const coin = tool({ name: "coin", description: "A coin.", run: () => new Coin() });
    const plain = await Statek.open({ store: ":memory:" });
    const own = await Statek.open({ store: ":memory:", formatters: [[Coin, () => "own coin"]] });
    try {
      for (const [statek, expected] of [[plain, "global coin 2"], [own, "own coin"]] as const) {
        const model = scriptedModel(["```ts\ncoin()\nexit()\n```"]);
        const agent = new Agent({ role: "c", tools: [coin], model });
        const view = await statek.runJob((await statek.submitJob(agent)).id);
        assert.deepEqual(view.console, [expected]);
      }
    } finally {
      await plain.close();
      await own.close();
    }
  });

  it("refuses malformed registrations when the instance is opened", async () => {
    await assert.rejects(Statek.open({ store: ":memory:", enums: [class Empty {}] }), /Statek\.open: enums\(Empty\): no members/);
    await assert.rejects(Statek.open({ store: ":memory:", classDocs: [[Ledger, { description: "" }]] }), /description must not be empty/);
  });
});
