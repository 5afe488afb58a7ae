#!/usr/bin/env node
// Runs the Khronos glTF-Validator (npm gltf-validator) on each file given and
// prints one JSON line per file: {file, errors, warnings, infos, hints, messages}.
// The validator package is looked up in $X3DBAKE_VALIDATOR/node_modules.
// Exit code: 0 when every file has no errors and no warnings, 1 otherwise.

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const root = process.env.X3DBAKE_VALIDATOR;
if (!root) {
  console.error("X3DBAKE_VALIDATOR is not set");
  process.exit(2);
}
const require = createRequire(path.join(root, "package.json"));
const validator = require("gltf-validator");

let clean = true;
for (const file of process.argv.slice(2)) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 100,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        fs.readFile(path.resolve(path.dirname(file), decodeURIComponent(uri)), (err, data) =>
          err ? reject(err.toString()) : resolve(new Uint8Array(data)));
      }),
  });
  const i = report.issues;
  const messages = i.messages
    .filter((m) => m.severity <= 1)
    .map((m) => `${m.severity === 0 ? "error" : "warning"} ${m.code} ${m.pointer ?? ""}: ${m.message}`);
  if (i.numErrors > 0 || i.numWarnings > 0) clean = false;
  console.log(JSON.stringify({ file, errors: i.numErrors, warnings: i.numWarnings, infos: i.numInfos, hints: i.numHints, messages }));
}
process.exit(clean ? 0 : 1);
