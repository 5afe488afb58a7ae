//! The npm package (npm/): built by npm/build.sh, packed by `npm pack` and
//! installed from its tarball into an empty project by .ci/run
//! (X3DBAKE_NPM names that project), as a user installs it. `npx x3dbake`
//! runs against this command line on every fixture and corpus scene with
//! the same flags: the same output bytes, standard output, standard error
//! and exit codes; its usage errors and refusals too. The API is used from
//! a Node.js script and type-checked from TypeScript (`tsc --noEmit`), and
//! the page `npx x3dbake serve` serves converts in headless Chromium to
//! the command line's bytes.

// (The package is tested where .ci/run builds it: symbolic links, /dev/null.)
#![cfg(unix)]

use crate::util;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead as _, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The installed project, or a visible "skipped".
fn project() -> Option<PathBuf> {
    util::tool_dir(
        "X3DBAKE_NPM",
        "the npm package (npm/build.sh, installed by .ci/run)",
    )
}

/// `npx x3dbake` as installed: node_modules/.bin/x3dbake, which npx runs.
fn npx(project: &Path) -> PathBuf {
    project.join("node_modules/.bin/x3dbake")
}

fn native() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_x3dbake"))
}

/// What one run gave: its exit code, standard output and error (the
/// run's own folder written `OUT`), and the files it wrote.
#[derive(Debug)]
struct Ran {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    files: BTreeMap<String, Vec<u8>>,
}

/// Runs `program args` in `cwd` (stdin from `input`), outputs under `out`.
fn ran(program: &Path, args: &[String], cwd: &Path, out: &Path, input: Option<&[u8]>) -> Ran {
    let mut c = Command::new(program);
    c.args(args)
        .current_dir(cwd)
        .env_remove("CLICOLOR_FORCE")
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("the program runs");
    if let Some(bytes) = input {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(bytes).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    let stderr =
        String::from_utf8_lossy(&o.stderr).replace(&out.to_string_lossy().into_owned(), "OUT");
    let mut files = BTreeMap::new();
    collect(out, out, &mut files);
    // A depfile names the outputs, in the run's own folder.
    for (name, bytes) in files.iter_mut() {
        if name.ends_with(".d") {
            let text = String::from_utf8_lossy(bytes).replace(&*out.to_string_lossy(), "OUT");
            *bytes = text.into_bytes();
        }
    }
    Ran {
        code: o.status.code(),
        stdout: o.stdout,
        stderr,
        files,
    }
}

fn collect(root: &Path, dir: &Path, files: &mut BTreeMap<String, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(root, &p, files);
        } else {
            let name = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            files.insert(name, std::fs::read(&p).unwrap_or_default());
        }
    }
}

/// How two runs differ, in a few words each (none: alike). With
/// `first_line`, standard error is compared on its first line only (clap's
/// own usage lines, which the package gives in their general form).
fn differences(a: &Ran, b: &Ran, first_line: bool) -> Vec<String> {
    let mut d = Vec::new();
    if a.code != b.code {
        d.push(format!("exit {:?} vs {:?}", a.code, b.code));
    }
    let (ea, eb) = if first_line {
        (
            a.stderr.lines().next().unwrap_or(""),
            b.stderr.lines().next().unwrap_or(""),
        )
    } else {
        (a.stderr.as_str(), b.stderr.as_str())
    };
    if ea != eb {
        let line = ea
            .lines()
            .zip(eb.lines())
            .position(|(x, y)| x != y)
            .unwrap_or(ea.lines().count().min(eb.lines().count()));
        d.push(format!(
            "stderr from line {}: {:?} vs {:?}",
            line + 1,
            ea.lines().nth(line).unwrap_or(""),
            eb.lines().nth(line).unwrap_or("")
        ));
    }
    if a.stdout != b.stdout {
        d.push(format!(
            "stdout {} vs {} bytes",
            a.stdout.len(),
            b.stdout.len()
        ));
    }
    for (name, bytes) in &a.files {
        match b.files.get(name) {
            None => d.push(format!("{name} only from the CLI")),
            Some(other) if other != bytes => {
                d.push(format!("{name}: {} vs {} bytes", bytes.len(), other.len()))
            }
            Some(_) => {}
        }
    }
    for name in b.files.keys().filter(|n| !a.files.contains_key(*n)) {
        d.push(format!("{name} only from npx"));
    }
    d
}

