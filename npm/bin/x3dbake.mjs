#!/usr/bin/env node
// `npx x3dbake`: X3D animation to glTF 2.0 (lib/cli.mjs).
import { main } from "../lib/cli.mjs";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`x3dbake: ${e && e.stack ? e.stack : e}\n`);
    process.exitCode = 101;
  },
);
