//! Shared helpers for the integration tests: run the real binary.

pub mod played;
pub mod scenes;
pub mod tables;
pub mod xite;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The crate root, where fixtures/ is.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs x3dbake with arguments from the crate root.
pub fn run(args: &[&str]) -> Output {
    command(args).output().expect("the x3dbake binary runs")
}

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_x3dbake"));
    c.args(args).current_dir(root());
    c
}

/// Runs x3dbake with arguments in another folder.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    let mut c = command(args);
    c.current_dir(dir);
    c.output().expect("the x3dbake binary runs")
}

/// The same, failing the test when the run takes over `secs` seconds (the
/// run is killed then, so that a hang fails instead of stalling the tests).
pub fn run_within(args: &[&str], secs: u64) -> Output {
    use std::process::Stdio;
    let child = command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the x3dbake binary runs");
    let pid = child.id().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(o) => o.expect("the x3dbake binary runs"),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
            panic!("x3dbake {args:?} ran over {secs} s");
        }
    }
}

/// Runs x3dbake as [`run_within`] does and returns what it printed on
/// standard output; a failure fails the test with its stderr.
pub fn run_ok_within(args: &[&str], secs: u64) -> String {
    let o = run_within(args, secs);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Compares text with a golden file; `X3DBAKE_BLESS=1` rewrites the file.
pub fn check_golden(path: &Path, actual: &str) {
    if std::env::var_os("X3DBAKE_BLESS").is_some() {
        std::fs::write(path, actual).expect("golden file is writable");
        return;
    }
    let expected = std::fs::read_to_string(path)
        .unwrap_or_else(|_| panic!("{} is missing: run with X3DBAKE_BLESS=1", path.display()));
    assert_eq!(actual, expected, "output differs from {}", path.display());
}

/// The names of the entries of a folder, sorted.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("a readable folder")
        .map(|e| {
            e.expect("readable entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// The files in a fixtures folder with an extension, sorted.
pub fn fixtures(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures").join(dir))
        .expect("fixtures folder exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

/// Asserts that the Khronos validator (tools/validate.mjs) finds no error
/// and no warning in any of the files. False, with a note, when
/// X3DBAKE_VALIDATOR names no install (nothing was checked).
pub fn assert_validator_clean(files: &[PathBuf]) -> bool {
    let Some(reports) = validate(files) else {
        return false;
    };
    assert_eq!(reports.len(), files.len());
    for r in reports {
        assert_eq!(
            (r["errors"].as_u64(), r["warnings"].as_u64()),
            (Some(0), Some(0)),
            "{r}"
        );
    }
    true
}

/// Runs the Khronos validator on files: one JSON report each. `None`, with
/// a note, when X3DBAKE_VALIDATOR names no install.
fn validate(files: &[PathBuf]) -> Option<Vec<serde_json::Value>> {
    let dir = tool_dir("X3DBAKE_VALIDATOR", "glTF validation")?;
    let out = Command::new("node")
        .arg(root().join("tools/validate.mjs"))
        .args(files)
        .env("X3DBAKE_VALIDATOR", dir)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    Some(
        text.lines()
            .map(|l| serde_json::from_str(l).expect("one JSON report a line"))
            .collect(),
    )
}

/// Writes a scene into a fresh temporary folder; returns the folder (kept
/// alive by the caller) and the file's path as text.
pub fn scene_file(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("the scene is written");
    (dir, path.to_string_lossy().into_owned())
}

/// A small deterministic generator (xorshift), so that randomised tests run
/// the same inputs every time.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.unit()
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize
    }
    /// n keys from 0 to 1, intervals non-uniform (ratios up to 1:4).
    pub fn keys(&mut self, n: usize) -> Vec<f64> {
        let mut k = vec![0.0];
        for _ in 1..n {
            let last = k[k.len() - 1];
            k.push(last + self.range(0.5, 2.0));
        }
        let total = k[n - 1];
        k.iter_mut().for_each(|x| *x /= total);
        k
    }
    pub fn values(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.range(-5.0, 5.0)).collect()
    }
    /// n random axis-angle rotations (axis not normalised).
    pub fn rotations(&mut self, n: usize) -> Vec<f64> {
        (0..n)
            .flat_map(|_| {
                [
                    self.range(-1.0, 1.0),
                    self.range(-1.0, 1.0),
                    self.range(-1.0, 1.0),
                    self.range(-7.0, 7.0),
                ]
            })
            .collect()
    }
}

/// Reads X3D text (named `name`, its encoding told by the name and text)
/// into a scene, with what was said of it; no linked file is read.
/// The messages of a list of diagnostics, in order.
pub fn messages(diags: &x3dbake::internal::diag::Diagnostics) -> Vec<&str> {
    diags.list().iter().map(|d| d.message.as_str()).collect()
}

pub fn load_text(name: &str, text: &[u8]) -> x3dbake::Bake {
    x3dbake::Bake::load(name, text.to_vec(), None, None, x3dbake::Limits::default())
}

/// Reads an X3D file and finds its clips.
pub fn load_clips(
    path: &Path,
    opts: x3dbake::internal::anim::clip::ClipOptions,
) -> (
    x3dbake::internal::scene::Scene,
    Vec<x3dbake::internal::anim::clip::Clip>,
) {
    let mut bake = load_text(&path.to_string_lossy(), &std::fs::read(path).unwrap());
    bake.animate(opts);
    (bake.scene, bake.clips)
}

/// Runs `node` with the arguments (in `dir` when given, with `env` set) and
/// returns what it printed; a failure fails the test with its stderr.
pub fn node<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
    dir: Option<&Path>,
    env: &[(&str, &Path)],
) -> Vec<u8> {
    let mut cmd = Command::new("node");
    cmd.args(args);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("node runs");
    assert!(
        out.status.success(),
        "node {:?} failed: {}",
        args.first().map(|a| a.as_ref().to_owned()),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The folder an environment variable names (a tool .ci/run installed), or
/// `None` with a note that `what` is skipped.
pub fn tool_dir(var: &str, what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var).map(PathBuf::from);
    if dir.is_none() {
        skipped(var, what);
    }
    dir
}

/// A test whose tool is missing: under CI (`CI` set) that is a failure;
/// elsewhere a line on the terminal says what was skipped (written to the
/// stderr handle itself, which the test harness does not capture, unlike
/// `eprintln!`).
pub fn skipped(var: &str, what: &str) {
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false") {
        panic!("{var} is not set: under CI, {what} must run (.ci/run installs its tool)");
    }
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {what} ({var} not set; .ci/run installs its tool)"
    );
}

/// A JSON array of numbers, as f64.
pub fn json_numbers(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// The node of `json`'s `nodes` (a glTF document's, or a player's
/// snapshot's) named `name`; the test fails without one.
pub fn named<'j>(json: &'j serde_json::Value, name: &str) -> &'j serde_json::Value {
    json["nodes"]
        .as_array()
        .and_then(|a| a.iter().find(|n| n["name"] == name))
        .unwrap_or_else(|| panic!("no node {name}"))
}

