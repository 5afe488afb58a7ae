function initialize() {
  var v = new SFVec3f(1, 2, 3), w = new SFVec3f(NaN, -0, 1e308);
  oSFVec3f = v.add(w).cross(v).normalize().multiply(-2).divide(0);
  aSFRotation = new SFRotation(v, w).multiply(new SFRotation(0, 1, 0, Math.PI)).slerp(new SFRotation(), 0.5);
  oSFColor = new SFColor(2, -1, 0.5).lerp(SFColor.fromHSV(400, 2, -1), 3);
  aSFColorRGBA = new SFColorRGBA().setHSVA(1, 1, 1, 1);
  var m = new SFMatrix4f(); m.setTransform(v, aSFRotation, w, new SFRotation(), v);
  aSFMatrix4f = m.inverse().multLeft(m.transpose());
  aSFMatrix3f = new SFMatrix3f(1, 2, 3, 4, 5, 6, 7, 8, 9).inverse();
  aSFImage = new SFImage(2, 2, 4, new MFInt32(1, 2, 3, 4));
  aMFVec3f = new MFVec3f(v, w, v);
  aMFVec3f.length = 7; aMFVec3f[100] = v; aMFVec3f.splice(1, 2, w);
  aMFFloat = new MFFloat(1, 2, NaN); aMFFloat.fill(3, 1);
  aMFString = new MFString("a", undefined, null, 4);
  aMFInt32 = new MFInt32(2147483648, -1, 1.5);
  aSFString = String(aMFNode) + aSFNode;
  aSFTime = Browser.getCurrentTime() + Date.now();
  aMFRotation[3] = new SFRotation(0, 0, 0, 0);
  aSFVec4d = new SFVec4d(1, 2, 3, 4).multVec(new SFVec4d());
  aSFVec2f = new SFVec2f(1, 2).reflect(new SFVec2f(0, 0));
  print(aSFVec3d, aMFDouble, aSFBool, aSFInt32, aMFVec2d, aMFColor, aMFMatrix3d);
}
function iSFFloat(f, t) {
  oSFFloat = f; oSFVec3f = new SFVec3f(f, f * 2, -f); oSFInt32 = Math.floor(f * 3);
  node.translation = new SFVec3f(f, 0, 0);
  nodes[1].diffuseColor = new SFColor(f, 1 - f, 0);
  if (f > 0.5) oSFBool = false;
}
function iSFTime(t) { oSFTime = t + 1; }
function eventsProcessed() { oMFNode = new MFNode(Browser.createVrmlFromString('Transform { }')[0]); }
