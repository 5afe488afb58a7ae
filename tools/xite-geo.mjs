#!/usr/bin/env node
// What X_ITE makes of a scene's Geospatial nodes, for tests/it/geo.rs:
//
//   node tools/xite-geo.mjs XITE_DIR SCENE NAME...
//
// Loads SCENE in X_ITE (../shared/oracle/xite, whose Geospatial component
// is loaded from x_ite's dist as the scene's <component> asks) and prints
// one JSON line a DEF'd NAME:
//
//   geometry:       {"name": N, "positions": [x, y, z, ...], "normals": [...]}  three a triangle (or a segment's two, a point)
//   GeoLocation,
//   GeoTransform:   {"name": N, "matrix": [16 numbers]}       X_ITE's, rows as basis vectors (row-vector order)
//   GeoViewpoint:   {"name": N, "position": [x, y, z], "quaternion": [x, y, z, w]}  where X_ITE puts it
//   GeoLOD:         {"name": N, "roots": [[type, DEF], ...], "bbox": {"size": [3], "center": [3]}}
//                   the root level X_ITE draws at load (rootNode, or the root nodes of its rootUrl's
//                   file, read: X_ITE's LoadUrlObjects is on) and X_ITE's bounding box of it
//   NAME@F1,F2,...: {"name": N, "values": [[x, y, z], ...]}   an interpolator's value_changed at each fraction
//   NAME<INTERP@F1,F2,...: {"name": N, "matrices": [[16 numbers], ...]}   a GeoLocation's matrix as INTERP,
//                   sent each fraction, moves it (its geovalue_changed routed into NAME's set_geoCoords);
//                   a GeoViewpoint's {"name": N, "views": [{"position", "quaternion"}, ...]} (into set_position)

import { openScene } from "./xite-scene.mjs";

const [xite, scene, ...names] = process.argv.slice(2);
if (!names.length) {
  console.error("usage: node tools/xite-geo.mjs XITE_DIR SCENE NAME...");
  process.exit(2);
}
// Where X_ITE puts a GeoViewpoint, and how it turns it.
const view = (node) => {
  const p = node.getPosition();
  return { position: [p.x, p.y, p.z], quaternion: Array.from(node.getOrientation().getQuaternion()) };
};
const { named, processEvents, X3D } = await openScene(xite, scene, { loadUrls: true });
for (const spec of names) {
  const [target, fractions] = spec.split("@");
  const [name, driver] = target.split("<");
  const node = named(name);
  if (driver !== undefined) {
    const matrices = [];
    const views = [];
    for (const f of fractions.split(",").map(Number)) {
      named(driver).getField("set_fraction").setValue(f);
      processEvents();
      if (node.getOrientation) views.push(view(node));
      else matrices.push(Array.from(node.getMatrix()));
    }
    console.log(JSON.stringify(node.getOrientation ? { name, views } : { name, matrices }));
  } else if (fractions !== undefined) {
    const values = [];
    for (const f of fractions.split(",").map(Number)) {
      node.getField("set_fraction").setValue(f);
      processEvents();
      const v = node.getField("value_changed").getValue();
      values.push([v.x, v.y, v.z]);
    }
    console.log(JSON.stringify({ name, values }));
  } else if (node.rootInlineNode) {
    // A GeoLOD: its rootUrl's file read (X_ITE's loads, 1 s at most).
    const inline = node.rootInlineNode;
    for (let i = 0; i < 50 && !node._rootNode.length && inline.checkLoadState() !== X3D.X3DConstants.COMPLETE_STATE; i++)
      await new Promise((r) => setTimeout(r, 20));
    const roots = node._rootNode.length ? node._rootNode : inline.getInternalScene().getRootNodes();
    const bbox = node.getBBox(new X3D.Box3());
    console.log(JSON.stringify({
      name,
      roots: Array.from(roots, (r) => [r.getValue().getTypeName(), r.getValue().getName()]),
      bbox: { size: Array.from(bbox.size), center: Array.from(bbox.center) },
    }));
  } else if (node.getVertices) {
    node.rebuild();
    // X_ITE's vertices: x y z w.
    const v = Array.from(node.getVertices().getValue());
    const positions = [];
    for (let i = 0; i + 4 <= v.length; i += 4) positions.push(v[i], v[i + 1], v[i + 2]);
    const normals = Array.from(node.getNormals().getValue());
    console.log(JSON.stringify({ name, positions, normals }));
  } else if (node.getOrientation) {
    console.log(JSON.stringify({ name, ...view(node) }));
  } else {
    console.log(JSON.stringify({ name, matrix: Array.from(node.getMatrix()) }));
  }
}
process.exit(0);
