#!/usr/bin/env node
// `npx x3dbake`: X3D animation to glTF 2.0 (lib/cli.mjs).
import v8 from "node:v8";

// The module's baseline code only: a run is short, and optimising the
// 8 MB module's hot functions costs more than it saves (the 10 MB bench
// scene: 0.33 s instead of 1.5 s, docs/npm.md). The output is the same.
v8.setFlagsFromString("--liftoff-only");
const { main } = await import("../lib/cli.mjs");

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`x3dbake: ${e && e.stack ? e.stack : e}\n`);
    process.exitCode = 101;
  },
);
