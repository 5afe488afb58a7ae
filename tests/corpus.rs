//! The real scenes in ../shared/corpus (not part of this repository: their
//! licences differ). Skipped, with a note, when the folder is not there.

mod util;

use std::path::{Path, PathBuf};

/// The scene files x3dbake reads (every encoding it knows so far).
const READ: &[&str] = &["x3d", "x3dv", "wrl", "gz", "x3dj"];

fn corpus_files(exts: &[&str]) -> Option<Vec<PathBuf>> {
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

#[test]
fn inspect_reads_every_scene_file_in_the_corpus() {
    let Some(files) = corpus_files(READ) else {
        return;
    };
    assert!(
        files.len() >= 60,
        "expected the corpus's scene files, found {}",
        files.len()
    );
    let mut failed = Vec::new();
    for f in &files {
        let out = util::run(&["inspect", "--quiet", &f.to_string_lossy()]);
        if out.status.code() != Some(0) {
            failed.push(format!("{}: {}", f.display(), util::stderr(&out)));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} failed:\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
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
        let out = dir.path().join(format!("{i}.glb"));
        let o = util::run(&[
            &f.to_string_lossy(),
            "-o",
            &out.to_string_lossy(),
            "--quiet",
        ]);
        if o.status.code() == Some(0) {
            outputs.push(out);
        } else {
            failed.push(format!("{}: {}", f.display(), util::stderr(&o)));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} failed:\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
    let Some(reports) = util::validate(&outputs) else {
        return;
    };
    assert_eq!(reports.len(), outputs.len());
    for r in reports {
        assert_eq!(
            (r["errors"].as_u64(), r["warnings"].as_u64()),
            (Some(0), Some(0)),
            "{r}"
        );
    }
    eprintln!(
        "corpus: {} files baked to .glb, all validator-clean",
        outputs.len()
    );
}
