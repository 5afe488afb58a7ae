//! The real scenes in ../shared/corpus (not part of this repository: their
//! licences differ). Skipped, with a note, when the folder is not there.

use crate::util;

use std::path::{Path, PathBuf};

/// The scene files x3dbake reads (every encoding it knows so far).
pub(crate) const READ: &[&str] = &["x3d", "x3dv", "wrl", "gz", "x3dj"];

pub(crate) fn corpus_files(exts: &[&str]) -> Option<Vec<PathBuf>> {
    let dir = util::root().join("../shared/corpus");
    if !dir.is_dir() {
        eprintln!("note: ../shared/corpus not found; corpus test skipped");
        return None;
    }
    let mut out = Vec::new();
    walk(&dir, exts, &mut out);
    out.sort();
    Some(out)
}

fn walk(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable corpus folder") {
        let p = e.expect("readable entry").path();
        if p.is_dir() {
            walk(&p, exts, out);
        } else if p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)) {
            out.push(p);
        }
    }
}

/// Fails with every file's message when any of `total` files failed.
fn none_failed(failed: &[String], total: usize) {
    assert!(
        failed.is_empty(),
        "{} of {total} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// `inspect` reads every corpus scene and gives exactly the diagnostics
/// the bake gives (it runs the same stages): the same text on standard
/// error, and in `--json` the same counts, so that a CI check on
/// `inspect --json` predicts `--deny-warnings`.
#[test]
fn inspect_gives_every_corpus_scene_the_bakes_diagnostics() {
    let Some(files) = corpus_files(READ) else {
        return;
    };
    assert!(
        files.len() >= 60,
        "expected the corpus's scene files, found {}",
        files.len()
    );
    let mut failed = Vec::new();
    let mut warned = 0;
    for f in &files {
        let f = f.to_string_lossy();
        let inspect = util::run(&["inspect", "-v", &f]);
        let bake = util::run(&[&f, "-o", "/dev/null", "-v"]);
        let json = util::run(&["inspect", "--json", &f]);
        let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap_or_default();
        // The count on the bake's last line: `FILE: N warnings (M different), …`.
        let bake_warnings: usize = util::stderr(&bake)
            .lines()
            .rev()
            .find(|l| l.contains(" different), "))
            .and_then(|l| l.rsplit(": ").next()?.split(' ').next()?.parse().ok())
            .unwrap_or(0);
        warned += usize::from(bake_warnings > 0);
        if inspect.status.code() != Some(0) || bake.status.code() != Some(0) {
            failed.push(format!(
                "{f}: {}{}",
                util::stderr(&inspect),
                util::stderr(&bake)
            ));
        } else if util::stderr(&inspect) != util::stderr(&bake) {
            failed.push(format!(
                "{f}: inspect says\n{}\nthe bake says\n{}",
                util::stderr(&inspect),
                util::stderr(&bake)
            ));
        } else if doc["warnings"].as_u64() != Some(bake_warnings as u64) || doc["errors"] != 0 {
            failed.push(format!(
                "{f}: inspect --json counts {} warnings, the bake {bake_warnings}",
                doc["warnings"]
            ));
        }
    }
    none_failed(&failed, files.len());
    assert!(
        warned >= 30,
        "the corpus has warnings to compare: {warned} scenes"
    );
}

#[test]
fn every_scene_file_in_the_corpus_bakes_to_a_validator_clean_glb() {
    let Some(files) = corpus_files(READ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    let mut failed = Vec::new();
    for (i, f) in files.iter().enumerate() {
        // The default, and the forms for Blender (quantised) and for core
        // loaders (the gltf crate, Bevy).
        for (v, flag) in ["", "--compress=quantize", "--core"].iter().enumerate() {
            let out = dir.path().join(format!("{i}-{v}.glb"));
            let (input, to) = (f.to_string_lossy(), out.to_string_lossy());
            let mut args = vec![&*input, "-o", &*to, "--quiet"];
            args.extend((!flag.is_empty()).then_some(*flag));
            let o = util::run(&args);
            if o.status.code() == Some(0) {
                outputs.push(out);
            } else {
                failed.push(format!("{} {flag}: {}", f.display(), util::stderr(&o)));
            }
        }
    }
    none_failed(&failed, files.len());
    if !util::assert_validator_clean(&outputs) {
        return;
    }
    eprintln!(
        "corpus: {} files baked to .glb (default, --compress=quantize, --core), all validator-clean",
        outputs.len()
    );
}

/// The channel targets of a baked file: `node path` for node channels,
/// the JSON pointer (with indices as `N`) for pointer channels.
fn channel_kinds(glb: &Path) -> std::collections::BTreeSet<String> {
    let bytes = std::fs::read(glb).unwrap();
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + len]).unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for a in json["animations"].as_array().into_iter().flatten() {
        for c in a["channels"].as_array().unwrap() {
            let t = &c["target"];
            let kind = match t["extensions"]["KHR_animation_pointer"]["pointer"].as_str() {
                Some(p) => p
                    .split('/')
                    .map(|s| if s.parse::<u64>().is_ok() { "N" } else { s })
                    .collect::<Vec<_>>()
                    .join("/"),
                None => format!("node {}", t["path"].as_str().unwrap()),
            };
            kinds.insert(kind);
        }
    }
    kinds
}

#[test]
fn corpus_scenes_with_non_transform_targets_keep_those_tracks() {
    if corpus_files(READ).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &[&str])] = &[
        (
            "h3dapi/examples/All/ColorInterpolator.x3d",
            &["/materials/N/pbrMetallicRoughness/baseColorFactor"],
        ),
        (
            "h3dapi/examples/All/CoordinateInterpolator.x3d",
            &["node weights"],
        ),
        (
            "h3dapi/examples/All/NormalInterpolator.x3d",
            &["node weights"],
        ),
        (
            "h3dapi/examples/All/ScalarInterpolator.x3d",
            &["/materials/N/pbrMetallicRoughness/baseColorFactor"],
        ),
        ("h3dapi/examples/All/Switch.x3d", &["node scale"]),
        (
            "castle-demo-models/lights_materials/light_color_animated.x3dv",
            &["/extensions/KHR_lights_punctual/lights/N/color"],
        ),
        (
            "castle-demo-models/event_utilities/sequencer_int_test.x3dv",
            &["node scale"],
        ),
        (
            "xj3d/parsetest/cad/FoldingTrailer.x3dv",
            &["node weights", "node rotation"],
        ),
        // (animate_tex_coord's texture coordinates move, but its image is
        // missing: no texture, no coordinates, a warning.)
    ];
    for (file, want) in cases {
        let input = util::root().join("../shared/corpus").join(file);
        let out = dir.path().join("c.glb");
        let o = util::run(&[
            &input.to_string_lossy(),
            "-o",
            &out.to_string_lossy(),
            "--quiet",
        ]);
        assert_eq!(o.status.code(), Some(0), "{file}: {}", util::stderr(&o));
        let kinds = channel_kinds(&out);
        for w in *want {
            assert!(kinds.contains(*w), "{file}: no `{w}` channel in {kinds:?}");
        }
    }
}

