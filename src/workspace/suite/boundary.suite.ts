/**
 * @module
 * Workspace suite, the boundary: the broker's checks — tool access, the exposed
 * classes' member policy, host values that never cross, forged handles and references — the determinism
 * hooks, the journal-ready crossing records, and the per-cell crossing limits.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { tool } from "../../tools/tool.ts";
import { ExposedClasses } from "../membrane/exposed-classes.ts";
import { forgingExecutor, type Forgery } from "./forging-executor.ts";
import { Session, type SessionOptions, type SuiteContext } from "./harness.ts";

class Holder {
  tool: unknown;
  constructor(held: unknown) {
    this.tool = held;
  }
}

class Account {
  owner = "ana";
  balance = 10;
  note = "n";
  deposit(amount: number): number {
    this.balance += amount;
    return this.balance;
  }
  deleteAll(): void {
    this.balance = 0;
  }
  debugDump(): string {
    return "secret state";
  }
}

class Vault {
  received: unknown[] = [];
  keep(value: unknown): void {
    this.received.push(value);
  }
  later(n: number): Promise<number> {
    return new Promise((resolve) => setTimeout(() => resolve(n), 5));
  }
  /** Settles after a second: calls made in a loop are all still pending when the next one starts. */
  muchLater(n: number): Promise<number> {
    return new Promise((resolve) => setTimeout(() => resolve(n), 1_000).unref());
  }
  functionConstructor(): unknown {
    return Function;
  }
  async laterText(size: number): Promise<string> {
    return "x".repeat(size);
  }
  async laterFunction(): Promise<unknown> {
    return Function;
  }
  processObject(): unknown {
    return process;
  }
  nativeMax(): unknown {
    return Math.max;
  }
  fail(): never {
    throw Object.assign(new RangeError("vault closed"), { secretField: "host detail" });
  }
}

function toolset() {
  const twice = tool({ name: "twice", description: "Doubles.", params: z.object({ x: z.number().describe("x") }), run: ({ x }) => x * 2 });
  const greet = tool({ name: "greet", description: "Greets.", params: z.object({ who: z.string().describe("who") }), run: ({ who }) => `hi ${who}` });
  const secret = tool({ name: "secret", description: "Internal.", hidden: true, run: () => "classified" });
  return { twice, greet, secret, all: [twice, greet, secret] };
}

