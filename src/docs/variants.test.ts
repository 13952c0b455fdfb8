/** `VARIANTS/` texts. `§10.N` in a test name numbers the scenario it covers. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { tool } from "../tools/tool.ts";
import { briefLine, toolDeclaration } from "./tool-docs.ts";
import { forModel, parseVariants, textVariant } from "./variants.ts";

describe("VARIANTS", () => {
  it("§10.70 parsing: names lower-cased, default-only, multi-line, slashes, quotes, leading whitespace, long names", () => {
    assert.deepEqual(parseVariants("VARIANTS/:This is default variant/TOOL:this is a tool variant."), { "": "This is default variant", tool: "this is a tool variant." });
    assert.deepEqual(parseVariants("VARIANTS/:only default"), { "": "only default" });
    assert.deepEqual(parseVariants("VARIANTS/:line one\nline two/TOOL:tool\nlines"), { "": "line one\nline two", tool: "tool\nlines" });
    assert.deepEqual(parseVariants("VARIANTS/:path/to/file/TOOL:other"), { "": "path/to/file", tool: "other" });
    assert.deepEqual(parseVariants(`VARIANTS/:say "hi"/TOOL:'hey'`), { "": `say "hi"`, tool: "'hey'" });
    assert.deepEqual(parseVariants("VARIANTS/:a/TOOL:b/HUMAN:c"), { "": "a", tool: "b", human: "c" });
    assert.deepEqual(parseVariants(" \n\tVARIANTS/:x/TOOL:y"), { "": "x", tool: "y" });
    assert.equal(parseVariants("VARIANTS_NOT/:x"), undefined);
    assert.deepEqual(parseVariants("VARIANTS/:a/ABCDEFGH:b"), { "": "a", abcdefgh: "b" }, "8-character name");
    assert.deepEqual(parseVariants("VARIANTS/:a/ABCDEFGHI:b"), { "": "a/ABCDEFGHI:b" }, "9 characters is no delimiter");
    assert.equal(parseVariants("VARIANTS no delimiter"), undefined);
  });

  it("§10.70 selection: plain text passes; the named variant, case-insensitive; else the default; else empty", () => {
    assert.equal(textVariant("plain", "tool"), "plain");
    assert.equal(textVariant("VARIANTS/:d/TOOL:t", "tool"), "t");
    assert.equal(textVariant("VARIANTS/:d/TOOL:t", "TOOL"), "t");
    assert.equal(textVariant("VARIANTS/:d/TOOL:t", ""), "d");
    assert.equal(textVariant("VARIANTS/:d/TOOL:t"), "d");
    assert.equal(textVariant("VARIANTS/:d/TOOL:t", "human"), "d");
    assert.equal(textVariant("VARIANTS/TOOL:t", "human"), "");
  });

  it("§10.71 every element the model reads takes the tool variant: brief, parameters, returns", () => {
    const t = tool({
      name: "send",
      description: "VARIANTS/:Sends a message (the application logs it)./TOOL:Send a message.",
      params: z.object({ to: z.string().describe("VARIANTS/:Recipient id./TOOL:Who receives it.") }),
      returns: "VARIANTS/:Delivery receipt./TOOL:A receipt.",
      run: () => 1,
    });
    assert.equal(briefLine(t), "send(to) — Send a message.");
    assert.equal(toolDeclaration(t), "/**\n * Send a message.\n * @param to Who receives it.\n * @returns A receipt.\n */\ndeclare function send(to: string): Promise<unknown>;");
    assert.equal(forModel("Base description.\n\nVARIANTS/:Default extra detail./TOOL:Tool extra detail."), "Base description.\n\nTool extra detail.");
    assert.equal(forModel("Base description.\n\nVARIANTS/:Default extra detail./TOOL:"), "Base description.");
    assert.equal(forModel("VARIANTS/:One.\n\nTwo./TOOL:Tool one.\n\nTool two."), "Tool one.\n\nTool two.");
    const embedded = tool({ name: "e", description: "Base description.\n\nVARIANTS/:Default extra detail./TOOL:Tool extra detail.", run: () => 1 });
    assert.equal(toolDeclaration(embedded), "/**\n * Base description.\n *\n * Tool extra detail.\n */\ndeclare function e(): Promise<unknown>;");
  });
});
