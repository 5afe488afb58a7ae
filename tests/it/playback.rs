//! Baked animations read back with an independent reader (the `gltf`
//! crate) and played per the glTF spec against direct evaluation of the
//! X3D: node channels, KHR_animation_pointer channels, morph targets.

use crate::util;
use crate::util::played::{Sampler, accessor_f32, close, read_back, strip_pointers};
use crate::util::{bake, bake_ok};
use std::path::Path;
use x3dbake::internal::anim::clip::ClipOptions;

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
        let tol = if written_exactly(&p.clip, &p.track) {
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
                    let exact = ext == "glb" && track.is_some_and(|tr| written_exactly(clip, tr));
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

/// Whether a default bake writes the track's own keys: exact keys but a
/// spline's (fitted LINEAR unless `--interpolation cubic`).
fn written_exactly(
    clip: &x3dbake::internal::anim::clip::Clip,
    track: &x3dbake::internal::anim::clip::Track,
) -> bool {
    clip.exact_keyframes(track).is_some_and(|k| {
        k.interpolation != x3dbake::internal::anim::keyframes::Interpolation::Cubic
    })
}
