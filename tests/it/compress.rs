//! `--compress`: every buffer view compressed with EXT_meshopt_compression
//! decodes to the default file's bytes (meshoptimizer's own decoder), the
//! JSON is the default's but for the buffers, the validator finds no error,
//! and three.js (with its meshopt decoder) plays the compressed file
//! exactly as the default one.

use crate::three::three;
use crate::util;
use crate::util::bake_ok;
use glam::{DMat4, DQuat, DVec3};
use serde_json::Value;
use std::path::{Path, PathBuf};
use x3dbake::internal::anim::fit::DEFAULT_ANGLE;
use x3dbake::internal::write::gltf::{BYTE_ERROR, POSITION_SHARE, SHORT_ERROR, USHORT_ERROR};

/// Scenes whose files hold every kind of stream: meshes and their indices,
/// morph targets, skins, pointer channels, images, lines and points.
const SCENES: &[&str] = &[
    "fixtures/scenes/bouncing_box.x3d",
    "fixtures/scenes/morph.x3d",
    "fixtures/scenes/visibility_textures.x3d",
    "fixtures/scenes/multitexture.x3d",
    "fixtures/scenes/extrusion_dart.x3d",
    "fixtures/scenes/nurbs_surfaces.x3d",
];

/// The default and the compressed .glb of a scene; `None` where the
/// default bake fails (a corpus scene may).
fn both(dir: &Path, scene: &Path) -> Option<(PathBuf, PathBuf)> {
    let name = scene.file_stem().unwrap().to_string_lossy();
    let plain = dir.join(format!("{name}.glb"));
    let packed = dir.join(format!("{name}.meshopt.glb"));
    let input = scene.to_string_lossy();
    if util::bake(&input, &plain, &[]).status.code() != Some(0) {
        return None;
    }
    bake_ok(&input, &packed, &["--compress"]);
    Some((plain, packed))
}

/// A view's bytes in a buffer.
fn view_bytes<'b>(view: &Value, bin: &'b [u8]) -> &'b [u8] {
    let at = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    &bin[at..at + view["byteLength"].as_u64().unwrap() as usize]
}

/// A compressed view decoded by meshoptimizer.
fn decoded(ext: &Value, bin: &[u8]) -> Vec<u8> {
    let stream = view_bytes(ext, bin);
    let count = ext["count"].as_u64().unwrap() as usize;
    let stride = ext["byteStride"].as_u64().unwrap() as usize;
    let indices = |i: Vec<u32>| -> Vec<u8> {
        i.iter()
            .flat_map(|&x| x.to_le_bytes()[..stride].to_vec())
            .collect()
    };
    match ext["mode"].as_str().unwrap() {
        "TRIANGLES" => indices(meshopt::decode_index_buffer::<u32>(stream, count).unwrap()),
        "INDICES" => indices(meshopt::decode_index_sequence::<u32>(stream, count).unwrap()),
        _ => {
            let words: Vec<[u8; 4]> = match stride {
                4 => meshopt::decode_vertex_buffer::<[u8; 4]>(stream, count).unwrap(),
                8 => flat(meshopt::decode_vertex_buffer::<[u8; 8]>(stream, count).unwrap()),
                12 => flat(meshopt::decode_vertex_buffer::<[u8; 12]>(stream, count).unwrap()),
                16 => flat(meshopt::decode_vertex_buffer::<[u8; 16]>(stream, count).unwrap()),
                64 => flat(
                    meshopt::decode_vertex_buffer::<[[u8; 16]; 4]>(stream, count)
                        .unwrap()
                        .into_iter()
                        .flatten()
                        .collect(),
                ),
                s => panic!("a stride of {s} bytes"),
            };
            words.concat()
        }
    }
}

fn flat<const N: usize>(v: Vec<[u8; N]>) -> Vec<[u8; 4]> {
    v.iter()
        .flat_map(|e| e.chunks_exact(4).map(|w| [w[0], w[1], w[2], w[3]]))
        .collect()
}

/// Every view's bytes as a reader sees them: decoded by meshoptimizer
/// where compressed, and whether any was.
fn views(doc: &Value, bin: &[u8]) -> (Vec<Vec<u8>>, usize) {
    let mut streams = 0;
    let views = doc["bufferViews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| match v["extensions"].get("EXT_meshopt_compression") {
            Some(ext) => {
                streams += 1;
                assert_eq!(v["buffer"], 1, "a compressed view names the fallback");
                decoded(ext, bin)
            }
            None => view_bytes(v, bin).to_vec(),
        })
        .collect();
    (views, streams)
}

