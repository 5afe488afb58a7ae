#!/usr/bin/env node
// A whole scene in world time, x3dbake against X_ITE: bakes SCENE with
// `--timeline --end END` (and any --event given after it) to .glb, plays the
// .glb in three.js (tools/three-play.mjs) and the scene in X_ITE on a
// simulated clock (../shared/oracle/xite/xite-timeline-e2e.mjs, through
// tools/xite-events.mjs for the --event given to both) whose world
// loads at the same instant (--load-time L, default x3dbake's default
// 2000000000; both get it), at COUNT times from 0, and prints the worst
// difference of each DEF'd Transform's translation, rotation and scale and
// each Material's diffuseColor that both show, and of the scene (the
// translation of a Transform with a center is left out: its glTF nodes
// split it).
//
//   X3DBAKE_XITE=DIR X3DBAKE_THREE=DIR node tools/timeline-compare.mjs X3DBAKE_BIN SCENE END [COUNT] [--event E]... [--load-time L] [--oracle-scene FILE]
//
// --oracle-scene gives X_ITE another file than x3dbake, for a scene X_ITE's
// parser refuses (a form X_ITE does not read, mended in a copy).
//
// Both play 10 µs after each time, so that at a jump both show the side
// after it. X_ITE stamps events with its frame times, so its clocks chain
// up to a frame (END/COUNT) later than the ideal times x3dbake uses, and a
// clock that ends between two frames sends its last value in the frame
// after, where it overrides a clock still running on the same field.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const events = [];
const pos = [];
let load = "2000000000";
let oracleScene;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--event") events.push("--event", args[++i]);
  else if (args[i] === "--load-time") load = args[++i];
  else if (args[i] === "--oracle-scene") oracleScene = args[++i];
  else pos.push(args[i]);
}
const [bin, scene, endArg, countArg] = pos;
const xite = process.env.X3DBAKE_XITE;
const three = process.env.X3DBAKE_THREE;
if (!bin || !scene || !endArg || !xite || !three) {
  console.error("usage: X3DBAKE_XITE=DIR X3DBAKE_THREE=DIR node tools/timeline-compare.mjs X3DBAKE_BIN SCENE END [COUNT] [--event E]... [--load-time L] [--oracle-scene FILE]");
  process.exit(2);
}
const end = Number(endArg);
const count = Number(countArg ?? 100);
const times = Array.from({ length: count }, (_, i) => (i * end) / count + 1e-5);
const here = path.dirname(fileURLToPath(import.meta.url));
const work = fs.mkdtempSync(path.join(os.tmpdir(), "timeline-compare-"));
process.on("exit", () => fs.rmSync(work, { recursive: true, force: true }));

const glb = path.join(work, "timeline.glb");
execFileSync(bin, [scene, "-o", glb, "--timeline", "--end", String(end), "--load-time", load, "--quiet", ...events], {
  stdio: ["ignore", "ignore", "inherit"],
});
const big = { maxBuffer: 1 << 30 };
const played = JSON.parse(
  execFileSync("node", [path.join(here, "three-play.mjs"), glb, ...times.map(String)], {
    ...big,
    env: { ...process.env, X3DBAKE_THREE: three },
  }),
);
const theirs = JSON.parse(
  execFileSync(
    "node",
    [
      path.join(here, "xite-events.mjs"),
      xite,
      path.resolve(oracleScene ?? scene),
      times.join(","),
      "--base",
      load,
      "--all-components",
      "--load-urls",
      ...events,
    ],
    { ...big, cwd: xite, stdio: ["ignore", "pipe", "ignore"] },
  ),
);

function quat([x, y, z, a]) {
  const n = Math.hypot(x, y, z) || 1;
  const s = Math.sin(a / 2);
  return [(x / n) * s, (y / n) * s, (z / n) * s, Math.cos(a / 2)];
}
// The angle between two rotations: 4·atan2(|p − q|, |p + q|), q and −q alike.
function angle(p, q) {
  const s = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0 ? -1 : 1;
  const d = Math.hypot(...p.map((v, i) => v - s * q[i]));
  const a = Math.hypot(...p.map((v, i) => v + s * q[i]));
  return 4 * Math.atan2(d, a);
}
function far(p, q) {
  return Math.max(...p.map((v, i) => Math.abs(v - q[i])));
}

const samples = played.animations[0]?.samples ?? [];
const worst = {};
for (const [key, series] of Object.entries(theirs.series)) {
  // X_ITE names a node inside a prototype instance `rootNodes[0]/DEF`;
  // x3dbake `Instance.DEF`, which three.js makes `InstanceDEF` (it drops
  // dots): matched by the DEF where one name ends with it.
  const def = key.slice(key.lastIndexOf("/") + 1, key.lastIndexOf("."));
  const field = key.slice(key.lastIndexOf(".") + 1);
  const named = (list) => {
    const exact = list.filter((x) => x.name === def);
    const inside = list.filter((x) => x.name.endsWith(def));
    return exact.length === 1 ? exact[0] : exact.length === 0 && inside.length === 1 ? inside[0] : undefined;
  };
  const rows = new Map(series.rows.map((r) => [r[0].toFixed(6), r.slice(1)]));
  for (const s of samples) {
    const want = rows.get(s.t.toFixed(6));
    if (!want) continue;
    let e;
    if (field === "diffuseColor") {
      const m = named(s.materials);
      if (!m) continue;
      e = far(m.color, want);
    } else {
      const n = named(s.nodes);
      // (A Transform with a center is a chain of nodes: its top node's
      // translation is not the field's.)
      if (!n || (field === "translation" && s.nodes.some((m) => m.name === `${n.name}_center`))) continue;
      if (field === "translation") e = far(n.position, want);
      else if (field === "rotation") e = angle(n.quaternion, quat(want));
      else if (field === "scale") e = far(n.scale, want);
      else continue;
    }
    if (!(key in worst) || e > worst[key][0]) worst[key] = [e, s.t];
  }
}
let sceneWorst = [0, 0, ""];
for (const [key, [e, t]] of Object.entries(worst)) {
  if (e > 1e-4) console.log(`${key}\t${e.toExponential(2)} at ${t.toFixed(3)} s`);
  if (e >= sceneWorst[0]) sceneWorst = [e, t, key];
}
console.log(
  `${scene}: ${Object.keys(worst).length} fields at ${samples.length} times; worst ${sceneWorst[0].toExponential(2)} (${sceneWorst[2]} at ${sceneWorst[1].toFixed(3)} s)`,
);
