// The X3D ECMAScript binding (ISO/IEC 19777-1) as x3dbake gives it to a
// Script node: the field objects (SF and MF types with their methods),
// SFNode objects for the nodes a Script holds, the Browser object, print,
// and the Script's own fields as globals. Run once in each Script's own
// context, before the Script's source. What x3dbake cannot do (create
// nodes, add routes, load URLs) throws, so the Script's warning names it.
//
// Rust talks to it through three functions: __x3d_setup(json) declares
// the fields and the nodes they hold, __x3d_call(name, json, time) delivers
// an event (or calls initialize / eventsProcessed), and each returns the
// JSON list of what the Script did: ["out", field, data] for a value sent
// from one of its fields, ["set", node, field, type, data] for a field of
// another node written directly, ["print", text].
"use strict";
(function (global) {
  let done = [];
  let now = 0;
  const fields = {};
  const nodes = {};
  const nodeObjects = {};

  // ---- SF types made of numbers -------------------------------------
  function components(Class, names) {
    names.forEach((n, i) => {
      Object.defineProperty(Class.prototype, i, {
        get() {
          return this[n];
        },
        set(v) {
          this[n] = Number(v);
        },
      });
    });
    // (Vectors have length() as a method, as the binding defines it.)
    if (!("length" in Class.prototype)) Class.prototype.length = names.length;
    Class.prototype.toString = function () {
      return names.map((n) => String(this[n])).join(" ");
    };
    Class.prototype.equals = function (o) {
      return names.every((n) => this[n] === o[n]);
    };
    Class.prototype.__flat = function () {
      return names.map((n) => this[n]);
    };
    Class.__names = names;
  }

  function vector(names) {
    class V {
      constructor(...a) {
        names.forEach((n, i) => (this[n] = i < a.length ? Number(a[i]) : 0));
      }
      add(o) {
        return this.__map((v, i) => v + o[i]);
      }
      subtract(o) {
        return this.__map((v, i) => v - o[i]);
      }
      multiply(s) {
        return this.__map((v) => v * s);
      }
      divide(s) {
        return this.__map((v) => v / s);
      }
      negate() {
        return this.__map((v) => -v);
      }
      dot(o) {
        return names.reduce((s, n, i) => s + this[n] * o[i], 0);
      }
      length() {
        return Math.sqrt(this.dot(this));
      }
      normalize() {
        const l = this.length();
        return l === 0 ? this.__map((v) => v) : this.divide(l);
      }
      distance(o) {
        return this.subtract(o).length();
      }
      lerp(o, t) {
        return this.__map((v, i) => v + (o[i] - v) * t);
      }
      cross(o) {
        return new this.constructor(
          this[1] * o[2] - this[2] * o[1],
          this[2] * o[0] - this[0] * o[2],
          this[0] * o[1] - this[1] * o[0],
        );
      }
      __map(f) {
        return new this.constructor(...names.map((n, i) => f(this[n], i)));
      }
    }
    components(V, names);
    return V;
  }

  const SFVec2f = vector(["x", "y"]);
  const SFVec3f = vector(["x", "y", "z"]);
  const SFVec4f = vector(["x", "y", "z", "w"]);
  const SFVec2d = vector(["x", "y"]);
  const SFVec3d = vector(["x", "y", "z"]);
  const SFVec4d = vector(["x", "y", "z", "w"]);

  class SFColor {
    constructor(r = 0, g = 0, b = 0) {
      this.r = Number(r);
      this.g = Number(g);
      this.b = Number(b);
    }
    getHSV() {
      const { r, g, b } = this;
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      const d = max - min;
      let h = 0;
      if (d > 0) {
        if (max === r) h = ((g - b) / d) % 6;
        else if (max === g) h = (b - r) / d + 2;
        else h = (r - g) / d + 4;
        h *= Math.PI / 3;
        if (h < 0) h += 2 * Math.PI;
      }
      return [h, max === 0 ? 0 : d / max, max];
    }
    setHSV(h, s, v) {
      const k = (n) => (n + (h * 3) / Math.PI) % 6;
      const f = (n) => v - v * s * Math.max(0, Math.min(k(n), 4 - k(n), 1));
      this.r = f(5);
      this.g = f(3);
      this.b = f(1);
    }
    lerp(o, t) {
      return new SFColor(
        this.r + (o.r - this.r) * t,
        this.g + (o.g - this.g) * t,
        this.b + (o.b - this.b) * t,
      );
    }
  }
  components(SFColor, ["r", "g", "b"]);

  class SFColorRGBA {
    constructor(r = 0, g = 0, b = 0, a = 0) {
      this.r = Number(r);
      this.g = Number(g);
      this.b = Number(b);
      this.a = Number(a);
    }
  }
  components(SFColorRGBA, ["r", "g", "b", "a"]);

  // ---- SFRotation, on quaternions [x, y, z, w] --------------------------
  function quat(r) {
    const l = Math.hypot(r.x, r.y, r.z);
    if (l === 0) return [0, 0, 0, 1];
    const s = Math.sin(r.angle / 2) / l;
    return [r.x * s, r.y * s, r.z * s, Math.cos(r.angle / 2)];
  }
  function fromQuat(q) {
    let [x, y, z, w] = q;
    const n = Math.hypot(x, y, z, w) || 1;
    (x /= n), (y /= n), (z /= n), (w /= n);
    const s = Math.hypot(x, y, z);
    if (s < 1e-12) return new SFRotation(0, 0, 1, 0);
    return new SFRotation(x / s, y / s, z / s, 2 * Math.atan2(s, w));
  }
  function qmul(a, b) {
    return [
      a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
      a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
      a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
      a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ];
  }

  class SFRotation {
    constructor(...a) {
      if (a.length === 2 && typeof a[0] === "object" && typeof a[1] === "object") {
        // The rotation from one vector to another.
        const u = new SFVec3f(...a[0].__flat()).normalize();
        const v = new SFVec3f(...a[1].__flat()).normalize();
        const axis = u.cross(v);
        const c = Math.max(-1, Math.min(1, u.dot(v)));
        if (axis.length() < 1e-12) {
          if (c > 0) return new SFRotation(0, 0, 1, 0);
          // Half a turn about any axis normal to u.
          let n = u.cross(new SFVec3f(1, 0, 0));
          if (n.length() < 1e-6) n = u.cross(new SFVec3f(0, 1, 0));
          n = n.normalize();
          return new SFRotation(n.x, n.y, n.z, Math.PI);
        }
        const n = axis.normalize();
        return new SFRotation(n.x, n.y, n.z, Math.acos(c));
      }
      if (a.length === 2 && typeof a[0] === "object") {
        const [x, y, z] = a[0].__flat();
        a = [x, y, z, a[1]];
      }
      const d = [0, 0, 1, 0];
      [this.x, this.y, this.z, this.angle] = d.map((v, i) => (i < a.length ? Number(a[i]) : v));
    }
    getAxis() {
      return new SFVec3f(this.x, this.y, this.z);
    }
    setAxis(v) {
      [this.x, this.y, this.z] = v.__flat();
    }
    inverse() {
      return new SFRotation(this.x, this.y, this.z, -this.angle);
    }
    multiply(o) {
      // This rotation, then o.
      return fromQuat(qmul(quat(o), quat(this)));
    }
    multVec(v) {
      const q = quat(this);
      const p = qmul(qmul(q, [v[0], v[1], v[2], 0]), [-q[0], -q[1], -q[2], q[3]]);
      return new v.constructor(p[0], p[1], p[2]);
    }
    slerp(o, t) {
      const a = quat(this);
      let b = quat(o);
      let c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
      if (c < 0) (b = b.map((v) => -v)), (c = -c);
      if (c > 1 - 1e-12) return fromQuat(a.map((v, i) => v + (b[i] - v) * t));
      const th = Math.acos(c);
      const s = Math.sin(th);
      const ka = Math.sin((1 - t) * th) / s;
      const kb = Math.sin(t * th) / s;
      return fromQuat(a.map((v, i) => ka * v + kb * b[i]));
    }
  }
  components(SFRotation, ["x", "y", "z", "angle"]);

  // ---- MF types: arrays whose elements are of the SF type ---------------
  function multiple(convert) {
    class M extends Array {
      constructor(...a) {
        super();
        for (const v of a) this.push(convert(v));
      }
      static get [Symbol.species]() {
        return Array;
      }
      toString() {
        return this.map(String).join(", ");
      }
      // Its elements made those of another (as X_ITE's fields offer).
      assign(o) {
        this.length = 0;
        for (const v of o) this.push(convert(v));
      }
      equals(o) {
        const same = (a, b) => a === b || (a != null && typeof a.equals === "function" && a.equals(b));
        return o != null && this.length === o.length && this.every((v, i) => same(v, o[i]));
      }
    }
    return M;
  }

  const sfOf = {
    SFBool: (v) => Boolean(v),
    SFInt32: (v) => Number(v) | 0,
    SFFloat: (v) => Number(v),
    SFDouble: (v) => Number(v),
    SFTime: (v) => Number(v),
    SFString: (v) => String(v),
    SFNode: (v) => (v === undefined ? null : v),
  };
  const sfClass = { SFVec2f, SFVec3f, SFVec4f, SFVec2d, SFVec3d, SFVec4d, SFColor, SFColorRGBA, SFRotation };
  for (const [name, C] of Object.entries(sfClass)) {
    sfOf[name] = (v) => (v instanceof C ? v : new C(...(v && v.__flat ? v.__flat() : Array.from(v || []))));
  }
  const mfClass = {};
  for (const sf of Object.keys(sfOf)) {
    const mf = "MF" + sf.slice(2);
    mfClass[mf] = multiple(sfOf[sf]);
  }

  // A value of a type made from what a Script assigns.
  function convert(type, v) {
    if (type in sfOf) return sfOf[type](v);
    if (type in mfClass) {
      if (v instanceof mfClass[type]) return v;
      return new mfClass[type](...(v == null ? [] : Array.from(v)));
    }
    throw new TypeError("x3dbake does not pass " + type + " fields to Scripts");
  }

  // The flat scalars of a value (as Rust's Value holds them).
  function flat(type, v) {
    const sf = "SF" + type.slice(2);
    const one = (x) => {
      if (sf === "SFNode") return x && x.__id !== undefined ? [x.__id] : [];
      if (sfClass[sf]) return sfOf[sf](x).__flat();
      return [sfOf[sf](x)];
    };
    if (type.startsWith("MF")) return Array.from(v || []).flatMap(one);
    return one(v);
  }

  // A value of a type from its flat scalars.
  function fromFlat(type, data) {
    const sf = "SF" + type.slice(2);
    const C = sfClass[sf];
    const n = C ? C.__names.length : 1;
    const one = (i) => (sf === "SFNode" ? node(data[i]) : C ? new C(...data.slice(i, i + n)) : data[i]);
    if (type.startsWith("MF")) {
      const items = [];
      for (let i = 0; i + n <= data.length; i += n) items.push(one(i));
      return new mfClass[type](...items);
    }
    return sf === "SFNode" && data.length === 0 ? null : one(0);
  }

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
    const target = {
      __id: id,
      getNodeName: () => info.name,
      getNodeTypeName: () => info.type,
      toString: () => info.type + " { }",
    };
    const proxy = new Proxy(target, {
      get(t, key) {
        if (key in t) return t[key];
        const f = field(key);
        if (f === null) return undefined;
        if (!(f in values)) values[f] = fromFlat(info.fields[f][0], info.fields[f][1]);
        return values[f];
      },
      set(t, key, v) {
        const f = field(key);
        if (f === null) throw new TypeError(info.type + " has no field " + String(key));
        const type = info.fields[f][0];
        values[f] = convert(type, v);
        done.push(["set", id, f, type, flat(type, values[f])]);
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
  const Browser = {
    name: "x3dbake",
    version: "1",
    get currentTime() {
      return now;
    },
    currentFrameRate: 60,
    currentSpeed: 0,
    getName: () => "x3dbake",
    getVersion: () => "1",
    getCurrentTime: () => now,
    getCurrentFrameRate: () => 60,
    getCurrentSpeed: () => 0,
    getWorldURL: () => "",
    print,
    println: print,
    setDescription: () => {},
    createVrmlFromString: refuse("createVrmlFromString"),
    createX3DFromString: refuse("createX3DFromString"),
    createVrmlFromURL: refuse("createVrmlFromURL"),
    loadURL: refuse("loadURL"),
    replaceWorld: refuse("replaceWorld"),
    addRoute: refuse("addRoute"),
    deleteRoute: refuse("deleteRoute"),
  };

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

  Object.assign(global, sfClass, mfClass, { Browser, print, trace: print, TRUE: true, FALSE: false, Date: WorldDate });

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
  };

  // Calls a function of the Script (an event's, initialize or
  // eventsProcessed) and returns what it did, as JSON.
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
    // A field changed in place (`value_changed[0] = 1`) sends too.
    for (const n of Object.keys(last)) {
      if (JSON.stringify(flat(fields[n].type, fields[n].value)) !== last[n]) send(n);
    }
    return JSON.stringify(done);
  };
})(globalThis);
