// A scene loaded in X_ITE for the tools that compare with it
// (xite-geometry.mjs, xite-geo.mjs): XITE_DIR's xite-common.mjs, the
// scene loaded and its first events run, its DEF'd nodes by name (a
// prototype instance as its inner node), and a step of X_ITE's events.
// With `loadUrls`, the files the scene names (Inline, GeoLOD's rootUrl)
// are read (X_ITE's LoadUrlObjects, off in xite-common.mjs).

import path from "node:path";
import url from "node:url";

export async function openScene(xite, scene, { loadUrls = false } = {}) {
  const common = await import(url.pathToFileURL(path.join(xite, "xite-common.mjs")).href);
  const browser = common.createBrowser();
  browser.setBrowserOption("LoadUrlObjects", loadUrls);
  const loaded = await common.loadScene(browser, scene);
  common.processEvents(browser);
  const named = (name) => {
    const node = loaded.getNamedNode(name).getValue();
    return node.getInnerNode?.() ?? node;
  };
  return { named, processEvents: () => common.processEvents(browser), X3D: common.X3D };
}
