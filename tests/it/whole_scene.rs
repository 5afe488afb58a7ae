//! The whole scene reaches the glTF: prototype instances, nodes under node
//! types x3dbake does not know, and a warning for every node type that glTF
//! cannot hold.

use crate::util;
use serde_json::Value;

/// Bakes X3D text to a .glb; returns the document's JSON and the warnings.
fn bake(text: &str) -> (Value, String) {
    let (dir, path) = util::scene_file("scene.x3d", text);
    let out = dir.path().join("scene.glb");
    let o = util::run(&[&path, "-o", out.to_str().unwrap()]);
    let err = util::stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    (util::document_json(&std::fs::read(&out).unwrap()).0, err)
}

/// The index of the glTF node of that name.
fn node_named(json: &Value, name: &str) -> usize {
    let nodes = json["nodes"].as_array().unwrap();
    nodes
        .iter()
        .position(|n| n["name"] == name)
        .unwrap_or_else(|| panic!("no node {name}: {nodes:?}"))
}

/// The node indices below `node`, itself included.
fn subtree(json: &Value, node: usize) -> Vec<usize> {
    let mut all = vec![node];
    for c in json["nodes"][node]["children"]
        .as_array()
        .into_iter()
        .flatten()
    {
        all.extend(subtree(json, c.as_u64().unwrap() as usize));
    }
    all
}

