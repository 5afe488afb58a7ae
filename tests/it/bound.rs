//! The default bound, played by a real glTF client: random scenes with
//! every interpolator type three.js can show (and EaseInEaseOut chains
//! making the exact ones inexact) are baked with no options, played in
//! three.js (tools/three-play.mjs) at 1 kHz, and every value it shows must
//! be within the default bound of the true curve (x3dbake's evaluator,
//! itself checked against X_ITE and hand-computed values), between keys
//! too. The key counts are printed beside 30 Hz sampling.

use crate::util;
use glam::DQuat;
use serde_json::Value;
use x3dbake::internal::anim::clip::{ClipOptions, Track};
use x3dbake::internal::anim::fit::default_tolerance;
use x3dbake::internal::anim::reduce::distance;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// `n` key fractions from 0 to 1, increasing.
    fn keys(&mut self, n: usize) -> String {
        let mut k: Vec<f64> = (0..n - 2).map(|_| self.range(0.05, 0.95)).collect();
        k.sort_by(f64::total_cmp);
        let all: Vec<String> = std::iter::once(0.0)
            .chain(k)
            .chain(std::iter::once(1.0))
            .map(|x| format!("{x:.4}"))
            .collect();
        all.join(" ")
    }
    /// `n` values of `width` numbers in [lo, hi].
    fn values(&mut self, n: usize, width: usize, lo: f64, hi: f64) -> String {
        let v: Vec<String> = (0..n)
            .map(|_| {
                let e: Vec<String> = (0..width)
                    .map(|_| format!("{:.4}", self.range(lo, hi)))
                    .collect();
                e.join(" ")
            })
            .collect();
        v.join(", ")
    }
    /// `n` rotations, axis-angle, angles up to 3 rad.
    fn rotations(&mut self, n: usize) -> String {
        let v: Vec<String> = (0..n)
            .map(|_| {
                let a = glam::DVec3::new(
                    self.range(-1.0, 1.0),
                    self.range(-1.0, 1.0),
                    self.range(-1.0, 1.0),
                )
                .normalize_or(glam::DVec3::Y);
                format!(
                    "{:.4} {:.4} {:.4} {:.4}",
                    a.x,
                    a.y,
                    a.z,
                    self.range(0.0, 3.0)
                )
            })
            .collect();
        v.join(", ")
    }
    fn ease(&mut self, n: usize) -> String {
        self.values(n, 2, 0.0, 0.8)
    }
}

fn route(s: &mut String, from: &str, out: &str, to: &str, field: &str) {
    s.push_str(&format!(
        "<ROUTE fromNode='{from}' fromField='{out}' toNode='{to}' toField='{field}'/>\n"
    ));
}

/// An interpolator driven by the clock, or through the ease (`eased`).
fn drive(s: &mut String, interp: String, def: &str, eased: bool) {
    s.push_str(&interp);
    let (from, out) = if eased {
        ("Ease", "modifiedFraction_changed")
    } else {
        ("Clock", "fraction_changed")
    };
    route(s, from, out, def, "set_fraction");
}

