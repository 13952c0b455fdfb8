import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_WORKSPACE_LIMITS } from "../limits.ts";
import { Broker, type BrokerOptions } from "./broker.ts";
import { CrossingJournal } from "./crossing-journal.ts";
import { HandleTable } from "./handle-table.ts";
import { createHostCodec } from "./host-codec.ts";
import { ToolAccess } from "./tool-access.ts";

/** A broker with nothing in scope; `options` replace the defaults. */
function broker(options: Partial<BrokerOptions> = {}): { broker: Broker; journal: CrossingJournal } {
  const table = new HandleTable();
  const journal = new CrossingJournal(DEFAULT_WORKSPACE_LIMITS);
  journal.begin();
  const made = new Broker({
    table,
    codec: createHostCodec({ table, describeHandle: () => ({ key: null, why: "not persisted" }) }),
    journal,
    access: new ToolAccess({ tools: [] }),
    console: { push() {} },
    callTool: () => undefined,
    refused() {},
    exit() {},
    resolveKey: () => ({ why: "none" }),
    clock: () => 1_000,
    random: () => 0.5,
    ...options,
  });
  return { broker: made, journal };
}

describe("Broker: the monotonic clock (performance.now)", () => {
  it("answers from the injected source and records each read", () => {
    const readings = [12.5, 13.25];
    const { broker: subject, journal } = broker({ monotonic: () => readings.shift()! });
    assert.equal(subject.channel("monotonic", []), "n12.5");
    assert.equal(subject.channel("monotonic", []), "n13.25");
    assert.deepEqual(
      journal.records().map(({ op, effect, result }) => [op, effect, result]),
      [["monotonic", "read", "n12.5"], ["monotonic", "read", "n13.25"]],
    );
  });

  it("reads the host's performance.now() when no source is given", () => {
    const before = performance.now();
    const reply = broker().broker.channel("monotonic", []);
    assert.match(String(reply), /^n[\d.]+$/);
    const value = Number(String(reply).slice(1));
    assert.ok(value >= before && value <= performance.now());
  });
});
