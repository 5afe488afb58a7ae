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

#[test]
fn compressed_views_decode_to_the_default_files_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (mut compressed, mut streams, mut plain_bytes, mut packed_bytes) = (0, 0, 0, 0);
    let mut files = Vec::new();
    for scene in SCENES {
        let (plain, packed) = both(dir.path(), scene);
        let (pj, pbin) = util::document_json(&std::fs::read(&plain).unwrap());
        let (cj, cbin) = util::document_json(&std::fs::read(&packed).unwrap());
        plain_bytes += std::fs::metadata(&plain).unwrap().len();
        packed_bytes += std::fs::metadata(&packed).unwrap().len();
        let (pv, cv) = (
            pj["bufferViews"].as_array().unwrap(),
            cj["bufferViews"].as_array().unwrap(),
        );
        assert_eq!(pv.len(), cv.len(), "{scene}");
        for (i, (p, c)) in pv.iter().zip(cv).enumerate() {
            let want = view_bytes(p, &pbin);
            let got = match c["extensions"].get("EXT_meshopt_compression") {
                // The encoder may start a triangle at another corner (the
                // same triangle, the same way round).
                Some(ext) if ext["mode"] == "TRIANGLES" => {
                    streams += 1;
                    let stride = ext["byteStride"].as_u64().unwrap() as usize;
                    let read = |b: &[u8]| -> Vec<u32> {
                        b.chunks_exact(stride)
                            .map(|x| x.iter().rev().fold(0, |n, &y| n << 8 | u32::from(y)))
                            .collect()
                    };
                    let (got, want) = (read(&decoded(ext, &cbin)), read(want));
                    assert_eq!(got.len(), want.len());
                    for (g, w) in got.chunks_exact(3).zip(want.chunks_exact(3)) {
                        let turned = (0..3).any(|r| (0..3).all(|k| g[k] == w[(k + r) % 3]));
                        assert!(turned, "{scene}: view {i}: triangle {g:?} for {w:?}");
                    }
                    continue;
                }
                Some(ext) => {
                    streams += 1;
                    assert_eq!(c["buffer"], 1, "{scene}: view {i} names the fallback");
                    assert_eq!(
                        (&c["byteOffset"], &c["byteLength"]),
                        (&p["byteOffset"], &p["byteLength"])
                    );
                    decoded(ext, &cbin)
                }
                None => view_bytes(c, &cbin).to_vec(),
            };
            assert!(got == want, "{scene}: view {i} decodes to other bytes");
        }
        // The rest of the document is the default's.
        for key in [
            "nodes",
            "meshes",
            "accessors",
            "animations",
            "materials",
            "skins",
        ] {
            assert_eq!(pj[key], cj[key], "{scene}: {key}");
        }
        assert_eq!(
            cj["buffers"][1]["extensions"]["EXT_meshopt_compression"]["fallback"],
            true
        );
        assert_eq!(
            cj["extensionsRequired"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| *e == "EXT_meshopt_compression")
                .count(),
            1
        );
        compressed += 1;
        files.push(packed);
    }
    assert_eq!(compressed, SCENES.len());
    assert!(streams > 40, "{streams} streams");
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
        assert!(
            a == b,
            "{scene}: three.js plays the compressed file otherwise"
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
