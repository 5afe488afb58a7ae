//! A real glTF client plays the baked files: three.js GLTFLoader in Node with
//! the KHR_animation_pointer plugin (tools/three-play.mjs). Node transforms,
//! morphed geometry, visibility and pointer values (materials, lights,
//! cameras, texture transforms) must match direct evaluation of the X3D
//! scene at many times.
//!
//! Runs when X3DBAKE_THREE names a folder with node_modules/three and
//! node_modules/@needle-tools/three-animation-pointer (.ci/run installs
//! them); skipped with a note otherwise.

use crate::util;

use glam::{DMat3, DQuat, DVec2};
use serde_json::Value;
use std::path::{Path, PathBuf};
use x3dbake::internal::anim::clip::{Clip, ClipOptions, Track};
use x3dbake::internal::interp::Exact;
use x3dbake::internal::scene::Scene;

pub(crate) fn three() -> Option<PathBuf> {
    util::tool_dir("X3DBAKE_THREE", "three.js playback test")
}

pub(crate) fn play(dir: &Path, glb: &Path, times: &[f64]) -> Value {
    let mut args = vec![
        util::root().join("tools/three-play.mjs").into_os_string(),
        glb.as_os_str().to_owned(),
    ];
    args.extend(times.iter().map(|t| t.to_string().into()));
    let out = util::node(&args, None, &[("X3DBAKE_THREE", dir)]);
    serde_json::from_slice(&out).expect("three-play prints JSON")
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

/// Comparisons made and the ones that failed.
#[derive(Default)]
struct Check {
    compared: usize,
    failures: Vec<String>,
    unmapped: Vec<String>,
}

impl Check {
    fn close(&mut self, what: &str, got: &[f64], want: &[f64], tol: f64) {
        self.compared += 1;
        let ok = got.len() == want.len()
            && got
                .iter()
                .zip(want)
                .all(|(g, w)| (g - w).abs() <= tol * (1.0 + w.abs()));
        if !ok {
            self.failures
                .push(format!("{what}: three.js {got:?}, X3D {want:?}"));
        }
    }

    fn truth(&mut self, what: &str, got: bool, want: bool) {
        self.compared += 1;
        if got != want {
            self.failures
                .push(format!("{what}: three.js {got}, X3D {want}"));
        }
    }
}

fn named<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list.as_array()?
        .iter()
        .find(|n| n["name"].as_str() == Some(name))
}

/// Whether some list of points in `sets` is, vertex for vertex, a point of
/// `want` (and uses them all), within `tol`; `unit` compares directions.
fn some_set_matches(sets: &[Vec<[f64; 3]>], want: &[f64], unit: bool, tol: f64) -> bool {
    let dir = |p: [f64; 3]| {
        let v = glam::DVec3::from_array(p);
        if unit { v.normalize_or_zero() } else { v }
    };
    let want: Vec<glam::DVec3> = want
        .chunks_exact(3)
        .map(|p| dir([p[0], p[1], p[2]]))
        .collect();
    sets.iter().any(|set| {
        let got: Vec<glam::DVec3> = set.iter().map(|&p| dir(p)).collect();
        let near = |a: &[glam::DVec3], b: &[glam::DVec3]| {
            a.iter().all(|p| b.iter().any(|q| p.distance(*q) <= tol))
        };
        !got.is_empty() && near(&got, &want) && near(&want, &got)
    })
}

/// X3D's texture matrix −C·S·R·C·T, in glTF's flipped v (v' = 1 − v).
fn texture_matrix(c: DVec2, a: f64, s: DVec2, t: DVec2) -> DMat3 {
    let x3d = DMat3::from_translation(-c)
        * DMat3::from_scale(s)
        * DMat3::from_angle(a)
        * DMat3::from_translation(c)
        * DMat3::from_translation(t);
    let flip = DMat3::from_cols_array(&[1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1.0, 1.0]);
    flip * x3d * flip
}