/// A baked file: its JSON and every view as a reader sees it.
struct File {
    json: Value,
    views: Vec<Vec<u8>>,
}

impl File {
    fn open(path: &Path) -> (File, usize) {
        let (json, bin) = util::document_json(&std::fs::read(path).unwrap());
        let (views, streams) = views(&json, &bin);
        (File { json, views }, streams)
    }

    /// Accessor `i`'s numbers as a reader takes them (normalised integers
    /// as max(q / max, -1)), and its number of components.
    fn numbers(&self, i: usize) -> (Vec<f64>, usize) {
        let a = &self.json["accessors"][i];
        let width = match a["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            t => panic!("{t}"),
        };
        let count = a["count"].as_u64().unwrap() as usize;
        let view = a["bufferView"].as_u64().unwrap() as usize;
        let bytes = &self.views[view][a["byteOffset"].as_u64().unwrap_or(0) as usize..];
        let ty = a["componentType"].as_u64().unwrap();
        let size = match ty {
            5120 | 5121 => 1,
            5122 | 5123 => 2,
            _ => 4,
        };
        let stride = self.json["bufferViews"][view]["byteStride"]
            .as_u64()
            .map_or(width * size, |s| s as usize);
        let normalized = a["normalized"] == true;
        let mut out = Vec::with_capacity(count * width);
        for e in 0..count {
            for c in 0..width {
                let b = &bytes[e * stride + c * size..][..size];
                let (q, max) = match ty {
                    5126 => (f64::from(f32::from_le_bytes(b.try_into().unwrap())), 1.0),
                    5120 => (f64::from(b[0] as i8), 127.0),
                    5121 => (f64::from(b[0]), 255.0),
                    5122 => (f64::from(i16::from_le_bytes([b[0], b[1]])), 32767.0),
                    5123 => (f64::from(u16::from_le_bytes([b[0], b[1]])), 65535.0),
                    _ => (f64::from(u32::from_le_bytes(b.try_into().unwrap())), 1.0),
                };
                out.push(match normalized {
                    true => (q / max).max(-1.0),
                    false => q,
                });
            }
        }
        (out, width)
    }

    /// The node that holds mesh `m`.
    fn holder(&self, m: usize) -> Option<usize> {
        self.json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["mesh"].as_u64() == Some(m as u64))
    }

    /// An inverse bind matrix of skin `s`.
    fn bind(&self, s: &Value, joint: usize) -> DMat4 {
        match s["inverseBindMatrices"].as_u64() {
            Some(a) => {
                let (m, _) = self.numbers(a as usize);
                DMat4::from_cols_slice(&m[joint * 16..][..16])
            }
            None => DMat4::IDENTITY,
        }
    }
}

/// Each vertex's numbers by name ("POSITION", "NORMAL", "0:POSITION" for
/// a target's), positions with `place` undone.
type Corners = Vec<(String, usize, Vec<f64>)>;