/// Every fixture scene (scenes, errors, warnings) and every corpus scene,
/// as tools/scenes.sh lists them, relative to the crate root.
fn scenes() -> Vec<String> {
    let mut dirs = vec!["fixtures/scenes", "fixtures/errors", "fixtures/warnings"];
    if util::root().join("../shared/corpus").is_dir() {
        dirs.push("../shared/corpus");
    }
    let out = Command::new("bash")
        .arg("tools/scenes.sh")
        .args(&dirs)
        .current_dir(util::root())
        .output()
        .expect("tools/scenes.sh runs");
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// One comparison: a name, the arguments (`{OUT}` for the run's output
/// folder), standard input, and whether only the first line of standard
/// error is compared.
struct Case {
    name: String,
    args: Vec<String>,
    stdin: Option<Vec<u8>>,
    first_line: bool,
    /// Extra arguments for the command line only (`-j 1`: a batch's
    /// messages in the inputs' order, as npx gives them).
    native_only: Vec<String>,
}

/// A batch: the command line bakes one input at a time too (`-j 1`), so
/// that its messages come in the inputs' order, as npx prints them.
fn batch(name: &str, args: &[&str]) -> Case {
    let mut c = case(name, args);
    c.native_only = vec!["-j".into(), "1".into()];
    c
}

fn case(name: &str, args: &[&str]) -> Case {
    Case {
        name: name.to_string(),
        args: args.iter().map(|a| a.to_string()).collect(),
        stdin: None,
        first_line: false,
        native_only: Vec::new(),
    }
}

/// Runs each case with both in `cwd` (each with a fresh output folder)
/// and gives the table of differences and the count of runs compared.
fn compare(project: &Path, cwd: &Path, cases: &[Case]) -> (Vec<String>, usize) {
    let mut table = Vec::new();
    for c in cases {
        let base = tempfile::tempdir().unwrap();
        let (a_out, b_out) = (base.path().join("cli"), base.path().join("npx"));
        std::fs::create_dir_all(&a_out).unwrap();
        std::fs::create_dir_all(&b_out).unwrap();
        let with = |out: &Path| -> Vec<String> {
            c.args
                .iter()
                .map(|a| a.replace("{OUT}", &out.to_string_lossy()))
                .collect()
        };
        let mut a_args = with(&a_out);
        a_args.extend(c.native_only.iter().cloned());
        let a = ran(&native(), &a_args, cwd, &a_out, c.stdin.as_deref());
        let b = ran(
            &npx(project),
            &with(&b_out),
            cwd,
            &b_out,
            c.stdin.as_deref(),
        );
        let d = differences(&a, &b, c.first_line);
        if !d.is_empty() {
            table.push(format!("| {} | {} |", c.name, d.join("; ")));
        }
    }
    (table, cases.len())
}

fn assert_none(what: &str, table: &[String], runs: usize) {
    eprintln!(
        "npx x3dbake against the CLI, {what}: {runs} runs, {} differ",
        table.len()
    );
    assert!(
        table.is_empty(),
        "npx x3dbake differs from the CLI ({what}, {} of {runs}):\n| run | difference (CLI vs npx) |\n| --- | --- |\n{}",
        table.len(),
        table.join("\n")
    );
}

/// Every scene in one batch (`-o DIR/`) for each flag set: default,
/// --compress, CSV, .gltf with its .bin (and the bundled ones with -q,
/// -v, and as one CSV table on standard output); each scene alone but the
/// bundled examples (each exit code and message); `inspect --json` of
/// each scene, and `inspect` of the bundled ones.
#[test]
fn npx_x3dbake_writes_the_cli_bytes_messages_and_exit_codes_for_every_scene() {
    let Some(project) = project() else {
        return;
    };
    let scenes = scenes();
    assert!(scenes.len() >= 60, "{} scenes", scenes.len());
    // Alone: each exit code and message (the errors and warnings); every
    // scene's bytes and messages come in the batches.
    let mut cases: Vec<Case> = scenes
        .iter()
        .filter(|s| !s.starts_with("fixtures/scenes/"))
        .map(|s| case(s, &[s, "-o", "{OUT}/out.glb"]))
        .collect();
    let all: Vec<&str> = scenes.iter().map(String::as_str).collect();
    let bundled: Vec<&str> = all
        .iter()
        .copied()
        .filter(|s| s.starts_with("fixtures/"))
        .collect();
    for (inputs, flags) in [
        (&all, &["-o", "{OUT}/"][..]),
        (&all, &["--compress", "-o", "{OUT}/"]),
        (&all, &["--format", "csv", "-o", "{OUT}/"]),
        (&all, &["--format", "gltf", "-o", "{OUT}/"]),
        (&bundled, &["-q", "-o", "{OUT}/"]),
        (&bundled, &["-v", "-o", "{OUT}/"]),
        (&bundled, &["--format", "csv", "-o", "-"]),
    ] {
        let mut args = inputs.clone();
        args.extend_from_slice(flags);
        let name = format!("batch of {} {}", inputs.len(), flags.join(" "));
        cases.push(batch(&name, &args));
    }
    for s in &scenes {
        cases.push(case(
            &format!("inspect --json {s}"),
            &["inspect", s, "--json"],
        ));
    }
    for s in scenes.iter().filter(|s| s.starts_with("fixtures/scenes/")) {
        cases.push(case(&format!("inspect {s}"), &["inspect", s]));
    }
    let (table, runs) = compare(&project, &util::root(), &cases);
    assert_none("every scene", &table, runs);
}

/// The command line's rules besides the bake: usage errors (the settings'
/// checks, the flags' values), refusals to overwrite an input, `--root`,
/// standard input and output, reports, `--deny-warnings`, `--depfile`,
/// an unknown clip or event, folders as inputs, and `inspect`'s.
#[test]
fn npx_x3dbake_keeps_the_cli_rules() {
    let Some(project) = project() else {
        return;
    };
    // A folder of its own (outputs without -o land in it), the fixtures
    // linked into it.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(util::root().join("fixtures"), dir.path().join("fx")).unwrap();
    let b = "fx/scenes/bouncing_box.x3d";
    let door = "fx/interactive/door.x3d";
    let warned = "fx/warnings/wrong_count.x3d";
    let linked = "fx/scenes/linked.x3dv";
    let mut cases = vec![
        case("no -o", &[b]),
        case(
            "two inputs into a folder",
            &[b, "fx/scenes/chain.x3d", "-o", "{OUT}/o/"],
        ),
        batch(
            "a folder into a folder",
            &["fx/scenes", "-o", "{OUT}/baked"],
        ),
        case("over the input", &[b, "-o", b]),
        case(
            "report over the output",
            &[b, "-o", "{OUT}/a.glb", "--report", "{OUT}/a.glb"],
        ),
        case(
            "report",
            &[b, "-o", "{OUT}/a.glb", "--report", "{OUT}/r.html"],
        ),
        case(
            "report on stdout",
            &[b, "-o", "{OUT}/a.glb", "--report", "-"],
        ),
        case(
            "two inputs to one file",
            &[b, "fx/scenes/chain.x3d", "-o", "{OUT}/a.glb"],
        ),
        case(
            "wide tables on stdout",
            &[b, "fx/scenes/chain.x3d", "-o", "-", "--wide"],
        ),
        case("gltf embedded", &[b, "-o", "{OUT}/x.gltf", "--embed"]),
        case("gltf on stdout", &[b, "-o", "-", "--format", "gltf"]),
        case(
            "gltf embedded on stdout",
            &[b, "-o", "-", "--format", "gltf", "--embed"],
        ),
        case("embed with glb", &[b, "-o", "{OUT}/x.glb", "--embed"]),
        case("unknown extension", &[b, "-o", "{OUT}/x.foo"]),
        case(
            "extension and format",
            &[b, "-o", "{OUT}/x.glb", "--format", "csv"],
        ),
        case("glb on /dev/null", &[b, "-o", "/dev/null"]),
        case("unknown clip", &[b, "--clip", "Nope", "-o", "{OUT}/x.glb"]),
        case(
            "unknown clip with warnings",
            &[warned, "--clip", "Nope", "-o", "{OUT}/x.glb"],
        ),
        case(
            "unknown clip with warnings, verbose",
            &[warned, "--clip", "Nope", "-o", "{OUT}/x.glb", "-v"],
        ),
        case(
            "unknown clip with warnings, quiet",
            &[warned, "--clip", "Nope", "-o", "{OUT}/x.glb", "-q"],
        ),
        case("warnings verbose", &[warned, "-o", "{OUT}/x.glb", "-v"]),
        case(
            "deny warnings",
            &[warned, "-o", "{OUT}/x.glb", "--deny-warnings"],
        ),
        case(
            "deny warnings csv",
            &[warned, "-o", "{OUT}/x.csv", "--deny-warnings"],
        ),
        case(
            "errors",
            &["fx/errors/bad_attributes.x3d", "-o", "{OUT}/x.glb"],
        ),
        case(
            "errors quiet",
            &["fx/errors/bad_attributes.x3d", "-o", "{OUT}/x.glb", "-q"],
        ),
        case("inlines", &[linked, "-o", "{OUT}/x.glb"]),
        case(
            "root around",
            &[linked, "-o", "{OUT}/x.glb", "--root", "fx"],
        ),
        case(
            "root inside",
            &[linked, "-o", "{OUT}/x.glb", "--root", "fx/scenes"],
        ),
        case("over a file read", &[linked, "-o", "fx/include/part.x3d"]),
        case("no root", &[b, "-o", "{OUT}/x.glb", "--root", "nowhere"]),
        case("no input file", &["nothing.x3d", "-o", "{OUT}/x.glb"]),
        case("a folder without scenes", &["fx/curves", "-o", "{OUT}/o/"]),
        case("no input", &["-o", "{OUT}/x.glb"]),
        case("stdin twice", &["-", "-", "-o", "{OUT}/x.glb"]),
        case("stdin without -o", &["-"]),
        batch(
            "depfile",
            &[linked, b, "-o", "{OUT}/d/", "--depfile", "{OUT}/deps.d"],
        ),
        case(
            "depfile on stdout",
            &[b, "-o", "-", "--depfile", "{OUT}/deps.d"],
        ),
        case(
            "timeline",
            &[
                door,
                "--timeline",
                "--event",
                "1:Handle.touchTime=1",
                "--end",
                "4",
                "-o",
                "{OUT}/t.glb",
            ],
        ),
        case(
            "timeline csv",
            &[door, "--timeline", "--end", "3", "-o", "{OUT}/t.csv"],
        ),
        case(
            "unknown event node",
            &[
                door,
                "--timeline",
                "--event",
                "1:Nobody.touchTime=1",
                "-o",
                "{OUT}/t.glb",
            ],
        ),
        case(
            "bad event",
            &[door, "--timeline", "--event", "bad", "-o", "{OUT}/t.glb"],
        ),
        case(
            "end before start",
            &[
                door,
                "--timeline",
                "--end",
                "1",
                "--start",
                "2",
                "-o",
                "{OUT}/t.glb",
            ],
        ),
        case("rate 0", &[b, "--rate", "0", "-o", "{OUT}/t.glb"]),
        case("rate -5", &[b, "--rate=-5", "-o", "{OUT}/t.glb"]),
        case("rate inf", &[b, "--rate", "inf", "-o", "{OUT}/t.csv"]),
        case(
            "tolerance negative",
            &[b, "--tolerance=-1e-30", "-o", "{OUT}/t.glb"],
        ),
        case(
            "tolerance NaN",
            &[b, "--tolerance", "nan", "-o", "{OUT}/t.glb"],
        ),
        case(
            "start NaN",
            &[b, "--timeline", "--start", "nan", "-o", "{OUT}/t.glb"],
        ),
        case(
            "too many samples",
            &[
                b,
                "--max-samples",
                "3",
                "--mode",
                "sample",
                "-o",
                "{OUT}/t.glb",
            ],
        ),
        case(
            "too many rows",
            &[b, "--max-samples", "3", "-o", "{OUT}/t.csv"],
        ),
        case(
            "mode with csv",
            &[b, "--mode", "sample", "-o", "{OUT}/t.csv"],
        ),
        case(
            "step without sample",
            &[b, "--interpolation", "step", "-o", "{OUT}/s.glb"],
        ),
        case(
            "sampled cubic",
            &[
                b,
                "--mode",
                "sample",
                "--interpolation",
                "cubic",
                "--rate",
                "12",
                "-o",
                "{OUT}/s.glb",
            ],
        ),
        case(
            "core and extension",
            &[
                b,
                "--core",
                "--visibility",
                "extension",
                "-o",
                "{OUT}/s.glb",
            ],
        ),
        case(
            "core",
            &["fx/scenes/pointers.x3d", "--core", "-o", "{OUT}/s.glb"],
        ),
        case("interactive", &[door, "--interactive", "-o", "{OUT}/i.glb"]),
        case("quantize", &[b, "--compress=quantize", "-o", "{OUT}/q.glb"]),
        case(
            "cycles and tangents",
            &[
                "fx/scenes/routing.x3d",
                "--cycles",
                "3",
                "--tangents",
                "c1",
                "-o",
                "{OUT}/c.glb",
            ],
        ),
        case(
            "tolerance keep constant",
            &[
                "fx/scenes/routing.x3d",
                "--tolerance",
                "0.01",
                "--keep-constant",
                "-o",
                "{OUT}/k.glb",
            ],
        ),
        case("bad mode", &[b, "--mode", "bogus"]),
        case("mode without value", &[b, "--mode"]),
        case("bad rate", &[b, "--rate", "abc"]),
        case("cycles 0", &[b, "--cycles", "0"]),
        case("max samples 0", &[b, "--max-samples", "0"]),
        case("bad compress", &[b, "--compress=zip"]),
        case("output without value", &[b, "-o"]),
        case("inspect", &["inspect", "fx/scenes/routing.x3d"]),
        case(
            "inspect quiet c1",
            &[
                "inspect",
                "fx/scenes/routing.x3d",
                "--cycles",
                "3",
                "--tangents",
                "c1",
                "-q",
            ],
        ),
        case(
            "inspect errors json",
            &["inspect", "fx/errors/bad_attributes.x3d", "--json"],
        ),
        case(
            "inspect errors",
            &["inspect", "fx/errors/bad_attributes.x3d"],
        ),
        case("inspect deny", &["inspect", warned, "--deny-warnings"]),
        case(
            "inspect deny json",
            &["inspect", warned, "--json", "--deny-warnings"],
        ),
        case(
            "inspect no file json",
            &["inspect", "nothing.x3d", "--json"],
        ),
        case("inspect no file", &["inspect", "nothing.x3d"]),
        case("inspect without file", &["inspect"]),
        case(
            "inspect root",
            &["inspect", linked, "--root", "fx/scenes", "-v"],
        ),
        case("version", &["--version"]),
    ];
    // From standard input.
    let text = std::fs::read(util::root().join("fixtures/scenes/bouncing_box.x3d")).unwrap();
    for (name, args) in [
        ("stdin", &["-", "-o", "{OUT}/x.glb"][..]),
        ("stdin csv on stdout", &["-", "-o", "-"]),
        ("stdin inspect", &["inspect", "-", "--json"]),
    ] {
        let mut c = case(name, args);
        c.stdin = Some(text.clone());
        cases.push(c);
    }
    // clap's own errors: the first line (its usage line names the flags
    // given; the package's is the general one).
    for (name, args) in [
        ("unknown flag", &[b, "--foo"][..]),
        ("keep constant alone", &[b, "--keep-constant"]),
        ("end without timeline", &[door, "--end", "4"]),
        ("quiet and verbose", &[b, "-q", "-v"]),
        (
            "interactive and timeline",
            &[b, "--interactive", "--timeline"],
        ),
        ("rate given twice", &[b, "--rate", "3", "--rate", "4"]),
        ("inspect two files", &["inspect", b, b]),
    ] {
        let mut c = case(name, args);
        c.first_line = true;
        cases.push(c);
    }
    let (table, runs) = compare(&project, dir.path(), &cases);
    assert_none("its rules", &table, runs);
}

/// `--help`, `-h`, inspect's: the command line's (npm/lib/help.mjs, from
/// tools/npm-help.sh, is current), with the package's note; and what the
/// package cannot do refused as usage errors that say so.
#[test]
fn npx_x3dbake_helps_as_the_cli_and_refuses_what_wasm_cannot_do() {
    let Some(project) = project() else {
        return;
    };
    let run = |program: &Path, args: &[&str]| {
        Command::new(program)
            .args(args)
            .current_dir(util::root())
            .output()
            .unwrap()
    };
    for args in [
        &["--help"][..],
        &["-h"],
        &["inspect", "--help"],
        &["inspect", "-h"],
    ] {
        let (a, b) = (run(&native(), args), run(&npx(&project), args));
        let (a, b) = (util::stdout(&a), util::stdout(&b));
        assert!(
            b.starts_with(&a),
            "npx x3dbake {args:?} is not the CLI's (run tools/npm-help.sh):\n{b}"
        );
    }
    for (args, says) in [
        (
            &[util::scenes::BOX, "-j", "2"][..],
            "error: -j is for the native command line",
        ),
        (
            &[util::scenes::BOX, "--sync", "-o", "x.glb"],
            "error: --sync is for the native command line",
        ),
        (
            &["completions", "bash"],
            "error: completions is for the native command line",
        ),
        (&["man"], "error: man is for the native command line"),
    ] {
        let o = run(&npx(&project), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            util::stderr(&o).starts_with(says),
            "{args:?}: {}",
            util::stderr(&o)
        );
    }
}

/// The API from a Node.js script (as a build tool calls it) and its types
/// from TypeScript: the bytes of the CLI by path and from files in memory,
/// diagnostics with their place, usage errors thrown, the report, the
/// clips, the files read, inspect's document; nothing printed.
#[test]
fn the_api_bakes_as_the_cli_from_node_and_typescript() {
    let Some(project) = project() else {
        return;
    };
    let dir = tempfile::tempdir_in(&project).unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("package.json"),
        r#"{"private": true, "type": "module"}"#,
    )
    .unwrap();
    std::fs::write(d.join("api.mjs"), API_SCRIPT).unwrap();
    let root = util::root();
    let out = Command::new("node")
        .arg("api.mjs")
        .arg(&root)
        .current_dir(d)
        .output()
        .expect("node runs");
    assert!(out.status.success(), "{}", util::stderr(&out));
    assert_eq!(util::stderr(&out), "", "the API printed");
    let seen: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    // Its files against the CLI's.
    let box_ = root.join("fixtures/scenes/bouncing_box.x3d");
    let cli = d.join("cli");
    std::fs::create_dir_all(&cli).unwrap();
    for (name, input, flags) in [
        ("default.glb", &box_, &[][..]),
        (
            "compressed.glb",
            &root.join("fixtures/scenes/morph.x3d"),
            &["--compress"],
        ),
        ("table.csv", &box_, &[]),
        (
            "embedded.gltf",
            &root.join("fixtures/scenes/pointers.x3d"),
            &["--embed"],
        ),
        ("linked.glb", &root.join("fixtures/scenes/linked.x3dv"), &[]),
        ("memory.glb", &root.join("fixtures/scenes/linked.x3dv"), &[]),
    ] {
        util::bake_ok(&input.to_string_lossy(), &cli.join(name), flags);
        assert!(
            std::fs::read(cli.join(name)).unwrap() == std::fs::read(d.join(name)).unwrap(),
            "{name}: not the CLI's bytes"
        );
    }
    assert_eq!(seen["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(seen["bad"]["ok"], false);
    let first = &seen["bad"]["diagnostics"][0];
    assert_eq!(
        (&first["severity"], &first["line"], &first["column"]),
        (&json!("error"), &json!(3), &json!(44)),
        "{first}"
    );
    assert!(
        seen["usage"]
            .as_str()
            .unwrap()
            .contains("--mode is for glTF output"),
        "{seen}"
    );
    assert!(
        seen["clip"]
            .as_str()
            .unwrap()
            .contains("no clip named `Nope`"),
        "{seen}"
    );
    assert_eq!(seen["clips"], json!(["Clock"]));
    assert!(seen["report"].as_bool().unwrap(), "{seen}");
    let read = seen["read"].as_array().unwrap();
    assert!(
        read.iter()
            .any(|r| r.as_str().unwrap().ends_with("include/part.x3d")),
        "{read:?}"
    );
    assert_eq!(seen["outside"], 2, "{seen}");
    assert!(seen["quiet"].as_str().unwrap().is_empty(), "{seen}");
    let native_inspect = util::run(&["inspect", "fixtures/scenes/bouncing_box.x3d", "--json"]);
    let mut want: Value = serde_json::from_slice(&native_inspect.stdout).unwrap();
    want["file"] = json!(box_.to_string_lossy());
    // (JavaScript writes 2.0 as 2: numbers compared as numbers.)
    assert_eq!(numbers_as_f64(&seen["inspect"]), numbers_as_f64(&want));

    // The types: an example a build script would be, checked by tsc.
    std::fs::write(d.join("example.ts"), TS_EXAMPLE).unwrap();
    std::fs::write(
        d.join("tsconfig.json"),
        r#"{"compilerOptions": {"module": "nodenext", "moduleResolution": "nodenext",
            "target": "es2022", "strict": true, "noEmit": true, "types": []},
            "files": ["example.ts"]}"#,
    )
    .unwrap();
    let tsc = project.join("node_modules/.bin/tsc");
    let out = Command::new(&tsc)
        .current_dir(d)
        .output()
        .expect("tsc runs");
    assert!(
        out.status.success(),
        "tsc --noEmit: {}{}",
        util::stdout(&out),
        util::stderr(&out)
    );
}