/// Compares one track of a clip, at clip time `t`, with three.js's state.
fn compare(check: &mut Check, scene: &Scene, clip: &Clip, track: &Track, t: f64, state: &Value) {
    let mut v = Vec::new();
    clip.eval(track, t, &mut v);
    let target = track.target;
    let ty = scene.node(target).type_name.as_str();
    let def = scene.node(target).def.clone().unwrap_or_default();
    let what = format!("{}: {def}.{} at {t:.3}", clip.name, track.field);
    // Exact keys (splines are fitted: written LINEAR unless asked).
    let exact = track
        .exact()
        .filter(|e| !matches!(e, Exact::Hermite { .. }));
    let tol = if exact.is_some() { 1e-4 } else { 2e-3 };
    let (nodes, materials) = (&state["nodes"], &state["materials"]);
    let node = named(nodes, &def);
    let material = named(materials, &def);
    match (ty, track.field.as_str()) {
        ("Transform", "translation") => {
            let c = scene.floats(target, "center");
            let want: Vec<f64> = v.iter().zip(c).map(|(a, &b)| a + b as f64).collect();
            check.close(&what, &nums(&node.unwrap()["position"]), &want, tol);
        }
        ("Transform" | "Viewpoint", "rotation" | "orientation") => {
            let got = nums(&node.unwrap()["quaternion"]);
            let (g, w) = (DQuat::from_slice(&got), DQuat::from_slice(&v));
            // q and −q are the same rotation.
            let w = if g.dot(w) < 0.0 { -w } else { w };
            check.close(&what, &g.to_array(), &w.to_array(), tol);
        }
        ("Transform", "scale") => check.close(&what, &nums(&node.unwrap()["scale"]), &v, tol),
        ("Viewpoint", "position") | ("PointLight", "location") => {
            check.close(&what, &nums(&node.unwrap()["position"]), &v, tol)
        }
        ("Viewpoint", "fieldOfView") => {
            let fov = node.unwrap()["fov"].as_f64().unwrap();
            check.close(&what, &[fov.to_radians()], &v, tol);
        }
        // On or off: the file's intensity or none.
        ("PointLight" | "SpotLight" | "DirectionalLight", "on") => {
            let given = scene.floats(track.target, "intensity").first();
            let intensity = given.map_or(1.0, |&i| f64::from(i));
            let got = node.unwrap()["intensity"].as_f64().unwrap();
            check.close(&what, &[got], &[v[0] * intensity], tol);
        }
        ("PointLight" | "SpotLight" | "DirectionalLight", field) => {
            let got = &node.unwrap()[field];
            let got = if got.is_array() {
                nums(got)
            } else {
                vec![got.as_f64().unwrap()]
            };
            check.close(&what, &got, &v, tol);
        }
        ("Material", "diffuseColor") => {
            check.close(&what, &nums(&material.unwrap()["color"]), &v, tol)
        }
        ("Material", "emissiveColor") => {
            check.close(&what, &nums(&material.unwrap()["emissive"]), &v, tol)
        }
        ("Material", "transparency") => {
            let got = material.unwrap()["opacity"].as_f64().unwrap();
            check.close(&what, &[got], &[1.0 - v[0]], tol);
        }
        ("Material", "shininess") => {
            let got = material.unwrap()["roughness"].as_f64().unwrap();
            check.close(&what, &[got], &[1.0 - v[0]], tol);
        }
        ("Switch", "whichChoice") => {
            let count = (0..).take_while(|i| named(nodes, &format!("{def}_choice{i}")).is_some());
            for i in count {
                let choice = named(nodes, &format!("{def}_choice{i}")).unwrap();
                let shown = util::shown(choice);
                check.truth(&format!("{what} choice {i}"), shown, v[0] == i as f64);
            }
        }
        (_, "visible") => {
            let shown = util::shown(node.unwrap());
            check.truth(&what, shown, v[0] != 0.0);
        }
        ("Coordinate" | "Normal", _) => {
            let key = if ty == "Coordinate" {
                "positions"
            } else {
                "normals"
            };
            let sets: Vec<Vec<[f64; 3]>> = state["meshes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    m[key]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| {
                            let p = nums(p);
                            [p[0], p[1], p[2]]
                        })
                        .collect()
                })
                .collect();
            check.compared += 1;
            if !some_set_matches(&sets, &v, ty == "Normal", 10.0 * tol) {
                check
                    .failures
                    .push(format!("{what}: no morphed mesh has {v:?}"));
            }
        }
        ("TextureTransform", _) => {
            // All animated fields of the node at t, the others as written.
            let field = |name: &str| -> Vec<f64> {
                match clip
                    .tracks
                    .iter()
                    .find(|x| x.target == target && x.field == name)
                {
                    Some(x) => {
                        let mut out = Vec::new();
                        clip.eval(x, t, &mut out);
                        out
                    }
                    None => scene
                        .floats(target, name)
                        .iter()
                        .map(|&f| f as f64)
                        .collect(),
                }
            };
            let two = |v: Vec<f64>| DVec2::new(v[0], v[1]);
            let want = texture_matrix(
                two(field("center")),
                field("rotation")[0],
                two(field("scale")),
                two(field("translation")),
            );
            let found = materials.as_array().unwrap().iter().any(|m| {
                let uv = nums(&m["uv"]);
                uv.len() == 9
                    && uv
                        .iter()
                        .zip(want.to_cols_array())
                        .all(|(a, b)| (a - b).abs() <= 1e-3 * (1.0 + b.abs()))
            });
            check.compared += 1;
            if !found {
                check
                    .failures
                    .push(format!("{what}: no material has the uv matrix {want:?}"));
            }
        }
        // Fields glTF has no place for (the bake warns about each).
        _ => check.unmapped.push(what),
    }
}

