// The Script's world in the X3D ECMAScript binding: SFNode objects for
// the nodes a Script holds, the Browser object, print, X3DConstants, the
// world's clock (Date, Math.random fixed), and the Script's own fields as
// globals. Runs after fields.js, in each Script's own context, before the
// Script's source. What x3dbake cannot do (create nodes, add routes, load
// URLs) throws with the function's name, so the Script's warning names it.
//
// Rust talks to it through three functions: __x3d_setup(json) declares
// the fields, the nodes they hold and the node types, __x3d_call(name,
// json, time) delivers an event (or calls initialize / eventsProcessed),
// and __x3d_done(), once the promises the call settled have run, returns
// the JSON list of what the Script did: ["out", field,
// data] for a value sent from one of its fields, ["set", node, field,
// type, data] for a field of another node written directly, ["print",
// text].
"use strict";
(function (global) {
  const { convert, flat: flatOf, fromFlat: fromFlatOf } = global.__x3d_fields;
  let done = [];
  let now = 0;
  const fields = {};
  const nodes = {};
  const nodeObjects = {};
  // Checks, one a node field read, that write what changed in place.
  const watched = [];
  // For each node given an object: takes a field's value as events left
  // it (the next read gets it).
  const renewers = {};
  // A field of a node written: it takes one event a call, its last value
  // (X_ITE: of 14 addChildren in a loop, the last is added).
  const write = (id, f, type, data) => {
    done = done.filter((d) => !(d[0] === "set" && d[1] === id && d[2] === f));
    done.push(["set", id, f, type, data]);
  };

  const nodeId = (x) => (x && x.__id !== undefined ? [x.__id] : []);
  const flat = (type, v) => flatOf(type, v, nodeId);
  const fromFlat = (type, data) => fromFlatOf(type, data, node);

  // ---- X3DConstants --------------------------------------------------------
  // Access types are bit sets (inputOutput = inputOnly | outputOnly |
  // initializeOnly); field types and browser states are numbered as X_ITE
  // numbers them; node types follow, in the catalogue's order.
  const X3DConstants = { initializeOnly: 1, inputOnly: 2, outputOnly: 4, inputOutput: 7 };
  [
    "CONNECTION_ERROR",
    "BROWSER_EVENT",
    "INITIALIZED_EVENT",
    "SHUTDOWN_EVENT",
    "INITIALIZED_ERROR",
    "NOT_STARTED_STATE",
    "IN_PROGRESS_STATE",
    "COMPLETE_STATE",
    "FAILED_STATE",
  ].forEach((name, i) => (X3DConstants[name] = 1001 + i));
  const fieldTypes = [
    "Bool",
    "Color",
    "ColorRGBA",
    "Double",
    "Float",
    "Image",
    "Int32",
    "Matrix3d",
    "Matrix3f",
    "Matrix4d",
    "Matrix4f",
    "Node",
    "Rotation",
    "String",
    "Time",
    "Vec2d",
    "Vec2f",
    "Vec3d",
    "Vec3f",
    "Vec4d",
    "Vec4f",
  ];
  fieldTypes.forEach((t, i) => (X3DConstants["SF" + t] = 1010 + i));
  fieldTypes.forEach((t, i) => (X3DConstants["MF" + t] = 1032 + i));
  const access = (name) => X3DConstants[name] ?? 0;

  // ---- SFNode: the nodes a Script holds in its fields --------------------
  function node(id) {
    if (id === undefined || !(id in nodes)) return null;
    if (nodeObjects[id]) return nodeObjects[id];
    const info = nodes[id];
    const values = {};
    const field = (key) => {
      if (typeof key !== "string") return null;
      for (const name of [key, key.replace(/^set_/, ""), key.replace(/_changed$/, "")]) {
        if (name in info.fields) return name;
      }
      return null;
    };
    // What the Script last saw of a field it read or wrote, as flat JSON:
    // a value changed in place since (`point.push(p)`, `children[0] = n`)
    // is written when the call ends, as X_ITE's fields are live.
    const seen = {};
    const hold = (f, type, value, data) => {
      values[f] = value;
      if (!(f in seen)) {
        watched.push(() => {
          const now = flat(type, values[f]);
          const text = JSON.stringify(now);
          if (text !== seen[f]) {
            seen[f] = text;
            write(id, f, type, now);
          }
        });
      }
      seen[f] = JSON.stringify(data);
    };
    renewers[id] = (f, data) => {
      if (f in values) hold(f, info.fields[f][0], fromFlat(info.fields[f][0], data), data);
    };
    const read = (f) => {
      if (!(f in values)) {
        const [type, data] = info.fields[f];
        hold(f, type, fromFlat(type, data), data);
      }
      return values[f];
    };
    const target = {
      __id: id,
      getNodeName: () => info.name,
      getNodeTypeName: () => info.type,
      getNodeType: () => (info.type in X3DConstants ? [X3DConstants[info.type]] : []),
      getFieldDefinitions: () =>
        Object.entries(info.fields).map(([name, [type, , acc]]) => ({
          name,
          dataType: X3DConstants[type],
          accessType: access(acc),
          value: read(name),
        })),
      getField: (name) => {
        const f = field(name);
        if (f === null) throw new Error(info.type + " has no field " + String(name));
        return read(f);
      },
      toString: () => info.type + " { }",
      valueOf: () => proxy,
      equals: (o) => o != null && o.__id === id,
    };
    const proxy = new Proxy(target, {
      get(t, key) {
        if (key in t) return t[key];
        const f = field(key);
        return f === null ? undefined : read(f);
      },
      set(t, key, v) {
        const f = field(key);
        if (f === null) throw new TypeError(info.type + " has no field " + String(key));
        const type = info.fields[f][0];
        // (Held as a copy: X_ITE's fields take values, not the objects.)
        const data = flat(type, convert(type, v));
        write(id, f, type, data);
        // (addChildren and removeChildren change children once the call
        // is done, as X_ITE processes the events then.)
        if (f !== "addChildren" && f !== "removeChildren") hold(f, type, fromFlat(type, data), data);
        return true;
      },
    });
    nodeObjects[id] = proxy;
    return proxy;
  }

  // ---- Browser, print, and the world's clock ----------------------------
  const text = (a) => a.map(String).join(" ");
  const print = (...a) => {
    done.push(["print", text(a)]);
  };
  const refuse = (what) => () => {
    throw new Error("Browser." + what + " is not available when x3dbake bakes a scene");
  };
  let description = "";
  const Browser = {
    name: "x3dbake",
    version: "1",
    currentFrameRate: 60,
    currentSpeed: 0,
    get currentTime() {
      return now;
    },
    get description() {
      return description;
    },
    set description(d) {
      description = String(d);
    },
    getName: () => "x3dbake",
    getVersion: () => "1",
    getCurrentTime: () => now,
    getCurrentFrameRate: () => 60,
    getCurrentSpeed: () => 0,
    getWorldURL: () => "",
    getDescription: () => description,
    setDescription: (d) => {
      description = String(d);
    },
    print,
    println: print,
  };
  // Nodes made from X3D text, as a Script sees them: numbered by Rust
  // after the scene's own, known to this context from then on.
  function make(text, vrml) {
    const made = JSON.parse(__x3d_create(String(text), vrml));
    if (made.error) throw new Error(made.error);
    Object.assign(nodes, made.nodes);
    return new MFNode(...made.roots.map(node));
  }
  // The scene made, at once (as 19777-1 has it) and as a promise of it
  // (X_ITE's createX3DFromString is async: `await` works on it too).
  Browser.createX3DFromString = (text) => {
    const rootNodes = make(text, false);
    const scene = { rootNodes, getRootNodes: () => rootNodes };
    return { ...scene, then: (ok, fail) => Promise.resolve(scene).then(ok, fail) };
  };
  Browser.createVrmlFromString = (text) => make(text, true);
  // The scene a Script is in, as far as making nodes: createNode(type)
  // is the node with its fields' defaults; addNamedNode(name, node) gives
  // a node made so its DEF name.
  const currentScene = {
    createNode(type) {
      if (!(X3DConstants[type] > 2000)) throw new Error("Unknown node type '" + String(type) + "'");
      const [made] = make(type + " { }", true);
      return made;
    },
    addNamedNode(name, n) {
      if (!n || n.__id === undefined) throw new Error("addNamedNode: not a node");
      if (!__x3d_name(n.__id, String(name))) throw new Error("addNamedNode: x3dbake names only nodes a Script made");
      nodes[n.__id].name = String(name);
    },
  };
  Object.defineProperty(Browser, "currentScene", { get: () => currentScene, enumerable: true });
  function SFNode(text) {
    const [first] = make(text, false);
    if (!first) throw new Error("new SFNode(text): the text holds no node");
    return first;
  }
  for (const what of [
    "createVrmlFromURL",
    "createX3DFromURL",
    "loadURL",
    "replaceWorld",
    "addRoute",
    "deleteRoute",
  ]) {
    Browser[what] = refuse(what);
  }

  // Date and Math.random: world time and a fixed sequence, so that the
  // same scene bakes the same.
  const RealDate = Date;
  class WorldDate extends RealDate {
    constructor(...a) {
      if (a.length === 0) super(now * 1000);
      else super(...a);
    }
    static now() {
      return now * 1000;
    }
  }
  let seed = 0x9e3779b9;
  Math.random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };

  Object.assign(global, {
    Browser,
    SFNode,
    X3DConstants,
    print,
    trace: print,
    TRUE: true,
    FALSE: false,
    Date: WorldDate,
  });

  // ---- The Script's own fields as globals --------------------------------
  const last = {};
  function send(name) {
    const f = fields[name];
    const data = flat(f.type, f.value);
    last[name] = JSON.stringify(data);
    done.push(["out", name, data]);
  }

  global.__x3d_setup = function (json) {
    const setup = JSON.parse(json);
    Object.assign(nodes, setup.nodes);
    setup.types.forEach((t, i) => (X3DConstants[t] = 2001 + i));
    for (const f of setup.fields) {
      fields[f.name] = { type: f.type, access: f.access, value: fromFlat(f.type, f.data) };
      if (f.access === "inputOnly") continue; // its name is the function's
      const sends = f.access !== "initializeOnly";
      if (sends) last[f.name] = JSON.stringify(f.data);
      Object.defineProperty(global, f.name, {
        configurable: true,
        get: () => fields[f.name].value,
        set: (v) => {
          fields[f.name].value = convert(f.type, v);
          if (sends) send(f.name);
        },
      });
    }
    Object.freeze(X3DConstants);
  };

  // The names a line of the Script calls that are no function of the
  // binding, of JavaScript's built-in objects or of the Script's globals:
  // what a "not a function" error at that line is about.
  global.__x3d_unknown = function (line) {
    const known = new Set();
    const add = (o) => {
      for (let p = o; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
        Object.getOwnPropertyNames(p).forEach((k) => known.add(k));
      }
    };
    for (const k of Object.getOwnPropertyNames(global)) {
      const v = global[k];
      if (typeof v === "function" && /^(SF|MF)/.test(k)) {
        add(v.prototype);
        add(v);
      }
    }
    [Array.prototype, String.prototype, Number.prototype, Object.prototype, Function.prototype]
      .concat([Date.prototype, RegExp.prototype, Math, JSON, Object, Array, Number, String, Browser])
      .forEach(add);
    Object.values(nodeObjects).forEach((n) => Object.keys(n).forEach((k) => known.add(k)));
    ["getNodeName", "getNodeTypeName", "getNodeType", "getFieldDefinitions", "getField"].forEach((k) => known.add(k));
    const words = new Set(["if", "for", "while", "switch", "catch", "function", "return", "typeof", "new"]);
    const called = [...line.matchAll(/([A-Za-z_$][\w$]*)\s*\(/g)].map((m) => m[1]);
    return [...new Set(called)].filter((n) => !words.has(n) && !known.has(n) && typeof global[n] !== "function");
  };

  // Fields of nodes as events left them, [[node, field, data], ...]: a
  // Script reads a field as it is now, as in X_ITE.
  global.__x3d_renew = function (json) {
    for (const [id, f, data] of JSON.parse(json)) {
      const info = nodes[id];
      if (!info || !(f in info.fields)) continue;
      info.fields[f][1] = data;
      if (renewers[id]) renewers[id](f, data);
    }
  };

  // Calls a function of the Script (an event's, initialize or
  // eventsProcessed); __x3d_done then says what it did.
  global.__x3d_call = function (name, json, time) {
    now = time;
    done = [];
    let fn = global[name];
    if (json != null) {
      const f = fields[name];
      f.value = fromFlat(f.type, JSON.parse(json));
      if (f.access === "inputOutput") {
        send(name);
        fn = global["set_" + name];
      }
    }
    if (typeof fn === "function") {
      if (json == null) fn.call(global);
      else fn.call(global, fields[name].value, time);
    }
  };

  // What the Script did in the call (and the promises it settled after),
  // as JSON.
  global.__x3d_done = function () {
    for (const check of watched) check();
    // A field changed in place (`value_changed[0] = 1`) sends too.
    for (const n of Object.keys(last)) {
      if (JSON.stringify(flat(fields[n].type, fields[n].value)) !== last[n]) send(n);
    }
    return JSON.stringify(done);
  };
})(globalThis);