fn corners(f: &File, prim: &Value, place: (DVec3, f64)) -> Corners {
    let mut out = Vec::new();
    let mut add = |name: String, a: &Value, position: bool, target: bool| {
        let (mut v, w) = f.numbers(a.as_u64().unwrap() as usize);
        if position {
            for e in v.chunks_exact_mut(3) {
                for (k, x) in e.iter_mut().enumerate() {
                    *x = *x * place.1 + if target { 0.0 } else { place.0[k] };
                }
            }
        }
        out.push((name, w, v));
    };
    for (k, a) in prim["attributes"].as_object().unwrap() {
        add(k.clone(), a, k == "POSITION", false);
    }
    for (t, target) in prim["targets"].as_array().into_iter().flatten().enumerate() {
        for (k, a) in target.as_object().unwrap() {
            add(format!("{t}:{k}"), a, k == "POSITION", true);
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// How far a reader may find each attribute from the default file's, by
/// name, given the bound on positions.
fn tolerance(name: &str, position: f64) -> f64 {
    let attribute = name.rsplit(':').next().unwrap();
    let target = name.contains(':');
    match attribute {
        "POSITION" => position,
        "NORMAL" | "TANGENT" => f64::from(BYTE_ERROR) + 1e-6,
        _ if target => f64::from(SHORT_ERROR) + 1e-7,
        a if a.starts_with("WEIGHTS") => 4.0 * f64::from(USHORT_ERROR) + 1e-7,
        a if a.starts_with("JOINTS") => 0.0,
        _ => f64::from(SHORT_ERROR) + 1e-7,
    }
}

/// The grid a compressed mesh's positions are on: the translation and
/// uniform scale of the node that holds it, or for a skinned mesh what its
/// inverse bind matrices gained.
fn grid(plain: &File, packed: &File, m: usize) -> (DVec3, f64) {
    let n = packed.holder(m).expect("a node holds the mesh");
    let node = &packed.json["nodes"][n];
    let d = match node["skin"].as_u64() {
        Some(s) => {
            let p = plain.holder(m).unwrap();
            let s0 =
                &plain.json["skins"][plain.json["nodes"][p]["skin"].as_u64().unwrap() as usize];
            let s1 = &packed.json["skins"][s as usize];
            plain.bind(s0, 0).inverse() * packed.bind(s1, 0)
        }
        None => {
            let v = |k: &str, d: f64| -> DVec3 {
                node[k].as_array().map_or(DVec3::splat(d), |a| {
                    DVec3::new(
                        a[0].as_f64().unwrap(),
                        a[1].as_f64().unwrap(),
                        a[2].as_f64().unwrap(),
                    )
                })
            };
            DMat4::from_scale_rotation_translation(
                v("scale", 1.0),
                DQuat::IDENTITY,
                v("translation", 0.0),
            )
        }
    };
    (d.w_axis.truncate(), d.x_axis.x)
}

/// How far each position may be read back: the stated share of the
/// larger of the mesh's half-size and largest displacement (the default
/// file's), and f32's rounding of the grid's centre.
fn position_bound(c: &Corners, centre: DVec3) -> f64 {
    let base = &c.iter().find(|(n, _, _)| n == "POSITION").unwrap().2;
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for p in base.chunks_exact(3) {
        let p = DVec3::from_slice(p);
        (lo, hi) = (lo.min(p), hi.max(p));
    }
    let moved = c
        .iter()
        .filter(|(n, _, _)| n.ends_with(":POSITION"))
        .flat_map(|(_, _, v)| v.iter().map(|x| x.abs()))
        .fold(0.0, f64::max);
    let reach = ((hi - lo).max_element() / 2.0).max(moved);
    POSITION_SHARE * reach * 1.001 + 3e-7 * (centre.abs().max_element() + reach)
}

/// A primitive's triangles (lines, points), each corner all its vertex's
/// numbers.
fn triangles(f: &File, prim: &Value, c: &Corners) -> Vec<Vec<Vec<f64>>> {
    let (indices, _) = f.numbers(prim["indices"].as_u64().unwrap() as usize);
    let corners = match prim["mode"].as_u64() {
        Some(0) => 1,
        Some(1) => 2,
        _ => 3,
    };
    let corner = |i: &f64| -> Vec<f64> {
        let i = *i as usize;
        c.iter()
            .flat_map(|(_, w, v)| v[i * w..][..*w].to_vec())
            .collect()
    };
    indices
        .chunks_exact(corners)
        .map(|t| t.iter().map(corner).collect())
        .collect()
}

/// Whether every triangle of `got` is one of `want`, each once, a corner
/// at most `tol` (per number) from its own, starting at any corner.
fn same_triangles(
    got: &[Vec<Vec<f64>>],
    want: &[Vec<Vec<f64>>],
    tol: &[f64],
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} triangles for {}", got.len(), want.len()));
    }
    let x = |t: &Vec<Vec<f64>>| t.iter().map(|c| c[0]).sum::<f64>();
    let mut order: Vec<usize> = (0..want.len()).collect();
    order.sort_by(|&a, &b| x(&want[a]).total_cmp(&x(&want[b])));
    let xs: Vec<f64> = order.iter().map(|&i| x(&want[i])).collect();
    let mut used = vec![false; want.len()];
    let near = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .zip(tol)
            .all(|((a, b), t)| (a - b).abs() <= *t)
    };
    for g in got {
        let gx = x(g);
        let reach = g.len() as f64 * tol[0];
        let from = xs.partition_point(|&v| v < gx - reach);
        let found = (from..order.len())
            .take_while(|&k| xs[k] <= gx + reach)
            .find(|&k| {
                let w = &want[order[k]];
                let n = g.len();
                !used[k] && (0..n).any(|r| (0..n).all(|c| near(&g[c], &w[(c + r) % n])))
            });
        match found {
            Some(k) => used[k] = true,
            None => {
                return Err(format!(
                    "no triangle like {:?}…",
                    &g[0][..g[0].len().min(12)]
                ));
            }
        }
    }
    Ok(())
}

