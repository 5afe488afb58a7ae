#!/usr/bin/env node
// Renders a baked glTF/GLB with three.js and the source X3D with X_ITE, both
// in headless Chromium, and writes two PNG screenshots for comparison.
//
//   node tools/render.mjs SCENE.x3d BAKED.glb OUT_PREFIX [TIME_SECONDS]
//
// Needs X3DBAKE_RENDER (a folder with node_modules/three and playwright-core),
// X3DBAKE_XITE (the oracle folder with node_modules/x_ite) and
// /usr/bin/chromium. Both views use the scene's first Viewpoint (the glTF's
// first camera); the animation is shown at TIME_SECONDS (default 0).

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [scene, baked, out, timeArg] = process.argv.slice(2);
if (!out) {
  console.error("usage: node tools/render.mjs SCENE.x3d BAKED.glb OUT_PREFIX [TIME]");
  process.exit(2);
}
const time = Number(timeArg ?? 0);
const renderDir = process.env.X3DBAKE_RENDER;
const xiteDir = process.env.X3DBAKE_XITE;
const require = createRequire(path.join(renderDir, "package.json"));
const { chromium } = require("playwright-core");

const files = {
  "/three.module.js": path.join(renderDir, "node_modules/three/build/three.module.js"),
  "/three.core.js": path.join(renderDir, "node_modules/three/build/three.core.js"),
  "/x_ite.min.js": path.join(xiteDir, "node_modules/x_ite/dist/x_ite.min.js"),
  "/x_ite.css": path.join(xiteDir, "node_modules/x_ite/dist/x_ite.css"),
  ["/scene/" + path.basename(scene)]: path.resolve(scene),
  "/baked.glb": path.resolve(baked),
};
const jsm = path.join(renderDir, "node_modules/three/examples/jsm");
const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".html": "text/html", ".css": "text/css" };

const pages = {
  "/gltf.html": `<!doctype html><html><body style="margin:0;background:#000">
<canvas id=c width=480 height=360></canvas>
<script type=importmap>{"imports":{"three":"/three.module.js","three/addons/":"/jsm/"}}</script>
<script type=module>
import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
const renderer = new THREE.WebGLRenderer({ canvas: document.getElementById("c"), antialias: true });
renderer.setSize(480, 360, false);
const gltf = await new GLTFLoader().loadAsync("/baked.glb");
const s = gltf.scene;
// X3D's headlight: a light at the camera; browsers draw it unless told not to.
let camera = gltf.cameras[0];
if (!camera) { camera = new THREE.PerspectiveCamera(45, 480 / 360, 0.1, 1000); camera.position.set(0, 0, 10); s.add(camera); }
camera.aspect = 480 / 360; camera.updateProjectionMatrix();
const head = new THREE.DirectionalLight(0xffffff, 3); head.position.set(0, 0, 1); camera.add(head); head.target.position.set(0, 0, -1); camera.add(head.target);
const mixer = new THREE.AnimationMixer(s);
for (const clip of gltf.animations) mixer.clipAction(clip).play();
mixer.setTime(${time});
s.updateMatrixWorld(true);
renderer.render(s, camera);
window.done = true;
</script></body></html>`,
  "/x3d.html": `<!doctype html><html><body style="margin:0;background:#000">
<script src="/x_ite.min.js"></script>
<x3d-canvas id=x style="display:block;width:480px;height:360px" splashScreen="false" contextMenu="false" timings="false"></x3d-canvas>
<script>
const canvas = document.getElementById("x");
const browser = X3D.getBrowser(canvas);
browser.loadURL(new X3D.MFString("/scene/${path.basename(scene)}")).then(() => {
  // Show the state at time t: stop every TimeSensor and send its
  // interpolators the fraction it would send at t.
  const scene = browser.currentScene;
  const clocks = new Map();
  for (const r of scene.routes) {
    const n = r.sourceNode;
    if (n.getNodeTypeName() === "TimeSensor" && r.sourceField === "fraction_changed") clocks.set(n, (clocks.get(n) ?? []).concat([r]));
  }
  for (const [clock, routes] of clocks) {
    clock.enabled = false;
    const f = Math.min(${time} / clock.cycleInterval, 1);
    for (const r of routes) r.destinationNode[r.destinationField] = f;
  }
  setTimeout(() => { window.done = true; }, 1000);
}, (e) => { console.error(e); window.done = true; });
</script></body></html>`,
};

const server = http.createServer((req, res) => {
  const url = req.url.split("?")[0];
  if (pages[url]) {
    res.writeHead(200, { "content-type": "text/html" });
    return res.end(pages[url]);
  }
  let file = files[decodeURIComponent(url)];
  if (!file && url.startsWith("/scene/")) file = path.join(path.dirname(path.resolve(scene)), decodeURIComponent(url.slice(7)));
  if (!file && url.startsWith("/jsm/")) file = path.join(jsm, url.slice(5));
  if (!file && url.startsWith("/assets/")) file = path.join(xiteDir, "node_modules/x_ite/dist", url);
  if (!file || !fs.existsSync(file)) {
    res.writeHead(404);
    return res.end();
  }
  res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
  fs.createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const port = server.address().port;
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
    "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  for (const [name, page] of [["gltf", "/gltf.html"], ["x3d", "/x3d.html"]]) {
    const p = await browser.newPage({ viewport: { width: 480, height: 360 } });
    p.on("pageerror", (e) => console.error(`${name}: ${e}`));
    if (process.env.X3DBAKE_RENDER_LOG) p.on("console", (m) => console.error(`${name} console: ${m.text()}`));
    await p.goto(`http://127.0.0.1:${port}${page}`);
    await p.waitForFunction(() => window.done === true, null, { timeout: 30000 });
    await p.screenshot({ path: `${out}-${name}.png` });
    await p.close();
  }
} finally {
  await browser.close();
  server.close();
}
console.log(`${out}-gltf.png ${out}-x3d.png`);
