#!/usr/bin/env node
// Drives the page that `npx x3dbake serve` serves, in headless Chromium, as
// a user would (as tools/web-check.mjs drives web/'s build): gives it
// files, sets the options, presses Convert and downloads the result.
// Prints one JSON document: {"errors": [console errors, exceptions and
// failed requests], "requests": [every URL the page asked for], "version",
// "cases": [{"name", "ok", "messages", "bytes"}]}.
//
//   X3DBAKE_BROWSER=DIR node tools/npm-page-check.mjs URL OUT_DIR CASES.json
//
// CASES.json: [{"name", "files": [paths], "main": "its name among them",
// "settings": {option field id: value}}]; each download goes to
// OUT_DIR/NAME. Needs playwright-core in X3DBAKE_BROWSER's node_modules and
// Chromium at $X3DBAKE_CHROMIUM (default /usr/bin/chromium).

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [url, outDir, casesFile] = process.argv.slice(2);
const dir = process.env.X3DBAKE_BROWSER;
if (!casesFile || !dir) {
  console.error("usage: X3DBAKE_BROWSER=DIR node tools/npm-page-check.mjs URL OUT_DIR CASES.json");
  process.exit(2);
}
const cases = JSON.parse(fs.readFileSync(casesFile, "utf8"));
const require = createRequire(path.join(dir, "package.json"));
const { chromium } = require("playwright-core");

const browser = await chromium.launch({
  executablePath: process.env.X3DBAKE_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
});
const errors = [];
const requests = [];
const results = [];
let version = "";
try {
  const page = await browser.newPage({ acceptDownloads: true });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => document.getElementById("version").textContent !== "");
  version = await page.textContent("#version");
  for (const c of cases) {
    await page.setInputFiles("#files", c.files);
    await page.selectOption("#main", c.main);
    await page.evaluate((s) => {
      const defaults = { format: "glb", mode: "exact", interpolation: "linear", rate: "30", tolerance: "",
        cycles: "1", visibility: "scale", start: "", end: "", loadTime: "", events: "" };
      for (const [id, v] of Object.entries(defaults)) document.getElementById(id).value = v;
      for (const id of ["compress", "interactive", "core", "timeline"]) document.getElementById(id).checked = false;
      for (const [id, v] of Object.entries(s)) {
        const el = document.getElementById(id);
        if (el.type === "checkbox") el.checked = Boolean(v);
        else el.value = Array.isArray(v) ? v.join("\n") : String(v);
      }
      document.getElementById("status").textContent = "";
    }, c.settings ?? {});
    await page.click("#convert");
    await page.waitForFunction(() => /^(converted|not converted)/.test(document.getElementById("status").textContent));
    const ok = await page.isVisible("#download");
    const messages = await page.textContent("#messages");
    let bytes = 0;
    if (ok) {
      const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
      const to = path.join(outDir, c.name);
      await download.saveAs(to);
      bytes = fs.statSync(to).size;
    }
    results.push({ name: c.name, ok, messages, bytes });
  }
} catch (e) {
  errors.push(`npm-page-check: ${e.message}`);
} finally {
  await browser.close();
}
console.log(JSON.stringify({ errors, requests, version, cases: results }));