#[test]
fn three_js_plays_baked_files_like_the_x3d() {
    let Some(dir) = three() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut check = Check::default();
    let mut tracks_seen = std::collections::BTreeSet::new();
    for name in [
        "bouncing_box.x3d",
        "routing.x3d",
        "pointers.x3d",
        "morph.x3d",
        "visibility_textures.x3d",
    ] {
        let x3d = util::root().join("fixtures/scenes").join(name);
        let glb = tmp.path().join(name).with_extension("glb");
        let out = util::run(&[
            &x3d.to_string_lossy(),
            "-o",
            &glb.to_string_lossy(),
            "--quiet",
        ]);
        assert!(out.status.success(), "{}", util::stderr(&out));
        let (scene, clips) = util::load_clips(&x3d, ClipOptions::default());
        let longest = clips.iter().map(Clip::duration).fold(0.0, f64::max);
        // Times between keys (a step's jump is exactly at its key).
        let times: Vec<f64> = (0..61)
            .map(|i| longest * (i as f64 + 0.37) / 61.0)
            .collect();
        let played = play(&dir, &glb, &times);
        for clip in &clips {
            let Some(anim) = played["animations"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["name"].as_str() == Some(&clip.name))
            else {
                panic!("{name}: three.js has no animation {}", clip.name);
            };
            for sample in anim["samples"].as_array().unwrap() {
                let t = sample["t"].as_f64().unwrap();
                if t > clip.duration() {
                    continue;
                }
                for track in clip.tracks.iter().filter(|t| t.interpolator().produces()) {
                    tracks_seen.insert(format!(
                        "{}.{}",
                        scene.node(track.target).type_name,
                        track.field
                    ));
                    compare(&mut check, &scene, clip, track, t, sample);
                }
            }
        }
    }
    eprintln!(
        "three.js: {} comparisons over {:?}; not in glTF: {:?}",
        check.compared,
        tracks_seen,
        check.unmapped.first()
    );
    assert!(
        check.failures.is_empty(),
        "{} of {} comparisons differ:\n{}",
        check.failures.len(),
        check.compared,
        check.failures[..check.failures.len().min(20)].join("\n")
    );
    // Every mapping of issue 8 is exercised.
    for kind in [
        "Transform.translation",
        "Transform.rotation",
        "Material.diffuseColor",
        "Material.transparency",
        "Material.emissiveColor",
        "Material.shininess",
        "PointLight.intensity",
        "PointLight.location",
        "PointLight.on",
        "Viewpoint.fieldOfView",
        "Viewpoint.orientation",
        "Coordinate.point",
        "Normal.vector",
        "Switch.whichChoice",
        "Shape.visible",
        "TextureTransform.translation",
        "TextureTransform.scale",
        "TextureTransform.rotation",
    ] {
        assert!(tracks_seen.contains(kind), "no track of {kind}");
    }
}
