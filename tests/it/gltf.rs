//! glTF output from the command line: every fixture in every form, checked
//! by the Khronos validator (when X3DBAKE_VALIDATOR names its install),
//! read back with an independent reader (the `gltf` crate) and played per
//! the glTF spec against direct evaluation of the X3D; determinism; atomic
//! writes.

use crate::util;

use glam::DQuat;
use std::path::{Path, PathBuf};
use x3dbake::internal::anim::clip::{Clip, ClipOptions};

fn bake(input: &str, output: &Path, extra: &[&str]) -> std::process::Output {
    let out = output.to_string_lossy().into_owned();
    let mut args = vec![input, "-o", &out, "--quiet"];
    args.extend_from_slice(extra);
    util::run(&args)
}

/// Bakes as [`bake`] does, and fails the test unless x3dbake succeeded.
fn bake_ok(input: &str, output: &Path, extra: &[&str]) {
    let o = bake(input, output, extra);
    assert_eq!(o.status.code(), Some(0), "{input}: {}", util::stderr(&o));
}

const FORMS: &[(&str, &[&str])] = &[
    ("gltf", &[]),
    ("embedded.gltf", &["--embed"]),
    ("glb", &[]),
    ("sampled.glb", &["--mode", "sample"]),
    (
        "step.glb",
        &[
            "--mode",
            "sample",
            "--interpolation",
            "step",
            "--rate",
            "10",
        ],
    ),
    (
        "cubic.glb",
        &[
            "--mode",
            "sample",
            "--interpolation",
            "cubic",
            "--rate",
            "12",
        ],
    ),
    ("cycles.glb", &["--cycles", "3", "--tangents", "c1"]),
];

#[test]
fn every_fixture_in_every_form_is_validator_clean() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for scene in util::fixtures("scenes", "x3d") {
        let stem = scene.file_stem().unwrap().to_string_lossy().into_owned();
        for (ext, flags) in FORMS {
            let out = dir.path().join(format!("{stem}.{ext}"));
            let o = bake(&scene.to_string_lossy(), &out, flags);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{stem}.{ext}: {}",
                util::stderr(&o)
            );
            files.push(out);
        }
    }
    util::assert_validator_clean(&files);
}

/// A glTF sampler played as the glTF 2.0 spec (Appendix C) says.
struct Sampler {
    times: Vec<f32>,
    /// Per key: value, or (in-tangent, value, out-tangent) for cubic.
    outputs: Vec<Vec<f32>>,
    interpolation: gltf::animation::Interpolation,
    rotation: bool,
}

impl Sampler {
    fn at(&self, t: f64) -> Vec<f64> {
        use gltf::animation::Interpolation::*;
        let cubic = self.interpolation == CubicSpline;
        let value = |i: usize| -> Vec<f64> {
            let o = &self.outputs;
            let k = if cubic { 3 * i + 1 } else { i };
            o[k].iter().map(|&x| x as f64).collect()
        };
        let n = self.times.len();
        let t32 = t as f32;
        if t32 <= self.times[0] {
            return value(0);
        }
        if t32 >= self.times[n - 1] {
            return value(n - 1);
        }
        let i = self.times.partition_point(|&k| k <= t32) - 1;
        let (t0, t1) = (self.times[i] as f64, self.times[i + 1] as f64);
        let td = t1 - t0;
        let s = (t - t0) / td;
        let (a, b) = (value(i), value(i + 1));
        match self.interpolation {
            Step => a,
            Linear if self.rotation => {
                let q = slerp(DQuat::from_slice(&a), DQuat::from_slice(&b), s);
                q.to_array().to_vec()
            }
            Linear => a.iter().zip(&b).map(|(x, y)| x + s * (y - x)).collect(),
            CubicSpline => {
                let b_k: Vec<f64> = self.outputs[3 * i + 2].iter().map(|&x| x as f64).collect();
                let a_k1: Vec<f64> = self.outputs[3 * (i + 1)]
                    .iter()
                    .map(|&x| x as f64)
                    .collect();
                let (s2, s3) = (s * s, s * s * s);
                let v: Vec<f64> = (0..a.len())
                    .map(|c| {
                        (2.0 * s3 - 3.0 * s2 + 1.0) * a[c]
                            + td * (s3 - 2.0 * s2 + s) * b_k[c]
                            + (-2.0 * s3 + 3.0 * s2) * b[c]
                            + td * (s3 - s2) * a_k1[c]
                    })
                    .collect();
                if self.rotation {
                    DQuat::from_slice(&v).normalize().to_array().to_vec()
                } else {
                    v
                }
            }
        }
    }
}

/// The spec's slerp: shortest path.
fn slerp(a: DQuat, b: DQuat, t: f64) -> DQuat {
    let d = a.dot(b);
    let (b, d) = if d < 0.0 { (-b, -d) } else { (b, d) };
    if d > 0.9995 {
        return a.lerp(b, t).normalize();
    }
    let th = d.acos();
    (a * ((1.0 - t) * th).sin() + b * (t * th).sin()) / th.sin()
}

fn close(path: &str, got: &[f64], want: &[f64], tol: f64) -> bool {
    if path == "rotation" {
        let (g, w) = (DQuat::from_slice(got), DQuat::from_slice(want));
        return (g - w).length().min((g + w).length()) <= tol;
    }
    got.iter()
        .zip(want)
        .all(|(a, b)| (a - b).abs() <= tol * (1.0 + b.abs()))
}

/// A channel of a baked file read back with the `gltf` crate, beside the
/// X3D track it was baked from.
struct Played {
    clip: Clip,
    track: x3dbake::internal::anim::clip::Track,
    sampler: Sampler,
    path: &'static str,
    /// Added to the X3D value (a Transform's center, for translation).
    center: Vec<f64>,
}

/// A KHR_animation_pointer channel (which the `gltf` crate cannot read),
/// taken out of the JSON.
struct PointerChannel {
    animation: String,
    pointer: String,
    input: usize,
    output: usize,
    interpolation: String,
}

