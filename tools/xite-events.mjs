#!/usr/bin/env node
// X_ITE's whole-scene timeline (../shared/oracle/xite/xite-timeline-e2e.mjs)
// with the events a person would cause, given as x3dbake's --event is:
//
//   node tools/xite-events.mjs XITE_DIR SCENE TIMES --base B [--event T:NODE.FIELD=VALUE]... [e2e options]
//
// At world time T (the simulated clock at B + T) NODE's FIELD is set to
// VALUE and X_ITE's event cascade runs, before the frame at or after T.
// An SFTime value is world time, as in x3dbake (B is added); other values
// are read as X_ITE reads the field's VRML form. The events go through the
// simulated timer queue of xite-timeline.mjs, so they interleave with the
// clocks' own start and stop times in time order.

import path from "node:path";
import url from "node:url";

const [xite, ...rest] = process.argv.slice(2);
if (!xite) {
  console.error("usage: node tools/xite-events.mjs XITE_DIR SCENE TIMES --base B [--event T:NODE.FIELD=VALUE]... [options]");
  process.exit(2);
}
const events = [];
const passed = [];
let base = 0;
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === "--event") events.push(parse(rest[++i]));
  else {
    if (rest[i] === "--base") base = Number(rest[i + 1]);
    passed.push(rest[i]);
  }
}

function parse(text) {
  const m = /^([^:]+):(.+)\.([^.=]+)=(.*)$/.exec(text ?? "");
  if (!m) {
    console.error(`xite-events: \`${text}\` is not TIME:NODE.FIELD=VALUE`);
    process.exit(2);
  }
  return { time: Number(m[1]), node: m[2], field: m[3], value: m[4].trim() };
}

// A Script's print goes to the console: kept off the JSON on stdout.
console.log = (...a) => console.error(...a);

const { X3D } = await import(url.pathToFileURL(path.join(xite, "xite-common.mjs")).href);
const createBrowser = X3D.createBrowser;
X3D.createBrowser = function (...args) {
  const result = createBrowser.apply(this, args);
  const browser = result.browser;
  const loadURL = browser.loadURL.bind(browser);
  browser.loadURL = async (...a) => {
    const loaded = await loadURL(...a);
    schedule(browser);
    return loaded;
  };
  return result;
};

// The simulated clock redirects every time-dependent node's addTimeout to
// its queue; a stand-in node that runs the callback itself joins it.
function schedule(browser) {
  const proto = X3D.TimeSensor.prototype;
  events.forEach((e, i) => {
    const node = browser.currentScene.getNamedNode(e.node);
    const field = node.getValue().getField(e.field);
    const stand = { removeTimeout: proto.removeTimeout, processTimeout: (run) => run() };
    const set = () => {
      if (field.getType() === X3D.X3DConstants.SFTime) field.setValue(base + Number(e.value));
      else if (field.getType() === X3D.X3DConstants.SFBool) field.setValue(e.value === "true" || e.value === "TRUE");
      else {
        field.fromString(e.value, browser.currentScene);
        field.addEvent();
      }
    };
    proto.addTimeout.call(stand, `event${i}`, set, base + e.time);
  });
}

process.argv = [process.argv[0], path.join(xite, "xite-timeline-e2e.mjs"), ...passed];
await import(url.pathToFileURL(path.join(xite, "xite-timeline-e2e.mjs")).href);
