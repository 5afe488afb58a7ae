#!/usr/bin/env node
// Keys against glTF-Transform's `resample` at the same true error, on X3D
// files: for each file, x3dbake samples every track at 1 kHz, and
// glTF-Transform resamples that at each tolerance given; its true error is
// measured against the curve sampled at 4 kHz (between its keys too,
// stored as float32) with a glTF sampler written here from the glTF spec
// (LINEAR, STEP, CUBICSPLINE; LINEAR rotations played both by slerp, as
// three.js and Babylon.js do, and by nlerp, as Blender does, the worse
// counted); then x3dbake bakes the X3D in its
// default mode with `--tolerance` set to that error, and its keys and error
// are measured the same way. Morph-weight channels are left out (their
// error is in weights, not in the points they move). Prints one row a file
// and tolerance and the totals; exits 1 if x3dbake needs more keys than
// glTF-Transform anywhere or goes over the error it was given.
//
//   X3DBAKE_GLTF_TRANSFORM=DIR node tools/resample-compare.mjs X3DBAKE_BIN FILE...
//
// Errors are Euclidean per element (largest over a channel's elements and
// times), and for rotations the angle in radians, as `--tolerance` measures.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [bin, ...files] = process.argv.slice(2);
const gtDir = process.env.X3DBAKE_GLTF_TRANSFORM;
if (!bin || !gtDir || files.length === 0) {
  console.error("usage: X3DBAKE_GLTF_TRANSFORM=DIR node tools/resample-compare.mjs X3DBAKE_BIN FILE...");
  process.exit(2);
}
const cli = path.join(gtDir, "node_modules/@gltf-transform/cli/bin/cli.js");
const tolerances = (process.env.TOLERANCES ?? "1e-2 1e-3 1e-4").split(/\s+/).map(Number);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "resample-compare-"));
process.on("exit", () => fs.rmSync(work, { recursive: true, force: true }));

const WIDTH = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 };

/** The channels of a .glb: target key, rotation?, times, values, width, interpolation. */
function channels(file) {
  const bytes = fs.readFileSync(file);
  const jsonLength = bytes.readUInt32LE(12);
  const json = JSON.parse(bytes.subarray(20, 20 + jsonLength).toString("utf8"));
  const binStart = 20 + jsonLength + 8;
  const read = (index) => {
    const a = json.accessors[index];
    const view = json.bufferViews[a.bufferView];
    const width = WIDTH[a.type];
    const start = binStart + (view.byteOffset ?? 0) + (a.byteOffset ?? 0);
    if (a.componentType !== 5126) return null;
    const out = new Float64Array(a.count * width);
    for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(start + 4 * i);
    return { values: out, width };
  };
  const out = [];
  for (const [ai, anim] of (json.animations ?? []).entries()) {
    for (const [ci, ch] of anim.channels.entries()) {
      const s = anim.samplers[ch.sampler];
      const pointer = ch.target.extensions?.KHR_animation_pointer?.pointer;
      const input = read(s.input);
      const output = read(s.output);
      out.push({
        anim: ai,
        index: ci,
        key: pointer ?? `${ch.target.node}/${ch.target.path}`,
        weights: ch.target.path === "weights",
        // (A quaternion: a node's rotation, a camera's or light's through a
        // pointer; KHR_texture_transform's rotation is one angle.)
        rotation: output?.width === 4 && (ch.target.path === "rotation" || /\/rotation$/.test(pointer ?? "")),
        times: input.values,
        values: output?.values,
        width: output?.width ?? 1,
        interpolation: s.interpolation ?? "LINEAR",
      });
    }
  }
  return out;
}

/** A glTF sampler's value at time t (glTF 2.0, Appendix C); with `nlerp`,
 * LINEAR rotations as Blender's importer plays them (each component
 * interpolated, then normalised) instead of slerp. */
function sample(ch, t, out, nlerp = false) {
  const { times, values, width, interpolation } = ch;
  const n = times.length;
  const cubic = interpolation === "CUBICSPLINE";
  const at = (k, part) => (cubic ? (3 * k + part) * width : k * width);
  const copy = (k) => {
    for (let e = 0; e < width; e++) out[e] = values[at(k, 1) + e];
  };
  if (t <= times[0] || n === 1) return copy(0);
  if (t >= times[n - 1]) return copy(n - 1);
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid;
    else hi = mid;
  }
  const dt = times[hi] - times[lo];
  const u = (t - times[lo]) / dt;
  if (interpolation === "STEP") return copy(lo);
  if (cubic) {
    const u2 = u * u;
    const u3 = u2 * u;
    const [a, b, c, d] = [2 * u3 - 3 * u2 + 1, u3 - 2 * u2 + u, -2 * u3 + 3 * u2, u3 - u2];
    for (let e = 0; e < width; e++) {
      out[e] =
        a * values[at(lo, 1) + e] +
        b * dt * values[at(lo, 2) + e] +
        c * values[at(hi, 1) + e] +
        d * dt * values[at(hi, 0) + e];
    }
  } else if (ch.rotation && !nlerp) {
    slerp(values, lo * 4, hi * 4, u, out);
    return;
  } else {
    // (nlerp: the second key in the first's hemisphere.)
    let dot = 0;
    for (let e = 0; e < width; e++) dot += values[lo * width + e] * values[hi * width + e];
    const sign = ch.rotation && dot < 0 ? -1 : 1;
    for (let e = 0; e < width; e++) out[e] = values[lo * width + e] * (1 - u) + sign * values[hi * width + e] * u;
  }
  if (ch.rotation) {
    const l = Math.hypot(out[0], out[1], out[2], out[3]);
    for (let e = 0; e < 4; e++) out[e] /= l;
  }
}