/// Writes a copy of a baked file without its pointer channels, beside it
/// (so that relative buffer URIs still resolve), and returns those channels.
fn strip_pointers(baked: &Path) -> (PathBuf, Vec<PointerChannel>) {
    let bytes = std::fs::read(baked).unwrap();
    let (mut json, bin) = util::document_json(&bytes);
    let mut pointers = Vec::new();
    if let Some(anims) = json.get_mut("animations").and_then(|a| a.as_array_mut()) {
        for a in anims.iter_mut() {
            let name = a["name"].as_str().unwrap_or("").to_string();
            let samplers = a["samplers"].clone();
            let channels = a["channels"].as_array_mut().unwrap();
            channels.retain(|c| {
                if c["target"]["path"] != "pointer" {
                    return true;
                }
                let s = &samplers[c["sampler"].as_u64().unwrap() as usize];
                pointers.push(PointerChannel {
                    animation: name.clone(),
                    pointer: c["target"]["extensions"]["KHR_animation_pointer"]["pointer"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                    input: s["input"].as_u64().unwrap() as usize,
                    output: s["output"].as_u64().unwrap() as usize,
                    interpolation: s["interpolation"].as_str().unwrap_or("LINEAR").to_string(),
                });
                false
            });
        }
        anims.retain(|a| !a["channels"].as_array().unwrap().is_empty());
    }
    let stripped = baked.with_file_name(format!(
        "stripped-{}",
        baked.file_name().unwrap().to_string_lossy()
    ));
    let text = json.to_string();
    if bytes.starts_with(b"glTF") {
        let mut out = Vec::new();
        x3dbake::internal::write::glb::write(&text, &bin, &mut out).unwrap();
        std::fs::write(&stripped, out).unwrap();
    } else {
        std::fs::write(&stripped, text).unwrap();
    }
    (stripped, pointers)
}

/// The floats of an accessor (tightly packed f32 data).
fn accessor_f32(doc: &gltf::Document, buffers: &[gltf::buffer::Data], index: usize) -> Vec<f32> {
    let a = doc.accessors().nth(index).unwrap();
    let view = a.view().unwrap();
    let data = &buffers[view.buffer().index()];
    let start = view.offset() + a.offset();
    let n = a.count() * a.dimensions().multiplicity();
    (0..n)
        .map(|i| f32::from_le_bytes(data[start + 4 * i..start + 4 * i + 4].try_into().unwrap()))
        .collect()
}

/// Reads back every node channel of a baked file.
fn read_back(x3d: &Path, baked: &Path, opts: ClipOptions) -> Vec<Played> {
    let (scene, clips) = util::load_clips(x3d, opts);
    let (stripped, _) = strip_pointers(baked);
    let (doc, buffers, _) =
        gltf::import(&stripped).unwrap_or_else(|e| panic!("{}: {e}", baked.display()));
    let mut out = Vec::new();
    for anim in doc.animations() {
        let clip = clips
            .iter()
            .find(|c| Some(c.name.as_str()) == anim.name())
            .expect("a clip per animation");
        for channel in anim.channels() {
            let reader = channel.reader(|b| Some(&buffers[b.index()]));
            let times: Vec<f32> = reader.read_inputs().unwrap().collect();
            assert!(
                times.windows(2).all(|w| w[0] < w[1]),
                "strictly increasing times"
            );
            use gltf::animation::util::ReadOutputs::*;
            let (path, outputs): (&str, Vec<Vec<f32>>) = match reader.read_outputs().unwrap() {
                Translations(it) => ("translation", it.map(|v| v.to_vec()).collect()),
                Rotations(r) => ("rotation", r.into_f32().map(|v| v.to_vec()).collect()),
                Scales(it) => ("scale", it.map(|v| v.to_vec()).collect()),
                MorphTargetWeights(_) => continue,
            };
            let name = channel
                .target()
                .node()
                .name()
                .unwrap()
                .trim_end_matches("_scaleOrientation");
            let target = scene.def(name).unwrap();
            // The X3D field a node property stands for.
            let field = match (scene.node(target).type_name.as_str(), path) {
                ("Viewpoint", "translation") => "position",
                ("Viewpoint", "rotation") => "orientation",
                ("PointLight" | "SpotLight", "translation") => "location",
                (_, p) => p,
            };
            let track = clip
                .tracks
                .iter()
                .find(|t| t.target == target && t.field == field)
                .unwrap();
            let center: Vec<f64> = if field == "translation" {
                scene
                    .value(target, "center")
                    .unwrap()
                    .floats()
                    .iter()
                    .map(|&x| x as f64)
                    .collect()
            } else {
                vec![0.0; 4]
            };
            let interpolation = channel.sampler().interpolation();
            let sampler = Sampler {
                times,
                outputs,
                interpolation,
                rotation: path == "rotation",
            };
            out.push(Played {
                clip: clip.clone(),
                track: track.clone(),
                sampler,
                path,
                center,
            });
        }
    }
    out
}

impl Played {
    /// The X3D value at clip time t, as the glTF node holds it.
    fn want(&self, t: f64) -> Vec<f64> {
        let mut v = Vec::new();
        self.clip.eval(&self.track, t, &mut v);
        v.iter().zip(&self.center).map(|(a, b)| a + b).collect()
    }
}

/// Reads a baked file back and compares every channel with the X3D.
/// Returns how many comparisons were made.
fn round_trip(
    x3d: &Path,
    baked: &Path,
    opts: ClipOptions,
    exact_tol: f64,
    sampled_tol: f64,
) -> usize {
    let mut compared = 0;
    for p in read_back(x3d, baked, opts) {
        let tol = if p.clip.exact_keyframes(&p.track).is_some() {
            exact_tol
        } else {
            sampled_tol
        };
        let times = &p.sampler.times;
        // Key times, mid-segments, and a fine grid (avoiding the very
        // instants of jumps, which glTF moves by one f32 step).
        let mut probes: Vec<f64> = times.iter().map(|&t| t as f64).collect();
        probes.extend(times.windows(2).map(|w| (w[0] as f64 + w[1] as f64) / 2.0));
        probes.extend((0..500).map(|i| p.clip.duration() * (i as f64 + 0.37) / 500.0));
        for t in probes {
            let jump = times
                .windows(2)
                .any(|w| w[1].to_bits() == w[0].to_bits() + 1 && (t - w[0] as f64).abs() < 1e-5);
            if jump {
                continue;
            }
            let (got, want) = (p.sampler.at(t), p.want(t));
            assert!(
                close(p.path, &got, &want, tol),
                "{} {}.{} at {t}: glTF {got:?}, X3D {want:?} (tolerance {tol})",
                baked.display(),
                p.track.field,
                p.path
            );
            compared += 1;
        }
    }
    compared
}

#[test]
fn baked_animations_play_back_like_the_x3d() {
    let dir = tempfile::tempdir().unwrap();
    let mut total = 0;
    for scene in util::fixtures("scenes", "x3d") {
        let stem = scene.file_stem().unwrap().to_string_lossy().into_owned();
        let input = scene.to_string_lossy().into_owned();
        // Exact: within f32 precision. Sampled at 30 Hz: within the
        // sampling error of these curves.
        let exact = dir.path().join(format!("{stem}.glb"));
        bake(&input, &exact, &[]);
        total += round_trip(&scene, &exact, ClipOptions::default(), 1e-5, 2e-2);
        let three = dir.path().join(format!("{stem}.3.gltf"));
        bake(&input, &three, &["--cycles", "3"]);
        total += round_trip(
            &scene,
            &three,
            ClipOptions {
                cycles: 3,
                ..Default::default()
            },
            1e-5,
            2e-2,
        );
        let cubic = dir.path().join(format!("{stem}.cubic.glb"));
        bake(
            &input,
            &cubic,
            &[
                "--mode",
                "sample",
                "--interpolation",
                "cubic",
                "--rate",
                "60",
            ],
        );
        total += round_trip(&scene, &cubic, ClipOptions::default(), 2e-3, 2e-3);
    }
    assert!(total > 5000, "{total} comparisons");
}

#[test]
fn a_transform_with_center_and_scale_orientation_keeps_its_matrix() {
    let (dir, x3d) = util::scene_file(
        "c.x3d",
        "<X3D><Scene><Transform DEF='T' center='1 2 3' scaleOrientation='0 0 1 0.5' scale='2 1 1' rotation='0 1 0 0.3'>\
         <Transform DEF='Child' translation='1 0 0'/></Transform>\
         <TimeSensor DEF='C' cycleInterval='2'/><PositionInterpolator DEF='P' key='0 1' keyValue='0 0 0 4 0 0'/>\
         <PositionInterpolator DEF='S' key='0 1' keyValue='1 1 1 3 1 1'/>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='T' toField='translation'/>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='S' toField='set_fraction'/>\
         <ROUTE fromNode='S' fromField='value_changed' toNode='T' toField='scale'/></Scene></X3D>",
    );
    let glb = dir.path().join("c.glb");
    bake_ok(&x3d, &glb, &[]);
    let (doc, _, _) = gltf::import(&glb).unwrap();
    // The world matrix of Child equals the X3D T·C·R·SR·S·SR⁻¹·C⁻¹ times its own.
    fn world(n: gltf::Node, parents: &[glam::Mat4], out: &mut Vec<(String, glam::Mat4)>) {
        let m = parents.last().copied().unwrap_or(glam::Mat4::IDENTITY)
            * glam::Mat4::from_cols_array_2d(&n.transform().matrix());
        out.push((n.name().unwrap_or("").to_string(), m));
        let mut p = parents.to_vec();
        p.push(m);
        for c in n.children() {
            world(c, &p, out);
        }
    }
    let mut all = Vec::new();
    for n in doc.default_scene().unwrap().nodes() {
        world(n, &[], &mut all);
    }
    let child = all.iter().find(|(n, _)| n == "Child").unwrap().1;
    use glam::{Mat4, Quat, Vec3};
    let t = Mat4::IDENTITY;
    let c = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
    let r = Mat4::from_quat(Quat::from_axis_angle(Vec3::Y, 0.3));
    let sr = Mat4::from_quat(Quat::from_axis_angle(Vec3::Z, 0.5));
    let s = Mat4::from_scale(Vec3::new(2.0, 1.0, 1.0));
    let want = t * c * r * sr * s * sr.inverse() * c.inverse() * Mat4::from_translation(Vec3::X);
    assert!(child.abs_diff_eq(want, 1e-5), "{child} vs {want}");
    // And the animated translation and scale still play exactly.
    round_trip(Path::new(&x3d), &glb, ClipOptions::default(), 1e-5, 1e-5);
}

#[test]
fn the_same_input_gives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for scene in util::fixtures("scenes", "x3d") {
        let input = scene.to_string_lossy().into_owned();
        let (a, b) = (dir.path().join("a.glb"), dir.path().join("b.glb"));
        bake(
            &input,
            &a,
            &["--mode", "sample", "--interpolation", "cubic"],
        );
        bake(
            &input,
            &b,
            &["--mode", "sample", "--interpolation", "cubic"],
        );
        assert_eq!(
            std::fs::read(&a).unwrap(),
            std::fs::read(&b).unwrap(),
            "{input}"
        );
    }
}

