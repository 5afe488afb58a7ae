#!/usr/bin/env node
// Measures how two renders of one scene differ (tools/render.mjs's three.js
// and X_ITE pictures): the silhouettes (pixels that are not background)
// as intersection over union, the share of pixels whose colour differs by
// more than 32 of 255 in some channel, and the mean difference a channel.
//
//   node tools/image-diff.mjs A.png B.png
//
// Needs X3DBAKE_RENDER (a folder with node_modules/playwright-core) and
// /usr/bin/chromium, as tools/render.mjs does. Prints one JSON line.

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [a, b] = process.argv.slice(2);
if (!b) {
  console.error("usage: node tools/image-diff.mjs A.png B.png");
  process.exit(2);
}
const require = createRequire(path.join(process.env.X3DBAKE_RENDER, "package.json"));
const { chromium } = require("playwright-core");
const url = (f) => "data:image/png;base64," + fs.readFileSync(f).toString("base64");

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
const page = await browser.newPage();
const result = await page.evaluate(
  async ([ua, ub]) => {
    const load = (src) =>
      new Promise((ok, fail) => {
        const img = new Image();
        img.onload = () => ok(img);
        img.onerror = fail;
        img.src = src;
      });
    const pixels = (img) => {
      const c = document.createElement("canvas");
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext("2d");
      g.drawImage(img, 0, 0);
      return g.getImageData(0, 0, img.width, img.height).data;
    };
    const [ia, ib] = [await load(ua), await load(ub)];
    if (ia.width !== ib.width || ia.height !== ib.height) return { error: "sizes differ" };
    const [pa, pb] = [pixels(ia), pixels(ib)];
    let both = 0, either = 0, differ = 0, sum = 0;
    const n = ia.width * ia.height;
    for (let i = 0; i < pa.length; i += 4) {
      const lit = (p) => p[i] + p[i + 1] + p[i + 2] > 24;
      const [la, lb] = [lit(pa), lit(pb)];
      if (la && lb) both++;
      if (la || lb) either++;
      let most = 0;
      for (let k = 0; k < 3; k++) {
        const d = Math.abs(pa[i + k] - pb[i + k]);
        sum += d;
        most = Math.max(most, d);
      }
      if (most > 32) differ++;
    }
    return {
      silhouette_iou: either ? both / either : 1,
      pixels_differing: differ / n,
      mean_channel_difference: sum / (3 * n),
    };
  },
  [url(a), url(b)],
);
await browser.close();
console.log(JSON.stringify({ a, b, ...result }));