/// The names of a glTF document's nodes that have one, in order.
pub fn node_names(json: &serde_json::Value) -> Vec<&str> {
    json["nodes"]
        .as_array()
        .map(|a| a.iter().filter_map(|n| n["name"].as_str()).collect())
        .unwrap_or_default()
}

/// The document's JSON (GLB or .gltf).
/// Whether a node as three-play (or babylon-play) reports it is shown:
/// visible, and not scaled to nothing (`--visibility scale`).
pub fn shown(node: &serde_json::Value) -> bool {
    node["visible"] == true && node["scale"] != serde_json::json!([0, 0, 0])
}

pub fn document_json(bytes: &[u8]) -> (serde_json::Value, Vec<u8>) {
    if bytes.starts_with(b"glTF") {
        let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        let json = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
        let bin = if bytes.len() > 28 + json_len {
            let len = u32::from_le_bytes(bytes[20 + json_len..24 + json_len].try_into().unwrap())
                as usize;
            bytes[28 + json_len..28 + json_len + len].to_vec()
        } else {
            Vec::new()
        };
        (json, bin)
    } else {
        (serde_json::from_slice(bytes).unwrap(), Vec::new())
    }
}

/// X_ITE's shape census of a scene (xite-shapes.mjs in the oracle folder
/// `xite`): its JSON document, the last line it prints.
pub fn xite_census(xite: &Path, scene: &Path) -> serde_json::Value {
    let script = xite.join("xite-shapes.mjs");
    let out = node(&[script.as_os_str(), scene.as_os_str()], Some(xite), &[]);
    let text = String::from_utf8_lossy(&out);
    serde_json::from_str(text.trim().lines().last().expect("a census"))
        .unwrap_or_else(|e| panic!("{e}: {text}"))
}

pub fn bake(input: &str, output: &Path, extra: &[&str]) -> std::process::Output {
    let out = output.to_string_lossy().into_owned();
    let mut args = vec![input, "-o", &out, "--quiet"];
    args.extend_from_slice(extra);
    run(&args)
}

/// Bakes as [`bake`] does, and fails the test unless x3dbake succeeded.
pub fn bake_ok(input: &str, output: &Path, extra: &[&str]) {
    let o = bake(input, output, extra);
    assert_eq!(o.status.code(), Some(0), "{input}: {}", stderr(&o));
}
