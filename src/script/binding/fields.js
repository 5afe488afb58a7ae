// The field objects of the X3D ECMAScript binding (ISO/IEC 19777-1, and
// what X_ITE offers beyond it): SFColor, SFColorRGBA, SFImage, the
// matrices, SFRotation, the vectors, and every MF type as an array that
// grows with default values. Made global; the helpers world.js needs
// (conversions to and from the flat numbers Rust holds) are left on
// globalThis.__x3d_fields.
//
// Conventions, as VRML and X_ITE have them: matrices are stored row by
// row and act on row vectors (v · M), so a translation is in the last
// row; rotations are axis and angle, worked on as quaternions [x, y, z, w].
"use strict";
(function (global) {
  // ---- SF types made of numbers -------------------------------------
  // Indexed access ([0], [1], …), toString, equals and the flat numbers
  // for the component names `names`.
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
    Class.prototype.toString = function () {
      return names.map((n) => String(this[n])).join(" ");
    };
    Class.prototype.equals = function (o) {
      return o != null && names.every((n) => this[n] === o[n]);
    };
    Class.prototype.copy = function () {
      return new this.constructor(...this.__flat());
    };
    Class.prototype.__flat = function () {
      return names.map((n) => this[n]);
    };
    Class.prototype[Symbol.iterator] = function () {
      return this.__flat()[Symbol.iterator]();
    };
  }
  const constant = (C, values) => {
    for (const [name, v] of Object.entries(values)) {
      Object.defineProperty(C, name, { get: () => new C(...v), enumerable: false });
    }
  };

  // ---- Vectors -------------------------------------------------------
  function vector(names) {
    const n = names.length;
    // (A four-component vector is 0 0 0 1 by default, as X3D's SFVec4f is.)
    const initial = names.map((_, i) => (i === 3 ? 1 : 0));
    class V {
      constructor(...a) {
        names.forEach((c, i) => (this[c] = i < a.length ? Number(a[i]) : initial[i]));
      }
      __map(f) {
        return new this.constructor(...names.map((c, i) => f(this[c], i)));
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
      multVec(o) {
        return this.__map((v, i) => v * o[i]);
      }
      divVec(o) {
        return this.__map((v, i) => v / o[i]);
      }
      negate() {
        return this.__map((v) => -v);
      }
      inverse() {
        return this.__map((v) => 1 / v);
      }
      abs() {
        return this.__map((v) => Math.abs(v));
      }
      min(o) {
        return this.__map((v, i) => Math.min(v, o[i]));
      }
      max(o) {
        return this.__map((v, i) => Math.max(v, o[i]));
      }
      clamp(low, high) {
        return this.__map((v, i) => Math.min(Math.max(v, low[i]), high[i]));
      }
      dot(o) {
        return names.reduce((s, c, i) => s + this[c] * o[i], 0);
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
      // The vector mirrored in the plane normal to `normal` (a unit vector).
      reflect(normal) {
        const d = 2 * this.dot(normal);
        return this.__map((v, i) => v - d * normal[i]);
      }
    }
    components(V, names);
    const axes = { ZERO: names.map(() => 0), ONE: names.map(() => 1), NEGATIVE_ONE: names.map(() => -1) };
    names.forEach((c, i) => {
      const axis = names.map((_, j) => (i === j ? 1 : 0));
      axes[c.toUpperCase() + "_AXIS"] = axis;
      axes["NEGATIVE_" + c.toUpperCase() + "_AXIS"] = axis.map((v) => -v);
    });
    constant(V, axes);
    if (n === 3) {
      V.prototype.cross = function (o) {
        return new this.constructor(
          this.y * o[2] - this.z * o[1],
          this.z * o[0] - this.x * o[2],
          this.x * o[1] - this.y * o[0],
        );
      };
    }
    return V;
  }

  const SFVec2f = vector(["x", "y"]);
  const SFVec3f = vector(["x", "y", "z"]);
  const SFVec4f = vector(["x", "y", "z", "w"]);
  const SFVec2d = vector(["x", "y"]);
  const SFVec3d = vector(["x", "y", "z"]);
  const SFVec4d = vector(["x", "y", "z", "w"]);

  // ---- Colours ---------------------------------------------------------
  // HSV with the hue in radians, as X_ITE gives it.
  function hsv(r, g, b) {
    const max = Math.max(r, g, b);
    const d = max - Math.min(r, g, b);
    let h = 0;
    if (d > 0) {
      if (max === r) h = (g - b) / d;
      else if (max === g) h = (b - r) / d + 2;
      else h = (r - g) / d + 4;
      h *= Math.PI / 3;
      if (h < 0) h += 2 * Math.PI;
    }
    return [h, max === 0 ? 0 : d / max, max];
  }
  function rgb(h, s, v) {
    const k = (n) => (((n + (h * 3) / Math.PI) % 6) + 6) % 6;
    const f = (n) => v - v * s * Math.max(0, Math.min(k(n), 4 - k(n), 1));
    return [f(5), f(3), f(1)];
  }
  // sRGB as a gamma of 2.2, as X_ITE (whose functions these are) has it.
  const toSRGB = (c) => Math.pow(c, 1 / 2.2);
  const toLinear = (c) => Math.pow(c, 2.2);
  // Interpolation in HSV along the shorter way round the hue circle (as
  // the ColorInterpolator does); a grey end takes the other's hue.
  function lerpHSV(a, b, t) {
    const [h0, s0, v0] = hsv(...a);
    const [h1, s1, v1] = hsv(...b);
    let from = s0 === 0 ? h1 : h0;
    const to = s1 === 0 ? from : h1;
    if (s0 === 0) from = to;
    let d = to - from;
    if (d > Math.PI) d -= 2 * Math.PI;
    else if (d < -Math.PI) d += 2 * Math.PI;
    let h = from + d * t;
    if (h < 0) h += 2 * Math.PI;
    else if (h >= 2 * Math.PI) h -= 2 * Math.PI;
    return rgb(h, s0 + (s1 - s0) * t, v0 + (v1 - v0) * t);
  }

  class SFColor {
    constructor(r = 0, g = 0, b = 0) {
      this.r = Number(r);
      this.g = Number(g);
      this.b = Number(b);
    }
    getHSV() {
      return hsv(this.r, this.g, this.b);
    }
    setHSV(h, s, v) {
      [this.r, this.g, this.b] = rgb(h, s, v);
    }
    lerp(o, t) {
      return new SFColor(...lerpHSV([this.r, this.g, this.b], [o.r, o.g, o.b], t));
    }
    linearToSRGB() {
      return new SFColor(toSRGB(this.r), toSRGB(this.g), toSRGB(this.b));
    }
    sRGBToLinear() {
      return new SFColor(toLinear(this.r), toLinear(this.g), toLinear(this.b));
    }
    static fromHSV(h, s, v) {
      return new SFColor(...rgb(h, s, v));
    }
  }
  components(SFColor, ["r", "g", "b"]);
  constant(SFColor, { BLACK: [0, 0, 0], WHITE: [1, 1, 1] });

  class SFColorRGBA {
    constructor(r = 0, g = 0, b = 0, a = 0) {
      this.r = Number(r);
      this.g = Number(g);
      this.b = Number(b);
      this.a = Number(a);
    }
    getHSVA() {
      return [...hsv(this.r, this.g, this.b), this.a];
    }
    setHSVA(h, s, v, a) {
      [this.r, this.g, this.b] = rgb(h, s, v);
      this.a = Number(a);
    }
    lerp(o, t) {
      const [r, g, b] = lerpHSV([this.r, this.g, this.b], [o.r, o.g, o.b], t);
      return new SFColorRGBA(r, g, b, this.a + (o.a - this.a) * t);
    }
    linearToSRGB() {
      return new SFColorRGBA(toSRGB(this.r), toSRGB(this.g), toSRGB(this.b), this.a);
    }
    sRGBToLinear() {
      return new SFColorRGBA(toLinear(this.r), toLinear(this.g), toLinear(this.b), this.a);
    }
    static fromHSVA(h, s, v, a) {
      return new SFColorRGBA(...rgb(h, s, v), a);
    }
  }
  components(SFColorRGBA, ["r", "g", "b", "a"]);
  constant(SFColorRGBA, { BLACK: [0, 0, 0, 1], WHITE: [1, 1, 1, 1], TRANSPARENT: [0, 0, 0, 0] });

  // ---- Quaternions [x, y, z, w] ----------------------------------------
  function quat(r) {
    const l = Math.hypot(r.x, r.y, r.z);
    if (l === 0) return [0, 0, 0, 1];
    const s = Math.sin(r.angle / 2) / l;
    return [r.x * s, r.y * s, r.z * s, Math.cos(r.angle / 2)];
  }
  function axisAngle(q) {
    let [x, y, z, w] = q;
    const n = Math.hypot(x, y, z, w) || 1;
    (x /= n), (y /= n), (z /= n), (w /= n);
    const s = Math.hypot(x, y, z);
    if (s < 1e-12) return [0, 0, 1, 0];
    return [x / s, y / s, z / s, 2 * Math.atan2(s, w)];
  }
  // a then b, as one rotation (b ∘ a).
  function qmul(b, a) {
    return [
      b[3] * a[0] + b[0] * a[3] + b[1] * a[2] - b[2] * a[1],
      b[3] * a[1] - b[0] * a[2] + b[1] * a[3] + b[2] * a[0],
      b[3] * a[2] + b[0] * a[1] - b[1] * a[0] + b[2] * a[3],
      b[3] * a[3] - b[0] * a[0] - b[1] * a[1] - b[2] * a[2],
    ];
  }
  function rotate(q, v) {
    const p = qmul(qmul(q, [v[0], v[1], v[2], 0]), [-q[0], -q[1], -q[2], q[3]]);
    return [p[0], p[1], p[2]];
  }
  // The rows of the rotation's 3×3 matrix: the images of the axes.
  function rows(q) {
    return [rotate(q, [1, 0, 0]), rotate(q, [0, 1, 0]), rotate(q, [0, 0, 1])];
  }
  // The quaternion of a rotation matrix given by its rows (the images of
  // the axes), i.e. the column-form matrix R with R[j][i] = rows[i][j].
  function fromRows(rows) {
    const R = (j, i) => rows[i][j];
    const trace = R(0, 0) + R(1, 1) + R(2, 2);
    if (trace > 0) {
      const s = 0.5 / Math.sqrt(trace + 1);
      return [(R(2, 1) - R(1, 2)) * s, (R(0, 2) - R(2, 0)) * s, (R(1, 0) - R(0, 1)) * s, 0.25 / s];
    }
    if (R(0, 0) > R(1, 1) && R(0, 0) > R(2, 2)) {
      const s = 2 * Math.sqrt(1 + R(0, 0) - R(1, 1) - R(2, 2));
      return [0.25 * s, (R(0, 1) + R(1, 0)) / s, (R(0, 2) + R(2, 0)) / s, (R(2, 1) - R(1, 2)) / s];
    }
    if (R(1, 1) > R(2, 2)) {
      const s = 2 * Math.sqrt(1 + R(1, 1) - R(0, 0) - R(2, 2));
      return [(R(0, 1) + R(1, 0)) / s, 0.25 * s, (R(1, 2) + R(2, 1)) / s, (R(0, 2) - R(2, 0)) / s];
    }
    const s = 2 * Math.sqrt(1 + R(2, 2) - R(0, 0) - R(1, 1));
    return [(R(0, 2) + R(2, 0)) / s, (R(1, 2) + R(2, 1)) / s, 0.25 * s, (R(1, 0) - R(0, 1)) / s];
  }
  const unit = (v) => {
    const l = Math.hypot(...v);
    return l === 0 ? v : v.map((x) => x / l);
  };
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const dot = (a, b) => a.reduce((s, v, i) => s + v * b[i], 0);

  class SFRotation {
    constructor(...a) {
      let value = [0, 0, 1, 0];
      if (a.length === 1 && a[0] instanceof SFMatrix3f) value = axisAngle(matrixQuat(a[0]));
      else if (a.length === 1 && a[0] instanceof SFMatrix3d) value = axisAngle(matrixQuat(a[0]));
      else if (a.length === 2 && typeof a[0] === "object" && typeof a[1] === "object") {
        value = axisAngle(between(a[0].__flat(), a[1].__flat()));
      } else if (a.length === 2 && typeof a[0] === "object") {
        value = [...a[0].__flat().slice(0, 3), Number(a[1])];
      } else if (a.length > 0) {
        value = value.map((v, i) => (i < a.length ? Number(a[i]) : v));
      }
      [this.x, this.y, this.z, this.angle] = value;
    }
    __set(q) {
      [this.x, this.y, this.z, this.angle] = axisAngle(q);
      return this;
    }
    getAxis() {
      return new SFVec3f(this.x, this.y, this.z);
    }
    setAxis(v) {
      [this.x, this.y, this.z] = v.__flat();
    }
    getMatrix() {
      return new SFMatrix3f(...rows(quat(this)).flat());
    }
    setMatrix(m) {
      this.__set(matrixQuat(m));
    }
    getQuaternion() {
      return quat(this);
    }
    setQuaternion(...q) {
      this.__set(quaternionOf(q));
    }
    inverse() {
      return new SFRotation(this.x, this.y, this.z, -this.angle);
    }
    // This rotation, then o.
    multiply(o) {
      return new SFRotation().__set(qmul(quat(o), quat(this)));
    }
    multVec(v) {
      return new v.constructor(...rotate(quat(this), v.__flat()));
    }
    slerp(o, t) {
      const a = quat(this);
      let b = quat(o);
      let c = dot(a, b);
      if (c < 0) (b = b.map((v) => -v)), (c = -c);
      if (c > 1 - 1e-12) return new SFRotation().__set(a.map((v, i) => v + (b[i] - v) * t));
      const th = Math.acos(c);
      const s = Math.sin(th);
      const ka = Math.sin((1 - t) * th) / s;
      const kb = Math.sin(t * th) / s;
      return new SFRotation().__set(a.map((v, i) => ka * v + kb * b[i]));
    }
    // The rotation turned about its own z axis so that its x axis lies
    // in the plane normal to `up` (no roll), as a camera is held.
    straighten(up = new SFVec3f(0, 1, 0)) {
      const [, , z] = rows(quat(this));
      let x = unit(cross(up.__flat(), z));
      if (Math.hypot(...x) === 0) return this.copy();
      const y = cross(z, x);
      return new SFRotation().__set(fromRows([x, y, z]));
    }
    static fromQuaternion(...q) {
      return new SFRotation().__set(quaternionOf(q));
    }
    static fromMatrix(m) {
      return new SFRotation().__set(matrixQuat(m));
    }
  }
  components(SFRotation, ["x", "y", "z", "angle"]);
  constant(SFRotation, { IDENTITY: [0, 0, 1, 0] });

  // A quaternion given as four numbers, an [x, y, z, w] array, or an
  // object with x, y, z and w.
  function quaternionOf(a) {
    if (a.length !== 1) return a.map(Number);
    const q = a[0];
    return q.w !== undefined ? [q.x, q.y, q.z, q.w].map(Number) : Array.from(q, Number);
  }

  // The shortest rotation taking direction u to direction v.
  function between(u, v) {
    u = unit(u);
    v = unit(v);
    const c = Math.max(-1, Math.min(1, dot(u, v)));
    let axis = cross(u, v);
    if (Math.hypot(...axis) < 1e-12) {
      if (c > 0) return [0, 0, 0, 1];
      // Half a turn about any axis normal to u.
      axis = cross(u, [1, 0, 0]);
      if (Math.hypot(...axis) < 1e-6) axis = cross(u, [0, 1, 0]);
      return [...unit(axis), 0];
    }
    const n = unit(axis);
    const s = Math.sin(Math.acos(c) / 2);
    return [n[0] * s, n[1] * s, n[2] * s, Math.cos(Math.acos(c) / 2)];
  }

  // ---- Matrices: n×n numbers by rows, acting on row vectors -------------
  function matrix(n) {
    const size = n * n;
    class M {
      constructor(...a) {
        for (let i = 0; i < size; i++) this[i] = i < a.length ? Number(a[i]) : i % (n + 1) === 0 ? 1 : 0;
      }
      __flat() {
        return Array.from({ length: size }, (_, i) => this[i]);
      }
      [Symbol.iterator]() {
        return this.__flat()[Symbol.iterator]();
      }
      __at(r, c) {
        return this[r * n + c];
      }
      toString() {
        return this.__flat().map(String).join(" ");
      }
      equals(o) {
        return o != null && this.__flat().every((v, i) => v === o[i]);
      }
      copy() {
        return new this.constructor(...this.__flat());
      }
      transpose() {
        return new this.constructor(...this.__flat().map((_, i) => this.__at(i % n, Math.floor(i / n))));
      }
      // this · o
      multRight(o) {
        const out = [];
        for (let r = 0; r < n; r++) {
          for (let c = 0; c < n; c++) {
            let s = 0;
            for (let k = 0; k < n; k++) s += this[r * n + k] * o[k * n + c];
            out.push(s);
          }
        }
        return new this.constructor(...out);
      }
      // o · this
      multLeft(o) {
        return new this.constructor(...o.__flat()).multRight(this);
      }
      determinant() {
        return det(this.__flat(), n);
      }
      inverse() {
        return new this.constructor(...invert(this.__flat(), n));
      }
      // v · M, with the homogeneous divide.
      multVecMatrix(v) {
        return this.__apply(v, true, true);
      }
      // M · v (v a column), with the homogeneous divide.
      multMatrixVec(v) {
        return this.__apply(v, false, true);
      }
      // v · M without the translation.
      multDirMatrix(v) {
        return this.__apply(v, true, false);
      }
      // M · v without the translation.
      multMatrixDir(v) {
        return this.__apply(v, false, false);
      }
      __apply(v, row, point) {
        const p = v.__flat().slice(0, n - 1);
        p.push(point ? 1 : 0);
        const out = [];
        for (let i = 0; i < n; i++) {
          let s = 0;
          for (let k = 0; k < n; k++) s += p[k] * (row ? this.__at(k, i) : this.__at(i, k));
          out.push(s);
        }
        const w = point ? out[n - 1] : 1;
        return new v.constructor(...out.slice(0, n - 1).map((x) => x / w));
      }
    }
    constant(M, { IDENTITY: [], ZERO: Array(size).fill(0) });
    return M;
  }
  function det(m, n) {
    if (n === 1) return m[0];
    let s = 0;
    for (let c = 0; c < n; c++) s += (c % 2 ? -1 : 1) * m[c] * det(minor(m, n, 0, c), n - 1);
    return s;
  }
  function minor(m, n, row, col) {
    const out = [];
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (r !== row && c !== col) out.push(m[r * n + c]);
    return out;
  }
  function invert(m, n) {
    const d = det(m, n);
    if (d === 0) throw new Error("the matrix has no inverse (its determinant is 0)");
    const out = [];
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) out.push((((r + c) % 2 ? -1 : 1) * det(minor(m, n, c, r), n - 1)) / d);
    }
    return out;
  }
  // The quaternion of a matrix's rotation (a 3×3, or a 4×4's upper 3×3),
  // its rows made unit.
  function matrixQuat(m) {
    const n = Math.round(Math.sqrt(m.__flat().length));
    const r = [0, 1, 2].map((i) => unit([0, 1, 2].map((j) => m[i * n + j])));
    return fromRows(r);
  }

  const Matrix3 = matrix(3);
  const Matrix4 = matrix(4);

  // 4×4 transforms: M = −C · −SO · S · SO · R · C · T, on row vectors.
  function translation(t) {
    return new Matrix4(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, t[0], t[1], t[2], 1);
  }
  function rotation4(q) {
    const [x, y, z] = rows(q);
    return new Matrix4(...x, 0, ...y, 0, ...z, 0, 0, 0, 0, 1);
  }
  function scaling4(s) {
    return new Matrix4(s[0], 0, 0, 0, 0, s[1], 0, 0, 0, 0, s[2], 0, 0, 0, 0, 1);
  }
  const flat3 = (v, d) => (v ? v.__flat().slice(0, 3) : d);
  class Matrix4Field extends Matrix4 {
    setTransform(t, r, s, so, c) {
      const center = flat3(c, [0, 0, 0]);
      const orient = so ? quat(so) : [0, 0, 0, 1];
      const m = translation(center.map((v) => -v))
        .multRight(rotation4([-orient[0], -orient[1], -orient[2], orient[3]]))
        .multRight(scaling4(flat3(s, [1, 1, 1])))
        .multRight(rotation4(orient))
        .multRight(rotation4(r ? quat(r) : [0, 0, 0, 1]))
        .multRight(translation(center))
        .multRight(translation(flat3(t, [0, 0, 0])));
      for (let i = 0; i < 16; i++) this[i] = m[i];
    }
    // Translation, rotation and scale (scaleOrientation the identity) of
    // a matrix without shear, written into the objects given.
    getTransform(t, r, s, so, c) {
      const center = flat3(c, [0, 0, 0]);
      const a = [0, 1, 2].map((i) => [0, 1, 2].map((j) => this[i * 4 + j]));
      const sign = det(a.flat(), 3) < 0 ? -1 : 1;
      const scale = a.map((row) => sign * Math.hypot(...row));
      const move = [0, 1, 2].map((j) => this[12 + j] - center[j] + dot(center, [0, 1, 2].map((i) => a[i][j])));
      if (t) [t.x, t.y, t.z] = move;
      if (s) [s.x, s.y, s.z] = scale;
      if (r) r.__set(fromRows(a.map((row, i) => row.map((v) => v / (scale[i] || 1)))));
      if (so) [so.x, so.y, so.z, so.angle] = [0, 0, 1, 0];
    }
    translate(t) {
      return new this.constructor(...translation(t.__flat()).multRight(this).__flat());
    }
    rotate(r) {
      return new this.constructor(...rotation4(quat(r)).multRight(this).__flat());
    }
    scale(s) {
      return new this.constructor(...scaling4(s.__flat()).multRight(this).__flat());
    }
  }
  class SFMatrix4f extends Matrix4Field {}
  class SFMatrix4d extends Matrix4Field {}

  // 3×3 transforms of the plane: angles for rotations.
  const translation2 = (t) => new Matrix3(1, 0, 0, 0, 1, 0, t[0], t[1], 1);
  const rotation2 = (a) => new Matrix3(Math.cos(a), Math.sin(a), 0, -Math.sin(a), Math.cos(a), 0, 0, 0, 1);
  const scaling2 = (s) => new Matrix3(s[0], 0, 0, 0, s[1], 0, 0, 0, 1);
  const flat2 = (v, d) => (v ? v.__flat().slice(0, 2) : d);
  class Matrix3Field extends Matrix3 {
    setTransform(t, r, s, so, c) {
      const center = flat2(c, [0, 0]);
      const orient = Number(so ?? 0);
      const m = translation2(center.map((v) => -v))
        .multRight(rotation2(-orient))
        .multRight(scaling2(flat2(s, [1, 1])))
        .multRight(rotation2(orient))
        .multRight(rotation2(Number(r ?? 0)))
        .multRight(translation2(center))
        .multRight(translation2(flat2(t, [0, 0])));
      for (let i = 0; i < 9; i++) this[i] = m[i];
    }
    // Translation, rotation (into an SFVec3f: cos, sin, angle, as X_ITE
    // writes it) and scale of a matrix without shear.
    getTransform(t, r, s, so, c) {
      const center = flat2(c, [0, 0]);
      const a = [0, 1].map((i) => [0, 1].map((j) => this[i * 3 + j]));
      const sign = a[0][0] * a[1][1] - a[0][1] * a[1][0] < 0 ? -1 : 1;
      const scale = a.map((row) => sign * Math.hypot(...row));
      const move = [0, 1].map((j) => this[6 + j] - center[j] + center[0] * a[0][j] + center[1] * a[1][j]);
      const angle = Math.atan2(a[0][1], a[0][0]);
      if (t) [t.x, t.y] = move;
      if (s) [s.x, s.y] = scale;
      if (r) [r.x, r.y, r.z] = [Math.cos(angle), Math.sin(angle), angle];
      if (so) so.x = 0;
    }
    translate(t) {
      return new this.constructor(...translation2(t.__flat()).multRight(this).__flat());
    }
    rotate(a) {
      return new this.constructor(...rotation2(Number(a)).multRight(this).__flat());
    }
    scale(s) {
      return new this.constructor(...scaling2(s.__flat()).multRight(this).__flat());
    }
    skewX(a) {
      return new this.constructor(...new Matrix3(1, 0, 0, Math.tan(a), 1, 0, 0, 0, 1).multRight(this).__flat());
    }
    skewY(a) {
      return new this.constructor(...new Matrix3(1, Math.tan(a), 0, 0, 1, 0, 0, 0, 1).multRight(this).__flat());
    }
  }
  class SFMatrix3f extends Matrix3Field {}
  class SFMatrix3d extends Matrix3Field {}
  for (const C of [SFMatrix3f, SFMatrix3d, SFMatrix4f, SFMatrix4d]) {
    constant(C, { IDENTITY: [], ZERO: Array(C === SFMatrix3f || C === SFMatrix3d ? 9 : 16).fill(0) });
  }

  // ---- SFImage -----------------------------------------------------------
  class SFImage {
    constructor(width = 0, height = 0, comp = 0, array = []) {
      this.width = Number(width) | 0;
      this.height = Number(height) | 0;
      this.comp = Number(comp) | 0;
      const pixels = new MFInt32(...Array.from(array || []));
      pixels.length = this.width * this.height;
      this.array = pixels;
    }
    get x() {
      return this.width;
    }
    set x(v) {
      this.width = Number(v) | 0;
    }
    get y() {
      return this.height;
    }
    set y(v) {
      this.height = Number(v) | 0;
    }
    toString() {
      return [this.width, this.height, this.comp, ...this.array].join(" ");
    }
    equals(o) {
      return o != null && this.toString() === o.toString();
    }
    copy() {
      return new SFImage(this.width, this.height, this.comp, this.array);
    }
    __flat() {
      return [this.width, this.height, this.comp, ...this.array];
    }
  }

  // ---- Conversions ---------------------------------------------------------
  const sfOf = {
    SFBool: (v) => Boolean(v),
    SFInt32: (v) => Number(v) | 0,
    SFFloat: (v) => Number(v),
    SFDouble: (v) => Number(v),
    SFTime: (v) => Number(v),
    SFString: (v) => String(v),
    SFNode: (v) => (v === undefined ? null : v),
  };
  const sfDefault = { SFBool: false, SFInt32: 0, SFFloat: 0, SFDouble: 0, SFTime: 0, SFString: "", SFNode: null };
  const sfClass = {
    SFVec2f,
    SFVec3f,
    SFVec4f,
    SFVec2d,
    SFVec3d,
    SFVec4d,
    SFColor,
    SFColorRGBA,
    SFRotation,
    SFMatrix3f,
    SFMatrix3d,
    SFMatrix4f,
    SFMatrix4d,
  };
  for (const [name, C] of Object.entries(sfClass)) {
    sfOf[name] = (v) => (v instanceof C ? v : new C(...(v && v.__flat ? v.__flat() : Array.from(v || []))));
    Object.defineProperty(sfDefault, name, { get: () => new C(), enumerable: true });
  }
  sfOf.SFImage = (v) => (v instanceof SFImage ? v : new SFImage(...Array.from(v || [])));
  Object.defineProperty(sfDefault, "SFImage", { get: () => new SFImage(), enumerable: true });

  // ---- MF types: arrays of the SF type that grow with default values ------
  const index = (key) => typeof key === "string" && /^(0|[1-9][0-9]*)$/.test(key);
  function multiple(sf) {
    const convert = sfOf[sf];
    const blank = () => sfDefault[sf];
    class M extends Array {
      constructor(...a) {
        super();
        for (const v of a) super.push(convert(v));
        return new Proxy(this, {
          set(target, key, v) {
            if (index(key)) {
              const i = Number(key);
              for (let k = target.length; k < i; k++) Array.prototype.push.call(target, blank());
              target[i] = convert(v);
              return true;
            }
            if (key === "length") {
              const n = Number(v) >>> 0;
              for (let k = target.length; k < n; k++) Array.prototype.push.call(target, blank());
              target.length = n;
              return true;
            }
            target[key] = v;
            return true;
          },
        });
      }
      static get [Symbol.species]() {
        return Array;
      }
      push(...a) {
        return super.push(...a.map(convert));
      }
      unshift(...a) {
        return super.unshift(...a.map(convert));
      }
      fill(v, ...range) {
        return super.fill(convert(v), ...range);
      }
      slice(...range) {
        return new M(...super.slice(...range));
      }
      splice(start, ...rest) {
        const removed = rest.length === 0 ? super.splice(start) : super.splice(start, rest[0], ...rest.slice(1).map(convert));
        return new M(...removed);
      }
      toString() {
        return this.map(String).join(", ");
      }
      // Its elements made those of another (as X_ITE's fields offer).
      assign(o) {
        this.length = 0;
        for (const v of o) super.push(convert(v));
      }
      equals(o) {
        const same = (a, b) => a === b || (a != null && typeof a.equals === "function" && a.equals(b));
        return o != null && this.length === o.length && this.every((v, i) => same(v, o[i]));
      }
      copy() {
        return new M(...this);
      }
    }
    Object.defineProperty(M, "name", { value: "MF" + sf.slice(2) });
    return M;
  }
  const mfClass = {};
  for (const sf of Object.keys(sfOf)) mfClass["MF" + sf.slice(2)] = multiple(sf);
  const { MFInt32 } = mfClass;

  // A value of a type made from what a Script assigns.
  function convert(type, v) {
    if (type in sfOf) return sfOf[type](v);
    if (type in mfClass) {
      if (v instanceof mfClass[type]) return v;
      return new mfClass[type](...(v == null ? [] : Array.from(v)));
    }
    throw new TypeError("x3dbake does not pass " + type + " fields to Scripts");
  }

  // The number of flat numbers of one SF value of a type (SFImage: all).
  const width = (sf) => (sfClass[sf] ? new sfClass[sf]().__flat().length : 1);

  // The flat scalars of a value (as Rust's Value holds them), `id` giving
  // a node's.
  function flat(type, v, id) {
    const sf = "SF" + type.slice(2);
    const one = (x) => {
      if (sf === "SFNode") return id(x);
      if (sfClass[sf] || sf === "SFImage") return sfOf[sf](x).__flat();
      return [sfOf[sf](x)];
    };
    if (type.startsWith("MF")) return Array.from(v || []).flatMap(one);
    return one(v);
  }

  // A value of a type from its flat scalars, `node` making a node's.
  function fromFlat(type, data, node) {
    const sf = "SF" + type.slice(2);
    if (sf === "SFImage") {
      if (type.startsWith("MF")) throw new TypeError("x3dbake does not pass MFImage fields to Scripts");
      return new SFImage(data[0], data[1], data[2], data.slice(3));
    }
    const C = sfClass[sf];
    const n = width(sf);
    const one = (i) => (sf === "SFNode" ? node(data[i]) : C ? new C(...data.slice(i, i + n)) : data[i]);
    if (type.startsWith("MF")) {
      const items = new mfClass[type]();
      for (let i = 0; i + n <= data.length; i += n) items.push(one(i));
      return items;
    }
    return sf === "SFNode" && data.length === 0 ? null : one(0);
  }

  Object.assign(global, sfClass, mfClass, { SFImage });
  Object.defineProperty(global, "__x3d_fields", { value: { convert, flat, fromFlat }, enumerable: false });
})(globalThis);
