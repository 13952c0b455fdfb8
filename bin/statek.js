#!/usr/bin/env node
// The `statek` command. An installed package runs the built JavaScript in dist/ (Node ≥ 22.13). A checkout of
// the repository runs the TypeScript sources beside this file, so the command always matches the code: the
// published package ships no src/, and under node_modules Node would refuse to strip types anyway.
import { existsSync } from "node:fs";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(`statek: needs Node.js 22.13 or newer (this is ${process.version})\n`);
  process.exitCode = 1;
} else {
  // `statek jobs | head` closes the pipe early: stop quietly instead of crashing on EPIPE.
  process.stdout.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  const source = new URL("../src/cli/main.ts", import.meta.url);
  const built = new URL("../dist/cli/main.js", import.meta.url);
  const entry = process.features.typescript && existsSync(source) ? source : built;
  const { main } = await import(entry.href);
  process.exitCode = await main(process.argv.slice(2));
}