// The stated bound on positions is within 1e-4 of a mesh's size.
const _: () = assert!(POSITION_SHARE < 1e-4);

/// What a reader finds in a compressed file against the default one (see
/// `compressed_files_draw_the_default_triangles`); returns the streams,
/// the triangles compared and the vertices welded.
fn draws_as_the_default(
    scene: &str,
    plain_path: &Path,
    packed_path: &Path,
) -> (usize, usize, usize) {
    let (mut compared, mut welded) = (0, 0);
    let (plain, _) = File::open(plain_path);
    let (packed, n) = File::open(packed_path);
    let list = |f: &File, key: &str| f.json[key].as_array().cloned().unwrap_or_default();
    let (pm, cm) = (list(&plain, "meshes"), list(&packed, "meshes"));
    assert_eq!(pm.len(), cm.len(), "{scene}");
    for (m, (p, c)) in pm.iter().zip(&cm).enumerate() {
        assert_eq!(p["weights"], c["weights"], "{scene}");
        let (pp, cp) = (&p["primitives"][0], &c["primitives"][0]);
        assert_eq!(pp["mode"], cp["mode"], "{scene}");
        assert_eq!(pp["material"], cp["material"], "{scene}");
        let want_corners = corners(&plain, pp, (DVec3::ZERO, 1.0));
        let place = grid(&plain, &packed, m);
        let got_corners = corners(&packed, cp, place);
        let names = |c: &Corners| {
            c.iter()
                .map(|(n, w, _)| (n.clone(), *w))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&got_corners), names(&want_corners), "{scene}");
        let bound = position_bound(&want_corners, place.0);
        let tol: Vec<f64> = want_corners
            .iter()
            .flat_map(|(n, w, _)| std::iter::repeat_n(tolerance(n, bound), *w))
            .collect();
        let want = triangles(&plain, pp, &want_corners);
        let got = triangles(&packed, cp, &got_corners);
        if let Err(e) = same_triangles(&got, &want, &tol) {
            panic!("{scene}: mesh {m}: {e}");
        }
        compared += got.len();
        let count = |c: &Corners| c[0].2.len() / c[0].1;
        welded += count(&want_corners) - count(&got_corners);
    }
    // Animations: the same keys and values, channels to the same
    // targets (a mesh's weights on the node that holds it now).
    let none = Vec::new();
    let animations = |f: &File| f.json["animations"].as_array().unwrap_or(&none).clone();
    assert_eq!(
        animations(&plain).len(),
        animations(&packed).len(),
        "{scene}"
    );
    let target = |f: &File, c: &Value| -> Value {
        let mut t = c["target"].clone();
        // The mesh a node shows, itself or by a node of its own under it.
        let mesh = |n: &Value| {
            n["mesh"].as_u64().or_else(|| {
                let kids = n["children"].as_array()?;
                let mut held = kids.iter().filter_map(|k| {
                    let k = &f.json["nodes"][k.as_u64()? as usize];
                    k["name"].is_null().then(|| k["mesh"].as_u64()).flatten()
                });
                held.next_back()
            })
        };
        if let Some(m) = t["node"]
            .as_u64()
            .and_then(|n| mesh(&f.json["nodes"][n as usize]))
        {
            t["node"] = serde_json::json!(format!("mesh {m}"));
        }
        t
    };
    for (pa, ca) in animations(&plain).iter().zip(&animations(&packed)) {
        let pc = pa["channels"].as_array().unwrap();
        let cc = ca["channels"].as_array().unwrap();
        assert_eq!(pc.len(), cc.len(), "{scene}");
        for (a, b) in pc.iter().zip(cc) {
            assert_eq!(target(&plain, a), target(&packed, b), "{scene}");
            let sampler = |an: &Value, c: &Value| {
                an["samplers"][c["sampler"].as_u64().unwrap() as usize].clone()
            };
            let (sa, sb) = (sampler(pa, a), sampler(ca, b));
            assert_eq!(sa["interpolation"], sb["interpolation"], "{scene}");
            // Rotations are fitted again, leaving room for their keys'
            // rounding (their bound: tests/it/bound.rs); the rest is the
            // default file's.
            if b["target"]["path"] == "rotation" {
                let out = &packed.json["accessors"][sb["output"].as_u64().unwrap() as usize];
                // (Rounded unless the file was left as without the flag:
                // nothing got smaller.)
                let compact = n > 0;
                if compact && sb["interpolation"] != "CUBICSPLINE" {
                    assert_eq!(out["componentType"], 5122, "{scene}: a rotation's keys");
                }
                continue;
            }
            for k in ["input", "output"] {
                let want = plain.numbers(sa[k].as_u64().unwrap() as usize);
                let got = packed.numbers(sb[k].as_u64().unwrap() as usize);
                assert_eq!(got, want, "{scene}: {k}");
            }
        }
    }
    // Nodes: the same but where they hold a mesh: there the grid's
    // translation and scale, or the mesh on a node of its own under it.
    let (pn, cn) = (list(&plain, "nodes"), list(&packed, "nodes"));
    for (i, p) in pn.iter().enumerate() {
        let mut c = cn[i].clone();
        if p["mesh"].is_number() && p["skin"].is_null() {
            if c["mesh"].is_null() {
                let kids = c["children"].as_array_mut().unwrap();
                let child = kids.pop().unwrap().as_u64().unwrap() as usize;
                assert_eq!(cn[child]["mesh"], p["mesh"], "{scene}");
                if kids.is_empty() {
                    c.as_object_mut().unwrap().remove("children");
                }
                c["mesh"] = p["mesh"].clone();
                if let Some(w) = cn[child].get("weights") {
                    c["weights"] = w.clone();
                }
            } else {
                let o = c.as_object_mut().unwrap();
                o.remove("translation");
                o.remove("scale");
            }
        }
        if p["skin"].is_number() {
            let joints = |f: &File, n: &Value| {
                f.json["skins"][n["skin"].as_u64().unwrap() as usize]["joints"].clone()
            };
            assert_eq!(joints(&plain, p), joints(&packed, &c), "{scene}");
            c["skin"] = p["skin"].clone();
        }
        assert_eq!(&c, p, "{scene}: node {i}");
    }
    for key in ["materials", "cameras", "scenes", "textures"] {
        assert_eq!(plain.json[key], packed.json[key], "{scene}: {key}");
    }
    if n > 0 {
        let fallback = &packed.json["buffers"][1]["extensions"]["EXT_meshopt_compression"];
        assert_eq!(fallback["fallback"], true, "{scene}");
    }
    (n, compared, welded)
}