/// A random scene: one looping clock driving every kind of interpolator,
/// some through EaseInEaseOut; the Coordinate and Normal morphs only with
/// `morphs`.
fn scene(rng: &mut Rng, morphs: bool) -> String {
    let n = 3 + (rng.unit() * 4.0) as usize;
    let k = |rng: &mut Rng| rng.keys(n);
    let mut s = String::from("<X3D version='4.0'><Scene>\n");
    let cycle = rng.range(1.0, 2.5);
    s.push_str(&format!(
        "<TimeSensor DEF='Clock' cycleInterval='{cycle:.3}' loop='true'/>\n"
    ));
    // EaseInEaseOut on its own keys, between the clock and some interpolators.
    let (ek, ee) = (k(rng), rng.ease(n));
    s.push_str(&format!(
        "<EaseInEaseOut DEF='Ease' key='{ek}' easeInEaseOut='{ee}'/>\n"
    ));
    route(&mut s, "Clock", "fraction_changed", "Ease", "set_fraction");
    for (i, (ty, eased, field)) in [
        ("PositionInterpolator", true, "translation"),
        ("SplinePositionInterpolator", true, "translation"),
        ("SplinePositionInterpolator", false, "translation"),
        ("SquadOrientationInterpolator", false, "rotation"),
        ("OrientationInterpolator", true, "rotation"),
        ("SquadOrientationInterpolator", true, "rotation"),
    ]
    .into_iter()
    .enumerate()
    {
        let (key, v, def) = if field == "rotation" {
            (k(rng), rng.rotations(n), format!("Turn{i}"))
        } else {
            (k(rng), rng.values(n, 3, -5.0, 5.0), format!("Move{i}"))
        };
        drive(
            &mut s,
            format!("<{ty} DEF='{def}' key='{key}' keyValue='{v}'/>\n"),
            &def,
            eased,
        );
        s.push_str(&format!(
            "<Transform DEF='T{def}'><Shape><Box/></Shape></Transform>\n"
        ));
        route(&mut s, &def, "value_changed", &format!("T{def}"), field);
    }
    // Colour (HSV) with an eased transparency: one RGBA curve.
    let (key, v) = (k(rng), rng.values(n, 3, 0.0, 1.0));
    drive(
        &mut s,
        format!("<ColorInterpolator DEF='Hue' key='{key}' keyValue='{v}'/>\n"),
        "Hue",
        false,
    );
    let (key, v) = (k(rng), rng.values(n, 1, 0.0, 1.0));
    drive(
        &mut s,
        format!("<ScalarInterpolator DEF='Fade' key='{key}' keyValue='{v}'/>\n"),
        "Fade",
        true,
    );
    let (key, v) = (k(rng), rng.values(n, 1, 0.0, 1.0));
    drive(
        &mut s,
        format!("<SplineScalarInterpolator DEF='Shine' key='{key}' keyValue='{v}'/>\n"),
        "Shine",
        true,
    );
    route(&mut s, "Hue", "value_changed", "M", "diffuseColor");
    route(&mut s, "Fade", "value_changed", "M", "transparency");
    route(&mut s, "Shine", "value_changed", "M", "shininess");
    // Texture translations, plain and spline.
    for (i, ty) in ["PositionInterpolator2D", "SplinePositionInterpolator2D"]
        .into_iter()
        .enumerate()
    {
        let (key, v) = (k(rng), rng.values(n, 2, -1.0, 1.0));
        let def = format!("Slide{i}");
        drive(
            &mut s,
            format!("<{ty} DEF='{def}' key='{key}' keyValue='{v}'/>\n"),
            &def,
            true,
        );
        s.push_str(&format!(
            "<Shape><Appearance><Material/><PixelTexture image='1 1 3 0xFF0000'/>\
             <TextureTransform DEF='TT{i}'/></Appearance><Box/></Shape>\n"
        ));
        route(
            &mut s,
            &def,
            "value_changed",
            &format!("TT{i}"),
            "translation",
        );
    }
    s.push_str("<Shape><Appearance><Material DEF='M'/></Appearance><Sphere/></Shape>\n");
    if morphs {
        morphed_quads(rng, &mut s, n);
    }
    s.push_str("</Scene></X3D>\n");
    s
}

/// A morphed quad (eased points) and a quad with interpolated normals,
/// `n` keys each.
fn morphed_quads(rng: &mut Rng, s: &mut String, n: usize) {
    let k = |rng: &mut Rng| rng.keys(n);
    let (key, v) = (k(rng), rng.values(n, 12, -2.0, 2.0));
    drive(
        s,
        format!("<CoordinateInterpolator DEF='Warp' key='{key}' keyValue='{v}'/>\n"),
        "Warp",
        true,
    );
    s.push_str(
        "<Shape><IndexedFaceSet coordIndex='0 1 2 3 -1'><Coordinate DEF='Quad' \
         point='0 0 0 1 0 0 1 1 0 0 1 0'/></IndexedFaceSet></Shape>\n",
    );
    route(s, "Warp", "value_changed", "Quad", "point");
    let normals: Vec<String> = (0..n).map(|_| rng.rotations(4)).collect();
    let normals: Vec<String> = normals
        .iter()
        .map(|r| {
            // The axes of random rotations: unit vectors.
            r.split(", ")
                .map(|a| a.rsplit_once(" ").unwrap().0.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let key = k(rng);
    drive(
        s,
        format!(
            "<NormalInterpolator DEF='Bend' key='{key}' keyValue='{}'/>\n",
            normals.join(", ")
        ),
        "Bend",
        false,
    );
    s.push_str(
        "<Shape><IndexedFaceSet coordIndex='0 1 2 3 -1' normalPerVertex='true'>\
         <Coordinate point='0 0 5 1 0 5 1 1 5 0 1 5'/><Normal DEF='Lean' \
         vector='0 0 1 0 0 1 0 0 1 0 0 1'/></IndexedFaceSet></Shape>\n",
    );
    route(s, "Bend", "value_changed", "Lean", "vector");
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn named<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("three.js shows no {name}"))
}

/// What three.js shows of a track, in the track's own terms (rotations as
/// quaternions), and the element size its distance is measured by.
fn shown(track: &Track, def: &str, state: &Value, want: &[f64]) -> Option<(Vec<f64>, usize)> {
    let (nodes, materials) = (&state["nodes"], &state["materials"]);
    let material = || named(materials, "M");
    Some(match track.field.as_str() {
        "translation" if def.starts_with("TT") => {
            // The texture matrix's offset (the v axis flipped, as glTF's
            // texture coordinates are).
            let i: usize = def[2..].parse().unwrap();
            let uv: Vec<Vec<f64>> = materials
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["uv"].is_array())
                .map(|m| nums(&m["uv"]))
                .collect();
            let m = &uv[i];
            // Column-major 3×3: the offset is m[6], m[7] (scale 1, no rotation).
            (vec![m[6], -m[7]], 2)
        }
        "translation" => (nums(&named(nodes, &format!("T{def}"))["position"]), 3),
        "rotation" => (nums(&named(nodes, &format!("T{def}"))["quaternion"]), 4),
        "diffuseColor" => (nums(&material()["color"]), 3),
        "transparency" => (vec![1.0 - material()["opacity"].as_f64().unwrap()], 1),
        "shininess" => (vec![1.0 - material()["roughness"].as_f64().unwrap()], 1),
        "point" | "vector" => {
            let key = if track.field == "point" {
                "positions"
            } else {
                "normals"
            };
            // The morphed mesh closest to the value.
            let best = state["meshes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let got: Vec<f64> = m[key].as_array().unwrap().iter().flat_map(nums).collect();
                    let d = if got.len() == want.len() {
                        distance(&got, want, false, 3)
                    } else {
                        f64::INFINITY
                    };
                    (d, got)
                })
                .min_by(|a, b| a.0.total_cmp(&b.0))?;
            (best.1, 3)
        }
        _ => return None,
    })
}

