#!/usr/bin/env node
// Plays a baked .glb with KHR_interactivity in a real client: Babylon.js
// (@babylonjs/core + @babylonjs/loaders) on its NullEngine in Node, time
// stepped in fixed frames, and prints one JSON document:
//
//   X3DBAKE_BABYLON=DIR node tools/babylon-play.mjs BAKED.glb \
//     --step S --pick NODE@T ... --at T1 T2 ...
//
//   X3DBAKE_BABYLON=DIR node tools/babylon-play.mjs --graphs A.glb B.glb ...
//
// --graphs: only load each file and say whether its graphs are valid:
// {"files": [{"file", "graphs", "errors"}]}.
// --step S: the frame length in seconds (default 0.01); every time given
// should be a whole number of frames. --pick NODE@T: at world time T (from
// load) the user selects glTF node NODE (a pick event on its first mesh, as
// a click would make). --at: the times at which to report.
//
// {"graphs": [{"valid", "diagnostics"}], "samples": [{"t", "nodes": [{index,
// name, position, quaternion, scale, visible}]}], "errors": [...]}: nodes by
// glTF node index, their local transform and whether Babylon shows them
// (KHR_node_visibility as Babylon applies it). Needs X3DBAKE_BABYLON: a
// folder with node_modules/@babylonjs/core and node_modules/@babylonjs/loaders.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const root = process.env.X3DBAKE_BABYLON;
if (!args.length || !root) {
  console.error("usage: X3DBAKE_BABYLON=DIR node tools/babylon-play.mjs BAKED.glb [--step S] [--pick NODE@T]... --at T...");
  process.exit(2);
}
const graphsOnly = args[0] === "--graphs";
if (graphsOnly) args.shift();
const files = graphsOnly ? args.splice(0) : [args.shift()];
let step = 0.01;
const picks = [];
const at = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--step") step = Number(args[++i]);
  else if (args[i] === "--pick") {
    const [node, t] = args[++i].split("@").map(Number);
    picks.push({ node, t });
  } else if (args[i] === "--at") {
    while (i + 1 < args.length && !args[i + 1].startsWith("--")) at.push(Number(args[++i]));
  } else throw new Error(`unknown argument ${args[i]}`);
}
const errors = [];
// Babylon logs to the console (its banner, warnings): kept off stdout,
// which is the JSON's.
const print = (text) => process.stdout.write(text + "\n");
console.log = console.info = console.warn = (...a) => process.stderr.write(a.join(" ") + "\n");
const modules = path.join(root, "node_modules");
const load = (p) => import(pathToFileURL(path.join(modules, p)).href);
const BABYLON = await load("@babylonjs/core/index.js");
await load("@babylonjs/loaders/glTF/index.js");
const interactivity = await load("@babylonjs/loaders/glTF/2.0/Extensions/KHR_interactivity.js");
BABYLON.Logger.OnNewCacheEntry = (entry) => {
  if (/error/i.test(entry)) errors.push(entry.replace(/<[^>]*>/g, ""));
};

// One frame is `step` seconds for the flow graph and the animations alike
// (deterministic lock step, one sub-step a frame).
async function open(file) {
  const engine = new BABYLON.NullEngine({
    deterministicLockstep: true,
    lockstepMaxSteps: 1,
    timeStep: step,
  });
  engine.getDeltaTime = () => step * 1000;
  const scene = new BABYLON.Scene(engine);
  new BABYLON.ArcRotateCamera("camera", 0, 0, 10, BABYLON.Vector3.Zero(), scene);
  const bytes = fs.readFileSync(file);
  await BABYLON.AppendSceneAsync(new Uint8Array(bytes), scene, { pluginExtension: ".glb" });
  // The graphs start once the scene is ready (their event/onStart): Babylon
  // finds that on its own timers, which a loop of renders never yields to.
  await scene.whenReadyAsync(true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  const result = interactivity.GetKHRInteractivityImportResult(scene);
  const graphs = (result?.graphs ?? []).map((g) => ({
    valid: g.graph.valid,
    diagnostics: g.diagnostics.map((d) => `${d.severity} ${d.path}: ${d.message}`),
  }));
  return { engine, scene, result, graphs };
}

if (graphsOnly) {
  const out = [];
  for (const file of files) {
    errors.length = 0;
    const { engine, graphs } = await open(file);
    out.push({ file, graphs, errors: errors.slice() });
    engine.dispose();
  }
  print(JSON.stringify({ files: out }));
  process.exit(0);
}
const { scene, result, graphs } = await open(files[0]);

// glTF node index -> Babylon node (the loader keeps it on the glTF JSON).
const gltfNodes = result?.glTF?.nodes ?? [];
const nodes = gltfNodes.map((n) => n._babylonTransformNode);

function meshUnder(node) {
  if (!node) return null;
  if (node.getTotalVertices && node.getTotalVertices() > 0) return node;
  for (const child of node.getChildMeshes(false)) {
    if (child.getTotalVertices() > 0) return child;
  }
  return null;
}

function pick(index) {
  const mesh = meshUnder(nodes[index]);
  if (!mesh) {
    errors.push(`pick: node ${index} holds no mesh`);
    return;
  }
  const pickInfo = new BABYLON.PickingInfo();
  pickInfo.hit = true;
  pickInfo.pickedMesh = mesh;
  pickInfo.pickedPoint = mesh.getAbsolutePosition().clone();
  pickInfo.ray = new BABYLON.Ray(new BABYLON.Vector3(0, 0, 10), new BABYLON.Vector3(0, 0, -1));
  const event = { pointerId: 1, type: "pointerup" };
  scene.onPointerObservable.notifyObservers(
    new BABYLON.PointerInfo(BABYLON.PointerEventTypes.POINTERPICK, event, pickInfo),
    BABYLON.PointerEventTypes.POINTERPICK,
  );
}

const arr = (v) => v.asArray().map(Number);
function sample(t) {
  return {
    t,
    nodes: nodes.map((n, index) => {
      if (!n) return { index };
      const q = n.rotationQuaternion ?? BABYLON.Quaternion.FromEulerVector(n.rotation);
      return {
        index,
        name: n.name,
        position: arr(n.position),
        quaternion: arr(q),
        scale: arr(n.scaling),
        visible: n.isEnabled(false) && (n.isVisible ?? true),
      };
    }),
  };
}

// Frame k is world time k·step: the events due by then happen before its
// animation step (as a click between two frames is seen at the next).
const frame = (t) => Math.round(t / step);
const last = Math.max(0, ...at.map(frame), ...picks.map((p) => frame(p.t)));
const samples = [];
scene.render();
for (let k = 0; k <= last; k++) {
  if (k > 0) scene.render();
  for (const p of picks) if (frame(p.t) === k) pick(p.node);
  for (const t of at) if (frame(t) === k) samples.push(sample(t));
}
print(JSON.stringify({ graphs, samples, errors }));
