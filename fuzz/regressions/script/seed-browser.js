function initialize() {
  Browser.setDescription(Browser.getName() + Browser.getVersion() + Browser.currentFrameRate);
  Browser.description = {};
  var s = Browser.createX3DFromString("<X3D><Scene><Group DEF='X'><Transform/></Group></Scene></X3D>");
  s.then(function (x) { oMFNode = x.rootNodes; });
  var n = Browser.currentScene.createNode("Transform");
  n.children[0] = new SFNode("Shape { geometry Box { } }");
  n.getFieldDefinitions().forEach(function (f) { print(f.name, f.dataType, f.accessType); });
  node.children = new MFNode(n, null, nodes[0]);
  print(node.getNodeName(), node.getNodeTypeName(), node.getNodeType(), node.getField("set_translation"));
  try { Browser.addRoute(node, "a", node, "b"); } catch (e) { print(e); }
  try { Browser.loadURL(new MFString("x"), new MFString()); } catch (e) { print(e); }
  try { Browser.currentScene.createNode("NoSuchNode"); } catch (e) { print(e); }
  try { node.noSuchField = 1; } catch (e) { print(e); }
  nodes[2].startTime = -1; nodes[2].cycleInterval = 0;
  X3DConstants.SFVec3f; Math.random(); new Date();
}
function iSFVec3f(v, t) { aSFVec3f = v; node.scale = v.negate(); }
function aSFTime(t) { oSFColor = new SFColor(t % 1, 0, 0); }
function eventsProcessed() { node.rotation = new SFRotation(new SFVec3f(1, 0, 0), new SFVec3f(0, 1, 0)); }
