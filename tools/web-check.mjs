#!/usr/bin/env node
// Drives the page (tools/web-build.sh's folder) in headless Chromium as a
// user would: serves the folder on localhost, gives it files, sets the
// options, presses Convert, downloads the result; prints one JSON document.
//
//   X3DBAKE_BROWSER=DIR node tools/web-check.mjs DIST OUT_DIR CASES.json [SHOT.png]
//
// CASES.json: [{"name", "files": [paths], "main": "its name among them",
// "settings": {"format", "mode", "timeline", "events", ... as web/app.js's
// option fields}}]. Each case's download is written to OUT_DIR/NAME.
// Prints {"errors": [console errors and exceptions], "version", "cases":
// [{"name", "ok", "messages", "ms", "bytes"}], "painted": pixels of the
// preview unlike its background after the last case}. With SHOT.png, a
// screenshot of the page after the last case. Needs playwright-core in
// X3DBAKE_BROWSER's node_modules and Chromium at $X3DBAKE_CHROMIUM
// (default /usr/bin/chromium).

import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { createRequire } from "node:module";

const [dist, outDir, casesFile, shot] = process.argv.slice(2);
const dir = process.env.X3DBAKE_BROWSER;
if (!casesFile || !dir) {
  console.error("usage: X3DBAKE_BROWSER=DIR node tools/web-check.mjs DIST OUT_DIR CASES.json [SHOT.png]");
  process.exit(2);
}
const cases = JSON.parse(fs.readFileSync(casesFile, "utf8"));
const require = createRequire(path.join(dir, "package.json"));
const { chromium } = require("playwright-core");

// A static server for the folder, as any web host would serve it.
const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };
const server = http.createServer((req, res) => {
  const rel = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/+/, "") || "index.html";
  const file = path.join(path.resolve(dist), rel);
  if (!file.startsWith(path.resolve(dist)) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
  fs.createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.X3DBAKE_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
});
const errors = [];
const results = [];
let painted = 0;
let shownVersion = "";
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 1300 }, acceptDownloads: true });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => document.getElementById("version").textContent !== "");
  shownVersion = await page.textContent("#version");
  for (const c of cases) {
    await page.setInputFiles("#files", c.files);
    await page.selectOption("#main", c.main);
    // The options: each field set as a user would, the rest left as they are.
    await page.evaluate((s) => {
      const defaults = { format: "glb", mode: "exact", interpolation: "linear", rate: "30", tolerance: "",
        cycles: "1", visibility: "scale", start: "", end: "", loadTime: "", events: "" };
      for (const [id, v] of Object.entries(defaults)) document.getElementById(id).value = v;
      for (const id of ["compress", "interactive", "core", "timeline"]) document.getElementById(id).checked = false;
      document.getElementById("report").checked = true;
      for (const [id, v] of Object.entries(s)) {
        const el = document.getElementById(id);
        if (el.type === "checkbox") el.checked = Boolean(v);
        else el.value = Array.isArray(v) ? v.join("\n") : String(v);
      }
    }, c.settings ?? {});
    await page.evaluate(() => { document.getElementById("status").textContent = ""; });
    await page.click("#convert");
    await page.waitForFunction(() => /^(converted|not converted)/.test(document.getElementById("status").textContent));
    const ok = await page.isVisible("#download");
    const messages = await page.textContent("#messages");
    const ms = Number(await page.getAttribute("#status", "data-ms"));
    let bytes = 0;
    if (ok) {
      const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
      const to = path.join(outDir, c.name);
      await download.saveAs(to);
      bytes = fs.statSync(to).size;
    }
    results.push({ name: c.name, ok, messages, ms, bytes });
  }
  // The preview of the last file drawn: the pixels unlike the background,
  // once it has drawn some (or after 10 s, none).
  const count = () => {
    const src = document.getElementById("preview");
    const c = document.createElement("canvas");
    c.width = src.width;
    c.height = src.height;
    const g = c.getContext("2d");
    g.drawImage(src, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - 0x20) + Math.abs(d[i + 1] - 0x24) + Math.abs(d[i + 2] - 0x2a) > 24) n++;
    }
    return n;
  };
  if (results.some((r) => r.ok)) {
    await page.waitForFunction(count, null, { timeout: 10000 }).catch(() => {});
  }
  painted = await page.evaluate(count);
  if (shot) await page.screenshot({ path: shot, fullPage: false });
} catch (e) {
  errors.push(`web-check: ${e.message}`);
} finally {
  await browser.close();
  server.close();
}
console.log(JSON.stringify({ errors, version: shownVersion, cases: results, painted }));