/// The (node, path) of every channel.
fn channels(json: &Value) -> Vec<(usize, String)> {
    json["animations"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|a| a["channels"].as_array().unwrap())
        .map(|c| {
            let t = &c["target"];
            (
                t["node"].as_u64().unwrap() as usize,
                t["path"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const SPINNER: &str = r#"<X3D><Scene>
<ProtoDeclare name="Spinner"><ProtoBody>
  <Transform DEF="Arm"><Shape><Box size="1 2 3"/></Shape></Transform>
  <TimeSensor DEF="Clock" cycleInterval="4" loop="true"/>
  <OrientationInterpolator DEF="Turn" key="0 1" keyValue="0 1 0 0 0 1 0 3"/>
  <ROUTE fromNode="Clock" fromField="fraction_changed" toNode="Turn" toField="set_fraction"/>
  <ROUTE fromNode="Turn" fromField="value_changed" toNode="Arm" toField="rotation"/>
</ProtoBody></ProtoDeclare>
<ProtoInstance DEF="Left" name="Spinner"/>
<ProtoInstance DEF="Right" name="Spinner"/>
</Scene></X3D>"#;

#[test]
fn prototype_instances_are_written_as_their_bodies() {
    let (json, _) = bake(SPINNER);
    for instance in ["Left", "Right"] {
        let top = node_named(&json, instance);
        let below = subtree(&json, top);
        let arm = node_named(&json, &format!("{instance}.Arm"));
        assert!(below.contains(&arm), "{instance}");
        // The body's Shape has its mesh, and the Transform its rotation.
        assert!(
            below.iter().any(|&n| json["nodes"][n]["mesh"].is_u64()),
            "{instance}"
        );
        assert!(channels(&json).contains(&(arm, "rotation".to_string())));
    }
    assert_eq!(json["animations"].as_array().unwrap().len(), 2);
}

#[test]
fn a_prototype_instance_as_geometry_is_its_first_body_node() {
    let (json, err) = bake(
        r#"<X3D><Scene>
<ProtoDeclare name="Brick"><ProtoBody><Box size="1 2 3"/></ProtoBody></ProtoDeclare>
<Shape><ProtoInstance name="Brick" containerField="geometry"/></Shape>
</Scene></X3D>"#,
    );
    assert!(!err.contains("not drawn"), "{err}");
    let mesh = &json["meshes"][0]["primitives"][0];
    let position = mesh["attributes"]["POSITION"].as_u64().unwrap() as usize;
    assert_eq!(
        json["accessors"][position]["max"],
        serde_json::json!([0.5, 1.0, 1.5])
    );
}

#[test]
fn nodes_under_node_types_x3dbake_does_not_know_are_written() {
    // h3dapi's ToggleGroup; castle's Skin holds a whole skeleton the same way.
    let (json, err) = bake(
        r#"<X3D><Scene>
<ToggleGroup DEF="Toggle" graphicsOn="true">
  <Transform DEF="Moved"><Shape><Sphere/></Shape></Transform>
</ToggleGroup>
<TimeSensor DEF="Clock" loop="true"/>
<PositionInterpolator DEF="Path" key="0 1" keyValue="0 0 0 1 2 3"/>
<ROUTE fromNode="Clock" fromField="fraction_changed" toNode="Path" toField="set_fraction"/>
<ROUTE fromNode="Path" fromField="value_changed" toNode="Moved" toField="translation"/>
</Scene></X3D>"#,
    );
    assert!(
        err.contains(
            "warning: `ToggleGroup` is not an X3D node type: its fields are not read; nodes \
             under it are written as a group"
        ),
        "{err}"
    );
    let group = node_named(&json, "Toggle");
    let moved = node_named(&json, "Moved");
    assert!(subtree(&json, group).contains(&moved));
    assert!(channels(&json).contains(&(moved, "translation".to_string())));
    assert!(json["nodes"][moved]["children"].is_array());
}

#[test]
fn node_types_gltf_cannot_hold_are_named_once_each() {
    let (_, err) = bake(
        r#"<X3D><Scene>
<NavigationInfo type='"EXAMINE"'/>
<Group><TouchSensor DEF="A"/><Shape><Box/></Shape></Group>
<TouchSensor DEF="B"/>
<TimeSensor DEF="Clock"/>
</Scene></X3D>"#,
    );
    // Each line without the temporary folder before the file's name.
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("glTF counterpart"))
        .filter_map(|l| l.rsplit_once('/').map(|(_, w)| w))
        .collect();
    assert_eq!(
        warnings,
        [
            "scene.x3d:2:2: warning: `NavigationInfo` has no glTF counterpart: 1 node of this type \
             not written",
            "scene.x3d:3:9: warning: `TouchSensor` has no glTF counterpart: 2 nodes of this type \
             not written",
        ]
    );
}

#[test]
fn inspect_says_which_tracks_reach_the_gltf_and_the_bake_names_the_others() {
    let scene = "fixtures/scenes/routing.x3d";
    let report = util::run_ok_within(&["inspect", "-q", scene], 20);
    let none: Vec<&str> = report
        .lines()
        .filter(|l| l.ends_with("; glTF: none (CSV only)"))
        .map(|l| l.trim_start().split(' ').next().unwrap())
        .collect();
    assert_eq!(none, ["Mat.ambientIntensity"]);
    assert!(
        report.contains("Mover.translation <- Path: exact linear, 3 keyframes; glTF: node channel")
    );
    assert!(report.contains("; glTF: KHR_animation_pointer"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.glb");
    let err = util::stderr(&util::run(&[scene, "-o", out.to_str().unwrap()]));
    for track in none {
        assert!(
            err.contains(&format!(
                "`{track}` (Material) has no glTF animation target yet"
            )),
            "{err}"
        );
    }
}

/// The accessor `index`'s max.
fn accessor_max(json: &Value, index: &Value) -> Vec<f64> {
    let a = &json["accessors"][index.as_u64().unwrap() as usize];
    a["max"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

#[test]
fn animated_generated_geometry_is_drawn_again_as_morph_targets() {
    // Rectangle2D's size from 2 × 2 to 4 × 2, and an Extrusion's spine from
    // 1 to 3 long, over one second: sampled at 30 Hz, each sample a morph
    // target, its displacement the shape's growth.
    let (json, err) = bake(
        r#"<X3D><Scene>
<Shape><Rectangle2D DEF="R"/></Shape>
<Shape><Extrusion DEF="E" spine="0 0 0, 0 1 0"/></Shape>
<TimeSensor DEF="T" cycleInterval="1"/>
<PositionInterpolator2D DEF="S" key="0 1" keyValue="2 2, 4 2"/>
<CoordinateInterpolator DEF="P" key="0 1" keyValue="0 0 0, 0 1 0, 0 0 0, 0 3 0"/>
<ROUTE fromNode="T" fromField="fraction_changed" toNode="S" toField="set_fraction"/>
<ROUTE fromNode="T" fromField="fraction_changed" toNode="P" toField="set_fraction"/>
<ROUTE fromNode="S" fromField="value_changed" toNode="R" toField="size"/>
<ROUTE fromNode="P" fromField="value_changed" toNode="E" toField="spine"/>
</Scene></X3D>"#,
    );
    assert!(!err.contains("no glTF animation target"), "{err}");
    let meshes = json["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 2);
    for (mesh, growth) in meshes.iter().zip([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]) {
        let targets = mesh["primitives"][0]["targets"].as_array().unwrap();
        assert_eq!(targets.len(), 31, "{}", mesh["name"]);
        let last = accessor_max(&json, &targets[30]["POSITION"]);
        assert_eq!(last, growth, "{}", mesh["name"]);
        let half = accessor_max(&json, &targets[15]["POSITION"]);
        assert!(
            (half[0] - growth[0] / 2.0).abs() < 1e-6 && (half[1] - growth[1] / 2.0).abs() < 1e-6
        );
    }
    let weights: Vec<_> = channels(&json)
        .into_iter()
        .filter(|(_, p)| p == "weights")
        .collect();
    assert_eq!(weights.len(), 2);
    // inspect says so too.
    let (_dir, path) = util::scene_file(
        "g.x3d",
        "<X3D><Scene><Shape><Rectangle2D DEF='R'/></Shape><TimeSensor DEF='T'/><PositionInterpolator2D DEF='S' key='0 1' keyValue='2 2, 4 2'/><ROUTE fromNode='T' fromField='fraction_changed' toNode='S' toField='set_fraction'/><ROUTE fromNode='S' fromField='value_changed' toNode='R' toField='size'/></Scene></X3D>",
    );
    let report = util::run_ok_within(&["inspect", "-q", &path], 20);
    assert!(
        report.contains("R.size <- S: exact linear, 2 keyframes; glTF: morph weights"),
        "{report}"
    );
}

#[test]
fn tracks_that_reach_nothing_say_why() {
    // An interpolator without keys sends nothing: the target keeps its value.
    let (_dir, path) = util::scene_file(
        "k.x3d",
        "<X3D><Scene><Transform DEF='T'/><TimeSensor DEF='C'/>\
         <OrientationInterpolator DEF='O'/>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='O' toField='set_fraction'/>\
         <ROUTE fromNode='O' fromField='value_changed' toNode='T' toField='rotation'/>\
         </Scene></X3D>",
    );
    let report = util::run_ok_within(&["inspect", "-q", &path], 20);
    assert!(
        report.contains(
            "T.rotation <- O: no keys: sends nothing; glTF: none (the target keeps its value)"
        ),
        "{report}"
    );
    // A TextureTransform of a shape that is not drawn has nowhere to go.
    let (_, err) = bake(
        "<X3D><Scene><Shape><Appearance><Material/><TextureTransform DEF='TT'/></Appearance>\
         <Torus/></Shape><TimeSensor DEF='C'/>\
         <PositionInterpolator2D DEF='P' key='0 1' keyValue='0 0, 1 1'/>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='TT' toField='translation'/>\
         </Scene></X3D>",
    );
    assert!(
        err.contains("`TT.translation` (TextureTransform) is not in the drawn scene"),
        "{err}"
    );
}

#[test]
fn switch_choices_and_lod_levels_not_written_are_named_once() {
    let (json, err) = bake(
        "<X3D><Scene>\
         <Switch DEF='S' whichChoice='0'><Shape><Box/></Shape><Shape><Sphere/></Shape><Shape><Cone/></Shape></Switch>\
         <Transform><Switch USE='S'/></Transform>\
         <LOD DEF='L'><Shape><Box/></Shape><Shape><Sphere/></Shape></LOD>\
         </Scene></X3D>",
    );
    let lines: Vec<&str> = err
        .lines()
        .filter_map(|l| l.split_once(": warning: ").map(|(_, w)| w))
        .collect();
    assert_eq!(
        lines,
        [
            "`S` (Switch) shows its whichChoice alone (not animated): 2 other choices not written",
            "`L` (LOD) is written at its first level: 1 other level not written",
        ]
    );
    // The Switch's choice at both its places, and the LOD's first level:
    // two default Boxes, one mesh.
    assert_eq!(json["meshes"].as_array().unwrap().len(), 1);
    let drawn = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["mesh"].is_u64());
    assert_eq!(drawn.count(), 3);
}

/// A WorldInfo's title and info (its authors, copyright) reach the glTF as
/// the asset's extras, with no warning; a second WorldInfo that gives any
/// is named as not written, and an empty one is no loss.
#[test]
fn world_info_is_the_assets_extras() {
    let (json, err) = bake(
        r#"<X3D><Scene>
          <WorldInfo title="Nancy" info='"Copyright (c) 1997 3Name3D" "an H-Anim avatar"'/>
          <WorldInfo/>
          <Transform><WorldInfo DEF="Late" title="later"/></Transform>
          <Shape><Box/></Shape>
        </Scene></X3D>"#,
    );
    assert_eq!(
        json["asset"]["extras"],
        serde_json::json!({"title": "Nancy", "info": ["Copyright (c) 1997 3Name3D", "an H-Anim avatar"]})
    );
    assert!(
        !err.contains("`WorldInfo` has no glTF counterpart"),
        "{err}"
    );
    assert!(
        err.contains("`Late` (WorldInfo): only the scene's first WorldInfo is written"),
        "{err}"
    );
    assert_eq!(err.matches("WorldInfo").count(), 2, "{err}");
}

/// A LayerSet's layers are drawn as groups, in the order its `order` lists
/// (fixtures/world/layers.x3d: layers 1 and 2), with the animated node in
/// the second moving; a layer the order leaves out, and a layer's
/// viewport, are named in warnings. (Before, everything under a LayerSet
/// was dropped.)
#[test]
fn layers_are_drawn_in_their_order() {
    let o = util::run(&["fixtures/world/layers.x3d", "-o", "-", "--format", "glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    let names = util::node_names(&json);
    assert_eq!(names, ["Still", "Mover"]);
    let mover = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == "Mover")
        .unwrap();
    let channels = json["animations"][0]["channels"].as_array().unwrap();
    assert!(channels.iter().any(|c| c["target"]["node"] == mover));
    let err = util::stderr(&o);
    assert!(
        err.contains("(LayerSet) draws the layers its order lists: 1 other layer not written"),
        "{err}"
    );
    assert!(
        err.contains("`Viewport` has no glTF counterpart: 1 node of this type not written"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("layers.glb");
    std::fs::write(&glb, &o.stdout).unwrap();
    util::assert_validator_clean(&[glb]);
}

/// Every node type of the catalogue with an MFNode `children` field (taken
/// from the node table, not from a list) draws a Shape it holds there:
/// one glTF mesh node each, as X_ITE's renderer walks `children`.
#[test]
fn every_node_type_with_children_draws_them() {
    use x3dbake::internal::scene::{FieldType, NodeType, node_def};
    let mut checked = Vec::new();
    for ty in NodeType::ALL {
        let Some(def) = node_def(ty.name()) else {
            continue;
        };
        let takes_children = def.field("children").is_some_and(|f| {
            f.ty == FieldType::MFNode && f.access != x3dbake::internal::scene::Access::OutputOnly
        });
        // (A Switch shows its choice, -1 by default; a LOD its first level.)
        if !takes_children || matches!(ty, NodeType::Switch) {
            continue;
        }
        let name = ty.name();
        let (_dir, f) = util::scene_file(
            "c.x3d",
            &format!(
                "<X3D profile='Full'><Scene><{name}><Shape><Box/></Shape></{name}></Scene></X3D>"
            ),
        );
        let o = util::run(&[&f, "-o", "-", "--format", "glb", "-q"]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", util::stderr(&o));
        let (json, _) = util::document_json(&o.stdout);
        let drawn = json["nodes"]
            .as_array()
            .map_or(0, |n| n.iter().filter(|n| n["mesh"].is_u64()).count());
        assert_eq!(drawn, 1, "{name} does not draw its children");
        checked.push(name);
    }
    assert!(checked.len() > 25, "{checked:?}");
}
