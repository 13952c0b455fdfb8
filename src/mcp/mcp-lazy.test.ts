import { it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";

it("importing statek does not load the MCP SDK (only using MCP does)", async () => {
  const entry = new URL("../index.ts", import.meta.url).href;
  const script = `
    import { registerHooks } from "node:module";
    const loaded = [];
    registerHooks({ resolve(specifier, context, next) {
      const result = next(specifier, context);
      if (result.url.includes("@modelcontextprotocol")) loaded.push(specifier);
      return result;
    } });
    const statek = await import(${JSON.stringify(entry)});
    const before = loaded.length;
    await statek.mcpServer(new statek.Agent({ role: "lazy" }));
    console.log(JSON.stringify({ before, after: loaded.length }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  const { before, after } = JSON.parse(stdout) as { before: number; after: number };
  assert.equal(before, 0);
  assert.ok(after > 0, "mcpServer loads it");
});
