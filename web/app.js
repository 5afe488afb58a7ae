// The page: the files given, the options as the command line's flags, the
// bake (x3dbake's library in WebAssembly, web/src/lib.rs), its messages,
// its report and a three.js preview that plays the clips. Nothing is sent
// anywhere.

import init, { Files, bake, version } from "./pkg/x3dbake_web.js";
import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { MeshoptDecoder } from "three/addons/libs/meshopt_decoder.module.js";

const $ = (id) => document.getElementById(id);
const SCENE = /\.(x3d|x3dv|x3dj|json|wrl|x3dz|x3dvz|gz)$/i;

/** The files given: path → File. */
let given = new Map();

await init();
$("version").textContent = version();

function setFiles(list) {
  given = new Map();
  for (const { path, file } of list) given.set(path, file);
  const scenes = [...given.keys()].filter((p) => SCENE.test(p)).sort();
  const main = $("main");
  main.replaceChildren(...scenes.map((p) => new Option(p, p)));
  $("convert").disabled = scenes.length === 0;
  $("status").textContent = `${given.size} file${given.size === 1 ? "" : "s"} given`;
}

const fromInput = (input) =>
  [...input.files].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
$("files").addEventListener("change", (e) => setFiles(fromInput(e.target)));
$("folder").addEventListener("change", (e) => setFiles(fromInput(e.target)));

// A drop: files, and folders walked whole.
async function walk(entry, prefix, out) {
  if (entry.isFile) {
    const file = await new Promise((ok, fail) => entry.file(ok, fail));
    out.push({ path: prefix + file.name, file });
  } else if (entry.isDirectory) {
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) break;
      for (const e of batch) await walk(e, `${prefix}${entry.name}/`, out);
    }
  }
}
const drop = $("drop");
drop.addEventListener("dragover", (e) => {
  e.preventDefault();
  drop.classList.add("over");
});
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", async (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  const out = [];
  for (const item of e.dataTransfer.items) {
    const entry = item.webkitGetAsEntry?.();
    if (entry) await walk(entry, "", out);
  }
  setFiles(out);
});

/** The options, named as web/src/lib.rs's Settings (the flags'). */
function settings() {
  const num = (id) => ($(id).value === "" ? null : Number($(id).value));
  const s = {
    format: $("format").value,
    mode: $("mode").value,
    interpolation: $("interpolation").value,
    rate: num("rate") ?? 30,
    tolerance: num("tolerance"),
    cycles: num("cycles") ?? 1,
    report: $("report").checked,
    compress: $("compress").checked,
    core: $("core").checked,
    interactive: $("interactive").checked,
    visibility: $("visibility").value,
    timeline: $("timeline").checked,
    start: num("start"),
    end: num("end"),
    loadTime: num("loadTime"),
    events: $("events").value.split("\n").map((l) => l.trim()).filter(Boolean),
  };
  return s;
}

let url = null;
$("convert").addEventListener("click", async () => {
  const main = $("main").value;
  const s = settings();
  $("status").textContent = "converting…";
  const files = new Files();
  for (const [path, file] of given) files.add(path, new Uint8Array(await file.arrayBuffer()));
  const started = performance.now();
  const out = bake(files, main, JSON.stringify(s));
  const ms = performance.now() - started;
  $("messages").textContent = out.messages || "No warnings.";
  $("messages").classList.toggle("failed", !out.ok);
  const link = $("download");
  if (url) URL.revokeObjectURL(url);
  if (!out.ok) {
    link.hidden = true;
    $("status").textContent = "not converted: see the messages";
    return;
  }
  const ext = s.format;
  const type = { glb: "model/gltf-binary", gltf: "model/gltf+json", csv: "text/csv" }[ext];
  url = URL.createObjectURL(new Blob([out.bytes], { type }));
  link.href = url;
  link.download = main.replace(/^.*\//, "").replace(/(\.gz)?\.[^.]*$/, "") + "." + ext;
  link.textContent = `Download ${link.download} (${out.bytes.length.toLocaleString()} bytes)`;
  link.hidden = false;
  $("status").textContent = `converted in ${ms.toFixed(0)} ms`;
  $("status").dataset.ms = String(ms);
  $("report-page").srcdoc = out.report;
  if (ext !== "csv") preview(out.bytes);
});

// The preview: the glTF in three.js, every clip playing, the camera framing
// the scene.
const canvas = $("preview");
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setClearColor(0x20242a);
const camera = new THREE.PerspectiveCamera(45, canvas.width / canvas.height, 0.01, 1000);
const controls = new OrbitControls(camera, canvas);
let shown = null;
let mixer = null;
const clock = new THREE.Clock();
renderer.setAnimationLoop(() => {
  if (mixer) mixer.update(clock.getDelta());
  controls.update();
  if (shown) renderer.render(shown, camera);
});

function preview(bytes) {
  const loader = new GLTFLoader();
  loader.setMeshoptDecoder(MeshoptDecoder);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  loader.parse(buffer, "", (gltf) => {
    const scene = gltf.scene;
    // three.js draws morph targets only with positions: targets that move
    // normals (or texture coordinates) alone get zero displacements.
    scene.traverse((o) => {
      const m = o.geometry?.morphAttributes;
      if (m && !m.position && (m.normal || m.uv)) {
        const count = o.geometry.attributes.position.count;
        m.position = (m.normal ?? m.uv).map(() => new THREE.Float32BufferAttribute(new Float32Array(count * 3), 3));
      }
    });
    scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 2.5));
    const sun = new THREE.DirectionalLight(0xffffff, 2);
    sun.position.set(3, 5, 4);
    scene.add(sun);
    const box = new THREE.Box3().setFromObject(scene);
    const size = box.isEmpty() ? 1 : box.getSize(new THREE.Vector3()).length();
    const centre = box.isEmpty() ? new THREE.Vector3() : box.getCenter(new THREE.Vector3());
    camera.position.copy(centre).add(new THREE.Vector3(0.6, 0.5, 1).multiplyScalar(size));
    camera.near = size / 100;
    camera.far = size * 100;
    camera.updateProjectionMatrix();
    controls.target.copy(centre);
    mixer = new THREE.AnimationMixer(scene);
    for (const clip of gltf.animations) mixer.clipAction(clip).play();
    clock.getDelta();
    shown = scene;
  }, (error) => {
    $("messages").textContent += `\npreview: ${error.message ?? error}`;
  });
}
