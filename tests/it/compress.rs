//! `--compress`: every buffer view compressed with EXT_meshopt_compression
//! decodes to the default file's bytes (meshoptimizer's own decoder), the
//! JSON is the default's but for the buffers, the validator finds no error,
//! and three.js (with its meshopt decoder) plays the compressed file
//! exactly as the default one.

use crate::three::{play, three};
use crate::util;
use crate::util::bake_ok;
use serde_json::Value;
use std::path::{Path, PathBuf};
use x3dbake::internal::write::gltf::SHORT_ERROR;

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

/// The default and the compressed .glb of a scene.
fn both(dir: &Path, scene: &str) -> (PathBuf, PathBuf) {
    let name = Path::new(scene).file_stem().unwrap().to_string_lossy();
    let plain = dir.join(format!("{name}.glb"));
    let packed = dir.join(format!("{name}.meshopt.glb"));
    let input = util::root().join(scene);
    bake_ok(&input.to_string_lossy(), &plain, &[]);
    bake_ok(&input.to_string_lossy(), &packed, &["--compress"]);
    (plain, packed)
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

/// Accessor `i`'s numbers as a reader takes them (normalised shorts as
/// max(q / 32 767, -1)), and whether it is quantised.
fn numbers(doc: &Value, views: &[Vec<u8>], i: usize) -> (Vec<f64>, bool) {
    let a = &doc["accessors"][i];
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
    let bytes = &views[view][a["byteOffset"].as_u64().unwrap_or(0) as usize..];
    let size = match a["componentType"].as_u64().unwrap() {
        5121 => 1,
        5122 | 5123 => 2,
        _ => 4,
    };
    let stride = doc["bufferViews"][view]["byteStride"]
        .as_u64()
        .map_or(width * size, |s| s as usize);
    let normalized = a["normalized"] == true;
    let mut out = Vec::with_capacity(count * width);
    for e in 0..count {
        for c in 0..width {
            let b = &bytes[e * stride + c * size..][..size];
            out.push(match (a["componentType"].as_u64().unwrap(), normalized) {
                (5126, _) => f64::from(f32::from_le_bytes(b.try_into().unwrap())),
                (5122, true) => (f64::from(i16::from_le_bytes([b[0], b[1]])) / 32767.0).max(-1.0),
                (5123, _) => f64::from(u16::from_le_bytes([b[0], b[1]])),
                (5125, _) => f64::from(u32::from_le_bytes(b.try_into().unwrap())),
                (5121, _) => f64::from(b[0]),
                (t, n) => panic!("component {t}, normalized {n}"),
            });
        }
    }
    (out, normalized)
}

#[test]
fn compressed_files_read_back_as_the_default_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (mut streams, mut quantized, mut plain_bytes, mut packed_bytes) = (0, 0, 0, 0);
    let mut files = Vec::new();
    for scene in SCENES {
        let (plain, packed) = both(dir.path(), scene);
        let (pj, pbin) = util::document_json(&std::fs::read(&plain).unwrap());
        let (cj, cbin) = util::document_json(&std::fs::read(&packed).unwrap());
        plain_bytes += std::fs::metadata(&plain).unwrap().len();
        packed_bytes += std::fs::metadata(&packed).unwrap().len();
        let (pviews, _) = views(&pj, &pbin);
        let (cviews, n) = views(&cj, &cbin);
        streams += n;
        // Accessor `i` of the default file against `j` of the compressed.
        let mut same = |i: &Value, j: &Value, what: &str| {
            let (want, _) = numbers(&pj, &pviews, i.as_u64().unwrap() as usize);
            let (got, q) = numbers(&cj, &cviews, j.as_u64().unwrap() as usize);
            quantized += usize::from(q);
            assert_eq!(got.len(), want.len(), "{scene}: {what}");
            let bound = if q {
                f64::from(SHORT_ERROR) + 1e-7
            } else {
                0.0
            };
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() <= bound, "{scene}: {what}: {g} for {w}");
            }
        };
        let (pm, cm) = (
            pj["meshes"].as_array().unwrap(),
            cj["meshes"].as_array().unwrap(),
        );
        assert_eq!(pm.len(), cm.len(), "{scene}");
        for (p, c) in pm.iter().zip(cm) {
            for (pp, cp) in p["primitives"]
                .as_array()
                .unwrap()
                .iter()
                .zip(c["primitives"].as_array().unwrap())
            {
                for (k, a) in pp["attributes"].as_object().unwrap() {
                    same(a, &cp["attributes"][k], k);
                }
                let no_targets = Vec::new();
                let targets = pp["targets"].as_array().unwrap_or(&no_targets);
                for (t, ct) in targets
                    .iter()
                    .zip(cp["targets"].as_array().unwrap_or(&no_targets))
                {
                    for (k, a) in t.as_object().unwrap() {
                        same(a, &ct[k], k);
                    }
                }
                // Triangles may start at another corner (the same way round).
                if let Some(i) = pp.get("indices") {
                    let (want, _) = numbers(&pj, &pviews, i.as_u64().unwrap() as usize);
                    let (got, _) = numbers(&cj, &cviews, cp["indices"].as_u64().unwrap() as usize);
                    assert_eq!(got.len(), want.len());
                    for (g, w) in got.chunks(3).zip(want.chunks(3)) {
                        let n = g.len();
                        let turned = (0..n).any(|r| (0..n).all(|k| g[k] == w[(k + r) % n]));
                        assert!(turned, "{scene}: triangle {g:?} for {w:?}");
                    }
                }
            }
        }
        let none = Vec::new();
        let animations = |doc: &Value| doc["animations"].as_array().unwrap_or(&none).clone();
        assert_eq!(animations(&pj).len(), animations(&cj).len(), "{scene}");
        for (pa, ca) in animations(&pj).iter().zip(&animations(&cj)) {
            assert_eq!(pa["channels"], ca["channels"], "{scene}");
            for (ps, cs) in pa["samplers"]
                .as_array()
                .unwrap()
                .iter()
                .zip(ca["samplers"].as_array().unwrap())
            {
                same(&ps["input"], &cs["input"], "input");
                same(&ps["output"], &cs["output"], "output");
            }
        }
        for key in ["nodes", "materials", "cameras", "scenes"] {
            assert_eq!(pj[key], cj[key], "{scene}: {key}");
        }
        // A file of small views (multitexture.x3d) has none compressed.
        if n > 0 {
            let fallback = &cj["buffers"][1]["extensions"]["EXT_meshopt_compression"];
            assert_eq!(fallback["fallback"], true, "{scene}");
        }
        files.push(packed);
    }
    assert!(streams > 40, "{streams} streams");
    assert!(quantized > 40, "{quantized} quantised accessors");
    assert!(
        packed_bytes * 10 < plain_bytes * 8,
        "{packed_bytes} of {plain_bytes} bytes"
    );
    util::assert_validator_clean(&files);
}

#[test]
fn three_js_plays_a_compressed_file_as_the_default_one() {
    let Some(three_dir) = three() else { return };
    let dir = tempfile::tempdir().unwrap();
    let times: Vec<f64> = (0..20).map(|i| f64::from(i) * 0.37).collect();
    for scene in SCENES {
        let (plain, packed) = both(dir.path(), scene);
        let a = play(&three_dir, &plain, &times);
        let b = play(&three_dir, &packed, &times);
        assert!(a["animations"].as_array().is_some_and(|x| !x.is_empty()) || *scene != SCENES[0]);
        let mut worst = 0.0f64;
        assert!(
            near(&a, &b, &mut worst),
            "{scene}: three.js plays the compressed file otherwise"
        );
        // Morphed points and normals: within the shorts' rounding, times
        // the weights (at most 1 each, two at once between keys).
        assert!(
            worst <= 2.0 * f64::from(SHORT_ERROR) + 1e-6,
            "{scene}: {worst}"
        );
    }
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
