#!/usr/bin/env node
// Opens an x3dbake --report page in headless Chromium and prints, as JSON,
// what a reader sees: the page's errors (console errors and exceptions),
// its track headings, and how many value plots and error plots it shows;
// with a third argument, a full-page screenshot there.
//
//   node tools/report-check.mjs REPORT.html [SCREENSHOT.png]
//
// Needs X3DBAKE_BROWSER (a folder with node_modules/playwright-core) and
// Chromium at $X3DBAKE_CHROMIUM (default /usr/bin/chromium).

import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const [page, shot] = process.argv.slice(2);
const dir = process.env.X3DBAKE_BROWSER;
if (!page || !dir) {
  console.error("usage: X3DBAKE_BROWSER=DIR node tools/report-check.mjs REPORT.html [SHOT.png]");
  process.exit(2);
}
const require = createRequire(path.join(dir, "package.json"));
const { chromium } = require("playwright-core");
const browser = await chromium.launch({
  executablePath: process.env.X3DBAKE_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const p = await browser.newPage({ viewport: { width: 800, height: 900 } });
  const errors = [];
  p.on("pageerror", (e) => errors.push(String(e)));
  p.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  p.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));
  await p.goto(pathToFileURL(path.resolve(page)).href, { waitUntil: "load" });
  const seen = await p.evaluate(() => ({
    title: document.title,
    tracks: [...document.querySelectorAll("h3")].map((h) => h.textContent),
    plots: document.querySelectorAll("svg.track").length,
    errorPlots: document.querySelectorAll("svg.error").length,
    // Plots the browser laid out with a size (rendered, not just parsed).
    drawn: [...document.querySelectorAll("svg.track")].filter((s) => s.getBoundingClientRect().width > 100).length,
  }));
  if (shot) await p.screenshot({ path: shot, fullPage: true });
  console.log(JSON.stringify({ errors, ...seen }));
} finally {
  await browser.close();
}
