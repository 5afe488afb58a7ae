#!/usr/bin/env node
// X_ITE's triangles of a geometry node while an interpolator moves it:
//
//   node tools/xite-geometry.mjs XITE_DIR SCENE INTERPOLATOR GEOMETRY FRACTIONS
//
// Loads SCENE in X_ITE (../shared/oracle/xite), and for each fraction in the
// comma-separated FRACTIONS sends it to the DEF'd INTERPOLATOR's set_fraction,
// runs X_ITE's event cascade (its ROUTEs carry the value on), rebuilds the
// DEF'd GEOMETRY node as X_ITE draws it and prints one JSON line:
//
//   {"fraction": f, "triangles": n, "area": A}
//
// With INTERPOLATOR `-`, the node as the file has it, once (FRACTIONS `0`).
// A is the sum of the triangles' areas: the same for every valid
// triangulation of the same surface, so that it compares with x3dbake's
// whatever the two triangulators choose, and a triangle turned over (drawn
// outside its face) shows in it.

import { openScene } from "./xite-scene.mjs";

const [xite, scene, interpolator, geometry, fractions] = process.argv.slice(2);
if (!fractions) {
  console.error("usage: node tools/xite-geometry.mjs XITE_DIR SCENE INTERPOLATOR GEOMETRY FRACTIONS");
  process.exit(2);
}
const { named, processEvents } = await openScene(xite, scene);
const input = interpolator === "-" ? null : named(interpolator).getField("set_fraction");
const shape = named(geometry);
for (const f of fractions.split(",").map(Number)) {
  input?.setValue(f);
  processEvents();
  shape.rebuild();
  // X_ITE's vertices: x y z w, three a triangle.
  const v = shape.getVertices().getValue();
  let area = 0;
  for (let i = 0; i + 12 <= v.length; i += 12) {
    const [ax, ay, az, bx, by, bz, cx, cy, cz] = [0, 1, 2, 4, 5, 6, 8, 9, 10].map((k) => v[i + k]);
    const [ux, uy, uz, wx, wy, wz] = [bx - ax, by - ay, bz - az, cx - ax, cy - ay, cz - az];
    area += Math.hypot(uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx) / 2;
  }
  console.log(JSON.stringify({ fraction: f, triangles: Math.floor(v.length / 12), area }));
}
process.exit(0);
