// Loads SCENE in X_ITE (../shared/oracle/xite, given as XITE_DIR) and
// prints the value of the field `result` of the Script DEF'd T once the
// scene has loaded and runs (its initialize() has run): tests/it/binding.rs.
//
//   node tests/binding/run-xite.mjs XITE_DIR SCENE
import path from "node:path";
import url from "node:url";

const [xite, scene] = process.argv.slice(2);
const { X3D, createBrowser, toURL, PROCESS_EVENTS } = await import(
  url.pathToFileURL(path.join(xite, "xite-common.mjs")).href
);
const browser = createBrowser();
// (A Script's source is a url object: loaded only with this option.)
browser.setBrowserOption("LoadUrlObjects", true);
await browser.loadURL(new X3D.MFString(toURL(scene)));
browser.beginUpdate();
browser[PROCESS_EVENTS]();
const script = browser.currentScene.getNamedNode("T");
process.stdout.write(script.getValue().getField("result").getValue(), () => process.exit(0));
