//! Replays every saved fuzzing finding (fuzz/regressions/<target>/*) through
//! the body of the fuzz target that found it (fuzz/src/lib.rs), and every
//! bad-input fixture through every target: none may panic or take more than
//! a few seconds.

mod util;

#[path = "../fuzz/src/lib.rs"]
mod bodies;

use std::time::{Duration, Instant};

fn run_target(target: &str, data: &[u8]) {
    match target {
        "read_xml" => bodies::read_xml(data),
        "read_vrml" => bodies::read_vrml(data),
        "read_json" => bodies::read_json(data),
        "read_gzip" => bodies::read_gzip(data),
        "pipeline" => bodies::bake(data),
        other => panic!("fuzz/regressions/{other}: no such fuzz target"),
    }
}

const LIMIT: Duration = Duration::from_secs(5);

#[test]
fn saved_findings_and_bad_inputs_pass_every_target() {
    let mut inputs = Vec::new();
    let dir = util::root().join("fuzz/regressions");
    for target in std::fs::read_dir(&dir).unwrap() {
        let target = target.unwrap().path();
        if !target.is_dir() {
            continue;
        }
        let name = target.file_name().unwrap().to_string_lossy().into_owned();
        for f in std::fs::read_dir(&target).unwrap() {
            let f = f.unwrap().path();
            inputs.push((vec![name.clone()], f));
        }
    }
    let all = [
        "read_xml",
        "read_vrml",
        "read_json",
        "read_gzip",
        "pipeline",
    ]
    .map(String::from);
    for ext in ["x3d", "x3dv", "wrl", "x3dj", "gz"] {
        for f in util::fixtures("errors", ext) {
            inputs.push((all.to_vec(), f));
        }
    }
    assert!(inputs.len() >= 20, "{} inputs", inputs.len());
    for (targets, file) in &inputs {
        let data = std::fs::read(file).unwrap();
        for target in targets {
            let start = Instant::now();
            run_target(target, &data);
            let took = start.elapsed();
            assert!(took < LIMIT, "{target} {}: {took:?}", file.display());
        }
    }
}
