#!/usr/bin/env node
// Counts the keyframes of baked .glb files: all, CUBICSPLINE ones, and morph
// targets (of each mesh's first primitive), per file and in total.
//   node tools/key-counts.mjs A.glb B.glb ...
import fs from "node:fs";

const total = { keys: 0, cubic: 0, targets: 0 };
for (const file of process.argv.slice(2)) {
  const bytes = fs.readFileSync(file);
  if (bytes.length < 20) continue;
  const length = bytes.readUInt32LE(12);
  const json = JSON.parse(bytes.subarray(20, 20 + length).toString("utf8"));
  const count = { keys: 0, cubic: 0, targets: 0 };
  for (const a of json.animations ?? []) {
    for (const s of a.samplers) {
      const n = json.accessors[s.input].count;
      count.keys += n;
      if (s.interpolation === "CUBICSPLINE") count.cubic += n;
    }
  }
  for (const m of json.meshes ?? []) count.targets += (m.primitives[0].targets ?? []).length;
  for (const k of Object.keys(total)) total[k] += count[k];
  console.log(`${file}\t${count.keys}\t${count.cubic}\t${count.targets}`);
}
console.log(`total\t${total.keys}\t${total.cubic}\t${total.targets}`);