/// Every triangle (line, point) a reader draws from a compressed file is
/// one of the default file's, from the same corners' numbers within the
/// stated roundings (positions on the grid of the node or skin that holds
/// them); the animations, nodes, materials and cameras are the same.
#[test]
fn compressed_files_draw_the_default_triangles() {
    let dir = tempfile::tempdir().unwrap();
    let (mut streams, mut plain_bytes, mut packed_bytes) = (0, 0, 0);
    let (mut compared, mut welded) = (0, 0);
    let mut files = Vec::new();
    for scene in SCENES {
        let (plain_path, packed_path) = both(dir.path(), &util::root().join(scene)).unwrap();
        plain_bytes += std::fs::metadata(&plain_path).unwrap().len();
        packed_bytes += std::fs::metadata(&packed_path).unwrap().len();
        let (n, c, w) = draws_as_the_default(scene, &plain_path, &packed_path);
        (streams, compared, welded) = (streams + n, compared + c, welded + w);
        files.push(packed_path);
    }
    assert!(streams >= 10, "{streams} streams");
    eprintln!(
        "{streams} streams, {compared} triangles, {welded} vertices welded, {packed_bytes} of {plain_bytes} bytes"
    );
    assert!(
        compared > 1000 && welded > 100,
        "{compared} triangles, {welded} vertices welded"
    );
    assert!(
        packed_bytes * 2 < plain_bytes,
        "{packed_bytes} of {plain_bytes} bytes"
    );
    util::assert_validator_clean(&files);
}