#[test]
fn default_bakes_play_within_the_default_bound_at_1_khz() {
    plays_within_the_default_bound(&[], true, 0x5eed_1234_abcd_0001);
}

/// With --compress the rotations' keys are rounded to 16-bit integers, the
/// fits leaving room for it: still within the default bound. (Scenes
/// without morphs: three-play shows morphed points before the grid of
/// their node is undone.)
#[test]
fn compressed_bakes_play_within_the_default_bound_at_1_khz() {
    plays_within_the_default_bound(&["--compress"], false, 0x5eed_1234_abcd_0002);
}

/// Random scenes (with morphs or not) baked with `flags` play in three.js
/// within the default bound of the true curve at 1 kHz.
fn plays_within_the_default_bound(flags: &[&str], morphs: bool, seed: u64) {
    let Some(three) = util::tool_dir("X3DBAKE_THREE", "three.js playback of the default bound")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(seed);
    let (mut compared, mut fitted_keys, mut sampled_keys) = (0usize, 0usize, 0usize);
    let mut worst: Vec<(f64, String)> = Vec::new();
    let mut kinds = std::collections::BTreeSet::new();
    for n in 0..4 {
        let text = scene(&mut rng, morphs);
        let x3d = dir.path().join(format!("random{n}.x3d"));
        std::fs::write(&x3d, &text).unwrap();
        let glb = x3d.with_extension("glb");
        let (input, output) = (x3d.to_string_lossy(), glb.to_string_lossy());
        let mut args = vec![&*input, "-o", &*output];
        args.extend(flags);
        let o = util::run(&args);
        assert!(o.status.success(), "{}", util::stderr(&o));
        let (doc, _) = util::document_json(&std::fs::read(&glb).unwrap());
        for a in doc["animations"].as_array().unwrap() {
            for s in a["samplers"].as_array().unwrap() {
                fitted_keys += doc["accessors"][s["input"].as_u64().unwrap() as usize]["count"]
                    .as_u64()
                    .unwrap() as usize;
            }
        }
        let (scene, clips) = util::load_clips(&x3d, ClipOptions::default());
        let clip = &clips[0];
        // Before the clip's end: at its end a looping three.js action is
        // back at its start.
        let times: Vec<f64> = (0..=(clip.duration() * 1000.0) as usize)
            .map(|i| i as f64 / 1000.0)
            .filter(|&t| t < clip.duration() - 1e-6)
            .collect();
        let mut args = vec![
            util::root().join("tools/three-play.mjs").into_os_string(),
            glb.clone().into_os_string(),
        ];
        args.extend(times.iter().map(|t| t.to_string().into()));
        let out = util::node(&args, None, &[("X3DBAKE_THREE", &three)]);
        let played: Value = serde_json::from_slice(&out).unwrap();
        let samples = played["animations"][0]["samples"].as_array().unwrap();
        assert_eq!(samples.len(), times.len());
        for track in &clip.tracks {
            let def = scene.node(track.source).def.clone().unwrap_or_default();
            let ty = scene.node(track.source).type_name.clone();
            kinds.insert(ty.clone());
            for m in &track.modifiers {
                kinds.insert(scene.node(*m).type_name.clone());
            }
            sampled_keys += (clip.duration() * 30.0).ceil() as usize + 1;
            let target = scene.node(track.target).def.clone().unwrap_or_default();
            let bound = default_tolerance(track);
            let mut track_worst = f64::NEG_INFINITY;
            let mut want = Vec::new();
            for sample in samples {
                let t = sample["t"].as_f64().unwrap();
                clip.eval(track, t, &mut want);
                let who = if track.field == "translation" && target.starts_with("TT") {
                    target.clone()
                } else {
                    def.clone()
                };
                let Some((got, per)) = shown(track, &who, sample, &want) else {
                    panic!("{ty} {def}.{}: not shown", track.field);
                };
                let rotation = track.is_rotation();
                let e = if rotation {
                    distance(&DQuat::from_slice(&got).to_array(), &want, true, 4)
                } else {
                    distance(&got, &want, false, per)
                };
                // What f32 storage costs: 1e-6 of the bound's scale for
                // values, and key times held to half an f32 step (2^-24 of
                // the time): the curve's speed times that.
                let (mut before, mut after) = (Vec::new(), Vec::new());
                let h = 1e-5;
                clip.eval(track, (t - h).max(0.0), &mut before);
                clip.eval(track, (t + h).min(clip.duration()), &mut after);
                let speed = distance(&before, &after, rotation, per) / (2.0 * h);
                let slack = 1e-6 * (bound / 1e-4) + speed * t.max(1.0) * 2f64.powi(-24);
                track_worst = track_worst.max(e - slack);
                compared += 1;
            }
            worst.push((
                track_worst / bound,
                format!("random{n} {ty} {def}: {track_worst:.3e} of {bound:.1e}"),
            ));
            assert!(
                track_worst <= bound,
                "random{n}: {ty} {def} -> {target}.{} is {track_worst:.3e} from the true curve, \
                 over its bound {bound:.1e}\n{text}",
                track.field
            );
        }
    }
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    eprintln!(
        "default bound at 1 kHz in three.js ({flags:?}): {compared} values over {kinds:?}; \
         keys {fitted_keys} (30 Hz sampling: {sampled_keys}); closest to the bound:\n  {}",
        worst
            .iter()
            .take(5)
            .map(|w| w.1.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
    for kind in [
        "PositionInterpolator",
        "SplinePositionInterpolator",
        "OrientationInterpolator",
        "SquadOrientationInterpolator",
        "ColorInterpolator",
        "ScalarInterpolator",
        "SplineScalarInterpolator",
        "PositionInterpolator2D",
        "SplinePositionInterpolator2D",
        "CoordinateInterpolator",
        "NormalInterpolator",
        "EaseInEaseOut",
    ] {
        let morphed = matches!(kind, "CoordinateInterpolator" | "NormalInterpolator");
        assert!(
            kinds.contains(kind) || !morphs && morphed,
            "{kind} not exercised"
        );
    }
}

/// glTF-Transform's `resample` (npm @gltf-transform/cli) as the reference
/// for key counts: on x3dbake's 1 kHz samples of the curve fixtures and of
/// random scenes like the ones above, at tolerances 1e-2 to 1e-4, its true
/// error is measured (against 4 kHz samples, between its keys too); at that
/// error the default bake (`--tolerance`) must need no more keys and stay
/// within it (tools/resample-compare.mjs, which measures both with a glTF
/// sampler of its own). Morph weights are left out: their error is in
/// weights, not in the points they move.
#[test]
fn default_shapes_need_no_more_keys_than_gltf_transform_at_its_error() {
    let Some(gt) = util::tool_dir("X3DBAKE_GLTF_TRANSFORM", "resample comparison") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut files = util::fixtures("curves", "x3d");
    let mut rng = Rng(0x5eed_1234_abcd_0002);
    for n in 0..4 {
        let x3d = dir.path().join(format!("random{n}.x3d"));
        std::fs::write(&x3d, scene(&mut rng, false)).unwrap();
        files.push(x3d);
    }
    let out = std::process::Command::new("node")
        .arg(util::root().join("tools/resample-compare.mjs"))
        .arg(env!("CARGO_BIN_EXE_x3dbake"))
        .args(&files)
        .env("X3DBAKE_GLTF_TRANSFORM", &gt)
        .output()
        .expect("node runs");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "x3dbake needs more keys than glTF-Transform, or is over its error (WORSE):\n{table}{}",
        util::stderr(&out)
    );
    let rows = table.lines().filter(|l| l.contains("random")).count();
    assert_eq!(
        rows, 12,
        "every random scene compared at 3 tolerances:\n{table}"
    );
    eprintln!("{table}");
}
