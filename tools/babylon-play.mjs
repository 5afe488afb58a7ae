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
//   X3DBAKE_BABYLON=DIR node tools/babylon-play.mjs --animations A.glb B.glb ... --at T1 T2 ... \
//     [--animations C.glb ... --at T3 ...]...
//
// --graphs: only load each file and say whether its graphs are valid:
// {"files": [{"file", "graphs", "errors"}]}.
// --animations: play each file's glTF animations, one at a time, at the
// times of its group (goToFrame, no flow graph, no frame stepping):
// {"files": [{"file", "errors", "animations": [{"name", "tracks",
// "channels", "samples": [{"t", "nodes", "materials", "meshes"}]}]}]}, in
// the shape tools/three-play.mjs prints: nodes as below, materials by glTF
// index (name, color, opacity, emissive, roughness), meshes by glTF mesh
// node (node, name, the weights of its first primitive, and the morphed
// positions of its primitives); tracks: the animated Babylon property of
// each targeted animation; channels: the glTF channel indices Babylon made
// an animation for.
// --step S: the frame length in seconds (default 0.01); every time given
// should be a whole number of frames. --pick NODE@T: at world time T (from
// load) the user selects glTF node NODE (a pick event on its first mesh, as
// a click would make). --at: the times at which to report.
//
// {"graphs": [{"valid", "diagnostics"}], "samples": [{"t", "nodes": [{index,
// name, position, quaternion, scale, visible}]}], "errors": [...]}: nodes by
// glTF node index, their local transform and whether Babylon shows them
// (KHR_node_visibility as Babylon applies it). Needs X3DBAKE_BABYLON: a
// folder with node_modules/@babylonjs/core and node_modules/@babylonjs/loaders
// (and node_modules/meshoptimizer for --compress files).

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
const animationsOnly = args[0] === "--animations";
if (graphsOnly || animationsOnly) args.shift();
// --animations groups: [{files, at}].
const groups = [];
if (animationsOnly) {
  let group = { files: [], at: [] };
  let inAt = false;
  for (const a of args.splice(0)) {
    if (a === "--animations" || (inAt && !Number.isFinite(Number(a)))) {
      if (group.files.length) groups.push(group);
      group = { files: a === "--animations" ? [] : [a], at: [] };
      inAt = false;
    } else if (a === "--at") inAt = true;
    else if (inAt) group.at.push(Number(a));
    else group.files.push(a);
  }
  if (group.files.length) groups.push(group);
}
const files = graphsOnly ? args.splice(0) : animationsOnly ? [] : [args.shift()];
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
// --compress files: EXT_meshopt_compression. Babylon fetches its decoder
// from a CDN as a script, which Node neither reaches nor runs: the same
// decoder from npm (meshoptimizer) is given to it, decoding on this thread.
if (fs.existsSync(path.join(modules, "meshoptimizer/meshopt_decoder.mjs"))) {
  const { MeshoptDecoder } = await load("meshoptimizer/meshopt_decoder.mjs");
  globalThis.MeshoptDecoder = {
    ready: MeshoptDecoder.ready,
    useWorkers: () => {},
    decodeGltfBufferAsync: async (count, stride, source, mode, filter) => {
      await MeshoptDecoder.ready;
      const out = new Uint8Array(count * stride);
      MeshoptDecoder.decodeGltfBuffer(out, count, stride, source, mode, filter);
      return out;
    },
  };
  const loadScript = BABYLON.Tools.LoadBabylonScriptAsync;
  BABYLON.Tools.LoadBabylonScriptAsync = (url, ...rest) =>
    /meshopt_decoder/.test(url) ? Promise.resolve() : loadScript.call(BABYLON.Tools, url, ...rest);
}
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
  // The glTF JSON the loader reads, which it marks with what it made.
  let json = null;
  await BABYLON.AppendSceneAsync(new Uint8Array(bytes), scene, {
    pluginExtension: ".glb",
    pluginOptions: { gltf: { onParsed: (data) => (json = data.json) } },
  });
  // The graphs start once the scene is ready (their event/onStart): Babylon
  // finds that on its own timers, which a loop of renders never yields to.
  await scene.whenReadyAsync(true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  const result = interactivity.GetKHRInteractivityImportResult(scene);
  const graphs = (result?.graphs ?? []).map((g) => ({
    valid: g.graph.valid,
    diagnostics: g.diagnostics.map((d) => `${d.severity} ${d.path}: ${d.message}`),
  }));
  return { engine, scene, result, graphs, json };
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
const arr = (v) => v.asArray().map(Number);
if (animationsOnly) {
  const out = [];
  for (const group of groups) {
    at.splice(0, at.length, ...group.at);
    for (const file of group.files) {
      errors.length = 0;
      try {
        const { engine, scene, json } = await open(file);
        out.push({ file, imported: true, animations: playAnimations(scene, json), errors: errors.slice() });
        engine.dispose();
      } catch (e) {
        out.push({ file, imported: false, error: String(e?.message ?? e), animations: [], errors: errors.slice() });
      }
    }
  }
  // A large document to a pipe is written asynchronously: exit once it is.
  await new Promise((resolve) => process.stdout.write(JSON.stringify({ files: out }) + "\n", resolve));
  process.exit(0);
}

// Each animation group alone, stopped, set to each time in turn.
function playAnimations(scene, json) {
  const gltf = json ?? { nodes: [], animations: [], materials: [] };
  const nodes = (gltf.nodes ?? []).map((n) => n._babylonTransformNode);
  const groups = (gltf.animations ?? []).map((a) => a._babylonAnimationGroup);
  for (const g of scene.animationGroups) g.stop();
  const color = (c) => (c ? [c.r, c.g, c.b] : undefined);
  const state = (t) => {
    const materials = (gltf.materials ?? []).map((m, index) => {
      const out = { index, name: m.name ?? "" };
      for (const b of Object.values(m._data ?? {})) {
        const mat = b.babylonMaterial;
        if (!mat) continue;
        Object.assign(out, {
          color: color(mat.albedoColor ?? mat.baseColor ?? mat.diffuseColor),
          opacity: mat.alpha,
          emissive: color(mat.emissiveColor),
          roughness: mat.roughness,
        });
        break;
      }
      return out;
    });
    const meshes = [];
    (gltf.nodes ?? []).forEach((n, node) => {
      const prims = (n._primitiveBabylonMeshes ?? []).filter((m) => m.morphTargetManager);
      if (!prims.length) return;
      const manager = prims[0].morphTargetManager;
      const weights = [];
      for (let i = 0; i < manager.numTargets; i++) weights.push(manager.getTarget(i).influence);
      const positions = [];
      for (const m of prims) {
        const base = m.getVerticesData("position");
        const targets = [];
        for (let i = 0; i < m.morphTargetManager.numTargets; i++) targets.push(m.morphTargetManager.getTarget(i));
        for (let v = 0; v + 2 < base.length; v += 3) {
          const p = [base[v], base[v + 1], base[v + 2]];
          for (const target of targets) {
            const tp = target.getPositions();
            if (!tp) continue;
            for (let c = 0; c < 3; c++) p[c] += target.influence * (tp[v + c] - base[v + c]);
          }
          positions.push(p);
        }
      }
      meshes.push({ node, name: n.name ?? "", weights, positions });
    });
    return { ...sampleOf(nodes, t), materials, meshes };
  };
  return groups.map((group, k) => {
    const name = gltf.animations[k].name ?? "";
    if (!group) return { name, tracks: [], channels: [], samples: [] };
    const fps = group.targetedAnimations[0]?.animation.framePerSecond ?? 60;
    const tracks = group.targetedAnimations.map((ta) => `${ta.target?.name ?? ""}.${ta.animation.targetProperty}`);
    // The loader names each animation ..._channel{index}_{n}.
    const channel = (ta) => Number(/_channel(\d+)_/.exec(ta.animation.name)?.[1]);
    const channels = [...new Set(group.targetedAnimations.map(channel).filter((c) => c >= 0))].sort((a, b) => a - b);
    group.start(false, 1.0, group.from, group.to);
    group.pause();
    const samples = at.map((t) => {
      group.goToFrame(t * fps);
      return state(t);
    });
    group.stop();
    return { name, tracks, channels, samples };
  });
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

function sample(t) {
  return sampleOf(nodes, t);
}

function sampleOf(nodes, t) {
  return {
    t,
    nodes: nodes.map((n, index) => {
      if (!n) return { index };
      const q = n.rotationQuaternion ?? BABYLON.Quaternion.FromEulerVector(n.rotation);
      const extra = {};
      for (const c of n.getChildren ? n.getChildren() : []) {
        // A glTF camera or light is a child of its node's transform node.
        if (c instanceof BABYLON.Camera) extra.fov = (c.fov * 180) / Math.PI;
        if (c instanceof BABYLON.Light) Object.assign(extra, { color: arr(c.diffuse), intensity: c.intensity });
      }
      return {
        ...extra,
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
