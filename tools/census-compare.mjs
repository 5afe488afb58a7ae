#!/usr/bin/env node
// What of each scene reaches the glTF, against what X_ITE draws: the
// Shapes X_ITE's census counts (../shared/oracle/xite/xite-shapes.mjs:
// every path through the graph X_ITE renders, by geometry type) against
// the mesh nodes of x3dbake's .glb of the scene (every node with a mesh,
// each a drawn place of a Shape), one tab-separated line a scene and a
// total line.
//
//   X3DBAKE_XITE=DIR node tools/census-compare.mjs X3DBAKE_BIN SCENE...

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [bin, ...scenes] = process.argv.slice(2);
const xite = process.env.X3DBAKE_XITE;
if (!bin || !xite) {
  console.error("usage: X3DBAKE_XITE=DIR node tools/census-compare.mjs X3DBAKE_BIN SCENE...");
  process.exit(2);
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), "census-"));
process.on("exit", () => fs.rmSync(work, { recursive: true, force: true }));

/// The number of nodes with a mesh in a .glb (0 when it was not written).
function meshNodes(glb) {
  if (!fs.existsSync(glb)) return 0;
  const d = fs.readFileSync(glb);
  const json = JSON.parse(d.subarray(20, 20 + d.readUInt32LE(12)));
  return (json.nodes ?? []).filter((n) => n.mesh !== undefined).length;
}

let [theirs, ours, same] = [0, 0, 0];
console.log("scene\tX_ITE shapes\tx3dbake mesh nodes");
for (const scene of scenes) {
  let census;
  try {
    const out = execFileSync("node", [path.join(xite, "xite-shapes.mjs"), path.resolve(scene)], {
      cwd: xite,
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 1 << 28,
      timeout: 300_000,
    });
    census = JSON.parse(out.toString().trim().split("\n").pop());
  } catch {
    console.log(`${scene}\t(X_ITE failed)\t`);
    continue;
  }
  const glb = path.join(work, "out.glb");
  fs.rmSync(glb, { force: true });
  try {
    execFileSync(bin, [scene, "-o", glb, "-q"], { stdio: "ignore" });
  } catch {
    // (Exit 1: nothing written, counted as 0.)
  }
  const n = meshNodes(glb);
  theirs += census.count;
  ours += Math.min(n, census.count);
  same += n === census.count ? 1 : 0;
  console.log(`${scene}\t${census.count}\t${n}`);
}
console.log(`total\t${theirs}\t${ours} (${((100 * ours) / Math.max(theirs, 1)).toFixed(1)} %; ${same} of ${scenes.length} scenes equal)`);
