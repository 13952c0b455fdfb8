import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidPricingError } from "../index.ts";
import { formatCost } from "../format/index.ts";
import { BUILT_IN_PRICING, costOf, findPrice, loadPricingFile } from "./index.ts";
import { createModelSettings } from "./model-settings.ts";

const dir = mkdtempSync(join(tmpdir(), "statek-pricing-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("pricing", () => {
  it("finds prices by the provider and model the AI SDK model reports, ignoring date suffixes", () => {
    assert.deepEqual(findPrice(BUILT_IN_PRICING, "openai.chat/gpt-5-mini"), { input: 0.25, cachedInput: 0.025, output: 2 });
    assert.deepEqual(findPrice(BUILT_IN_PRICING, "openai.chat/gpt-5-mini-2025-08-07"), { input: 0.25, cachedInput: 0.025, output: 2 });
    assert.deepEqual(findPrice(BUILT_IN_PRICING, "anthropic.messages/claude-sonnet-4-5-20250929"), { input: 3, cachedInput: 0.3, output: 15 });
    assert.deepEqual(findPrice(BUILT_IN_PRICING, "openrouter.chat/openai/gpt-5-mini"), { input: 0.25, cachedInput: 0.025, output: 2 }, "routed models fall back to the upstream price");
    assert.equal(findPrice(BUILT_IN_PRICING, "openai.chat/gpt-5-nano-preview"), undefined, "no prefix guessing");
    assert.equal(findPrice(BUILT_IN_PRICING, "scripted/scripted-model"), undefined);
  });

  it("prices uncached input, cached input and output per million tokens", () => {
    const price = { input: 1.25, cachedInput: 0.125, output: 10 };
    assert.equal(costOf({ inputTokens: 10_000, cachedInputTokens: 8_000, outputTokens: 500 }, price), (2_000 * 1.25 + 8_000 * 0.125 + 500 * 10) / 1e6);
    assert.equal(costOf({ inputTokens: 1_000_000, cachedInputTokens: 1_000_000, outputTokens: 0 }, { input: 2, output: 8 }), 2, "cached at the input price when no cached price is given");
    assert.deepEqual([formatCost(0), formatCost(0.000375), formatCost(0.01234), formatCost(12.345)], ["$0", "$0.000375", "$0.0123", "$12.35"]);
  });

  it("extends the built-in table from STATEK_PRICING_FILE and Statek.open({ models: { pricing } }), later entries winning", () => {
    const file = join(dir, "prices.json");
    writeFileSync(file, JSON.stringify({ "acme/m1": { input: 1, output: 2 }, "openai/gpt-5-mini": { input: 9, output: 9 } }));
    const settings = createModelSettings({ env: { STATEK_PRICING_FILE: file }, pricing: { "acme/m2": { input: 3, cachedInput: 1, output: 4 } } });
    assert.deepEqual(settings.pricing["acme/m1"], { input: 1, output: 2 });
    assert.deepEqual(settings.pricing["acme/m2"], { input: 3, cachedInput: 1, output: 4 });
    assert.deepEqual(settings.pricing["openai/gpt-5-mini"], { input: 9, output: 9 });
    assert.deepEqual(settings.pricing["openai/gpt-5"], BUILT_IN_PRICING["openai/gpt-5"]);
  });

  it("names the file and the entry of a bad price", () => {
    const bad = (content: string) => {
      const file = join(dir, "bad.json");
      writeFileSync(file, content);
      return () => loadPricingFile(file);
    };
    const file = join(dir, "bad.json");
    assert.throws(bad('{"acme/m1": {"input": 1, "output": "cheap"}}'), { name: "InvalidPricingError", message: `${file}: "acme/m1".output must be a number ≥ 0 (USD per million tokens), got "cheap"` });
    assert.throws(bad('{"m1": {"input": 1, "output": 1}}'), { message: `${file}: "m1" is not a "provider/model" key` });
    assert.throws(bad('{"acme/m1": {"input": 1, "output": 1, "cache": 1}}'), /"acme\/m1"\.cache is not a price field/);
    assert.throws(bad("{not json"), /bad\.json: not JSON: /);
    assert.throws(() => loadPricingFile(join(dir, "none.json")), InvalidPricingError);
  });
});