/// three.js plays a compressed file as the default one at `times`: nodes
/// (but the place of those that hold a mesh), materials and every mesh's
/// vertices where it draws them; returns how far the farthest vertex is
/// from the default file's, as a share of its mesh's size.
fn plays_as_the_default(three_dir: &Path, scene: &str, plain: &Path, packed: &Path) -> f64 {
    let times: Vec<f64> = (0..20).map(|i| f64::from(i) * 0.37).collect();
    let play = |glb: &Path, pose: Option<&Path>| {
        let mut args = vec![
            util::root().join("tools/three-play.mjs").into_os_string(),
            glb.as_os_str().to_owned(),
        ];
        args.extend(times.iter().map(|t| t.to_string().into()));
        let mut env = vec![
            ("X3DBAKE_THREE", three_dir),
            ("X3DBAKE_THREE_DRAWN", Path::new("1")),
        ];
        env.extend(pose.map(|p| ("X3DBAKE_THREE_POSE", p)));
        let out = util::node(&args, None, &env);
        serde_json::from_slice::<Value>(&out).expect("three-play prints JSON")
    };
    let holders: Vec<bool> = util::document_json(&std::fs::read(plain).unwrap()).0["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["mesh"].is_number())
        .collect();
    // The default file's meshes drawn as posed by the compressed file's
    // rotations: their keys differ (each within its bound, checked below).
    let (a, b) = (play(plain, Some(packed)), play(packed, None));
    let (aa, ba) = (
        a["animations"].as_array().unwrap(),
        b["animations"].as_array().unwrap(),
    );
    assert_eq!(aa.len(), ba.len(), "{scene}");
    assert!(!aa.is_empty() || scene != SCENES[0]);
    let mut worst = 0.0f64;
    let samples = |x: &Value| x["samples"].as_array().unwrap().clone();
    for (x, y) in aa.iter().zip(ba) {
        for (s, t) in samples(x).iter().zip(&samples(y)) {
            // Nodes, but for the place of those that hold a mesh.
            for n in s["nodes"].as_array().unwrap() {
                let i = n["index"].as_u64().unwrap() as usize;
                let nodes = t["nodes"].as_array().unwrap();
                let mut m = nodes
                    .iter()
                    .find(|o| o["index"] == n["index"])
                    .unwrap()
                    .clone();
                let mut n = n.clone();
                if holders[i] {
                    // (A mesh may move to a node of its own under it.)
                    for k in ["position", "scale", "name"] {
                        n[k] = Value::Null;
                        m[k] = Value::Null;
                    }
                }
                // Rotations within the two files' bounds of the same curve
                // (their keys differ: see the read-back test).
                let q = |v: &Value| {
                    DQuat::from_slice(
                        &v.as_array()
                            .unwrap()
                            .iter()
                            .map(|x| x.as_f64().unwrap())
                            .collect::<Vec<_>>(),
                    )
                };
                let angle = q(&m["quaternion"])
                    .normalize()
                    .angle_between(q(&n["quaternion"]).normalize());
                assert!(angle <= 2.0 * DEFAULT_ANGLE + 1e-6, "{scene}: {n} and {m}");
                m["quaternion"] = Value::Null;
                n["quaternion"] = Value::Null;
                let mut off = 0.0;
                assert!(near(&m, &n, &mut off) && off == 0.0, "{scene}: {n} and {m}");
            }
            let mut off = 0.0;
            let same = near(&t["materials"], &s["materials"], &mut off);
            assert!(same && off == 0.0, "{scene}: materials");
            // Every mesh's vertices where three.js draws them: each
            // near one of the default file's, and back.
            let (dp, dc) = (
                s["drawn"].as_array().unwrap(),
                t["drawn"].as_array().unwrap(),
            );
            assert_eq!(dp.len(), dc.len(), "{scene}");
            for (p, c) in dp.iter().zip(dc) {
                assert_eq!(p["visible"], c["visible"], "{scene}");
                let (pp, cp) = (points(p), points(c));
                // A share of the mesh's size, morphed or not (its grid
                // spans both).
                let size = extent(&pp).max(p["rest"].as_f64().unwrap());
                worst = worst.max(hausdorff(&pp, &cp) / size.max(1e-9));
            }
        }
    }
    worst
}

#[test]
fn three_js_draws_a_compressed_file_as_the_default_one() {
    let Some(three_dir) = three() else { return };
    let dir = tempfile::tempdir().unwrap();
    for scene in SCENES {
        let (plain, packed) = both(dir.path(), &util::root().join(scene)).unwrap();
        let worst = plays_as_the_default(&three_dir, scene, &plain, &packed);
        // Within the positions' bound (a share of the reach, which is
        // within the size in some pose), for a few targets summed.
        assert!(worst <= 4.0 * POSITION_SHARE, "{scene}: {worst}");
    }
}

/// A drawn mesh's points.
fn points(v: &Value) -> Vec<DVec3> {
    let f = |x: &Value| x.as_f64().unwrap();
    v["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| DVec3::new(f(&p[0]), f(&p[1]), f(&p[2])))
        .collect()
}

/// The largest side of the box around points.
fn extent(p: &[DVec3]) -> f64 {
    let lo = p.iter().fold(DVec3::splat(f64::INFINITY), |a, &b| a.min(b));
    let hi = p
        .iter()
        .fold(DVec3::splat(f64::NEG_INFINITY), |a, &b| a.max(b));
    (hi - lo).max_element().max(0.0)
}

/// The larger of the farthest any point of each set is from the other
/// (each point's nearest found from the other set sorted by x, going out
/// while x alone is nearer than the best).
fn hausdorff(a: &[DVec3], b: &[DVec3]) -> f64 {
    let one_way = |a: &[DVec3], b: &[DVec3]| {
        let mut b = b.to_vec();
        b.sort_by(|p, q| p.x.total_cmp(&q.x));
        a.iter()
            .map(|p| {
                let at = b.partition_point(|q| q.x < p.x);
                let mut best = f64::INFINITY;
                for q in b[at..].iter() {
                    if (q.x - p.x).powi(2) > best {
                        break;
                    }
                    best = best.min(p.distance_squared(*q));
                }
                for q in b[..at].iter().rev() {
                    if (q.x - p.x).powi(2) > best {
                        break;
                    }
                    best = best.min(p.distance_squared(*q));
                }
                best
            })
            .fold(0.0, f64::max)
            .sqrt()
    };
    one_way(a, b).max(one_way(b, a))
}

/// Where no view gets smaller (a few keys), nothing is compressed: the
/// same file as without --compress.
#[test]
fn a_document_nothing_makes_smaller_is_written_as_it_is() {
    let (dir, path) = util::scene_file(
        "few.x3d",
        "<X3D><Scene><Transform DEF='T'/><TimeSensor DEF='C' loop='true'/>\
         <PositionInterpolator DEF='P' key='0 1' keyValue='0 0 0 1 2 3'/>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='T' toField='translation'/>\
         </Scene></X3D>",
    );
    let (plain, packed) = (dir.path().join("a.glb"), dir.path().join("b.glb"));
    bake_ok(&path, &plain, &[]);
    bake_ok(&path, &packed, &["--compress"]);
    let (a, b) = (
        std::fs::read(&plain).unwrap(),
        std::fs::read(&packed).unwrap(),
    );
    assert!(a.len() > 100 && a == b, "{} and {} bytes", a.len(), b.len());
    util::assert_validator_clean(&[packed]);
}

/// Whether two JSON documents are the same but for numbers, the largest
/// difference of which goes to `worst`.
fn near(a: &Value, b: &Value, worst: &mut f64) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let d = (x.as_f64().unwrap() - y.as_f64().unwrap()).abs();
            *worst = worst.max(d);
            true
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| near(x, y, worst))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| near(v, w, worst)))
        }
        _ => a == b,
    }
}

