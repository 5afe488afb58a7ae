//! Geometry drawn again as it moves (an Extrusion's spine or cross-section
//! animated): the surface the glTF shows at each key, played as a viewer
//! plays it (morph weights, KHR_node_visibility), against the surface
//! X_ITE draws from the same fields.

use crate::util;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// An accessor's numbers, whatever their component type.
fn numbers(json: &Value, bin: &[u8], index: &Value) -> Vec<f64> {
    let a = &json["accessors"][index.as_u64().expect("an accessor index") as usize];
    let view = &json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let start =
        (view["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0)) as usize;
    let width = match a["type"].as_str().unwrap() {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        t => panic!("accessor type {t}"),
    };
    let n = a["count"].as_u64().unwrap() as usize * width;
    assert!(view["byteStride"].is_null(), "tightly packed");
    let at = |i: usize, size: usize| &bin[start + i * size..start + (i + 1) * size];
    (0..n)
        .map(|i| match a["componentType"].as_u64().unwrap() {
            5121 => at(i, 1)[0] as f64,
            5123 => u16::from_le_bytes(at(i, 2).try_into().unwrap()) as f64,
            5125 => u32::from_le_bytes(at(i, 4).try_into().unwrap()) as f64,
            5126 => f32::from_le_bytes(at(i, 4).try_into().unwrap()) as f64,
            c => panic!("component type {c}"),
        })
        .collect()
}

/// What a viewer shows of a baked file's one moving mesh at each key of
/// its first animation: the key's time, the area of the triangles of the
/// nodes shown then, and the area had the first node been shown
/// throughout (the mesh's own triangulation).
struct Played {
    times: Vec<f64>,
    shown: Vec<f64>,
    own: Vec<f64>,
    /// Mesh nodes, and how many of them have a visibility channel.
    nodes: usize,
    switched: usize,
}

fn play(glb: &Path) -> Played {
    let (json, bin) = util::document_json(&std::fs::read(glb).unwrap());
    let anim = &json["animations"][0];
    let sampler = |c: &Value| &anim["samplers"][c["sampler"].as_u64().unwrap() as usize];
    let channels = anim["channels"].as_array().unwrap();
    let weights = channels
        .iter()
        .find(|c| c["target"]["path"] == "weights")
        .expect("a weights channel");
    let times = numbers(&json, &bin, &sampler(weights)["input"]);
    let w = numbers(&json, &bin, &sampler(weights)["output"]);
    // Each node's visibility at each key (shown throughout without one).
    let mut visible: std::collections::BTreeMap<usize, Vec<f64>> = Default::default();
    for c in channels {
        // (--visibility scale: a STEP scale, zero when hidden.)
        if c["target"]["path"] == "scale" {
            let node = c["target"]["node"].as_u64().unwrap() as usize;
            assert_eq!(sampler(c)["interpolation"], "STEP");
            let scales = numbers(&json, &bin, &sampler(c)["output"]);
            let shown = scales
                .chunks_exact(3)
                .map(|s| f64::from(u8::from(s != [0.0; 3])));
            visible.insert(node, shown.collect());
            continue;
        }
        let pointer = &c["target"]["extensions"]["KHR_animation_pointer"]["pointer"];
        let Some(p) = pointer.as_str() else { continue };
        let node: usize = p.split('/').nth(2).unwrap().parse().unwrap();
        assert!(
            p.ends_with("/extensions/KHR_node_visibility/visible"),
            "{p}"
        );
        assert_eq!(sampler(c)["interpolation"], "STEP");
        assert_eq!(
            sampler(c)["input"],
            sampler(weights)["input"],
            "the same keys"
        );
        visible.insert(node, numbers(&json, &bin, &sampler(c)["output"]));
    }
    let nodes: Vec<(usize, &Value)> = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, n)| n["mesh"].is_u64())
        .collect();
    let mesh_area = |mesh: &Value, k: usize| -> f64 {
        let prim = &mesh["primitives"][0];
        let base = numbers(&json, &bin, &prim["attributes"]["POSITION"]);
        let targets = prim["targets"].as_array().unwrap();
        let mut p = base.clone();
        for (i, t) in targets.iter().enumerate() {
            let weight = w[k * targets.len() + i];
            if weight != 0.0 {
                let d = numbers(&json, &bin, &t["POSITION"]);
                p.iter_mut().zip(d).for_each(|(a, b)| *a += weight * b);
            }
        }
        let v = |i: f64| glam::DVec3::from_slice(&p[3 * i as usize..3 * i as usize + 3]);
        numbers(&json, &bin, &prim["indices"])
            .chunks_exact(3)
            .map(|t| (v(t[1]) - v(t[0])).cross(v(t[2]) - v(t[0])).length() / 2.0)
            .sum()
    };
    let mesh_of = |n: &Value| &json["meshes"][n["mesh"].as_u64().unwrap() as usize];
    let shown = (0..times.len())
        .map(|k| {
            nodes
                .iter()
                .filter(|(i, n)| match visible.get(i) {
                    Some(v) => v[k] != 0.0,
                    None => {
                        n["extensions"]["KHR_node_visibility"]["visible"] != false
                            && n["scale"] != serde_json::json!([0.0, 0.0, 0.0])
                    }
                })
                .map(|(_, n)| mesh_area(mesh_of(n), k))
                .sum()
        })
        .collect();
    let own = (0..times.len())
        .map(|k| mesh_area(mesh_of(nodes[0].1), k))
        .collect();
    Played {
        times,
        shown,
        own,
        nodes: nodes.len(),
        switched: visible.len(),
    }
}

