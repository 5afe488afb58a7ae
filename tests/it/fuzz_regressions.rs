//! Replays every saved fuzzing finding (fuzz/regressions/<target>/*) through
//! the body of the fuzz target that found it (fuzz/src/lib.rs), and every
//! bad-input fixture through every target: none may panic. (How fast they
//! run is the benchmarks' to measure, not a test's: a replay that hangs
//! fails after a generous 10 minutes instead of stalling the run.)

use crate::util;

#[path = "../../fuzz/src/lib.rs"]
mod bodies;

use std::time::Duration;

fn run_target(target: &str, data: &[u8]) {
    match target {
        "read_xml" => bodies::read_xml(data),
        "read_vrml" => bodies::read_vrml(data),
        "read_json" => bodies::read_json(data),
        "read_gzip" => bodies::read_gzip(data),
        "pipeline" => bodies::bake(data),
        "referenced" => bodies::referenced(data),
        "timeline" => bodies::timeline(data),
        "script" => bodies::script(data),
        "outputs" => bodies::outputs(data),
        "inspect" => bodies::inspect(data),
        other => panic!("fuzz/regressions/{other}: no such fuzz target"),
    }
}

/// Every fuzz target (fuzz/fuzz_targets/), each replayed by `run_target`.
const TARGETS: [&str; 10] = [
    "read_xml",
    "read_vrml",
    "read_json",
    "read_gzip",
    "pipeline",
    "referenced",
    "timeline",
    "script",
    "outputs",
    "inspect",
];

/// How long the whole replay may run before it counts as hung.
const HUNG: Duration = Duration::from_secs(600);

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
    let all = TARGETS.map(String::from);
    for ext in ["x3d", "x3dv", "wrl", "x3dj", "gz"] {
        for f in util::fixtures("errors", ext) {
            inputs.push((all.to_vec(), f));
        }
    }
    assert!(inputs.len() >= 20, "{} inputs", inputs.len());
    // On a stack as large as the CLI gives its readers (a main thread's or
    // a batch worker's, 8 MiB): a debug build of the JSON reader needs over
    // 2 MiB for the 500 levels of deep_nesting_json.x3dj.
    let replay = move || {
        for (targets, file) in &inputs {
            let data = std::fs::read(file).unwrap();
            for target in targets {
                run_target(target, &data);
            }
        }
    };
    let (done, finished) = std::sync::mpsc::channel();
    let worker = std::thread::Builder::new().stack_size(8 << 20);
    let handle = worker
        .spawn(move || {
            replay();
            let _ = done.send(());
        })
        .unwrap();
    if finished.recv_timeout(HUNG).is_err() && !handle.is_finished() {
        panic!("the replay of the fuzzing findings hung");
    }
    if let Err(panic) = handle.join() {
        std::panic::resume_unwind(panic);
    }
}

/// Every fuzz target is replayed: its name is in [`TARGETS`].
#[test]
fn every_fuzz_target_is_replayed() {
    let dir = util::root().join("fuzz/fuzz_targets");
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|f| {
            f.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    found.sort();
    let mut replayed = TARGETS.map(String::from).to_vec();
    replayed.sort();
    assert_eq!(found, replayed);
}

/// The fuzzing dictionaries (fuzz/dict.sh) are well-formed libFuzzer
/// entries and hold every node type of the catalogue, spelt as each
/// encoding writes it.
#[test]
fn fuzz_dictionaries_name_every_node_type() {
    let nodes: Vec<&str> = x3dbake::internal::scene::NodeType::ALL
        .iter()
        .map(|t| t.name())
        .collect();
    assert!(nodes.len() > 260, "{nodes:?}");
    for (encoding, spelt) in [("xml", "<{} "), ("vrml", "{}"), ("json", "\"{}\":{")] {
        let out = std::process::Command::new(util::root().join("fuzz/dict.sh"))
            .arg(encoding)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let words: Vec<String> = text
            .lines()
            .map(|line| {
                let inner = line
                    .strip_prefix('"')
                    .and_then(|l| l.strip_suffix('"'))
                    .unwrap_or_else(|| panic!("{encoding}: not a quoted entry: {line}"));
                let mut word = String::new();
                let mut chars = inner.chars();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => match chars.next() {
                            Some(e @ ('"' | '\\')) => word.push(e),
                            e => panic!("{encoding}: bad escape {e:?} in {line}"),
                        },
                        '"' => panic!("{encoding}: unescaped quote in {line}"),
                        c => word.push(c),
                    }
                }
                word
            })
            .collect();
        for node in &nodes {
            let want = spelt.replace("{}", node);
            assert!(words.contains(&want), "{encoding}: no {want:?}");
        }
    }
}

/// X3D JSON nodes 499 deep around a 4 MB field read whole: every node and
/// the 900 000 numbers of the innermost field. (The serde_json reader this
/// replaced scanned each node's text again at every level above it, 3 s
/// for a 6.5 MB seed of read_json's corpus; the reader's time against its
/// input's size is measured by `bench/deep_json.sh`, not here.)
#[test]
fn deep_json_reads_whole() {
    let numbers = vec!["0.125, -1, 2.5"; 300_000].join(", ");
    let inner = format!(r#"{{"PositionInterpolator":{{"@key":[0,1],"@keyValue":[{numbers}]}}}}"#);
    let nodes = (1..499).fold(inner, |inner, _| {
        format!(r#"{{"Group":{{"-children":[{inner}]}}}}"#)
    });
    let text = format!(r#"{{"X3D":{{"Scene":{{"-children":[{nodes}]}}}}}}"#);
    assert!(text.len() > 4_000_000);
    let mut sources = x3dbake::internal::source::Sources::new();
    let mut diags = x3dbake::internal::diag::Diagnostics::default();
    let f =
        x3dbake::internal::load::add_file(&mut sources, "deep.x3dj", text.into_bytes(), &mut diags);
    let scene =
        x3dbake::internal::load::load(&mut sources, f, None, &Default::default(), &mut diags);
    assert!(!diags.has_errors(), "{:?}", diags.list());
    assert_eq!(scene.nodes.len(), 499);
    let interpolator = x3dbake::internal::scene::NodeId(498);
    assert_eq!(scene.floats(interpolator, "keyValue").len(), 900_000);
}
