//! glTF animations played per the glTF spec (read back with the `gltf`
//! crate), to compare with direct evaluation of the X3D.

use glam::DQuat;
use std::path::{Path, PathBuf};
use x3dbake::internal::anim::clip::{Clip, ClipOptions};

/// A glTF sampler played as the glTF 2.0 spec (Appendix C) says.
pub struct Sampler {
    pub times: Vec<f32>,
    /// Per key: value, or (in-tangent, value, out-tangent) for cubic.
    pub outputs: Vec<Vec<f32>>,
    pub interpolation: gltf::animation::Interpolation,
    pub rotation: bool,
}

impl Sampler {
    pub fn at(&self, t: f64) -> Vec<f64> {
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
pub fn slerp(a: DQuat, b: DQuat, t: f64) -> DQuat {
    let d = a.dot(b);
    let (b, d) = if d < 0.0 { (-b, -d) } else { (b, d) };
    if d > 0.9995 {
        return a.lerp(b, t).normalize();
    }
    let th = d.acos();
    (a * ((1.0 - t) * th).sin() + b * (t * th).sin()) / th.sin()
}

pub fn close(path: &str, got: &[f64], want: &[f64], tol: f64) -> bool {
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
pub struct Played {
    pub clip: Clip,
    pub track: x3dbake::internal::anim::clip::Track,
    pub sampler: Sampler,
    pub path: &'static str,
    /// Added to the X3D value (a Transform's center, for translation).
    pub center: Vec<f64>,
}

impl Played {
    /// The X3D value at clip time t, as the glTF node holds it.
    pub fn want(&self, t: f64) -> Vec<f64> {
        let mut v = Vec::new();
        self.clip.eval(&self.track, t, &mut v);
        v.iter().zip(&self.center).map(|(a, b)| a + b).collect()
    }
}

/// A KHR_animation_pointer channel (which the `gltf` crate cannot read),
/// taken out of the JSON.
pub struct PointerChannel {
    pub animation: String,
    pub pointer: String,
    pub input: usize,
    pub output: usize,
    pub interpolation: String,
}

/// Writes a copy of a baked file without its pointer channels, beside it
/// (so that relative buffer URIs still resolve), and returns those channels.
pub fn strip_pointers(baked: &Path) -> (PathBuf, Vec<PointerChannel>) {
    let bytes = std::fs::read(baked).unwrap();
    let (mut json, bin) = super::document_json(&bytes);
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
pub fn accessor_f32(
    doc: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    index: usize,
) -> Vec<f32> {
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
pub fn read_back(x3d: &Path, baked: &Path, opts: ClipOptions) -> Vec<Played> {
    let (scene, clips) = super::load_clips(x3d, opts);
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
            // (A nameless node's scale shows and hides it: a moving mesh's
            // cut, `--visibility scale`.)
            let Some(name) = channel.target().node().name() else {
                assert_eq!(path, "scale", "only visibility on a nameless node");
                continue;
            };
            let name = name.trim_end_matches("_scaleOrientation");
            let Some(target) = scene.def(name) else {
                // (A Switch's choice, `NAME_choiceN`.)
                assert_eq!(path, "scale", "{name}: no such DEF");
                continue;
            };
            // The X3D field a node property stands for.
            let field = match (scene.node(target).type_name.as_str(), path) {
                ("Viewpoint", "translation") => "position",
                ("Viewpoint", "rotation") => "orientation",
                ("PointLight" | "SpotLight", "translation") => "location",
                (_, p) => p,
            };
            let Some(track) = clip
                .tracks
                .iter()
                .find(|t| t.target == target && t.field == field)
            else {
                // A STEP scale that shows and hides the node (its
                // `visible`: `--visibility scale`).
                assert_eq!(path, "scale", "{name}: a channel of no track");
                continue;
            };
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