/// A JSON value with every number an f64.
fn numbers_as_f64(v: &Value) -> Value {
    match v {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(a) => Value::Array(a.iter().map(numbers_as_f64).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), numbers_as_f64(v)))
                .collect(),
        ),
        v => v.clone(),
    }
}

/// The script of the API test: prints one JSON document, writes its
/// outputs beside itself.
const API_SCRIPT: &str = r#"
import fs from "node:fs";
import path from "node:path";
import { bake, inspect, version, UsageError } from "x3dbake";
const root = process.argv[2];
const f = (p) => path.join(root, "fixtures", p);
const write = (name, r) => { if (!r.ok) throw new Error(`${name}: ${r.messages}`); fs.writeFileSync(name, r.bytes); };
const out = { version: await version() };
const plain = await bake(f("scenes/bouncing_box.x3d"));
write("default.glb", plain);
out.clips = plain.clips.map((c) => c.name);
write("compressed.glb", await bake(f("scenes/morph.x3d"), { compress: true }));
write("table.csv", await bake(f("scenes/bouncing_box.x3d"), { format: "csv" }));
write("embedded.gltf", await bake(f("scenes/pointers.x3d"), { format: "gltf" }));
const linked = await bake(f("scenes/linked.x3dv"));
write("linked.glb", linked);
out.read = linked.read;
const files = {};
for (const p of ["scenes/linked.x3dv", "include/part.x3d", "include/spinner.x3dv"]) files[p] = fs.readFileSync(f(p));
write("memory.glb", await bake({ name: "scenes/linked.x3dv", files }));
const outside = await bake(f("scenes/linked.x3dv"), { root: f("scenes") });
out.outside = outside.diagnostics.filter((d) => d.message.includes("outside")).length;
const bad = await bake(f("errors/bad_attributes.x3d"));
out.bad = { ok: bad.ok, diagnostics: bad.diagnostics, bytes: bad.bytes.length };
out.quiet = (await bake(f("warnings/wrong_count.x3d"), { quiet: true })).messages;
for (const [key, options] of [["usage", { format: "csv", mode: "sample" }], ["clip", { clips: ["Nope"] }]]) {
  try {
    await bake(f("scenes/bouncing_box.x3d"), options);
    out[key] = "not thrown";
  } catch (e) {
    out[key] = e instanceof UsageError ? e.message : `not a UsageError: ${e}`;
  }
}
const reported = await bake(f("scenes/bouncing_box.x3d"), { report: true });
out.report = typeof reported.report === "string" && reported.report.includes("<svg");
out.inspect = await inspect(f("scenes/bouncing_box.x3d"));
process.stdout.write(JSON.stringify(out));
"#;