#[test]
fn a_failed_bake_leaves_the_previous_output_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.gltf");
    std::fs::write(&out, b"previous").unwrap();
    std::fs::write(dir.path().join("out.bin"), b"previous bin").unwrap();
    let o = bake("fixtures/errors/malformed_xml.x3d", &out, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), b"previous");
    assert_eq!(
        std::fs::read(dir.path().join("out.bin")).unwrap(),
        b"previous bin"
    );
    let names = util::names_in(dir.path());
    assert_eq!(names.len(), 2, "no temporary files left: {names:?}");
    // An output folder that does not exist: an I/O error, nothing written.
    let o = bake(
        "fixtures/scenes/bouncing_box.x3d",
        &dir.path().join("no/such/out.glb"),
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(util::stderr(&o).contains("cannot write"));
    // The input itself is never overwritten.
    let copy = dir.path().join("in.x3d");
    std::fs::copy(util::root().join("fixtures/scenes/bouncing_box.x3d"), &copy).unwrap();
    let o = bake(&copy.to_string_lossy(), &copy, &["--format", "glb"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(util::stderr(&o).contains("is the input"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["-"],
        vec!["fixtures/scenes/bouncing_box.x3d", "-o", "x.txt"],
        vec![
            "fixtures/scenes/bouncing_box.x3d",
            "-o",
            "x.glb",
            "--rate",
            "0",
        ],
        vec![
            "fixtures/scenes/bouncing_box.x3d",
            "-o",
            "x.glb",
            "--rate",
            "1e9",
            "--cycles",
            "10000",
        ],
        vec![
            "fixtures/scenes/bouncing_box.x3d",
            "-o",
            "x.glb",
            "--mode",
            "fast",
        ],
    ] {
        let o = util::run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", util::stderr(&o));
    }
}

/// The largest error of every channel of a baked file against the X3D, on
/// a grid of 4001 points from the start of each clip to its end, with key
/// counts.
fn max_error(x3d: &Path, baked: &Path) -> (f64, usize) {
    let points = 4000;
    let (mut worst, mut keys) = (0.0f64, 0);
    for p in read_back(x3d, baked, ClipOptions::default()) {
        keys += p.sampler.times.len();
        for i in 0..=points {
            let t = p.clip.duration() * i as f64 / points as f64;
            let e = x3dbake::internal::anim::reduce::distance(
                &p.sampler.at(t),
                &p.want(t),
                p.path == "rotation",
                3,
            );
            worst = worst.max(e);
        }
    }
    (worst, keys)
}

#[test]
fn tolerance_is_a_true_bound_with_fewer_keys() {
    let dir = tempfile::tempdir().unwrap();
    for scene in util::fixtures("scenes", "x3d") {
        let input = scene.to_string_lossy().into_owned();
        let plain = dir.path().join("plain.glb");
        bake(&input, &plain, &["--mode", "sample", "--rate", "60"]);
        let (_, plain_keys) = max_error(&scene, &plain);
        for tol in [0.05, 0.005, 0.0005] {
            for mode in ["exact", "sample"] {
                let out = dir.path().join("t.glb");
                let t = tol.to_string();
                let o = bake(
                    &input,
                    &out,
                    &["--tolerance", &t, "--mode", mode, "--keep-constant"],
                );
                assert_eq!(o.status.code(), Some(0));
                let (err, keys) = max_error(&scene, &out);
                // The bound holds between grid points too, up to f32 storage.
                assert!(
                    err <= tol * 1.05 + 2e-6,
                    "{input} {mode} tolerance {tol}: error {err}"
                );
                if mode == "sample" {
                    assert!(
                        keys <= plain_keys,
                        "{input}: {keys} keys vs {plain_keys} at 60 Hz"
                    );
                }
            }
        }
    }
}

#[test]
fn constant_tracks_collapse_and_unchanging_ones_are_dropped() {
    let (dir, x3d) = util::scene_file(
        "k.x3d",
        "<X3D><Scene><Transform DEF='Still' translation='1 2 3'/><Transform DEF='Moved' translation='0 0 0'/>\
         <TimeSensor DEF='T' cycleInterval='2'/>\
         <PositionInterpolator DEF='Same' key='0 0.5 1' keyValue='1 2 3 1 2 3 1 2 3'/>\
         <PositionInterpolator DEF='Hold' key='0 1' keyValue='5 5 5 5 5 5'/>\
         <ROUTE fromNode='T' fromField='fraction_changed' toNode='Same' toField='set_fraction'/>\
         <ROUTE fromNode='Same' fromField='value_changed' toNode='Still' toField='translation'/>\
         <ROUTE fromNode='T' fromField='fraction_changed' toNode='Hold' toField='set_fraction'/>\
         <ROUTE fromNode='Hold' fromField='value_changed' toNode='Moved' toField='translation'/></Scene></X3D>",
    );
    let out = dir.path().join("k.gltf");
    let channels = |extra: &[&str]| {
        bake(&x3d, &out, &[&["--embed"], extra].concat());
        let (doc, buffers, _) = gltf::import(&out).unwrap();
        doc.animations()
            .flat_map(|a| a.channels().collect::<Vec<_>>())
            .map(|c| {
                let n = c
                    .reader(|b| Some(&buffers[b.index()]))
                    .read_inputs()
                    .unwrap()
                    .count();
                (c.target().node().name().unwrap().to_string(), n)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        channels(&[]),
        [("Still".to_string(), 3), ("Moved".to_string(), 2)]
    );
    // Still never leaves its own translation: dropped. Moved holds at 5 5 5: one key.
    assert_eq!(
        channels(&["--tolerance", "0.001"]),
        [("Moved".to_string(), 1)]
    );
    assert_eq!(
        channels(&["--tolerance", "0.001", "--keep-constant"]),
        [("Still".to_string(), 1), ("Moved".to_string(), 1)]
    );
}

/// The X3D field a pointer animates, and how the glTF value is compared:
/// (field, component range of the glTF value, is it 1 − value).
fn pointer_field(property: &str) -> Vec<(&'static str, std::ops::Range<usize>, bool)> {
    match property {
        "baseColorFactor" => vec![("diffuseColor", 0..3, false), ("transparency", 3..4, true)],
        "emissiveFactor" => vec![("emissiveColor", 0..3, false)],
        "roughnessFactor" => vec![("shininess", 0..1, true)],
        "yfov" => vec![("fieldOfView", 0..1, false)],
        "color" => vec![("color", 0..3, false)],
        "intensity" => vec![("intensity", 0..1, false)],
        p => panic!("unexpected pointer property {p}"),
    }
}

#[test]
fn pointer_channels_resolve_and_play_back_like_the_x3d() {
    let dir = tempfile::tempdir().unwrap();
    let x3d = util::root().join("fixtures/scenes/pointers.x3d");
    let mut checked = 0;
    // Exact tracks within f32 precision; sampled ones (HSV colours; all in
    // sample mode) within their sampling error.
    for (ext, flags, sampled_tol) in [
        ("glb", &[][..], 2e-2),
        (
            "sampled.glb",
            &["--mode", "sample", "--rate", "60"][..],
            3e-3,
        ),
    ] {
        let baked = dir.path().join(format!("p.{ext}"));
        bake_ok(&x3d.to_string_lossy(), &baked, flags);
        let (json, _) = util::document_json(&std::fs::read(&baked).unwrap());
        let (stripped, pointers) = strip_pointers(&baked);
        let (doc, buffers, _) = gltf::import(&stripped).unwrap();
        let (scene, clips) = util::load_clips(&x3d, ClipOptions::default());
        assert!(pointers.len() >= 6, "{} pointer channels", pointers.len());
        for p in &pointers {
            // The pointer names an existing object and an animatable property.
            let (parent, property) = p.pointer.rsplit_once('/').unwrap();
            let object = json
                .pointer(parent)
                .unwrap_or_else(|| panic!("{} does not resolve", p.pointer));
            assert!(object.is_object(), "{}", p.pointer);
            let name = object["name"].as_str().or_else(|| {
                json.pointer(parent.trim_end_matches("/perspective"))?["name"].as_str()
            });
            let name = name
                .or_else(|| {
                    json.pointer(parent.trim_end_matches("/pbrMetallicRoughness"))?["name"].as_str()
                })
                .unwrap();
            let node = scene.def(name).unwrap();
            let width = pointer_field(property)
                .iter()
                .map(|f| f.1.end)
                .max()
                .unwrap();
            let out = accessor_f32(&doc, &buffers, p.output);
            let times = accessor_f32(&doc, &buffers, p.input);
            let cubic = p.interpolation == "CUBICSPLINE";
            assert_eq!(
                out.len(),
                times.len() * width * if cubic { 3 } else { 1 },
                "{}: value size",
                p.pointer
            );
            let sampler = Sampler {
                times,
                outputs: out.chunks(width).map(|c| c.to_vec()).collect(),
                interpolation: match p.interpolation.as_str() {
                    "STEP" => gltf::animation::Interpolation::Step,
                    "CUBICSPLINE" => gltf::animation::Interpolation::CubicSpline,
                    _ => gltf::animation::Interpolation::Linear,
                },
                rotation: false,
            };
            let clip = clips.iter().find(|c| c.name == p.animation).unwrap();
            for i in 0..400 {
                let t = clip.duration() * (i as f64 + 0.37) / 400.0;
                let got = sampler.at(t);
                for (field, range, one_minus) in pointer_field(property) {
                    let mut want = Vec::new();
                    let track = clip
                        .tracks
                        .iter()
                        .find(|tr| tr.target == node && tr.field == field);
                    let exact =
                        ext == "glb" && track.is_some_and(|tr| clip.exact_keyframes(tr).is_some());
                    let tol = if exact { 1e-5 } else { sampled_tol };
                    match track {
                        Some(track) => clip.eval(track, t, &mut want),
                        None => {
                            want = scene
                                .value(node, field)
                                .unwrap()
                                .floats()
                                .iter()
                                .map(|&x| x as f64)
                                .collect()
                        }
                    }
                    // A light turned on and off: its intensity or none.
                    let on = clip
                        .tracks
                        .iter()
                        .find(|tr| tr.target == node && tr.field == "on");
                    if let Some(on) = on.filter(|_| field == "intensity") {
                        let mut v = Vec::new();
                        clip.eval(on, t, &mut v);
                        want.iter_mut().for_each(|w| *w *= v[0]);
                    }
                    let want: Vec<f64> = want
                        .iter()
                        .map(|&v| if one_minus { 1.0 - v } else { v })
                        .collect();
                    assert!(
                        close("", &got[range.clone()], &want, tol),
                        "{} at {t}: glTF {got:?}, X3D {field} {want:?}",
                        p.pointer
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 4000);
}

/// A morph-weights channel of `n` targets as a sampler.
fn weights_sampler(
    channel: gltf::animation::Channel,
    buffers: &[gltf::buffer::Data],
    n: usize,
) -> Sampler {
    let r = channel.reader(|b| Some(&buffers[b.index()]));
    let weights: Vec<f32> = match r.read_outputs().unwrap() {
        gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => w.into_f32().collect(),
        _ => panic!("a weights channel"),
    };
    Sampler {
        times: r.read_inputs().unwrap().collect(),
        outputs: weights.chunks(n).map(|c| c.to_vec()).collect(),
        interpolation: channel.sampler().interpolation(),
        rotation: false,
    }
}

#[test]
fn animated_points_play_back_as_morph_targets() {
    let dir = tempfile::tempdir().unwrap();
    let x3d = util::root().join("fixtures/scenes/morph.x3d");
    let baked = dir.path().join("m.glb");
    bake_ok(&x3d.to_string_lossy(), &baked, &[]);
    let (doc, buffers, _) = gltf::import(&baked).unwrap();
    let (_, clips) = util::load_clips(&x3d, ClipOptions::default());
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|b| Some(&buffers[b.index()]));
    let base: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
    let targets: Vec<Vec<[f32; 3]>> = reader
        .read_morph_targets()
        .map(|(p, _, _)| p.unwrap().collect())
        .collect();
    // 3 keys of Flap (exact) and the eased Grow, fitted within the default
    // bound with fewer keys than 30 Hz sampling (91 over its 3 s).
    let grow = doc.animations().find(|a| a.name() == Some("Slow")).unwrap();
    let grow_keys = grow.samplers().next().unwrap().input().count();
    assert!(grow_keys < 91, "{grow_keys} keys");
    assert_eq!(targets.len(), 3 + grow_keys);
    let mut checked = 0;
    for anim in doc.animations() {
        let clip = clips
            .iter()
            .find(|c| Some(c.name.as_str()) == anim.name())
            .unwrap();
        let track = &clip.tracks[0];
        // f32 storage, and the default bound of a track that is not exact.
        let tol = 1e-5 + x3dbake::internal::anim::fit::default_tolerance(track);
        let n = targets.len();
        let sampler = weights_sampler(anim.channels().next().unwrap(), &buffers, n);
        let mut want = Vec::new();
        for i in 0..300 {
            let t = clip.duration() * (i as f64 + 0.41) / 300.0;
            let w = sampler.at(t);
            clip.eval(track, t, &mut want);
            // Each corner of the quad is a vertex: corner v is point v here.
            for (v, b) in base.iter().enumerate() {
                let p: Vec<f64> = (0..3)
                    .map(|c| {
                        b[c] as f64 + (0..n).map(|k| w[k] * targets[k][v][c] as f64).sum::<f64>()
                    })
                    .collect();
                assert!(
                    close("", &p, &want[3 * v..3 * v + 3], tol),
                    "{} at {t}: vertex {v} {p:?} vs {:?}",
                    clip.name,
                    &want[3 * v..3 * v + 3]
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 300 * 4);
}

/// The Asset Object Model type of each property x3dbake animates through
/// KHR_animation_pointer: (path ending, accessor type, component type, the
/// property has a default when absent).
const POINTER_TYPES: &[(&str, &str, u64, bool)] = &[
    ("/pbrMetallicRoughness/baseColorFactor", "VEC4", 5126, true),
    (
        "/pbrMetallicRoughness/roughnessFactor",
        "SCALAR",
        5126,
        true,
    ),
    ("/pbrMetallicRoughness/metallicFactor", "SCALAR", 5126, true),
    ("/emissiveFactor", "VEC3", 5126, true),
    ("/perspective/yfov", "SCALAR", 5126, false),
    ("/color", "VEC3", 5126, true),
    ("/intensity", "SCALAR", 5126, true),
    (
        "/extensions/KHR_texture_transform/offset",
        "VEC2",
        5126,
        true,
    ),
    (
        "/extensions/KHR_texture_transform/rotation",
        "SCALAR",
        5126,
        true,
    ),
    (
        "/extensions/KHR_texture_transform/scale",
        "VEC2",
        5126,
        true,
    ),
    (
        "/extensions/KHR_node_visibility/visible",
        "SCALAR",
        5121,
        true,
    ),
];

#[test]
fn every_pointer_names_a_property_of_its_type() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = std::collections::BTreeMap::new();
    for x3d in util::fixtures("scenes", "x3d") {
        let baked = dir.path().join("p.glb");
        let out = bake(&x3d.to_string_lossy(), &baked, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", x3d.display());
        let (json, _) = util::document_json(&std::fs::read(&baked).unwrap());
        let used: Vec<&str> = json["extensionsUsed"]
            .as_array()
            .map(|a| a.iter().filter_map(|e| e.as_str()).collect())
            .unwrap_or_default();
        for anim in json["animations"].as_array().into_iter().flatten() {
            let mut seen = x3dbake::internal::hash::HashSet::default();
            for c in anim["channels"].as_array().unwrap() {
                if c["target"]["path"] != "pointer" {
                    continue;
                }
                let pointer = c["target"]["extensions"]["KHR_animation_pointer"]["pointer"]
                    .as_str()
                    .unwrap();
                let at = format!("{}: {pointer}", x3d.display());
                assert!(c["target"].get("node").is_none(), "{at}: node set");
                assert!(
                    seen.insert(pointer),
                    "{at}: animated twice in one animation"
                );
                let &(end, ty, component, default) = POINTER_TYPES
                    .iter()
                    .find(|p| pointer.ends_with(p.0))
                    .unwrap_or_else(|| panic!("{at}: unknown property"));
                // Defined: present, or defaulted inside an object that is.
                let (parent, _) = pointer.rsplit_once('/').unwrap();
                assert!(
                    json.pointer(pointer).is_some()
                        || (default && json.pointer(parent).is_some_and(|p| p.is_object())),
                    "{at}: does not resolve"
                );
                for ext in [
                    "KHR_texture_transform",
                    "KHR_node_visibility",
                    "KHR_lights_punctual",
                ] {
                    if pointer.contains(ext) {
                        assert!(used.contains(&ext), "{at}: {ext} not in extensionsUsed");
                    }
                }
                let sampler = &anim["samplers"][c["sampler"].as_u64().unwrap() as usize];
                let output = &json["accessors"][sampler["output"].as_u64().unwrap() as usize];
                let input = &json["accessors"][sampler["input"].as_u64().unwrap() as usize];
                assert_eq!(output["type"], ty, "{at}");
                assert_eq!(output["componentType"], component, "{at}");
                let interpolation = sampler["interpolation"].as_str().unwrap_or("LINEAR");
                if component != 5126 {
                    assert_eq!(interpolation, "STEP", "{at}: a bool must step");
                }
                let per_key = if interpolation == "CUBICSPLINE" { 3 } else { 1 };
                assert_eq!(
                    output["count"].as_u64().unwrap(),
                    input["count"].as_u64().unwrap() * per_key,
                    "{at}: value count"
                );
                *checked.entry(end).or_insert(0) += 1;
            }
        }
    }
    assert_eq!(
        checked.len(),
        POINTER_TYPES.len(),
        "every property is exercised: {checked:?}"
    );
}

/// Bytes a running process has read and written so far (Linux's
/// /proc/PID/io `rchar` + `wchar`); None once it is gone.
#[cfg(target_os = "linux")]
fn io_bytes(pid: u32) -> Option<u64> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    let field = |name: &str| -> Option<u64> {
        io.lines()
            .find_map(|l| l.strip_prefix(name))?
            .trim()
            .parse()
            .ok()
    };
    Some(field("rchar:")? + field("wchar:")?)
}

/// Runs `command` and waits until it has read and written `bytes` bytes,
/// or ended; returns the child.
#[cfg(target_os = "linux")]
fn run_until_io(command: &mut std::process::Command, bytes: u64) -> std::process::Child {
    let mut child = command.spawn().unwrap();
    while child.try_wait().unwrap().is_none() {
        match io_bytes(child.id()) {
            Some(b) if b < bytes => std::thread::yield_now(),
            _ => break,
        }
    }
    child
}

#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_bake_leaves_the_previous_output_untouched() {
    use std::fmt::Write as _;
    let dir = tempfile::tempdir().unwrap();
    // A scene that takes a while: a 3 000-point morph with 300 keys.
    let (points, keys) = (3000, 300);
    let mut text = String::from("<X3D><Scene><Shape><IndexedFaceSet coordIndex='");
    for i in (0..points - 2).step_by(3) {
        write!(text, "{} {} {} -1 ", i, i + 1, i + 2).unwrap();
    }
    text.push_str("'><Coordinate DEF='C' point='");
    for i in 0..points {
        write!(text, "{i} 0 0 ").unwrap();
    }
    text.push_str("'/></IndexedFaceSet></Shape><TimeSensor DEF='T' loop='true'/><CoordinateInterpolator DEF='I' key='");
    for k in 0..keys {
        write!(text, "{} ", k as f64 / (keys - 1) as f64).unwrap();
    }
    text.push_str("' keyValue='");
    for k in 0..keys {
        for i in 0..points {
            write!(text, "{i} {k} {} ", (i * k) % 7).unwrap();
        }
    }
    text.push_str(
        "'/><ROUTE fromNode='T' fromField='fraction_changed' toNode='I' toField='set_fraction'/>",
    );
    text.push_str(
        "<ROUTE fromNode='I' fromField='value_changed' toNode='C' toField='point'/></Scene></X3D>",
    );
    let input = dir.path().join("big.x3d");
    std::fs::write(&input, text).unwrap();
    let out = dir.path().join("out.glb");
    let previous = b"a previous output, to be kept".to_vec();
    let bin = env!("CARGO_BIN_EXE_x3dbake");
    // How many bytes a whole bake writes at least (the .glb; the scene is
    // mapped, not read), then kills at points through that work: counted
    // in bytes, not in time, so that a loaded machine moves no point (and
    // not as seen while it runs: a busy machine may not look before it
    // ends).
    let full_glb = dir.path().join("full.glb");
    let mut full = std::process::Command::new(bin);
    full.args([
        input.as_os_str(),
        "-o".as_ref(),
        full_glb.as_os_str(),
        "--quiet".as_ref(),
    ]);
    assert!(full.status().unwrap().success());
    let whole = std::fs::read(&full_glb).unwrap();
    let total = whole.len() as u64;
    assert!(total > 10_000_000, "{total} bytes written");
    let (mut kept, mut temps) = (0, 0);
    for step in 0..12 {
        std::fs::write(&out, &previous).unwrap();
        // Half the bakes flush to disk before the rename (--sync).
        let mut command = std::process::Command::new(bin);
        command.args([
            input.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "--quiet".as_ref(),
        ]);
        if step % 4 >= 2 {
            command.arg("--sync");
        }
        let mut child = run_until_io(&mut command, total * step / 12);
        // SIGTERM (what CI runners and `kill` send) for even steps, SIGKILL
        // (which no program can clean up after) for odd ones.
        if step % 2 == 0 {
            let pid = child.id().to_string();
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &pid])
                .status();
        } else {
            let _ = child.kill();
        }
        let status = child.wait().unwrap();
        assert_ne!(
            status.code(),
            Some(2),
            "step {step}: a usage error, not a kill"
        );
        // Either the old bytes or the whole new output (a kill after the
        // rename), never a part.
        let now = std::fs::read(&out).unwrap();
        let new = now == whole;
        assert!(
            now == previous || new,
            "killed at step {step} ({status}): {} bytes, neither the old output nor the new",
            now.len()
        );
        assert!(
            new || !status.success(),
            "step {step}: exit 0 but the old output"
        );
        kept += usize::from(now == previous);
        // No temporary file is left but by a SIGKILL during the write.
        let names = util::names_in(dir.path());
        let left = names.len() - 3;
        assert!(
            left == 0 || step % 2 == 1,
            "step {step}: SIGTERM left a temporary file"
        );
        temps += left;
        for n in &names {
            if n.ends_with(".tmp") {
                std::fs::remove_file(dir.path().join(n)).unwrap();
            }
        }
    }
    assert!(kept >= 6, "only {kept} of 12 kills came before the end");
    eprintln!("interrupted bakes: {kept} of 12 killed mid-way, {temps} left a temporary file");
}

#[test]
fn sync_writes_the_same_bytes_flushed() {
    let dir = tempfile::tempdir().unwrap();
    let scene = util::root().join("fixtures/scenes/bouncing_box.x3d");
    let scene = scene.to_str().unwrap();
    // Each form plain and with --sync, in folders of their own (a .gltf
    // names its .bin).
    let (plain, synced) = (dir.path().join("plain"), dir.path().join("synced"));
    std::fs::create_dir(&plain).unwrap();
    std::fs::create_dir(&synced).unwrap();
    for name in ["a.glb", "a.gltf", "a.csv"] {
        bake_ok(scene, &plain.join(name), &[]);
        bake_ok(scene, &synced.join(name), &["--sync"]);
    }
    for name in ["a.glb", "a.gltf", "a.bin", "a.csv"] {
        let read = |p: PathBuf| std::fs::read(p).unwrap();
        let same = read(plain.join(name)) == read(synced.join(name));
        assert!(same, "{name} differs with --sync");
    }
    // Into a folder, two inputs at once: the same bytes, no temporary left.
    let folder = dir.path().join("folder");
    let other = util::root().join("fixtures/scenes/morph.x3d");
    let o = bake(scene, &folder, &[other.to_str().unwrap(), "--sync"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let names = util::names_in(&folder);
    assert_eq!(names, ["bouncing_box.glb", "morph.glb"]);
    let same = std::fs::read(folder.join("bouncing_box.glb")).unwrap()
        == std::fs::read(plain.join("a.glb")).unwrap();
    assert!(same, "a .glb baked into a folder with --sync differs");
}

#[test]
fn animated_texture_coordinates_play_back_as_uv_morph_targets() {
    let dir = tempfile::tempdir().unwrap();
    let x3d = util::root().join("fixtures/scenes/visibility_textures.x3d");
    let baked = dir.path().join("v.glb");
    bake_ok(&x3d.to_string_lossy(), &baked, &[]);
    // The gltf crate reads no TEXCOORD_0 of morph targets: those come from
    // the JSON, the rest (accessors, the weights channel) from the crate.
    let (json, _) = util::document_json(&std::fs::read(&baked).unwrap());
    let (stripped, _) = strip_pointers(&baked);
    let (doc, buffers, _) = gltf::import(&stripped).unwrap();
    let (scene, clips) = util::load_clips(&x3d, ClipOptions::default());
    let (mesh, prim) = json["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .find_map(|(i, m)| {
            let p = &m["primitives"][0];
            p["targets"][0].get("TEXCOORD_0").map(|_| (i, p))
        })
        .expect("a mesh with TEXCOORD_0 morph targets");
    let uv = |a: &serde_json::Value| -> Vec<f32> {
        accessor_f32(&doc, &buffers, a.as_u64().unwrap() as usize)
    };
    let base = uv(&prim["attributes"]["TEXCOORD_0"]);
    let targets: Vec<Vec<f32>> = prim["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| uv(&t["TEXCOORD_0"]))
        .collect();
    let n = targets.len();
    let node = doc
        .nodes()
        .find(|nd| nd.mesh().is_some_and(|m| m.index() == mesh))
        .unwrap();
    let clip = &clips[0];
    let track = clip
        .tracks
        .iter()
        .find(|t| scene.node(t.target).def.as_deref() == Some("Scroll"))
        .unwrap();
    let channel = doc
        .animations()
        .flat_map(|a| a.channels())
        .find(|c| c.target().node().index() == node.index())
        .expect("a weights channel for the mesh");
    let sampler = weights_sampler(channel, &buffers, n);
    let mut want = Vec::new();
    for i in 0..300 {
        let t = clip.duration() * (i as f64 + 0.41) / 300.0;
        let w = sampler.at(t);
        clip.eval(track, t, &mut want);
        // The quad's corners are its vertices, in order: corner v is point v.
        for v in 0..base.len() / 2 {
            let got: Vec<f64> = (0..2)
                .map(|c| {
                    let b = base[2 * v + c] as f64;
                    b + (0..n)
                        .map(|k| w[k] * targets[k][2 * v + c] as f64)
                        .sum::<f64>()
                })
                .collect();
            // glTF's v runs down: v' = 1 − v.
            let x3d = [want[2 * v], 1.0 - want[2 * v + 1]];
            assert!(
                close("", &got, &x3d, 1e-5),
                "at {t}: vertex {v} {got:?} vs {x3d:?}"
            );
        }
    }
}

/// Normals made from the points follow animated points: each morph target's
/// normals are those of its own positions (checked by making them here from
/// the triangles: face normals, averaged around a point within the crease
/// angle), for a smooth and a faceted mesh.
#[test]
fn normals_made_from_moving_points_follow_them() {
    let grid = "0 0 0, 1 0 0, 2 0 0, 0 1 0, 1 1 0, 2 1 0, 0 2 0, 1 2 0, 2 2 0";
    let bent = "0 0 0, 1 0 0.3, 2 0 0, 0 1 0.5, 1 1 1, 2 1 -0.2, 0 2 0, 1 2 0.4, 2 2 0";
    let twisted = "0 0 0.2, 1 0 -0.3, 2 0 0, 0 1 0.1, 1 1 -0.8, 2 1 0.6, 0 2 0, 1 2 -0.4, 2 2 0.9";
    let tris = "0 1 4 -1 0 4 3 -1 1 2 5 -1 1 5 4 -1 3 4 7 -1 3 7 6 -1 4 5 8 -1 4 8 7 -1";
    let shape = |def: &str, crease: f64, ccw: bool| {
        format!(
            r#"<Shape><IndexedFaceSet creaseAngle="{crease}" ccw="{ccw}" coordIndex="{tris}">
                 <Coordinate DEF="{def}" point="{grid}"/></IndexedFaceSet></Shape>
               <CoordinateInterpolator DEF="{def}_move" key="0 0.5 1"
                 keyValue="{grid}, {bent}, {twisted}"/>
               <ROUTE fromNode="Clock" fromField="fraction_changed" toNode="{def}_move" toField="set_fraction"/>
               <ROUTE fromNode="{def}_move" fromField="value_changed" toNode="{def}" toField="point"/>"#
        )
    };
    let text = format!(
        r#"<X3D version="3.3"><Scene><TimeSensor DEF="Clock" cycleInterval="2" loop="true"/>
           {}{}</Scene></X3D>"#,
        shape("Smooth", 1.2, true),
        shape("Faceted", 0.0, false)
    );
    let (dir, x3d) = util::scene_file("normals.x3d", &text);
    let baked = dir.path().join("n.glb");
    bake_ok(&x3d, &baked, &[]);
    let (doc, buffers, _) = gltf::import(&baked).unwrap();
    let mut checked = 0;
    for (mesh, crease) in doc.meshes().zip([1.2f32, 0.0]) {
        let prim = mesh.primitives().next().unwrap();
        let reader = prim.reader(|b| Some(&buffers[b.index()]));
        let v3 = |a: [f32; 3]| glam::Vec3::from_array(a);
        let base: Vec<glam::Vec3> = reader.read_positions().unwrap().map(v3).collect();
        let base_n: Vec<glam::Vec3> = reader.read_normals().unwrap().map(v3).collect();
        let index: Vec<usize> = reader
            .read_indices()
            .unwrap()
            .into_u32()
            .map(|i| i as usize)
            .collect();
        let targets: Vec<_> = reader.read_morph_targets().collect();
        assert_eq!(targets.len(), 3, "a target per key");
        for (p, n, _) in targets {
            let p: Vec<_> = p.unwrap().map(v3).zip(&base).map(|(d, b)| *b + d).collect();
            let n: Vec<_> = n
                .unwrap()
                .map(v3)
                .zip(&base_n)
                .map(|(d, b)| *b + d)
                .collect();
            // glTF triangles wind counter-clockwise seen from their normal
            // side: ccw FALSE faces were turned, and their normals with them.
            let face = |t: &[usize]| (p[t[1]] - p[t[0]]).cross(p[t[2]] - p[t[0]]).normalize();
            let faces: Vec<_> = index.chunks(3).map(|t| (t, face(t))).collect();
            for &(t, own) in &faces {
                for &v in t {
                    // Every face around the same point (corners at the same
                    // rest position) within the crease angle of this one.
                    let want = faces
                        .iter()
                        .filter(|(u, f)| {
                            u.iter().any(|&w| base[w] == base[v]) && f.dot(own) >= crease.cos()
                        })
                        .map(|(_, f)| *f)
                        .sum::<glam::Vec3>()
                        .normalize();
                    let want = if crease > 0.0 { want } else { own };
                    assert!(
                        (n[v] - want).length() < 1e-5,
                        "{:?} corner {v}: {} vs {want}",
                        mesh.name(),
                        n[v]
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 2 * 3 * 24);
}

#[test]
fn meshes_past_the_buffer_limit_stop_the_bake_at_the_geometry() {
    // 40 spheres of different radii, each tessellated and stored on its
    // own (their normals, texture coordinates and indices, equal, shared);
    // a limit of ten and a half spheres' bytes stops at the eleventh,
    // reported there.
    let build = |text: &str, limit: usize| {
        let (_dir, path) = util::scene_file("spheres.x3d", text);
        let (scene, clips) = util::load_clips(Path::new(&path), ClipOptions::default());
        let opts = x3dbake::internal::write::gltf::Options {
            limits: x3dbake::Limits {
                buffer_bytes: limit,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut diags = x3dbake::internal::diag::Diagnostics::default();
        let mut no_images = |_: x3dbake::internal::scene::NodeId, _: &str| Err("none".to_string());
        let doc = x3dbake::internal::write::gltf::build(
            &scene,
            &clips,
            &opts,
            &mut no_images,
            &mut diags,
            None,
        );
        (doc.bin.len(), diags.list().to_vec())
    };
    let sphere = |i: usize| format!("<Shape><Sphere radius='{}'/></Shape>\n", 10 + i);
    let scene = |n: usize| {
        format!(
            "<X3D><Scene>\n{}</Scene></X3D>",
            (0..n).map(sphere).collect::<String>()
        )
    };
    let (one, diags) = build(&scene(1), usize::MAX);
    assert!(diags.is_empty() && one > 10_000, "{one} {diags:?}");
    // Each sphere after the first adds its positions alone.
    let (two, _) = build(&scene(2), usize::MAX);
    let more = two - one;
    assert!(more > 5_000 && more < one / 2, "{one} {more}");
    let forty = scene(40);
    let (all, diags) = build(&forty, one + 39 * more);
    assert_eq!((all, diags.len()), (one + 39 * more, 0), "{diags:?}");
    let limit = one + 9 * more + more / 2;
    let (stopped, diags) = build(&forty, limit);
    assert_eq!(stopped, one + 10 * more);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        diags[0].message,
        format!(
            "the glTF buffer would hold more than {limit} bytes (a mesh is stored for each \
             geometry node, and again for each appearance it is USE'd with): stopped at `<Sphere>`"
        )
    );
    // The eleventh Sphere, on line 12: its element after `<Shape>`.
    let span = diags[0].span.unwrap();
    let start = "<X3D><Scene>\n".len() + 10 * sphere(0).len() + "<Shape><".len();
    assert_eq!(span.start as usize, start);
}

#[test]
fn an_image_texture_used_by_several_appearances_is_embedded_once() {
    // One ImageTexture node, USE'd in three appearances (two of them with
    // their own TextureTransform): one image, one texture, three materials.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.glb");
    let x3d = util::root().join("fixtures/scenes/textures.x3d");
    bake_ok(&x3d.to_string_lossy(), &out, &[]);
    let (json, _) = util::document_json(&std::fs::read(&out).unwrap());
    assert_eq!(json["images"].as_array().unwrap().len(), 1);
    assert_eq!(json["textures"].as_array().unwrap().len(), 1);
    let materials = json["materials"].as_array().unwrap();
    assert_eq!(materials.len(), 3);
    let transforms: Vec<&serde_json::Value> = materials
        .iter()
        .map(|m| {
            let info = &m["pbrMetallicRoughness"]["baseColorTexture"];
            assert_eq!(info["index"], 0);
            &info["extensions"]["KHR_texture_transform"]
        })
        .collect();
    assert!(transforms[0].is_null());
    assert_eq!(transforms[1]["rotation"], 0.4);
    assert_eq!(transforms[2]["scale"], serde_json::json!([2.0, 2.0]));
}

#[test]
fn a_line_set_whose_counts_pass_its_points_draws_the_points_there_are() {
    // vertexCount 2, then 2^31 - 1 a thousand times over four points: the
    // first strip is points 0-1, the second what is left (2-3), the rest
    // empty. Each count was walked point by point (0.8 s each).
    let counts = format!("2{}", " 2147483647".repeat(1000));
    let text = format!(
        "<X3D><Scene><Shape><LineSet vertexCount='{counts}'>\
         <Coordinate point='0 0 0, 1 0 0, 2 0 0, 3 0 0'/></LineSet></Shape></Scene></X3D>"
    );
    let (dir, path) = util::scene_file("lines.x3d", &text);
    let out = dir.path().join("lines.glb");
    let o = util::run_within(&[&path, "-o", out.to_str().unwrap()], 20);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&std::fs::read(&out).unwrap());
    let prim = &json["meshes"][0]["primitives"][0];
    assert_eq!(prim["mode"], 1, "LINES");
    let count = |a: &serde_json::Value| &json["accessors"][a.as_u64().unwrap() as usize]["count"];
    assert_eq!(count(&prim["attributes"]["POSITION"]), 4);
    assert_eq!(count(&prim["indices"]), 4);
}

#[test]
fn interpolators_setting_one_field_at_once_bake_the_last_event() {
    // Three interpolators of one clock drive X.translation; the fraction
    // routes reach P0, P2, P1 in that order, so P1's event comes last and
    // wins (X_ITE 15 plays (0, 0.25, 0) at t = 0.25). glTF allows one
    // channel a target in an animation: three were written, which the
    // validator refused (ANIMATION_DUPLICATE_TARGETS).
    let text = "<X3D><Scene><TimeSensor DEF='T' loop='true'/><Transform DEF='X'/>
<PositionInterpolator DEF='P0' key='0 1' keyValue='0 0 0 1 0 0'/>
<PositionInterpolator DEF='P1' key='0 1' keyValue='0 0 0 0 1 0'/>
<PositionInterpolator DEF='P2' key='0 1' keyValue='0 0 0 0 0 1'/>
<ROUTE fromNode='P1' fromField='value_changed' toNode='X' toField='translation'/>
<ROUTE fromNode='T' fromField='fraction_changed' toNode='P0' toField='set_fraction'/>
<ROUTE fromNode='T' fromField='fraction_changed' toNode='P2' toField='set_fraction'/>
<ROUTE fromNode='P0' fromField='value_changed' toNode='X' toField='translation'/>
<ROUTE fromNode='T' fromField='fraction_changed' toNode='P1' toField='set_fraction'/>
<ROUTE fromNode='P2' fromField='value_changed' toNode='X' toField='translation'/>
</Scene></X3D>";
    let (dir, path) = util::scene_file("three.x3d", text);
    let out = dir.path().join("three.glb");
    let o = util::run(&[&path, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        util::stderr(&o).lines().next().unwrap(),
        format!(
            "{path}:8:2: warning: `X.translation` is set 3 times at once in clip `T`: the last \
             event, from `P1`, wins; the others (from `P0`, `P2`) are not baked"
        )
    );
    let (scene, clips) = util::load_clips(Path::new(&path), ClipOptions::default());
    assert_eq!(clips[0].tracks.len(), 1);
    let track = &clips[0].tracks[0];
    assert_eq!(scene.node(track.source).def.as_deref(), Some("P1"));
    let mut v = Vec::new();
    clips[0].eval(track, 0.25, &mut v);
    assert_eq!(v, [0.0, 0.25, 0.0]);
    let (json, _) = util::document_json(&std::fs::read(&out).unwrap());
    assert_eq!(
        json["animations"][0]["channels"].as_array().unwrap().len(),
        1
    );
    util::assert_validator_clean(&[out]);
}

#[test]
fn long_def_names_are_cut_in_the_gltf() {
    // Each copy of a USE'd node carries its name: a name of 100 KB copied
    // 500 000 times took 16 GB. Names are cut to 256 bytes, at a character
    // boundary ('é' is two bytes: 128 of them).
    let name = "é".repeat(300);
    let text = format!(
        "<X3D><Scene><Group DEF='G'><Transform DEF='{name}'/></Group>\
         <Group USE='G'/></Scene></X3D>"
    );
    let (dir, path) = util::scene_file("names.x3d", &text);
    let out = dir.path().join("names.glb");
    bake_ok(&path, &out, &[]);
    let (json, _) = util::document_json(&std::fs::read(&out).unwrap());
    let cut = "é".repeat(128);
    let names: Vec<&str> = util::node_names(&json)
        .into_iter()
        .filter(|n| n.starts_with('é'))
        .collect();
    assert_eq!(names, [cut.as_str(), cut.as_str()]);
}

/// A full turn in quarter steps is never one value within 3 rad: between
/// its keys at a quarter and three quarters of a turn, the slerp arc passes
/// the half turn, π from the start. (Keys alone were all within π/2 of it,
/// and the track collapsed to one key, π off.)
#[test]
fn a_turn_is_not_constant_within_less_than_pi() {
    let (dir, x3d) = util::scene_file(
        "turn.x3d",
        "<X3D><Scene><Transform DEF='T'><Shape><Box/></Shape></Transform>\
         <TimeSensor DEF='TS' loop='true' cycleInterval='4'/>\
         <OrientationInterpolator DEF='OI' key='0 0.25 0.5 0.75 1' \
          keyValue='1 0 0 0, 1 0 0 1.571, 1 0 0 3.142, 1 0 0 4.712, 1 0 0 6.2831'/>\
         <ROUTE fromNode='TS' fromField='fraction_changed' toNode='OI' toField='set_fraction'/>\
         <ROUTE fromNode='OI' fromField='value_changed' toNode='T' toField='rotation'/>\
         </Scene></X3D>",
    );
    let out = dir.path().join("turn.glb");
    for tol in ["2.24", "3"] {
        bake_ok(&x3d, &out, &["--tolerance", tol, "--keep-constant"]);
        let (err, keys) = max_error(Path::new(&x3d), &out);
        let tol: f64 = tol.parse().unwrap();
        assert!(
            err <= tol * 1.001,
            "{keys} keys, {err} rad off at --tolerance {tol}"
        );
        assert!(keys > 1);
    }
}

/// A light turned on by a sequencer is written with no intensity at rest
/// and a STEP intensity channel of the file's intensity or 0, in both
/// modes; one whose intensity is animated too has no pointer for the
/// product, and its `on` track is named as not written.
#[test]
fn a_light_turned_on_and_off_is_its_intensity_or_none() {
    let scene = r#"<X3D><Scene>
      <PointLight DEF="Blink" intensity="0.6" on="false"/>
      <PointLight DEF="Both"/>
      <TimeSensor DEF="C" cycleInterval="2" loop="true"/>
      <BooleanSequencer DEF="S" key="0 0.5" keyValue="true false"/>
      <ScalarInterpolator DEF="I" key="0 1" keyValue="0.2 1"/>
      <ROUTE fromNode="C" fromField="fraction_changed" toNode="S" toField="set_fraction"/>
      <ROUTE fromNode="C" fromField="fraction_changed" toNode="I" toField="set_fraction"/>
      <ROUTE fromNode="S" fromField="value_changed" toNode="Blink" toField="on"/>
      <ROUTE fromNode="S" fromField="value_changed" toNode="Both" toField="on"/>
      <ROUTE fromNode="I" fromField="value_changed" toNode="Both" toField="intensity"/>
    </Scene></X3D>"#;
    let (dir, path) = util::scene_file("lights.x3d", scene);
    for flags in [&[][..], &["--mode", "sample"][..]] {
        let out = dir.path().join("lights.glb");
        let o = util::run(
            &[&path, "-o", &out.to_string_lossy()]
                .into_iter()
                .chain(flags.iter().copied())
                .collect::<Vec<_>>(),
        );
        assert!(o.status.success(), "{}", util::stderr(&o));
        assert!(
            util::stderr(&o).contains("`Both.on` (PointLight) has no glTF animation target yet"),
            "{}",
            util::stderr(&o)
        );
        let (json, _) = util::document_json(&std::fs::read(&out).unwrap());
        let lights = &json["extensions"]["KHR_lights_punctual"]["lights"];
        assert_eq!(
            (lights[0]["name"].as_str(), lights[0]["intensity"].as_f64()),
            (Some("Blink"), Some(0.0))
        );
        let (stripped, pointers) = strip_pointers(&out);
        let on: Vec<_> = pointers
            .iter()
            .filter(|p| p.pointer == "/extensions/KHR_lights_punctual/lights/0/intensity")
            .collect();
        assert_eq!(on.len(), 1, "{flags:?}");
        assert_eq!(on[0].interpolation, "STEP", "{flags:?}");
        let (doc, buffers, _) = gltf::import(&stripped).unwrap();
        let values = accessor_f32(&doc, &buffers, on[0].output);
        assert!(values.iter().all(|&v| v == 0.0 || v == 0.6), "{values:?}");
        assert!(values.contains(&0.0) && values.contains(&0.6), "{values:?}");
    }
}

/// Meshes are named after their geometry's DEF (else their Shape's) and
/// materials after their Material's (else their Appearance's), so that an
/// editor shows the X3D names.
#[test]
fn meshes_and_materials_are_named_after_their_x3d_nodes() {
    let (_dir, f) = util::scene_file(
        "n.x3d",
        "<X3D><Scene>\
         <Shape DEF='Hull'><Appearance><Material DEF='Paint'/></Appearance><Box DEF='Block'/></Shape>\
         <Shape DEF='Mast'><Appearance DEF='Look'><Material/></Appearance><Sphere/></Shape>\
         <Shape><Sphere radius='2'/></Shape>\
         </Scene></X3D>",
    );
    let o = util::run(&[&f, "-o", "-", "--format", "glb", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    let names = |what: &str| -> Vec<serde_json::Value> {
        json[what]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].clone())
            .collect()
    };
    assert_eq!(
        names("meshes"),
        [
            serde_json::json!("Block"),
            serde_json::json!("Mast"),
            serde_json::Value::Null
        ]
    );
    let materials = names("materials");
    assert!(
        materials.contains(&serde_json::json!("Paint")),
        "{materials:?}"
    );
    assert!(
        materials.contains(&serde_json::json!("Look")),
        "{materials:?}"
    );
}

/// A node with nothing under it that nothing names, animates or skins is
/// not written (the validator's NODE_EMPTY: an unnamed Switch showing
/// none of its choices, an Inline whose file is not there); a DEF'd one
/// stays, a name a viewer or script may look for.
#[test]
fn empty_nodes_nothing_names_are_left_out() {
    let (_dir, f) = util::scene_file(
        "e.x3d",
        "<X3D><Scene><Group><Switch whichChoice='-1'><Shape><Box/></Shape></Switch>\
         <Inline url='\"missing.x3d\"'/><Shape><Sphere/></Shape></Group>\
         <Switch DEF='Kept' whichChoice='-1'><Shape><Box/></Shape></Switch></Scene></X3D>",
    );
    let o = util::run(&[&f, "-o", "-", "--format", "glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    let nodes = json["nodes"].as_array().unwrap();
    // The Group with its Sphere, and Kept.
    assert_eq!(nodes.len(), 3, "{nodes:?}");
    assert_eq!(nodes[0]["children"], serde_json::json!([1]));
    assert!(nodes[1]["mesh"].is_u64());
    assert_eq!(nodes[2]["name"], "Kept");
    assert_eq!(json["scenes"][0]["nodes"], serde_json::json!([0, 2]));
}

/// Equal things are written once: three Spheres with equal Materials (no
/// DEF, no USE) are one mesh and one material on three nodes; a Material
/// a clip animates keeps its own (its channel must not move the others).
#[test]
fn equal_meshes_and_materials_are_written_once() {
    let shape = |t: &str, def: &str| {
        format!(
            "<Transform translation='{t} 0 0'><Shape><Appearance><Material {def} diffuseColor='1 0 0'/>\
             </Appearance><Sphere/></Shape></Transform>"
        )
    };
    let (_dir, f) = util::scene_file(
        "same.x3d",
        &format!(
            "<X3D><Scene>{}{}{}{}\
             <TimeSensor DEF='C' loop='true'/><ColorInterpolator DEF='I' key='0 1' keyValue='1 0 0 0 0 1'/>\
             <ROUTE fromNode='C' fromField='fraction_changed' toNode='I' toField='set_fraction'/>\
             <ROUTE fromNode='I' fromField='value_changed' toNode='M' toField='diffuseColor'/></Scene></X3D>",
            shape("0", ""),
            shape("3", ""),
            shape("6", ""),
            shape("9", "DEF='M'")
        ),
    );
    let o = util::run(&[&f, "-o", "-", "--format", "glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    assert_eq!(json["materials"].as_array().unwrap().len(), 2);
    assert_eq!(json["meshes"].as_array().unwrap().len(), 2);
    let meshes: Vec<u64> = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["mesh"].as_u64())
        .collect();
    assert_eq!(meshes, [0, 0, 0, 1]);
    assert_eq!(json["meshes"][1]["primitives"][0]["material"], 1);
    assert_eq!(json["materials"][1]["name"], "M");
}

/// A CollidableShape's shape is drawn where it stands, as X_ITE draws it
/// (its `shape` field, not `children`, moved by its translation), as a
/// CADFace's is.
#[test]
fn collidable_shapes_and_cad_faces_are_drawn() {
    let (_dir, f) = util::scene_file(
        "c.x3d",
        "<X3D profile='Full'><Scene><CollidableShape translation='1 0 0'><Shape containerField='shape'><Box/></Shape></CollidableShape>\
         <CADFace><Shape containerField='shape'><Sphere/></Shape></CADFace></Scene></X3D>",
    );
    let o = util::run(&[&f, "-o", "-", "--format", "glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    let nodes = json["nodes"].as_array().unwrap();
    assert_eq!(nodes.iter().filter(|n| n["mesh"].is_u64()).count(), 2);
    assert_eq!(nodes[0]["translation"], serde_json::json!([1.0, 0.0, 0.0]));
}
