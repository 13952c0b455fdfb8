#!/usr/bin/env node
// The `statek` command. Node ≥ 22.18 runs the TypeScript sources directly (type stripping); older versions
// get a clear message instead of a loader error.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`statek: needs Node.js 22.18 or newer (this is ${process.version})\n`);
  process.exitCode = 1;
} else {
  // `statek jobs | head` closes the pipe early: stop quietly instead of crashing on EPIPE.
  process.stdout.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  const { main } = await import("../src/cli/main.ts");
  process.exitCode = await main(process.argv.slice(2));
}
