#!/usr/bin/env node
// Plays a baked .glb in a real glTF client: three.js GLTFLoader in Node, with
// the KHR_animation_pointer plugin (@needle-tools/three-animation-pointer),
// and prints what each animation does to the scene at the given times, as
// one JSON document:
//
//   node tools/three-play.mjs BAKED.glb T1 T2 ...
//
// {"animations": [{"name", "samples": [{"t", "nodes": [...], "materials":
// [...], "meshes": [...]}]}]}: nodes by glTF node index (name, position,
// quaternion, scale, visible, fov of a camera, color and intensity of a
// light), materials by glTF material index (name, color, opacity, emissive,
// roughness, the map's uv matrix), meshes (the morphed vertex positions and
// normals of every mesh with morph targets), skinned (the world positions
// of each skinned mesh's vertices as three.js draws them), and with
// X3DBAKE_THREE_DRAWN=1 drawn (every mesh's vertices in world space, morphed
// and skinned, in the scene's order, and the size of its unmorphed shape;
// with X3DBAKE_THREE_POSE=OTHER.glb posed by OTHER's rotations, see below).
// Needs X3DBAKE_THREE: a folder
// with node_modules/three and node_modules/@needle-tools/three-animation-pointer.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [file, ...timeArgs] = process.argv.slice(2);
const root = process.env.X3DBAKE_THREE;
if (!file || !root) {
  console.error("usage: X3DBAKE_THREE=DIR node tools/three-play.mjs BAKED.glb T1 T2 ...");
  process.exit(2);
}
const modules = path.join(root, "node_modules");
const load = (p) => import(pathToFileURL(path.join(modules, p)).href);
const THREE = await load("three/build/three.module.js");
const { GLTFLoader } = await load("three/examples/jsm/loaders/GLTFLoader.js");
const { MeshoptDecoder } = await load("three/examples/jsm/libs/meshopt_decoder.module.js");
const { GLTFAnimationPointerExtension } = await load(
  "@needle-tools/three-animation-pointer/src/index.js",
);

// The plugin (1.0.7) leaves CUBICSPLINE pointer tracks with three.js's
// linear interpolant over the (in-tangent, value, out-tangent) triplets: it
// compares the mapped interpolation (undefined for CUBICSPLINE) with the
// string. GLTFLoader's own cubic interpolant, as for node channels, fixes it.
const createTracks = GLTFAnimationPointerExtension.prototype.createAnimationTracksWithAnimationPointer;
GLTFAnimationPointerExtension.prototype.createAnimationTracksWithAnimationPointer = function (
  node, input, output, sampler, target,
) {
  const tracks = createTracks.call(this, node, input, output, sampler, target);
  if (tracks && sampler.interpolation === "CUBICSPLINE") {
    for (const track of tracks) this.parser._createCubicSplineTrackInterpolant(track);
  }
  return tracks;
};

// Node has no image decoding: every texture is a 1x1 stand-in, which keeps
// the texture's KHR_texture_transform (applied by GLTFLoader as usual).
class StandInTextures {
  constructor(parser) {
    this.parser = parser;
    this.name = "x3dbake_stand_in_textures";
  }
  loadTexture(index) {
    const def = this.parser.json.textures[index];
    const texture = new THREE.DataTexture(new Uint8Array([255, 255, 255, 255]), 1, 1);
    texture.flipY = false;
    texture.name = def.name ?? "";
    texture.needsUpdate = true;
    return Promise.resolve(texture);
  }
}

// A file loaded, with its nodes by glTF index and materials by index.
async function open(file) {
  const bytes = fs.readFileSync(file);
  const loader = new GLTFLoader();
  // --compress files: EXT_meshopt_compression, decoded as a page would.
  loader.setMeshoptDecoder(MeshoptDecoder);
  // The plugin maps KHR_texture_transform offset and scale but not rotation:
  // the one missing line, as a resolver.
  loader.register((p) => {
    const ext = new GLTFAnimationPointerExtension(p);
    ext.setAnimationPointerResolver({
      resolvePath: (path) =>
        path.replace(/pbrMetallicRoughness\/baseColorTexture\/extensions\/KHR_texture_transform\/rotation$/, "map/rotation"),
    });
    return ext;
  });
  loader.register((p) => new StandInTextures(p));
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const gltf = await new Promise((resolve, reject) => loader.parse(buffer, "", resolve, reject));
  const parser = gltf.parser;
  const nodes = new Map();
  const materials = new Map();
  gltf.scene.traverse((o) => {
    const a = parser.associations.get(o);
    if (a && a.nodes !== undefined && !nodes.has(a.nodes)) nodes.set(a.nodes, o);
    for (const m of [o.material].flat()) {
      const am = m && parser.associations.get(m);
      if (am && am.materials !== undefined && !materials.has(am.materials)) materials.set(am.materials, m);
    }
  });
  return { gltf, nodes, materials };
}

