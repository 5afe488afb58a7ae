//! The command line end to end: options, piping, CSV forms, batches, exit
//! codes.

use crate::util;
use crate::util::scenes::BOX;
use crate::util::tables::lines;

use std::io::Write as _;
use std::process::{Command, Stdio};

#[test]
fn stdin_to_stdout_and_a_closed_pipe() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
        .args(["-", "-o", "-", "--format", "glb", "--quiet"])
        .current_dir(util::root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(util::root().join(BOX)).unwrap())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(&o.stdout[..4], b"glTF");
    // `x3dbake scene.x3d -o - | head -1`: the reader goes away early.
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{} {BOX} -o - --rate 5000 --quiet | head -1; echo \"status ${{PIPESTATUS:-0}}\"",
            env!("CARGO_BIN_EXE_x3dbake")
        ))
        .current_dir(util::root())
        .output()
        .unwrap();
    let text = util::stdout(&o);
    assert!(
        text.starts_with("clip,time,node,field,index,c0,c1,c2,c3\n"),
        "{text}"
    );
    assert!(
        util::stderr(&o).is_empty(),
        "no error for a closed pipe: {}",
        util::stderr(&o)
    );
}
#[test]
fn several_inputs_into_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("baked");
    let mut args: Vec<String> = util::fixtures("scenes", "x3d")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let n = args.len();
    args.extend([
        "-o".into(),
        out.to_string_lossy().into_owned(),
        "--quiet".into(),
    ]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = util::run(&refs);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let made = util::names_in(&out);
    assert_eq!(made.len(), n);
    assert!(made.contains(&"bouncing_box.glb".to_string()));
    // One at a time (-j 1) gives the same files, byte for byte.
    let one = dir.path().join("one");
    let mut args1 = refs.clone();
    let at = args1.iter().position(|a| *a == "-o").unwrap();
    let one_str = one.to_string_lossy().into_owned();
    args1[at + 1] = &one_str;
    args1.extend(["-j", "1"]);
    assert_eq!(util::run(&args1).status.code(), Some(0));
    for name in &made {
        assert!(
            std::fs::read(out.join(name)).unwrap() == std::fs::read(one.join(name)).unwrap(),
            "{name} differs with -j 1"
        );
    }
    assert_eq!(
        util::run(&[BOX, "-o", "x.glb", "-j", "0"]).status.code(),
        Some(2)
    );
    // A bad input in a batch: the others are still written, exit 1.
    let o = util::run(&[
        BOX,
        "fixtures/errors/malformed_xml.x3d",
        "-o",
        &out.to_string_lossy(),
        "--format",
        "csv",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    // (Inputs from two folders keep them, under the one they share.)
    assert!(out.join("scenes/bouncing_box.csv").exists());
    assert!(!out.join("errors/malformed_xml.csv").exists());
}
#[test]
fn options_select_clips_and_forms() {
    let dir = tempfile::tempdir().unwrap();
    let unknown = util::run(&[
        "fixtures/scenes/routing.x3d",
        "-o",
        "-",
        "--clip",
        "Nope",
        "-q",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(util::stderr(&unknown).contains("no clip named `Nope` (clips: Slow, Fast)"));
    let fast = util::run(&[
        "fixtures/scenes/routing.x3d",
        "-o",
        "-",
        "--clip",
        "Fast",
        "--rate",
        "1",
        "-q",
    ]);
    assert!(lines(&fast)[1..].iter().all(|l| l.starts_with("Fast,")));
    // --cycles lengthens clips; --tangents c1 changes uneven splines.
    let three = util::run(&[BOX, "-o", "-", "--rate", "1", "--cycles", "3", "-q"]);
    assert_eq!(lines(&three).last().unwrap().split(',').nth(1), Some("6"));
    let fast = |extra: &[&str]| {
        let base = ["fixtures/scenes/routing.x3d", "-o", "-", "--clip", "Fast"];
        let args = [&base[..], &["--rate", "8", "-q"], extra].concat();
        util::stdout(&util::run(&args))
    };
    assert_ne!(fast(&[]), fast(&["--tangents", "c1"]));
    // glTF forms: --embed makes one file; a .gltf on stdout needs --embed.
    let g = dir.path().join("e.gltf");
    util::run(&[BOX, "-o", &g.to_string_lossy(), "--embed", "-q"]);
    assert!(g.exists() && !dir.path().join("e.bin").exists());
    assert!(
        std::fs::read_to_string(&g)
            .unwrap()
            .contains("data:application/octet-stream;base64,")
    );
    assert_eq!(
        util::run(&[BOX, "-o", "-", "--format", "gltf"])
            .status
            .code(),
        Some(2)
    );
    // --mode sample with --interpolation step writes STEP samplers.
    let s = dir.path().join("s.gltf");
    util::run(&[
        BOX,
        "-o",
        &s.to_string_lossy(),
        "--mode",
        "sample",
        "--interpolation",
        "step",
        "--embed",
        "-q",
    ]);
    let text = std::fs::read_to_string(&s).unwrap();
    assert!(text.contains("\"STEP\"") && !text.contains("\"LINEAR\""));
}
#[test]
fn warnings_one_line_each_verbose_in_full_quiet_none() {
    let scene = "fixtures/scenes/routing.x3d";
    let o = util::run(&[scene, "-o", "-", "--format", "glb"]);
    let err = util::stderr(&o);
    assert!(
        err.lines()
            .all(|l| l.starts_with("fixtures/scenes/routing.x3d:")),
        "{err}"
    );
    // Five warnings, then the count.
    assert_eq!(err.lines().count(), 6, "{err}");
    assert!(
        err.ends_with("fixtures/scenes/routing.x3d: 5 warnings (5 different), 0 errors\n"),
        "{err}"
    );
    let v = util::stderr(&util::run(&[
        scene,
        "-o",
        "-",
        "--format",
        "glb",
        "--verbose",
    ]));
    assert!(v.contains(" | ") && v.lines().count() > 4);
    assert!(
        util::run(&[scene, "-o", "-", "--format", "glb", "--quiet"])
            .stderr
            .is_empty()
    );
}
#[test]
fn a_repeated_warning_is_given_once_with_its_lines() {
    let mut x3d = String::from("<X3D><Scene>\n");
    for i in 0..12 {
        x3d.push_str(&format!("<Transform DEF='T{i}' bogus='1'/>\n"));
    }
    x3d.push_str("<Group wrong='2'/>\n</Scene></X3D>\n");
    let (dir, path) = util::scene_file("many.x3d", &x3d);
    let out = dir.path().join("many.glb");
    let o = util::run(&[&path, "-o", &out.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0));
    let err = util::stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 4, "{err}");
    assert!(
        lines[0].ends_with(":2:28: warning: `Transform` has no field `bogus`: ignored"),
        "{err}"
    );
    assert_eq!(
        lines[1],
        "  … and 11 more times, at lines 3, 4, 5, 6, 7, 8, 9, 10, …"
    );
    assert!(lines[2].contains("`Group` has no field `wrong`"), "{err}");
    assert!(
        lines[3].ends_with("many.x3d: 13 warnings (2 different), 0 errors"),
        "{err}"
    );
}
#[test]
fn exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.glb").to_string_lossy().into_owned();
    assert_eq!(
        util::run(&["fixtures/errors/malformed_xml.x3d", "-o", &out])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        util::run(&[BOX, "-o", &out, "--no-such-flag"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        util::run(&["no/such/file.x3d", "-o", &out]).status.code(),
        Some(2)
    );
    // An output whose folder is a file cannot be written, even by root.
    let file = dir.path().join("plain");
    std::fs::write(&file, b"").unwrap();
    let unwritable = file.join("x.glb").to_string_lossy().into_owned();
    let o = util::run(&[BOX, "-o", &unwritable, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        util::stderr(&o).contains("cannot write"),
        "{}",
        util::stderr(&o)
    );
    assert_eq!(util::run(&[BOX, "-o", &out]).status.code(), Some(0));
}
#[test]
fn progress_only_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = format!("{BOX} fixtures/scenes/routing.x3d fixtures/scenes/timer_link.x3d");
    let bin = env!("CARGO_BIN_EXE_x3dbake");
    let plain = Command::new("sh")
        .arg("-c")
        .arg(format!("{bin} -q {inputs} -o {}/a/", dir.path().display()))
        .current_dir(util::root())
        .output()
        .unwrap();
    assert!(
        plain.stderr.is_empty(),
        "no progress when stderr is not a terminal"
    );
    // `script` gives the command a terminal, where the progress line shows.
    let Ok(tty) = Command::new("script")
        .args([
            "-qec",
            &format!("{bin} -q {inputs} -o {}/b/", dir.path().display()),
            "/dev/null",
        ])
        .current_dir(util::root())
        .output()
    else {
        eprintln!("note: `script` not found; terminal progress not tested");
        return;
    };
    assert!(
        util::stdout(&tty).contains("/3] "),
        "{}",
        util::stdout(&tty)
    );
}
#[test]
fn the_command_line_does_what_a_pipeline_expects() {
    let box_x3d = util::root().join(BOX);
    let box_x3d = box_x3d.to_str().unwrap();
    let geometry = util::root().join("fixtures/scenes/geometry.x3d");
    let geometry = geometry.to_str().unwrap();
    let usage = |args: &[&str], says: &str| {
        let o = util::run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", util::stderr(&o));
        assert!(
            util::stderr(&o).contains(says),
            "{args:?}: {}",
            util::stderr(&o)
        );
    };
    // Several inputs go into a folder, not a file; not as glTF to stdout.
    usage(
        &[box_x3d, geometry, "-o", "two.glb"],
        "2 inputs cannot all be written to two.glb: give a folder",
    );
    usage(
        &[box_x3d, geometry, "-o", "-", "--format", "glb"],
        "several glTF documents cannot share standard output",
    );
    // Flags that cannot change the output are refused.
    usage(
        &[box_x3d, "-o", "x.glb", "--embed"],
        "--embed is for .gltf output",
    );
    usage(
        &[box_x3d, "-o", "x.csv", "--embed"],
        "--embed is for .gltf output",
    );
    usage(
        &[box_x3d, "-o", "x.glb", "--interpolation", "step"],
        "--interpolation step is for --mode sample",
    );
    usage(
        &[box_x3d, "-o", "x.csv", "--tolerance", "0.1"],
        "--tolerance is for glTF output",
    );
    usage(
        &[box_x3d, "-o", "x.csv", "--mode", "exact"],
        "--mode is for glTF output",
    );
    // Negative times read as numbers.
    let o = util::run(&[
        BOX,
        "-o",
        "-",
        "--timeline",
        "--load-time",
        "0",
        "--start",
        "-1",
        "--end",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(
        util::stdout(&o)
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("timeline,-1,")
    );
    // Without -o: NAME.glb in the current folder, for each input.
    let dir = tempfile::tempdir().unwrap();
    let o = util::run_in(dir.path(), &[box_x3d, "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(dir.path().join("bouncing_box.glb").is_file());
    let o = util::run_in(dir.path(), &[box_x3d, geometry, "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(dir.path().join("geometry.glb").is_file());
}
#[test]
fn what_is_not_a_scene_is_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("page.html", "<html><body>hi</body></html>"),
        ("empty.x3d", ""),
        ("words.x3dv", "hello world"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = dir.path().join("out.glb");
        let o = util::run(&[path.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", util::stderr(&o));
        assert!(util::stderr(&o).contains("not an X3D scene"), "{name}");
        assert!(!out.exists(), "{name}");
    }
}
#[test]
fn a_tree_of_scenes_is_baked_into_the_same_tree() {
    // Two inputs of one name in two folders: each under its own folder,
    // relative to the folder they share; one folder's inputs stay flat.
    let dir = tempfile::tempdir().unwrap();
    for sub in ["a", "b/c"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        std::fs::copy(util::root().join(BOX), dir.path().join(sub).join("box.x3d")).unwrap();
    }
    let input = |p: &str| dir.path().join(p).to_string_lossy().into_owned();
    let out = dir.path().join("out");
    let o = util::run(&[
        &input("a/box.x3d"),
        &input("b/c/box.x3d"),
        "-o",
        &format!("{}/", out.display()),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(out.join("a/box.glb").is_file() && out.join("b/c/box.glb").is_file());
}
#[test]
fn deny_warnings_fails_an_input_with_any() {
    // routing.x3d warns (a TouchSensor route not baked, …); bouncing_box.x3d
    // does not.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.glb");
    let o = util::run(&[
        "fixtures/scenes/routing.x3d",
        "-o",
        out.to_str().unwrap(),
        "--deny-warnings",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", util::stderr(&o));
    assert!(util::stderr(&o).contains("with --deny-warnings: nothing written"));
    assert!(!out.exists());
    let o = util::run(&[BOX, "-o", out.to_str().unwrap(), "--deny-warnings"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(out.exists());
    let o = util::run(&[
        "inspect",
        "fixtures/scenes/routing.x3d",
        "--deny-warnings",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(util::stdout(&o).contains("clips: 2"));
}

/// The library's one call (`x3dbake::convert`, what the page, Python and
/// npm call) gives the command line's bytes and messages with the same
/// options, on every bundled scene and several flag sets; its settings are
/// checked as the flags are; a scene with errors gives its diagnostics
/// with file, line and column, and no bytes.
#[test]
fn the_one_call_gives_the_command_lines_bytes() {
    use x3dbake::convert::{Format, Joining, KeyMode, Settings};
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(&[&str], Settings)> = vec![
        (&[], Settings::default()),
        (
            &[
                "--mode",
                "sample",
                "--interpolation",
                "cubic",
                "--rate",
                "12",
            ],
            Settings::default()
                .with_mode(KeyMode::Sample)
                .with_interpolation(Joining::Cubic)
                .with_rate(12.0),
        ),
        (
            &["--compress", "--tolerance", "0.01"],
            Settings::default()
                .with_compress(x3dbake::gltf::Compression::Meshopt)
                .with_tolerance(0.01),
        ),
        (
            &["--format", "csv"],
            Settings::default().with_format(Format::Csv),
        ),
    ];
    let mut compared = 0;
    for x3d in util::fixtures("scenes", "x3d") {
        let input = std::fs::read(&x3d).unwrap();
        let name = x3d.to_string_lossy().into_owned();
        for (flags, settings) in &cases {
            let csv = settings.format == Format::Csv;
            let out = dir.path().join(if csv { "o.csv" } else { "o.glb" });
            let mut args = vec![name.as_str(), "-o", out.to_str().unwrap()];
            args.extend_from_slice(flags);
            let o = util::run(&args);
            let mut fetch = x3dbake::FileFetch::default();
            let got = x3dbake::convert(&name, input.clone(), Some(&mut fetch), settings).unwrap();
            assert_eq!(got.ok, o.status.success(), "{name} {flags:?}");
            assert_eq!(got.messages, util::stderr(&o), "{name} {flags:?}");
            if got.ok {
                let want = std::fs::read(&out).unwrap();
                assert!(got.bytes == want, "{name} {flags:?}: bytes differ");
            }
            compared += 1;
        }
    }
    assert!(compared >= 40, "{compared}");
    // Settings are checked as the flags are.
    let csv_tolerance = Settings::default()
        .with_format(Format::Csv)
        .with_tolerance(0.1);
    let e = x3dbake::convert("a.x3d", b"<X3D/>".to_vec(), None, &csv_tolerance).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--tolerance is for glTF output: CSV rows are the values at --rate"
    );
    // JSON, as the page and npm give them.
    let json: Settings = serde_json::from_str(
        r#"{"mode": "sample", "events": ["2:B.touchTime=2"], "timeline": true}"#,
    )
    .unwrap();
    assert_eq!(json.mode, Some(KeyMode::Sample));
    assert_eq!(json.events[0].node, "B");
    // A bad scene: no bytes, its errors with their places.
    let bad = util::root().join("fixtures/errors/bad_attributes.x3d");
    let got = x3dbake::convert(
        &bad.to_string_lossy(),
        std::fs::read(&bad).unwrap(),
        None,
        &Settings::default(),
    )
    .unwrap();
    assert!(!got.ok && got.bytes.is_empty());
    let first = &got.diagnostics[0];
    assert_eq!(first.severity, "error");
    assert_eq!((first.line, first.column), (Some(3), Some(44)));
}

/// `convert_said` gives the messages the command line prints with `-q`
/// and `-v` from the one run, and where a step fails (an unknown `--clip`)
/// what the scene said before it, as the command line prints it before
/// its error.
#[test]
fn the_messages_of_every_form_come_from_the_one_run() {
    use x3dbake::convert::{Settings, convert_said};
    let scene = util::root().join("fixtures/warnings/wrong_count.x3d");
    let name = scene.to_string_lossy().into_owned();
    let input = std::fs::read(&scene).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.glb");
    let cli = |more: &[&str]| {
        let mut args = vec![name.as_str(), "-o", out.to_str().unwrap()];
        args.extend_from_slice(more);
        util::stderr(&util::run(&args))
    };
    let (done, said) = convert_said(&name, input.clone(), None, &Settings::default());
    assert_eq!(done.unwrap().messages, said.plain);
    assert_eq!(said.plain, cli(&[]));
    assert_eq!(said.with(false, true), cli(&["-v"]));
    assert_eq!(said.with(true, false), cli(&["-q"]));
    assert!(said.verbose.contains("translation=\"1 2\"") && said.quiet.is_empty());
    assert_ne!(said.plain, said.verbose);
    // An unknown clip: the warnings first, then the command line's error.
    let nope = Settings {
        clips: vec!["Nope".into()],
        ..Settings::default()
    };
    let (done, said) = convert_said(&name, input, None, &nope);
    assert!(matches!(done, Err(x3dbake::ConvertError::Usage(_))));
    let printed = cli(&["--clip", "Nope", "-v"]);
    assert!(
        !said.verbose.is_empty() && printed.starts_with(&said.verbose),
        "{printed}"
    );
}

/// `--depfile` makes make bake again exactly when the scene or a file it
/// reads changes: a scene with an Inline, baked by a Makefile that
/// includes the depfile; each recipe run is counted in a log.
#[test]
fn make_rebakes_when_an_inline_changes_and_only_then() {
    if std::process::Command::new("make")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(std::env::var_os("CI").is_none(), "make is not installed");
        eprintln!("skipped: the --depfile test (make is not installed)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("part.x3d"),
        "<X3D><Scene><Shape><Box/></Shape></Scene></X3D>",
    )
    .unwrap();
    std::fs::write(
        d.join("scene.x3d"),
        "<X3D><Scene><Inline url='\"part.x3d\"'/></Scene></X3D>",
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_x3dbake");
    std::fs::write(
        d.join("Makefile"),
        format!(
            "out.glb: scene.x3d\n\t{bin} scene.x3d -o out.glb --depfile out.d -q\n\techo baked >> log\n-include out.d\n"
        ),
    )
    .unwrap();
    let make = || {
        let o = std::process::Command::new("make")
            .current_dir(d)
            .output()
            .expect("make runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(d.join("log"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    assert_eq!(make(), 1, "the first make bakes");
    let rules = std::fs::read_to_string(d.join("out.d")).unwrap();
    assert!(
        rules.starts_with("out.glb:") && rules.contains("part.x3d"),
        "{rules}"
    );
    // Times set a while before the output's own (no clock read): the
    // sources older than the output, then the Inline newer than it.
    let base = std::fs::metadata(d.join("out.glb"))
        .unwrap()
        .modified()
        .unwrap();
    let set = |name: &str, seconds_before: u64| {
        let t = base - std::time::Duration::from_secs(seconds_before);
        let f = std::fs::File::options()
            .write(true)
            .open(d.join(name))
            .unwrap();
        f.set_modified(t).unwrap();
    };
    for f in ["scene.x3d", "part.x3d", "Makefile"] {
        set(f, 300);
    }
    assert_eq!(make(), 1, "nothing changed: nothing baked");
    set("out.glb", 200);
    set("part.x3d", 100);
    assert_eq!(make(), 2, "the Inline changed: baked again");
    assert_eq!(make(), 2, "and then not again");
}

/// On Linux with glibc the executable defines the three C++ runtime symbols
/// meshoptimizer refers to (src/cxx.rs) and needs no libstdc++: were a
/// change to bring the library back, its own exception handling would meet
/// the stand-in personality routine, which ends the process.
#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn the_executable_does_without_libstdcxx() {
    let exe = std::fs::read(env!("CARGO_BIN_EXE_x3dbake")).unwrap();
    let needs = |name: &[u8]| exe.windows(name.len()).any(|w| w == name);
    assert!(
        needs(b"libc.so.6"),
        "the test reads the names of needed libraries"
    );
    assert!(!needs(b"libstdc++.so"));
}