/// What a build script in TypeScript writes against the API.
const TS_EXAMPLE: &str = r#"
import { bake, inspect, UsageError, type BakeOptions, type BakeResult, type Diagnostic } from "x3dbake";

const options: BakeOptions = { compress: true, tolerance: 1e-3, clips: ["Clock"], denyWarnings: true };
const result: BakeResult = await bake("scenes/door.x3d", options);
const bytes: Uint8Array = result.bytes;
const where = (d: Diagnostic): string => `${d.file ?? "?"}:${d.line ?? 0}: ${d.severity}: ${d.message}`;
if (!result.ok) throw new Error(result.diagnostics.map(where).join("\n"));
const inMemory = await bake({ name: "a.x3d", files: { "a.x3d": new Uint8Array(bytes.length) } }, { format: "csv" });
const names: string[] = inMemory.clips.map((c) => c.name);
const doc: Record<string, unknown> = await inspect("scenes/door.x3d", { cycles: 2 });
try {
  await bake("x.x3d", { mode: "sample", format: "csv" });
} catch (e) {
  if (e instanceof UsageError) console.log(e.code, names, doc);
}
// @ts-expect-error: not an option
await bake("x.x3d", { colour: "red" });
// @ts-expect-error: not a format
await bake("x.x3d", { format: "fbx" });
"#;