const { gltf, nodes, materials } = await open(file);
// X3DBAKE_THREE_POSE=OTHER.glb: the drawn vertices are those of this file's
// meshes posed by the other file's node rotations (played alike), so that
// two files whose rotation keys differ can still be compared for what their
// meshes draw.
const pose = process.env.X3DBAKE_THREE_POSE ? await open(process.env.X3DBAKE_THREE_POSE) : null;

const arr = (v) => v.toArray().map(Number);
function morphed(mesh, name) {
  const base = mesh.geometry.attributes[name];
  const targets = mesh.geometry.morphAttributes[name];
  if (!base) return null;
  const out = [];
  for (let i = 0; i < base.count; i++) {
    const v = [base.getX(i), base.getY(i), base.getZ(i)];
    (targets ?? []).forEach((t, k) => {
      const w = mesh.morphTargetInfluences[k];
      v[0] += w * t.getX(i);
      v[1] += w * t.getY(i);
      v[2] += w * t.getZ(i);
    });
    out.push(v);
  }
  return out;
}

function state(t) {
  gltf.scene.updateMatrixWorld(true);
  const ns = [...nodes].sort((a, b) => a[0] - b[0]).map(([index, o]) => {
    const n = {
      index,
      name: o.name,
      position: arr(o.position),
      quaternion: arr(o.quaternion),
      scale: arr(o.scale),
      // The plugin stores bools as 0/1 numbers (a Uint8Array map): as truth.
      visible: Boolean(o.visible),
    };
    if (o.isCamera) n.fov = o.fov;
    if (o.isLight) Object.assign(n, { color: arr(o.color), intensity: o.intensity });
    return n;
  });
  const ms = [...materials].sort((a, b) => a[0] - b[0]).map(([index, m]) => {
    const out = { index, name: m.name, color: arr(m.color), opacity: m.opacity };
    if (m.emissive) out.emissive = arr(m.emissive);
    if (m.roughness !== undefined) out.roughness = m.roughness;
    if (m.map) {
      m.map.updateMatrix();
      out.uv = m.map.matrix.elements.slice();
    }
    return out;
  });
  const meshes = [];
  const skinned = [];
  gltf.scene.traverse((o) => {
    if (o.isSkinnedMesh) {
      // Where three.js draws each vertex: morphed and skinned
      // (getVertexPosition), then placed by the mesh's world matrix.
      o.skeleton.update();
      const v = new THREE.Vector3();
      const positions = [];
      for (let i = 0; i < o.geometry.attributes.position.count; i++) {
        o.getVertexPosition(i, v);
        positions.push(arr(v.applyMatrix4(o.matrixWorld)));
      }
      skinned.push({ name: o.name, positions });
    } else if (o.isMesh && o.morphTargetInfluences && o.morphTargetInfluences.length) {
      meshes.push({
        name: o.name,
        positions: morphed(o, "position"),
        normals: morphed(o, "normal"),
      });
    }
  });
  const out = { t, nodes: ns, materials: ms, meshes, skinned };
  if (process.env.X3DBAKE_THREE_DRAWN === "1") {
    out.drawn = [];
    if (pose) {
      for (const [index, o] of nodes) {
        const p = pose.nodes.get(index);
        if (p) o.quaternion.copy(p.quaternion);
      }
      gltf.scene.updateMatrixWorld(true);
    }
    gltf.scene.traverse((o) => {
      if (!o.isMesh) return;
      if (o.isSkinnedMesh) o.skeleton.update();
      const v = new THREE.Vector3();
      const base = o.geometry.attributes.position;
      const positions = [];
      // The size of the mesh unmorphed (its largest side), where it is.
      const box = new THREE.Box3();
      for (let i = 0; i < base.count; i++) {
        o.getVertexPosition(i, v);
        positions.push(arr(v.applyMatrix4(o.matrixWorld)));
        box.expandByPoint(v.fromBufferAttribute(base, i).applyMatrix4(o.matrixWorld));
      }
      const size = box.getSize(new THREE.Vector3());
      out.drawn.push({ visible: o.visible, positions, rest: Math.max(size.x, size.y, size.z) });
    });
  }
  return out;
}

const times = timeArgs.map(Number);
const animations = gltf.animations.map((clip) => {
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const action = mixer.clipAction(clip);
  action.play();
  const posed = pose && new THREE.AnimationMixer(pose.gltf.scene);
  const poseAction = posed && posed.clipAction(pose.gltf.animations[gltf.animations.indexOf(clip)]);
  if (poseAction) poseAction.play();
  const samples = times.map((t) => {
    mixer.setTime(t);
    if (posed) posed.setTime(t);
    return state(t);
  });
  action.stop();
  mixer.uncacheRoot(gltf.scene);
  if (poseAction) poseAction.stop();
  return { name: clip.name, tracks: clip.tracks.map((k) => k.name), samples };
});
console.log(JSON.stringify({ animations }));