/// X_ITE's surface area of `geometry` at each fraction sent to
/// `interpolator` (tools/xite-geometry.mjs); `None` without X_ITE.
fn xite_areas(
    scene: &Path,
    interpolator: &str,
    geometry: &str,
    fractions: &[f64],
) -> Option<Vec<f64>> {
    let dir = util::tool_dir("X3DBAKE_XITE", "X_ITE's Extrusion areas")?;
    let list: Vec<String> = fractions.iter().map(|f| f.to_string()).collect();
    let list = list.join(",");
    let tool = util::root().join("tools/xite-geometry.mjs");
    let args = [
        tool.as_os_str(),
        dir.as_os_str(),
        scene.as_os_str(),
        interpolator.as_ref(),
        geometry.as_ref(),
        list.as_ref(),
    ];
    let out = util::node(&args, Some(&dir), &[]);
    let rows: Vec<Value> = String::from_utf8_lossy(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON line a fraction"))
        .collect();
    assert_eq!(rows.len(), fractions.len());
    Some(rows.iter().map(|r| r["area"].as_f64().unwrap()).collect())
}

fn bake(name: &str) -> (PathBuf, tempfile::TempDir, PathBuf, String) {
    bake_file(util::root().join("fixtures/scenes").join(name), &[])
}

fn bake_file(scene: PathBuf, extra: &[&str]) -> (PathBuf, tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("out.glb");
    let mut args = vec![scene.to_str().unwrap(), "-o", glb.to_str().unwrap()];
    args.extend(extra);
    let out = util::run(&args);
    assert!(out.status.success(), "{}", util::stderr(&out));
    (scene, dir, glb, util::stderr(&out))
}

/// The largest difference of the shown area from X_ITE's, relative.
fn worst(
    played: &Played,
    cycle: f64,
    scene: &Path,
    interpolator: &str,
    geometry: &str,
) -> Option<f64> {
    let fractions: Vec<f64> = played.times.iter().map(|t| (t / cycle).min(1.0)).collect();
    let theirs = xite_areas(scene, interpolator, geometry, &fractions)?;
    Some(
        played
            .shown
            .iter()
            .zip(&theirs)
            .map(|(a, b)| (a - b).abs() / b)
            .fold(0.0, f64::max),
    )
}

#[test]
fn a_bending_petal_keeps_its_triangles_and_draws_x_ites_surface() {
    // Concave cross-section (convex FALSE), a spine that bends and twists:
    // the sides keep their diagonals and the caps their cut, so one mesh
    // with morph targets holds every key.
    let (scene, _dir, glb, err) = bake("extrusion_petal.x3d");
    assert_eq!(err, "", "no warning");
    let played = play(&glb);
    assert_eq!((played.nodes, played.switched), (1, 0));
    assert_eq!(played.times.len(), 121, "4 s at 30 Hz");
    if let Some(worst) = worst(&played, 4.0, &scene, "Bend", "Petal") {
        assert!(worst < 1e-5, "area off X_ITE's by {worst:e}");
    }
    util::assert_validator_clean(&[glb]);
}

#[test]
fn a_cap_that_needs_another_cut_is_shown_cut_both_ways_in_turn() {
    // The dart's notch moves to the other side: the cap's first cut turns a
    // triangle over half-way. The glTF holds both cuts, one node each, and
    // shows the one that is right at each key.
    let (scene, _dir, glb, err) = bake("extrusion_dart.x3d");
    assert_eq!(err, "", "no warning");
    let played = play(&glb);
    assert_eq!((played.nodes, played.switched), (2, 2));
    // Had the first cut been kept, the surface would be wrong by more than
    // a percent somewhere (a triangle drawn outside the cap).
    let kept = played
        .shown
        .iter()
        .zip(&played.own)
        .map(|(a, b)| (a - b).abs() / a)
        .fold(0.0, f64::max);
    assert!(
        kept > 0.01,
        "the first cut would hold throughout ({kept:e})"
    );
    if let Some(worst) = worst(&played, 2.0, &scene, "Turn", "Dart") {
        assert!(worst < 1e-5, "area off X_ITE's by {worst:e}");
    }
    util::assert_validator_clean(&[glb]);
}

#[test]
fn an_unevenly_spaced_spine_is_placed_as_the_text_says_not_as_x_ite() {
    // The text's Y axis at a spine point is along spine[i+1] − spine[i−1];
    // X_ITE takes the bisector of the two unit directions, the same only
    // where the neighbours are equally far. A spine bending from a line to
    // an uneven curve: equal at the straight keys, apart in between.
    let uneven = |s: f64| -> String {
        (0..5)
            .map(|i| {
                let a = i as f64 * 0.7 * s;
                format!(
                    "{} {} {}",
                    0.8 * a.sin() * s,
                    i as f64 * 0.6,
                    0.5 * (1.0 - a.cos()) * s
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let text = format!(
        r#"<X3D><Scene><Shape><Extrusion DEF="E" crossSection="0 0, 0.3 0.1, 0.5 0.4, 0 0"
 spine="{0}" scale="1 1, 1.2 1.2, 1 1, 0.6 0.6, 0.1 0.1"/></Shape>
<TimeSensor DEF="T" cycleInterval="4" loop="true"/>
<CoordinateInterpolator DEF="I" key="0 0.5 1" keyValue="{0}, {1}, {0}"/>
<ROUTE fromNode="T" fromField="fraction_changed" toNode="I" toField="set_fraction"/>
<ROUTE fromNode="I" fromField="value_changed" toNode="E" toField="set_spine"/></Scene></X3D>"#,
        uneven(0.0),
        uneven(1.0)
    );
    let (_keep, path) = util::scene_file("uneven.x3d", &text);
    let (scene, _dir, glb, _) = bake_file(PathBuf::from(path), &[]);
    let played = play(&glb);
    let Some(apart) = worst(&played, 4.0, &scene, "I", "E") else {
        return;
    };
    assert!((1e-5..1e-3).contains(&apart), "{apart:e}");
}

#[test]
fn the_cuts_shown_by_scale_draw_the_same_surface() {
    // --visibility scale, for viewers without KHR_node_visibility: the
    // hidden cut has a zero scale, STEP scale channels switch them, no
    // extension is used; the surface shown at every key is the same.
    let scene = util::root().join("fixtures/scenes/extrusion_dart.x3d");
    let (_, _d1, by_extension, _) = bake_file(scene.clone(), &[]);
    let (_, _d2, by_scale, err) = bake_file(scene, &["--visibility", "scale"]);
    assert_eq!(err, "", "no warning");
    let (json, _) = util::document_json(&std::fs::read(&by_scale).unwrap());
    assert!(
        json["extensionsUsed"]
            .as_array()
            .is_none_or(|e| e.is_empty()),
        "{}",
        json["extensionsUsed"]
    );
    let (a, b) = (play(&by_extension), play(&by_scale));
    assert_eq!((b.nodes, b.switched), (2, 2));
    assert_eq!(a.times, b.times);
    for (x, y) in a.shown.iter().zip(&b.shown) {
        assert!((x - y).abs() < 1e-9, "{x} {y}");
    }
    // three.js (no KHR_node_visibility) plays the scale channels: at each
    // key, the cut our reading shows is the one with a scale, halfway
    // between keys too (STEP).
    if let Some(three) = util::tool_dir("X3DBAKE_THREE", "three.js playing cuts by scale") {
        let times: Vec<f64> = b
            .times
            .iter()
            .map(|t| t + 1e-3)
            .filter(|&t| t < 2.0)
            .collect();
        let mut args = vec![
            util::root().join("tools/three-play.mjs").into_os_string(),
            by_scale.clone().into_os_string(),
        ];
        args.extend(times.iter().map(|t| t.to_string().into()));
        let out = util::node(&args, None, &[("X3DBAKE_THREE", &three)]);
        let played: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let samples = played["animations"][0]["samples"].as_array().unwrap();
        let (json, _) = util::document_json(&std::fs::read(&by_scale).unwrap());
        let cuts: Vec<usize> = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(_, n)| n["mesh"].is_u64())
            .map(|(i, _)| i)
            .collect();
        let mut switched = 0;
        for (k, sample) in samples.iter().enumerate() {
            let shown: Vec<bool> = cuts
                .iter()
                .map(|&i| sample["nodes"][i]["scale"] != serde_json::json!([0, 0, 0]))
                .collect();
            assert_eq!(
                shown.iter().filter(|&&v| v).count(),
                1,
                "one cut at {}",
                times[k]
            );
            switched += usize::from(shown[1]);
        }
        assert!(switched > 0, "the second cut is shown somewhere");
    }
    // `visible` fields (fixtures/scenes/visibility_textures.x3d): their 4
    // KHR_node_visibility channels become 4 scale channels.
    let scene = util::root().join("fixtures/scenes/visibility_textures.x3d");
    let (_, _d3, visible, _) = bake_file(scene, &["--visibility", "scale", "-q"]);
    let (json, _) = util::document_json(&std::fs::read(&visible).unwrap());
    let channels: Vec<&serde_json::Value> = json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["channels"].as_array().unwrap())
        .collect();
    let scales = channels
        .iter()
        .filter(|c| c["target"]["path"] == "scale")
        .count();
    assert_eq!(scales, 4);
    assert!(!json.to_string().contains("KHR_node_visibility"));
    util::assert_validator_clean(&[by_scale, visible]);
}