/// Every corpus scene the default bake takes: its compressed file draws
/// the default file's triangles within the roundings, the validator finds
/// no error, and three.js draws it as the default one at 20 times.
#[test]
fn every_compressed_corpus_scene_draws_as_the_default() {
    let Some(scenes) = crate::corpus::corpus_files(crate::corpus::READ) else {
        return;
    };
    let three_dir = three();
    let dir = tempfile::tempdir().unwrap();
    let (mut baked, mut compared, mut welded, mut worst) = (0, 0, 0, 0.0f64);
    let mut files = Vec::new();
    for (i, scene) in scenes.iter().enumerate() {
        let sub = dir.path().join(i.to_string());
        std::fs::create_dir(&sub).unwrap();
        let Some((plain, packed)) = both(&sub, scene) else {
            continue;
        };
        let name = scene.to_string_lossy();
        let (_, c, w) = draws_as_the_default(&name, &plain, &packed);
        (baked, compared, welded) = (baked + 1, compared + c, welded + w);
        if let Some(three_dir) = &three_dir {
            let far = plays_as_the_default(three_dir, &name, &plain, &packed);
            assert!(far <= 4.0 * POSITION_SHARE, "{name}: {far}");
            worst = worst.max(far);
        }
        files.push(packed);
    }
    eprintln!(
        "{baked} corpus scenes: {compared} triangles drawn as the default files', \
         {welded} vertices welded; three.js: farthest vertex {worst:e} of its mesh's size"
    );
    assert!(baked >= 60, "{baked} scenes baked");
    util::assert_validator_clean(&files);
}