/// `npx x3dbake serve`, started from the installed package, serves the
/// page on 127.0.0.1; in headless Chromium it converts fixtures to the
/// CLI's bytes and asks nothing of any other host.
#[test]
fn the_page_npx_x3dbake_serve_serves_converts_as_the_cli() {
    let Some(project) = project() else {
        return;
    };
    let Some(browser) = util::tool_dir("X3DBAKE_BROWSER", "the served page in headless Chromium")
    else {
        return;
    };
    let mut server = Command::new(npx(&project))
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("npx x3dbake serve starts");
    let mut first = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| {
            let mut err = String::new();
            let _ = server.stderr.take().unwrap().read_to_string(&mut err);
            panic!("no URL from npx x3dbake serve: {first:?} {err}")
        })
        .to_string();
    let dir = tempfile::tempdir().unwrap();
    let (page_dir, cli_dir) = (dir.path().join("page"), dir.path().join("cli"));
    std::fs::create_dir_all(&page_dir).unwrap();
    std::fs::create_dir_all(&cli_dir).unwrap();
    let scenes = util::root().join("fixtures/scenes");
    let cases = [
        ("box.glb", "bouncing_box.x3d", json!({}), vec![]),
        (
            "morph.glb",
            "morph.x3d",
            json!({"compress": true}),
            vec!["--compress"],
        ),
        (
            "humanoid.glb",
            "humanoid.x3d",
            json!({"tolerance": 0.01}),
            vec!["--tolerance", "0.01"],
        ),
        (
            "table.csv",
            "bouncing_box.x3d",
            json!({"format": "csv"}),
            vec![],
        ),
    ];
    let list: Vec<Value> = cases
        .iter()
        .map(|(name, main, settings, _)| {
            json!({"name": name, "files": [scenes.join(main)], "main": main, "settings": settings})
        })
        .collect();
    let cases_file = dir.path().join("cases.json");
    std::fs::write(&cases_file, serde_json::to_vec(&list).unwrap()).unwrap();
    let args = [
        util::root()
            .join("tools/npm-page-check.mjs")
            .into_os_string(),
        url.clone().into(),
        page_dir.clone().into_os_string(),
        cases_file.into_os_string(),
    ];
    let out = Command::new("node")
        .args(args)
        .env("X3DBAKE_BROWSER", &browser)
        .output()
        .expect("node runs");
    let _ = server.kill();
    let _ = server.wait();
    assert!(out.status.success(), "{}", util::stderr(&out));
    let seen: Value = serde_json::from_slice(&out.stdout).expect("npm-page-check prints JSON");
    assert_eq!(seen["errors"], json!([]), "the page's errors");
    assert_eq!(seen["version"], env!("CARGO_PKG_VERSION"));
    for r in seen["requests"].as_array().unwrap() {
        let r = r.as_str().unwrap();
        assert!(
            r.starts_with(&url) || r.starts_with("blob:") || r.starts_with("data:"),
            "{r}"
        );
    }
    for ((name, main, _, flags), r) in cases.iter().zip(seen["cases"].as_array().unwrap()) {
        assert_eq!(r["ok"], true, "{name}: {}", r["messages"]);
        util::bake_ok(
            &scenes.join(main).to_string_lossy(),
            &cli_dir.join(name),
            flags,
        );
        assert!(
            std::fs::read(cli_dir.join(name)).unwrap()
                == std::fs::read(page_dir.join(name)).unwrap(),
            "{name}: the served page's bytes are not the CLI's"
        );
    }
    eprintln!(
        "npx x3dbake serve: {} conversions in Chromium, the CLI's bytes",
        cases.len()
    );
}