/// The `gltf` crate (what Bevy's loader and most Rust tools read glTF
/// with) parses a whole file or none: it refuses a channel without a node.
/// Every corpus scene baked with `--core` is read by it whole, with every
/// animation that holds a node channel; a default bake is refused only
/// where it holds a KHR_animation_pointer channel, and `--core` names each
/// track it leaves out.
#[test]
fn the_gltf_crate_reads_every_corpus_scene_baked_with_core() {
    let Some(files) = corpus_files(READ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (mut failed, mut read, mut default_read, mut left_out) = (Vec::new(), 0, 0, 0);
    for (i, f) in files.iter().enumerate() {
        let (default, core) = (
            dir.path().join(format!("{i}.glb")),
            dir.path().join(format!("{i}-core.glb")),
        );
        let input = f.to_string_lossy();
        if !util::bake(&input, &default, &[]).status.success() {
            continue; // (the validator test names the scenes that do not bake)
        }
        let o = util::run(&[&input, "-o", &core.to_string_lossy(), "--core"]);
        assert!(o.status.success(), "{input}: {}", util::stderr(&o));
        left_out += util::stderr(&o).matches("(--core)").count();
        let (json, _) = util::document_json(&std::fs::read(&default).unwrap());
        let pointers = json.to_string().contains("KHR_animation_pointer");
        match gltf::Gltf::from_slice(&std::fs::read(&default).unwrap()) {
            Ok(_) => default_read += 1,
            Err(e) if pointers => assert!(e.to_string().contains("node"), "{input}: {e}"),
            Err(e) => failed.push(format!("{input} (default): {e}")),
        }
        match gltf::Gltf::from_slice(&std::fs::read(&core).unwrap()) {
            Ok(doc) => {
                read += 1;
                let (core_json, _) = util::document_json(&std::fs::read(&core).unwrap());
                assert!(!core_json.to_string().contains("KHR_animation_pointer"));
                // Every animation of the default file with a node channel
                // is there.
                let with_nodes = json["animations"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|a| {
                        a["channels"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .any(|c| c["target"]["path"] != "pointer")
                    })
                    .count();
                assert_eq!(doc.animations().count(), with_nodes, "{input}");
            }
            Err(e) => failed.push(format!("{input} (--core): {e}")),
        }
    }
    eprintln!(
        "the gltf crate: {read} of {read} --core bakes read, {default_read} default bakes; \
         {left_out} tracks left out by --core"
    );
    none_failed(&failed, read);
    assert!(read >= 60, "{read} scenes read");
}