/// `--compress=quantize` (what Blender reads): KHR_mesh_quantization with
/// no EXT_meshopt_compression, skinned meshes' positions as floats and
/// their inverse bind matrices as the default's (Blender guesses the bind
/// pose from them); and with either variant, a node the X3D named keeps
/// the transform the X3D gave it (a mesh moved onto its grid goes on a
/// node of its own).
#[test]
fn the_blender_variant_keeps_skins_and_named_nodes_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let doc = |scene: &str, flags: &[&str]| {
        let out = dir.path().join("o.glb");
        let x3d = util::root().join("fixtures/scenes").join(scene);
        util::bake_ok(&x3d.to_string_lossy(), &out, flags);
        util::document_json(&std::fs::read(&out).unwrap())
    };
    let (plain, plain_bin) = doc("humanoid.x3d", &[]);
    let (quantized, bin) = doc("humanoid.x3d", &["--compress=quantize"]);
    let used = quantized["extensionsUsed"].to_string();
    assert!(used.contains("KHR_mesh_quantization"), "{used}");
    assert!(!used.contains("EXT_meshopt_compression"), "{used}");
    let floats = |d: &Value, b: &[u8], a: u64| -> Vec<u8> {
        let acc = &d["accessors"][a as usize];
        let view = &d["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
        let at = view["byteOffset"].as_u64().unwrap_or(0) + acc["byteOffset"].as_u64().unwrap_or(0);
        let len = acc["count"].as_u64().unwrap() * 64;
        b[at as usize..(at + len) as usize].to_vec()
    };
    let mut skinned = 0;
    for n in quantized["nodes"].as_array().unwrap() {
        if let (Some(m), Some(_)) = (n["mesh"].as_u64(), n["skin"].as_u64()) {
            for p in quantized["meshes"][m as usize]["primitives"]
                .as_array()
                .unwrap()
            {
                let a = p["attributes"]["POSITION"].as_u64().unwrap() as usize;
                assert_eq!(quantized["accessors"][a]["componentType"], 5126);
                skinned += 1;
            }
        }
    }
    assert!(skinned > 0, "humanoid.x3d has a skinned mesh");
    for (s, ps) in quantized["skins"]
        .as_array()
        .unwrap()
        .iter()
        .zip(plain["skins"].as_array().unwrap())
    {
        let (a, b) = (
            s["inverseBindMatrices"].as_u64(),
            ps["inverseBindMatrices"].as_u64(),
        );
        assert_eq!(
            floats(&quantized, &bin, a.unwrap()),
            floats(&plain, &plain_bin, b.unwrap())
        );
    }
    // Named nodes: the X3D's transform, with and without the flags.
    for flags in [&["--compress"][..], &["--compress=quantize"][..]] {
        for scene in ["extrusion_dart.x3d", "bouncing_box.x3d", "morph.x3d"] {
            let (plain, _) = doc(scene, &[]);
            let (packed, _) = doc(scene, flags);
            let named = |d: &Value| -> Vec<Value> {
                d["nodes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|n| n["name"].is_string())
                    .map(|n| serde_json::json!([n["name"], n["translation"], n["scale"]]))
                    .collect()
            };
            assert_eq!(named(&plain), named(&packed), "{scene} {flags:?}");
        }
    }
}
