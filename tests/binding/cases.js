// The X3D ECMAScript binding, function by function: each case calls one
// function (or reads one property) with fixed arguments. Run as a Script's
// initialize() in x3dbake and in X_ITE (tests/it/binding.rs); `result`
// receives every case's value in a form both can compare: [type, value].
// A case's name is TYPE.member; `TYPE.new(…)` for constructors.

const V2 = () => new SFVec2f(1, -2);
const V3 = () => new SFVec3f(1, -2, 3);
const V4 = () => new SFVec4f(1, -2, 3, -4);
const W3 = () => new SFVec3f(0.5, 4, -1);
const R = () => new SFRotation(0, 0, 1, 0.5);
const R2 = () => new SFRotation(1, 0, 0, 0.75);
const M3 = () => new SFMatrix3f(2, 1, 0, -1, 3, 0, 4, 5, 1);
const M4 = () => new SFMatrix4f(2, 1, 0, 0, -1, 3, 0.5, 0, 0, 0.25, 1, 0, 4, 5, 6, 1);
const P4 = () => new SFMatrix4f(0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
const C = () => new SFColor(0.2, 0.4, 0.8);
const CA = () => new SFColorRGBA(0.2, 0.4, 0.8, 0.5);

const CASES = [
  // Vectors: one set of cases for each of the six types.
  ...[
    ["SFVec2f", V2, () => new SFVec2f(3, 0.5)],
    ["SFVec2d", () => new SFVec2d(1, -2), () => new SFVec2d(3, 0.5)],
    ["SFVec3f", V3, W3],
    ["SFVec3d", () => new SFVec3d(1, -2, 3), () => new SFVec3d(0.5, 4, -1)],
    ["SFVec4f", V4, () => new SFVec4f(0.5, 4, -1, 2)],
    ["SFVec4d", () => new SFVec4d(1, -2, 3, -4), () => new SFVec4d(0.5, 4, -1, 2)],
  ].flatMap(([T, a, b]) => [
    [T + ".new()", () => new CLASS[T]()],
    [T + ".new(…)", a],
    [T + ".x", () => a().x],
    [T + ".y", () => a().y],
    [T + ".[i]=", () => { const v = a(); v[1] = "5"; return v; }],
    [T + ".add", () => a().add(b())],
    [T + ".subtract", () => a().subtract(b())],
    [T + ".multiply", () => a().multiply(2.5)],
    [T + ".divide", () => a().divide(4)],
    [T + ".multVec", () => a().multVec(b())],
    [T + ".divVec", () => a().divVec(b())],
    [T + ".negate", () => a().negate()],
    [T + ".inverse", () => a().inverse()],
    [T + ".abs", () => a().abs()],
    [T + ".min", () => a().min(b())],
    [T + ".max", () => a().max(b())],
    [T + ".clamp", () => a().clamp(b().negate().abs().negate(), b().abs())],
    [T + ".dot", () => a().dot(b())],
    [T + ".length", () => a().length()],
    [T + ".normalize", () => a().normalize()],
    [T + ".distance", () => a().distance(b())],
    [T + ".lerp", () => a().lerp(b(), 0.25)],
    [T + ".reflect", () => a().reflect(b().normalize())],
    [T + ".equals", () => a().equals(a())],
    [T + ".copy", () => a().copy()],
    [T + ".toString", () => a().toString()],
    [T + ".ZERO", () => CLASS[T].ZERO],
    [T + ".ONE", () => CLASS[T].ONE],
    [T + ".NEGATIVE_ONE", () => CLASS[T].NEGATIVE_ONE],
    [T + ".X_AXIS", () => CLASS[T].X_AXIS],
    [T + ".NEGATIVE_Y_AXIS", () => CLASS[T].NEGATIVE_Y_AXIS],
  ]),
  ["SFVec3f.z", () => V3().z],
  ["SFVec4f.w", () => V4().w],
  ["SFVec3f.cross", () => V3().cross(W3())],
  ["SFVec3d.cross", () => new SFVec3d(1, -2, 3).cross(new SFVec3d(0.5, 4, -1))],

  // Colours.
  ["SFColor.new()", () => new SFColor()],
  ["SFColor.new(…)", C],
  ["SFColor.r", () => C().r],
  ["SFColor.[i]=", () => { const c = C(); c[2] = 0.5; return c; }],
  ["SFColor.getHSV", () => C().getHSV()],
  ["SFColor.setHSV", () => { const c = C(); c.setHSV(3.14, 0.5, 0.5); return c; }],
  ["SFColor.fromHSV", () => SFColor.fromHSV(1, 0.5, 0.5)],
  ["SFColor.lerp", () => C().lerp(new SFColor(0.9, 0.1, 0.1), 0.3)],
  ["SFColor.lerp grey", () => new SFColor(0.5, 0.5, 0.5).lerp(new SFColor(0.9, 0.1, 0.1), 0.3)],
  ["SFColor.linearToSRGB", () => C().linearToSRGB()],
  ["SFColor.sRGBToLinear", () => C().sRGBToLinear()],
  ["SFColor.equals", () => C().equals(new SFColor(0.2, 0.4, 0.8))],
  ["SFColor.toString", () => C().toString()],
  ["SFColor.BLACK", () => SFColor.BLACK],
  ["SFColor.WHITE", () => SFColor.WHITE],
  ["SFColorRGBA.new()", () => new SFColorRGBA()],
  ["SFColorRGBA.new(…)", CA],
  ["SFColorRGBA.a", () => CA().a],
  ["SFColorRGBA.getHSVA", () => CA().getHSVA()],
  ["SFColorRGBA.setHSVA", () => { const c = CA(); c.setHSVA(1, 0.5, 0.5, 0.25); return c; }],
  ["SFColorRGBA.fromHSVA", () => SFColorRGBA.fromHSVA(1, 0.5, 0.5, 0.25)],
  ["SFColorRGBA.lerp", () => CA().lerp(new SFColorRGBA(0.9, 0.1, 0.1, 1), 0.3)],
  ["SFColorRGBA.linearToSRGB", () => CA().linearToSRGB()],
  ["SFColorRGBA.sRGBToLinear", () => CA().sRGBToLinear()],
  ["SFColorRGBA.TRANSPARENT", () => SFColorRGBA.TRANSPARENT],

  // Rotations.
  ["SFRotation.new()", () => new SFRotation()],
  ["SFRotation.new(x, y, z, a)", R],
  ["SFRotation.new(axis, angle)", () => new SFRotation(new SFVec3f(0, 1, 0), 0.25)],
  ["SFRotation.new(from, to)", () => new SFRotation(new SFVec3f(1, 0, 0), new SFVec3f(0, 1, 0))],
  ["SFRotation.new(from, to) opposite", () => new SFRotation(new SFVec3f(1, 0, 0), new SFVec3f(-1, 0, 0)).multVec(new SFVec3f(1, 0, 0))],
  ["SFRotation.new(matrix)", () => new SFRotation(new SFMatrix3f(0, 1, 0, -1, 0, 0, 0, 0, 1))],
  ["SFRotation.angle", () => R().angle],
  ["SFRotation.[i]=", () => { const r = R(); r[3] = 1; return r; }],
  ["SFRotation.getAxis", () => R2().getAxis()],
  ["SFRotation.setAxis", () => { const r = R(); r.setAxis(new SFVec3f(0, 1, 0)); return r; }],
  ["SFRotation.getMatrix", () => R().getMatrix()],
  ["SFRotation.setMatrix", () => { const r = R(); r.setMatrix(R2().getMatrix()); return r; }],
  ["SFRotation.getQuaternion", () => R().getQuaternion()],
  ["SFRotation.setQuaternion", () => { const r = R(); r.setQuaternion(R2().getQuaternion()); return r; }],
  ["SFRotation.fromQuaternion", () => SFRotation.fromQuaternion(R2().getQuaternion())],
  ["SFRotation.fromMatrix", () => SFRotation.fromMatrix(R2().getMatrix())],
  ["SFRotation.inverse", () => R().inverse()],
  ["SFRotation.multiply", () => R().multiply(R2())],
  ["SFRotation.multiply applied", () => R().multiply(R2()).multVec(new SFVec3f(0, 1, 0))],
  ["SFRotation.multVec", () => new SFRotation(0, 0, 1, Math.PI / 2).multVec(new SFVec3f(1, 0, 0))],
  ["SFRotation.slerp", () => R().slerp(R2(), 0.3)],
  ["SFRotation.straighten", () => new SFRotation(0.1, 1, 0.2, 0.5).straighten()],
  ["SFRotation.equals", () => R().equals(R())],
  ["SFRotation.IDENTITY", () => SFRotation.IDENTITY],

  // Matrices.
  ...[
    ["SFMatrix3f", M3, () => new SFMatrix3f(0, 1, 0, 1, 0, 0, 0, 0, 1), SFVec2f, 2],
    ["SFMatrix3d", () => new SFMatrix3d(2, 1, 0, -1, 3, 0, 4, 5, 1), () => new SFMatrix3d(0, 1, 0, 1, 0, 0, 0, 0, 1), SFVec2d, 2],
    ["SFMatrix4f", M4, P4, SFVec3f, 3],
    ["SFMatrix4d", () => new SFMatrix4d(...M4()), () => new SFMatrix4d(...P4()), SFVec3d, 3],
  ].flatMap(([T, a, p, Vec, n]) => [
    [T + ".new()", () => new CLASS[T]()],
    [T + ".new(…)", a],
    [T + ".[i]=", () => { const m = a(); m[1] = 7; return m; }],
    [T + ".determinant", () => a().determinant()],
    [T + ".inverse", () => a().inverse()],
    [T + ".transpose", () => a().transpose()],
    [T + ".multLeft", () => a().multLeft(p())],
    [T + ".multRight", () => a().multRight(p())],
    [T + ".multVecMatrix", () => a().multVecMatrix(n === 3 ? new Vec(1, 2, 3) : new Vec(1, 2))],
    [T + ".multMatrixVec", () => a().multMatrixVec(n === 3 ? new Vec(1, 2, 3) : new Vec(1, 2))],
    [T + ".multDirMatrix", () => a().multDirMatrix(n === 3 ? new Vec(1, 2, 3) : new Vec(1, 2))],
    [T + ".multMatrixDir", () => a().multMatrixDir(n === 3 ? new Vec(1, 2, 3) : new Vec(1, 2))],
    [T + ".equals", () => a().equals(a())],
    [T + ".toString", () => a().toString()],
    [T + ".IDENTITY", () => CLASS[T].IDENTITY],
    [T + ".ZERO", () => CLASS[T].ZERO],
  ]),
  ["SFMatrix4f.setTransform", () => { const m = new SFMatrix4f(); m.setTransform(new SFVec3f(1, 2, 3), R(), new SFVec3f(2, 3, 4)); return m; }],
  ["SFMatrix4f.setTransform all", () => { const m = new SFMatrix4f(); m.setTransform(new SFVec3f(1, 2, 3), R(), new SFVec3f(2, 3, 4), R2(), new SFVec3f(-1, 0.5, 2)); return m; }],
  ["SFMatrix4f.getTransform", () => {
    const m = new SFMatrix4f();
    m.setTransform(new SFVec3f(1, 2, 3), R2(), new SFVec3f(2, 3, 4));
    const t = new SFVec3f(), r = new SFRotation(), s = new SFVec3f();
    m.getTransform(t, r, s);
    return [t, r, s];
  }],
  ["SFMatrix4f.getTransform center", () => {
    const m = new SFMatrix4f();
    m.setTransform(new SFVec3f(1, 2, 3), R2(), new SFVec3f(2, 2, 2), null, new SFVec3f(0, 1, 0));
    const t = new SFVec3f(), r = new SFRotation(), s = new SFVec3f();
    m.getTransform(t, r, s, null, new SFVec3f(0, 1, 0));
    return [t, r, s];
  }],
  ["SFMatrix4f.translate", () => M4().translate(new SFVec3f(1, 2, 3))],
  ["SFMatrix4f.rotate", () => M4().rotate(R())],
  ["SFMatrix4f.scale", () => M4().scale(new SFVec3f(1, 2, 3))],
  ["SFMatrix4d.translate", () => new SFMatrix4d(...M4()).translate(new SFVec3d(1, 2, 3))],
  ["SFMatrix3f.setTransform", () => { const m = new SFMatrix3f(); m.setTransform(new SFVec2f(1, 2), 0.5, new SFVec2f(2, 3)); return m; }],
  ["SFMatrix3f.getTransform", () => {
    const m = new SFMatrix3f();
    m.setTransform(new SFVec2f(1, 2), 0.5, new SFVec2f(2, 3));
    const t = new SFVec2f(), r = new SFVec3f(), s = new SFVec2f();
    m.getTransform(t, r, s);
    return [t, r, s];
  }],
  ["SFMatrix3f.translate", () => M3().translate(new SFVec2f(1, 2))],
  ["SFMatrix3f.rotate", () => M3().rotate(0.5)],
  ["SFMatrix3f.scale", () => M3().scale(new SFVec2f(2, 3))],
  ["SFMatrix3f.skewX", () => M3().skewX(0.25)],
  ["SFMatrix3f.skewY", () => M3().skewY(0.25)],

  // SFImage.
  ["SFImage.new()", () => new SFImage()],
  ["SFImage.new(…)", () => new SFImage(2, 1, 3, new MFInt32(0xff0000, 0x00ff00))],
  ["SFImage.width", () => new SFImage(2, 1, 3, new MFInt32(1, 2)).width],
  ["SFImage.height", () => new SFImage(2, 1, 3, new MFInt32(1, 2)).height],
  ["SFImage.comp", () => new SFImage(2, 1, 3, new MFInt32(1, 2)).comp],
  ["SFImage.array", () => new SFImage(2, 1, 3, new MFInt32(1, 2)).array],
  ["SFImage.x", () => new SFImage(2, 1, 3, new MFInt32(1, 2)).x],
  ["SFImage.y", () => new SFImage(2, 1, 3, new MFInt32(1, 2)).y],
  ["SFImage.short array", () => new SFImage(2, 2, 1, new MFInt32(7)).array],

  // MF types: arrays of their SF type.
  ["MFFloat.new(…)", () => new MFFloat(1, 2.5, 3)],
  ["MFInt32.new(…)", () => new MFInt32(1, 2.7, -3.2)],
  ["MFBool.new(…)", () => new MFBool(true, 0, 1)],
  ["MFString.new(…)", () => new MFString("a", 2)],
  ["MFTime.new(…)", () => new MFTime(1, 2)],
  ["MFDouble.new(…)", () => new MFDouble(1, 2)],
  ["MFVec2f.new(…)", () => new MFVec2f(new SFVec2f(1, 2))],
  ["MFVec3f.new(…)", () => new MFVec3f(V3(), W3())],
  ["MFVec4f.new(…)", () => new MFVec4f(V4())],
  ["MFVec2d.new(…)", () => new MFVec2d(new SFVec2d(1, 2))],
  ["MFVec3d.new(…)", () => new MFVec3d(new SFVec3d(1, 2, 3))],
  ["MFVec4d.new(…)", () => new MFVec4d(new SFVec4d(1, 2, 3, 4))],
  ["MFColor.new(…)", () => new MFColor(C())],
  ["MFColorRGBA.new(…)", () => new MFColorRGBA(CA())],
  ["MFRotation.new(…)", () => new MFRotation(R(), R2())],
  ["MFMatrix3f.new(…)", () => new MFMatrix3f(M3())],
  ["MFMatrix4f.new(…)", () => new MFMatrix4f(M4())],
  ["MFVec3f.length", () => new MFVec3f(V3(), W3()).length],
  ["MFVec3f.[i]", () => new MFVec3f(V3(), W3())[1]],
  ["MFVec3f.[i]= beyond", () => { const m = new MFVec3f(); m[2] = V3(); return m; }],
  ["MFFloat.[i]= beyond", () => { const m = new MFFloat(1); m[3] = 4; return m; }],
  ["MFString.[i]= beyond", () => { const m = new MFString(); m[1] = "b"; return m; }],
  ["MFVec3f.length= grow", () => { const m = new MFVec3f(V3()); m.length = 3; return m; }],
  ["MFFloat.length= shrink", () => { const m = new MFFloat(1, 2, 3); m.length = 1; return m; }],
  ["MFVec3f.push", () => { const m = new MFVec3f(); m.push(V3()); return m; }],
  ["MFFloat.push", () => { const m = new MFFloat(1); m.push(2, 3); return m; }],
  ["MFFloat.pop", () => { const m = new MFFloat(1, 2); return [m.pop(), m]; }],
  ["MFFloat.shift", () => { const m = new MFFloat(1, 2); return [m.shift(), m]; }],
  ["MFFloat.unshift", () => { const m = new MFFloat(1, 2); m.unshift(0); return m; }],
  ["MFFloat.splice", () => { const m = new MFFloat(1, 2, 3, 4); return [m.splice(1, 2, 9), m]; }],
  ["MFFloat.slice", () => new MFFloat(1, 2, 3).slice(1)],
  ["MFFloat.indexOf", () => new MFFloat(1, 2, 3).indexOf(2)],
  ["MFFloat.includes", () => new MFFloat(1, 2, 3).includes(3)],
  ["MFFloat.reverse", () => new MFFloat(1, 2, 3).reverse()],
  ["MFFloat.sort", () => new MFFloat(3, 1, 2).sort()],
  ["MFFloat.fill", () => new MFFloat(3, 1, 2).fill(7)],
  ["MFFloat.map", () => Array.from(new MFFloat(1, 2).map((x) => x * 2))],
  ["MFFloat.filter", () => Array.from(new MFFloat(1, 2, 3).filter((x) => x > 1))],
  ["MFFloat.reduce", () => new MFFloat(1, 2, 3).reduce((s, x) => s + x, 0)],
  ["MFFloat.forEach", () => { let s = 0; new MFFloat(1, 2, 3).forEach((x) => (s += x)); return s; }],
  ["MFFloat.some", () => new MFFloat(1, 2, 3).some((x) => x > 2)],
  ["MFFloat.every", () => new MFFloat(1, 2, 3).every((x) => x > 2)],
  ["MFFloat.find", () => new MFFloat(1, 2, 3).find((x) => x > 1)],
  ["MFFloat.findIndex", () => new MFFloat(1, 2, 3).findIndex((x) => x > 1)],
  ["MFFloat.join", () => new MFFloat(1, 2, 3).join("-")],
  ["MFFloat.at", () => new MFFloat(1, 2, 3).at(-1)],
  ["MFFloat.iterate", () => { let s = 0; for (const x of new MFFloat(1, 2, 3)) s += x; return s; }],
  ["MFFloat.assign", () => { const m = new MFFloat(1); m.assign(new MFFloat(4, 5)); return m; }],
  ["MFFloat.equals", () => new MFFloat(1, 2).equals(new MFFloat(1, 2))],
  ["MFVec3f.equals", () => new MFVec3f(V3()).equals(new MFVec3f(V3()))],
  ["MFInt32.toString", () => new MFInt32(1, 2).toString().replace(/[\s,\[\]]+/g, " ").trim()],

  // X3DConstants.
  ["X3DConstants.initializeOnly", () => X3DConstants.initializeOnly],
  ["X3DConstants.inputOnly", () => X3DConstants.inputOnly],
  ["X3DConstants.outputOnly", () => X3DConstants.outputOnly],
  ["X3DConstants.inputOutput", () => X3DConstants.inputOutput],
  ["X3DConstants.SFVec3f", () => X3DConstants.SFVec3f],
  ["X3DConstants.MFNode", () => X3DConstants.MFNode],
  ["X3DConstants.SFTime", () => X3DConstants.SFTime],
  ["X3DConstants.Transform", () => typeof X3DConstants.Transform],

  // The Browser object.
  ["Browser.name", () => typeof Browser.name],
  ["Browser.version", () => typeof Browser.version],
  ["Browser.currentTime", () => typeof Browser.currentTime],
  ["Browser.currentSpeed", () => typeof Browser.currentSpeed],
  ["Browser.currentFrameRate", () => typeof Browser.currentFrameRate],
  ["Browser.getName", () => typeof Browser.getName()],
  ["Browser.getVersion", () => typeof Browser.getVersion()],
  ["Browser.getCurrentTime", () => typeof Browser.getCurrentTime()],
  ["Browser.getCurrentSpeed", () => typeof Browser.getCurrentSpeed()],
  ["Browser.getCurrentFrameRate", () => typeof Browser.getCurrentFrameRate()],
  ["Browser.getWorldURL", () => typeof Browser.getWorldURL()],
  ["Browser.description", () => { Browser.description = "d"; return Browser.description; }],
  ["Browser.setDescription", () => { Browser.setDescription("e"); return Browser.description; }],
  ["Browser.print", () => typeof Browser.print],
  ["Browser.println", () => typeof Browser.println],
  ["Browser.createX3DFromString", () => typeof Browser.createX3DFromString],
  ["Browser.createVrmlFromString", () => typeof Browser.createVrmlFromString],
  ["Browser.createX3DFromURL", () => typeof Browser.createX3DFromURL],
  ["Browser.createVrmlFromURL", () => typeof Browser.createVrmlFromURL],
  ["Browser.loadURL", () => typeof Browser.loadURL],
  ["Browser.replaceWorld", () => typeof Browser.replaceWorld],
  ["Browser.addRoute", () => typeof Browser.addRoute],
  ["Browser.deleteRoute", () => typeof Browser.deleteRoute],

  // SFNode: a node the Script holds (`node`, a Transform DEF'd Held).
  ["SFNode.field", () => node.translation],
  ["SFNode.field rotation", () => node.rotation],
  ["SFNode.field MF", () => node.children.length],
  ["SFNode.getNodeName", () => node.getNodeName()],
  ["SFNode.getNodeTypeName", () => node.getNodeTypeName()],
  ["SFNode.getNodeType", () => Array.from(node.getNodeType()).includes(X3DConstants.Transform)],
  ["SFNode.getFieldDefinitions", () => Array.from(node.getFieldDefinitions()).some((d) => d.name === "translation" && d.dataType === X3DConstants.SFVec3f && d.accessType === X3DConstants.inputOutput)],
  ["SFNode.set field", () => { node.scale = new SFVec3f(2, 2, 2); return node.scale; }],
  ["SFNode.set_ field", () => { node.set_translation = new SFVec3f(1, 2, 3); return node.translation; }],
  ["SFNode.field_changed", () => node.translation_changed],
];

// A value in a form both sides compare: [type, value]. (The field
// classes are in a Script's scope, not always properties of globalThis.)
const CLASS = {
  SFVec2f, SFVec2d, SFVec3f, SFVec3d, SFVec4f, SFVec4d, SFColor, SFColorRGBA, SFRotation,
  SFMatrix3f, SFMatrix3d, SFMatrix4f, SFMatrix4d, SFImage,
  MFBool, MFInt32, MFFloat, MFDouble, MFTime, MFString, MFNode, MFVec2f, MFVec2d, MFVec3f, MFVec3d,
  MFVec4f, MFVec4d, MFColor, MFColorRGBA, MFRotation, MFMatrix3f, MFMatrix3d, MFMatrix4f, MFMatrix4d,
};
const TYPES = Object.keys(CLASS);
const SIZE = { SFVec2f: 2, SFVec2d: 2, SFVec3f: 3, SFVec3d: 3, SFVec4f: 4, SFVec4d: 4, SFColor: 3, SFColorRGBA: 4, SFRotation: 4, SFMatrix3f: 9, SFMatrix3d: 9, SFMatrix4f: 16, SFMatrix4d: 16 };
function num(x) {
  return Number.isFinite(x) ? x : String(x);
}
function norm(v) {
  if (v === null || v === undefined) return [String(v)];
  const t = typeof v;
  if (t === "number") return [t, num(v)];
  if (t === "boolean" || t === "string") return [t, v];
  if (typeof v.getNodeTypeName === "function") return ["SFNode", v.getNodeName()];
  for (const T of TYPES) {
    if (typeof CLASS[T] !== "function" || !(v instanceof CLASS[T])) continue;
    if (T === "SFImage") return [T, [v.width, v.height, v.comp, ...Array.from(v.array)]];
    if (T.startsWith("MF")) return [T, Array.from(v, norm)];
    return [T, Array.from({ length: SIZE[T] }, (_, i) => num(Number(v[i])))];
  }
  if (Array.isArray(v)) return ["Array", v.map(norm)];
  return ["object", String(v)];
}

function initialize() {
  const results = {};
  for (const [name, f] of CASES) {
    try {
      results[name] = norm(f());
    } catch (e) {
      results[name] = ["throws", String(e && e.message)];
    }
  }
  result = JSON.stringify(results);
}