function slerp(v, a, b, u, out) {
  let dot = 0;
  for (let e = 0; e < 4; e++) dot += v[a + e] * v[b + e];
  const sign = dot < 0 ? -1 : 1;
  dot = Math.abs(dot);
  let s0 = 1 - u;
  let s1 = u;
  if (dot < 1 - 1e-9) {
    const theta = Math.acos(Math.min(1, dot));
    s0 = Math.sin((1 - u) * theta) / Math.sin(theta);
    s1 = Math.sin(u * theta) / Math.sin(theta);
  }
  for (let e = 0; e < 4; e++) out[e] = s0 * v[a + e] + sign * s1 * v[b + e];
}

function distance(p, q, rotation, width) {
  if (rotation) {
    const dot = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
    const s = dot < 0 ? -1 : 1;
    let d = 0;
    let a = 0;
    for (let e = 0; e < 4; e++) {
      d += (p[e] - s * q[e]) ** 2;
      a += (p[e] + s * q[e]) ** 2;
    }
    return 4 * Math.atan2(Math.sqrt(d), Math.sqrt(a));
  }
  let sum = 0;
  for (let e = 0; e < width; e++) sum += (p[e] - q[e]) ** 2;
  return Math.sqrt(sum);
}

/** Keys and the largest error against the reference channels, on their grid. */
function measure(file, reference, byIndex) {
  const got = channels(file);
  let keys = 0;
  let error = 0;
  let where = "";
  const out = new Float64Array(4);
  for (const [i, ref] of reference.entries()) {
    if (ref.weights || !ref.values) continue;
    const ch = byIndex ? got.find((c) => c.anim === ref.anim && c.index === ref.index) : got.find((c) => c.anim === ref.anim && c.key === ref.key);
    if (!ch) throw new Error(`${file}: no channel for ${ref.key} (reference channel ${i})`);
    keys += ch.times.length;
    const w = ref.width;
    for (let k = 0; k < ref.times.length; k++) {
      // Rotations: the worse of slerp (three.js, Babylon.js) and nlerp
      // (Blender), the error the file shows in the players people use.
      const want = ref.values.subarray(k * w, k * w + w);
      sample(ch, ref.times[k], out);
      let e = distance(out, want, ref.rotation, w);
      if (ref.rotation) {
        sample(ch, ref.times[k], out, true);
        e = Math.max(e, distance(out, want, true, w));
      }
      if (e > error) {
        error = e;
        where = `animation ${ref.anim} ${ref.key} at ${ref.times[k]} s, ${ch.times.length} keys`;
      }
    }
  }
  return { keys, error, where };
}

const x3dbake = (args) => execFileSync(bin, [...args, "--quiet"], { stdio: ["ignore", "ignore", "pipe"] });

let failed = 0;
const total = { gt: 0, ours: 0 };
console.log("file\ttolerance\tglTF-Transform keys\tits error\tx3dbake keys\tx3dbake error");
for (const [n, file] of files.entries()) {
  const dense = path.join(work, `${n}-dense.glb`);
  const truth = path.join(work, `${n}-truth.glb`);
  try {
    x3dbake([file, "-o", dense, "--mode", "sample", "--rate", "1000"]);
    x3dbake([file, "-o", truth, "--mode", "sample", "--rate", "4000"]);
  } catch {
    continue;
  }
  const reference = channels(truth);
  if (!reference.some((c) => !c.weights && c.values)) continue;
  for (const tol of tolerances) {
    const gt = path.join(work, `${n}-gt.glb`);
    execFileSync("node", [cli, "resample", dense, gt, "--tolerance", String(tol)], { stdio: "ignore" });
    const g = measure(gt, reference, true);
    // The error glTF-Transform reached, to 1 ppm (its float32 keys and
    // x3dbake's float64 curve tie at the same keys); a positive distance.
    const asked = Math.max(g.error * (1 + 1e-6), 1e-9);
    const ours = path.join(work, `${n}-ours.glb`);
    x3dbake([file, "-o", ours, "--tolerance", String(asked), "--keep-constant"]);
    const o = measure(ours, reference, false);
    total.gt += g.keys;
    total.ours += o.keys;
    // float32 storage of values and of key times: 2e-6 beside the bound.
    const bad = o.keys > g.keys || o.error > asked * 1.05 + 2e-6;
    if (bad) failed++;
    console.log(
      `${file}\t${tol}\t${g.keys}\t${g.error.toExponential(2)}\t${o.keys}\t${o.error.toExponential(2)}${bad ? `\tWORSE (${o.where})` : ""}`,
    );
  }
}
console.log(`total\t\t${total.gt}\t\t${total.ours}`);
process.exit(failed ? 1 : 0);