export function boundaryCases({ test, session, executor }: SuiteContext): void {
  // Forged texts: a locked-down realm cannot make them any more, so the messages are rewritten on their way.
  const forging = (forgery: Forgery, options: SessionOptions) => new Session(() => forgingExecutor(executor(), forgery), options);

  test("boundary: hidden tools are refused through any route", async () => {
    const { all, secret } = toolset();
    const s = session({ tools: all, globals: { holder: new Holder(secret) } });
    assert.equal((await s.run("secret()")).error, "NameError: tool 'secret' is not exposed to this job");
    assert.equal((await s.run("holder.tool()")).error, "NameError: tool 'secret' is not exposed to this job");
    const formal = await s.formal("secret", {});
    assert.equal(formal.toolCalls[0]?.error, "NameError: tool 'secret' is not exposed to this job");
    const allowed = session({ tools: all, allowHidden: true, globals: { holder: new Holder(secret) } });
    assert.equal(await allowed.output("print(secret(), holder.tool())"), "classified classified");
  });

  test("boundary: tools outside the allowed set say they are not exposed", async () => {
    const { all } = toolset();
    const s = session({ tools: all, allowedTools: ["twice"] });
    assert.equal(await s.output("twice(4)"), "8");
    assert.equal((await s.run("greet('x')")).error, "NameError: tool 'greet' is not exposed to this job");
    assert.equal((await s.formal("greet", { who: "y" })).toolCalls[0]?.error, "NameError: tool 'greet' is not exposed to this job");
    assert.equal((await s.formal("nope", {})).toolCalls[0]?.error, "NameError: tool 'nope' not found");
  });

  test("boundary: a tool that is not one of the job's tools is refused even under a known name", async () => {
    const { all } = toolset();
    const impostor = tool({ name: "twice", description: "Not the job's.", params: z.object({ x: z.number().describe("x") }), run: ({ x }) => x * 100 });
    const s = session({ tools: all, globals: { holder: new Holder(impostor) } });
    assert.equal((await s.run("holder.tool(1)")).error, "NameError: tool 'twice' is not exposed to this job");
    assert.equal(await s.output("twice(1)"), "2");
  });

  test("boundary: an exposed class's allow list", async () => {
    const exposed = new ExposedClasses();
    exposed.register(Account, { allow: ["balance", "deposit"] });
    const account = new Account();
    const s = session({ globals: { account }, exposed });
    assert.equal(await s.output("print(account.balance, account.deposit(5), Object.keys(account), 'owner' in account)"), '10 15 ["balance"] false');
    assert.equal((await s.run("account.owner")).error, "TypeError: Account.owner is not accessible (not in the allow list of statek.expose)");
    assert.equal((await s.run("account.deleteAll()")).error, "TypeError: Account.deleteAll is not accessible (not in the allow list of statek.expose)");
    assert.equal(account.balance, 15);
  });

  test("boundary: an exposed class's deny list (with prefixes) and read-only fields", async () => {
    const exposed = new ExposedClasses();
    exposed.register(Account, { deny: ["deleteAll", "debug*"], readOnly: ["balance"] });
    const account = new Account();
    const s = session({ globals: { account }, exposed });
    assert.equal((await s.run("account.deleteAll()")).error, "TypeError: Account.deleteAll is not accessible (denied by statek.expose)");
    assert.equal((await s.run("account.debugDump()")).error, "TypeError: Account.debugDump is not accessible (denied by statek.expose)");
    assert.equal((await s.run("account.balance = 1000")).error, "TypeError: cannot set Account.balance: it is read-only");
    await s.ok("account.note = 'changed'");
    assert.deepEqual([account.balance, account.note], [10, "changed"]);
    const frozen = new ExposedClasses();
    frozen.register(Account, { readOnly: true });
    const t = session({ globals: { account }, exposed: frozen });
    assert.equal((await t.run("account.note = 'x'")).error, "TypeError: cannot set Account.note: it is read-only");
  });

  test("boundary: Date and Math.random come from the host and are recorded", async () => {
    let tick = 0;
    const s = session({ clock: () => 1_700_000_000_000 + tick++, random: () => 0.25 });
    const result = await s.ok(
      "const a = Date.now(), b = new Date().getTime(), c = new Date(5).getTime()\n" +
        "class Stamp extends Date {}\n" +
        "print(a, b, c, typeof Date(), new Stamp() instanceof Date, new Date(0) instanceof Date, Math.random(), Math.random())",
    );
    assert.deepEqual(result.texts("out"), ["1700000000000 1700000000001 5 string true true 0.25 0.25"]);
    const reads = result.crossings.filter((crossing) => crossing.op === "now" || crossing.op === "random");
    assert.deepEqual(reads.map((crossing) => [crossing.op, crossing.effect]), [["now", "read"], ["now", "read"], ["now", "read"], ["now", "read"], ["random", "read"]]);
    assert.equal(reads[0]!.result, "n1700000000000");
    assert.equal(await s.output("Date.UTC(2020, 0, 1) === 1577836800000 && Date.parse('2020-01-01T00:00:00Z') === 1577836800000"), "true");
  });

  test("boundary: every crossing is recorded in order", async () => {
    const { all } = toolset();
    const account = new Account();
    const s = session({ tools: all, globals: { account }, bindings: { account } });
    const result = await s.ok("account.note = 'x'\nconst total = account.deposit(1) + twice(2)\nprint(total)");
    assert.deepEqual(
      result.crossings.map(({ op, target, member, effect }) => [op, target, member, effect]),
      [
        ["set", "binding:account", "note", "write"],
        ["get", "binding:account", "deposit", "read"],
        ["call", "binding:account", "deposit", "write"],
        ["tool", "tool:twice", undefined, "write"],
        ["print", undefined, "out", "write"],
      ],
    );
    assert.deepEqual(result.crossings.map((crossing) => crossing.seq), [0, 1, 2, 3, 4]);
    assert.equal(result.crossings[2]!.args, "[1]");
    assert.equal(result.crossings[2]!.result, "n11");
  });

  test("boundary: per-cell crossing limits end the cell with a clear error", async () => {
    const vault = new Vault();
    const calls = session({ globals: { vault }, limits: { maxHostCalls: 50 } });
    assert.equal((await calls.run("for (let i = 0; i < 100; i++) vault.keep(i)")).error, "ResourceLimitError: the cell made too many host calls (limit maxHostCalls = 50)");
    const pending = session({ globals: { vault }, limits: { maxPendingHostCalls: 3 } });
    assert.equal(
      (await pending.run("const all = []; for (let i = 0; i < 5; i++) all.push(vault.muchLater(i)); await Promise.all(all)")).error,
      "ResourceLimitError: too many host calls are pending at once; await some of them first (limit maxPendingHostCalls = 3)",
    );
    assert.equal(await pending.output("let sum = 0; for (let i = 0; i < 5; i++) sum += await vault.later(i); sum"), "10");
    const transfer = session({ globals: { vault }, limits: { maxTransferCharacters: 1_000 } });
    assert.equal(
      (await transfer.run("vault.keep('x'.repeat(2_000))")).error,
      "ResourceLimitError: the cell moved too much data across the sandbox boundary (limit maxTransferCharacters = 1,000)",
    );
  });

  test("boundary: async host results count against the transfer limit", async () => {
    const vault = new Vault();
    const s = session({ globals: { vault }, limits: { maxTransferCharacters: 1_000 } });
    assert.equal(
      (await s.run("const text = await vault.laterText(2_000)")).error,
      "ResourceLimitError: the cell moved too much data across the sandbox boundary (limit maxTransferCharacters = 1,000)",
    );
    assert.equal(await s.output("(await vault.laterText(500)).length"), "500", "the next cell has its own budget");
  });

  test("boundary: an async result that cannot cross still ends its pending call", async () => {
    const vault = new Vault();
    const s = session({ globals: { vault }, limits: { maxPendingHostCalls: 2 } });
    const result = await s.run(
      "const errors = []\nfor (let i = 0; i < 5; i++) { try { await vault.laterFunction() } catch (e) { errors.push(e.message) } }\n" +
        "print(errors.length, errors[0])\nprint(await vault.later(7))",
    );
    assert.deepEqual(result.texts("out"), ["5 the host's Function constructor cannot cross into the workspace", "7"]);
  });

  test("boundary: host calls a cell did not await are abandoned when it ends", async () => {
    const vault = new Vault();
    const s = session({ globals: { vault } });
    // muchLater: still pending when the cell ends however slow the machine (later's 5 ms may not be).
    const first = await s.ok("vault.muchLater(1).then(() => { globalThis.ranLater = true })\n'done'");
    assert.deepEqual(first.notices, ["1 host call was still pending when the cell ended; await host calls inside the cell (their results were discarded)"]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal(await s.output("typeof ranLater"), "undefined");
  });

  test("boundary: the cell helpers cannot start a second cell or be replaced", async () => {
    const s = session();
    assert.equal((await s.run("__statek.run(async () => {})")).error, "TypeError: __statek.run is internal to the workspace");
    await s.ok("globalThis.__statek = null; delete globalThis.__statek");
    assert.equal(await s.output("typeof __statek.run"), "function");
  });

  test("boundary: a stored reference to a host object the job was never given is refused", async () => {
    const secret = new Vault();
    const vault = new Vault();
    const options = { globals: { vault }, bindings: { vault, secret } };
    const attacker = forging({ variable: { name: "forged", text: '{"v":{"$":"h","k":"binding:secret","at":"forged"}}' } }, options);
    const forged = await attacker.run("const mine = vault\nglobalThis.forged = 1");
    const s = session(options);
    s.rows = attacker.rows;
    assert.deepEqual(forged.notices, ["forged was not persisted: it refers to a host object this job was never given (binding:secret)"]);
    assert.doesNotMatch(s.blob("forged") ?? "", /"k":"binding:secret"/);
    assert.match(s.blob("mine") ?? "", /binding:vault/, "references the job holds persist");
    assert.equal((await s.run("forged.keep(1)")).error, "ReferenceError: forged was not persisted: it refers to a host object this job was never given (binding:secret)");
    assert.equal(await s.output("mine === vault"), "true");
  });

  test("boundary: forged handles and references in arguments are refused", async () => {
    const vault = new Vault();
    const options = { globals: { vault }, bindings: { vault, other: new Vault() } };
    const forge = (text: string) => forging({ arguments: { member: "keep", text } }, options).run("vault.keep({ any: 1 })");
    assert.equal((await forge('{"v":{"$":"ref","i":0},"o":[{"t":"arr","v":[{"$":"h","id":424242}]}]}')).error, "TypeError: unknown handle 424242: handles cannot be forged");
    assert.equal(
      (await forge('{"v":{"$":"ref","i":0},"o":[{"t":"arr","v":[{"$":"h","k":"binding:other"}]}]}')).error,
      "TypeError: a host object can only be passed back as the handle it came in",
    );
    assert.equal((await forge('{"v":{"$":"ref","i":0},"o":[{"t":"ta","k":"Function","b":"00"}]}')).error, 'TypeError: malformed value: unknown typed array "Function"');
    assert.deepEqual(vault.received, []);
  });

  test("boundary: the host's built-ins never cross into the workspace", async () => {
    const vault = new Vault();
    const s = session({ globals: { vault } });
    assert.equal((await s.run("vault.functionConstructor()")).error, "TypeError: the host's Function constructor cannot cross into the workspace");
    assert.equal((await s.run("vault.processObject()")).error, "TypeError: the host's process object cannot cross into the workspace");
    assert.equal((await s.run("vault.nativeMax()")).error, "TypeError: a built-in host function (max) cannot cross into the workspace");
  });

  test("boundary: __proto__ keys arrive as plain data", async () => {
    const vault = new Vault();
    const s = session({ globals: { vault } });
    await s.ok("vault.keep(JSON.parse('{\"__proto__\": {\"polluted\": true}, \"ok\": 1}'))");
    const [received] = vault.received as [Record<string, unknown>];
    assert.equal(Object.getPrototypeOf(received), Object.prototype);
    assert.deepEqual(Object.keys(received), ["__proto__", "ok"]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test("boundary: errors cross as a name and a message only", async () => {
    const vault = new Vault();
    const s = session({ globals: { vault } });
    assert.equal(await s.output("try { vault.fail() } catch (e) { print(e.name, e.message, e.secretField, e instanceof RangeError) }"), "RangeError vault closed undefined true");
    assert.equal((await s.run("throw { get name() { throw new Error('no') }, message: 'm' }")).error, "Error: the cell threw a value that could not be described");
  });

  test("boundary: stack traces show no host frames", async () => {
    const vault = new Vault();
    const s = session({ globals: { vault } });
    assert.equal(await s.output("try { vault.fail() } catch (e) { print(/node:|\\.ts:|node_modules/.test(String(e.stack))) }"), "false");
  });
}
