//! Safe in a pipeline: no flag may touch an input, every output lands
//! where it was asked, and the command line behaves as people expect
//! (signals, terminal text, completions, the manual page).

use crate::util;
use std::path::Path;

const BOX: &str = "fixtures/scenes/bouncing_box.x3d";

/// A folder holding a copy of the bouncing box as `scene.x3d`.
fn scene_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("scene.x3d");
    std::fs::copy(util::root().join(BOX), &scene).unwrap();
    (dir, scene)
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

/// Every path a run would write over an input or another output is
/// refused before anything is written (exit 2), through a symbolic link
/// and a hard link too; the input keeps its bytes and nothing new appears.
#[test]
fn no_output_overwrites_an_input_or_another_output() {
    let (dir, scene) = scene_dir();
    let d = dir.path();
    let before = read(&scene);
    #[cfg(unix)]
    std::os::unix::fs::symlink(&scene, d.join("soft.x3d")).unwrap();
    std::fs::hard_link(&scene, d.join("hard.x3d")).unwrap();
    let cases: &[&[&str]] = &[
        &["scene.x3d", "-o", "scene.glb", "--report", "scene.x3d"],
        &["scene.x3d", "-o", "s.glb", "--report", "s.glb"],
        &["scene.x3d", "-o", "s.gltf", "--report", "s.bin"],
        &["scene.x3d", "-o", "soft.x3d", "--format", "glb"],
        &["scene.x3d", "-o", "hard.x3d", "--format", "csv"],
        &["scene.x3d", "--report", "hard.x3d"],
        &["hard.x3d", "-o", "scene.x3d", "--format", "glb"],
        &[
            "scene.x3d",
            "-o",
            "scene.gltf",
            "--report",
            "./sub/../scene.bin",
        ],
    ];
    std::fs::create_dir(d.join("sub")).unwrap();
    for args in cases {
        let names = util::names_in(d);
        let o = util::run_in(d, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", util::stderr(&o));
        let err = util::stderr(&o);
        assert!(
            err.contains("refusing to overwrite") || err.contains("are the same file"),
            "{args:?}: {err}"
        );
        assert!(read(&scene) == before, "{args:?} touched the input");
        assert_eq!(util::names_in(d), names, "{args:?} wrote something");
    }
    // Files the scene reads (an Inline, a texture) are inputs too: found
    // once the scene is read, refused before anything is written.
    let t = tempfile::tempdir().unwrap();
    let fx = util::root().join("fixtures");
    std::fs::create_dir_all(t.path().join("scenes")).unwrap();
    std::fs::create_dir_all(t.path().join("include")).unwrap();
    for f in [
        "scenes/linked.x3dv",
        "include/part.x3d",
        "scenes/textures.x3d",
        "scenes/checker.png",
    ] {
        std::fs::copy(fx.join(f), t.path().join(f)).unwrap();
    }
    let part = read(&t.path().join("include/part.x3d"));
    let png = read(&t.path().join("scenes/checker.png"));
    for args in [
        &["scenes/linked.x3dv", "--report", "include/part.x3d", "-q"][..],
        &[
            "scenes/linked.x3dv",
            "-o",
            "include/part.x3d",
            "--format",
            "csv",
        ],
        &[
            "scenes/textures.x3d",
            "--report",
            "scenes/checker.png",
            "-q",
        ],
    ] {
        let o = util::run_in(t.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", util::stderr(&o));
        assert!(
            util::stderr(&o).contains("is the input"),
            "{}",
            util::stderr(&o)
        );
    }
    assert!(read(&t.path().join("include/part.x3d")) == part);
    assert!(read(&t.path().join("scenes/checker.png")) == png);
    assert_eq!(util::names_in(t.path()), ["include", "scenes"]);
    assert!(!t.path().join("linked.glb").exists() && !t.path().join("textures.glb").exists());
}

/// `--report -` writes the page on standard output; with `-o -` too it is
/// refused.
#[test]
fn a_report_on_standard_output() {
    let (dir, _) = scene_dir();
    let o = util::run_in(dir.path(), &["scene.x3d", "--report", "-", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(util::stdout(&o).starts_with("<!doctype html>"));
    assert!(dir.path().join("scene.glb").is_file());
    assert!(!dir.path().join("-").exists());
    let o = util::run_in(
        dir.path(),
        &["scene.x3d", "-o", "-", "--format", "glb", "--report", "-"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(util::stderr(&o).contains("cannot both go to standard output"));
}

/// `cd proj/src; x3dbake ../assets/m.x3d sub/l.x3d -o build/` writes both
/// inside build/, under the folder the inputs share (`..` resolved).
#[test]
fn a_batch_writes_only_inside_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    for sub in ["src/sub", "assets"] {
        std::fs::create_dir_all(proj.join(sub)).unwrap();
    }
    std::fs::copy(util::root().join(BOX), proj.join("assets/m.x3d")).unwrap();
    std::fs::copy(util::root().join(BOX), proj.join("src/sub/l.x3d")).unwrap();
    let src = proj.join("src");
    let o = util::run_in(
        &src,
        &["../assets/m.x3d", "sub/l.x3d", "-o", "build/", "-q"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(src.join("build/assets/m.glb").is_file());
    assert!(src.join("build/src/sub/l.glb").is_file());
    assert_eq!(util::names_in(&src), ["build", "sub"]);
    assert_eq!(util::names_in(&proj.join("assets")), ["m.x3d"]);
}

/// Without -o the output is named after the input with the format's
/// extension; an -o whose extension names another format than --format is
/// refused.
#[test]
fn the_output_is_named_for_its_format() {
    let (dir, _) = scene_dir();
    let d = dir.path();
    for (format, name) in [("glb", "scene.glb"), ("csv", "scene.csv")] {
        let o = util::run_in(d, &["scene.x3d", "--format", format, "-q"]);
        assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
        assert!(d.join(name).is_file());
    }
    assert!(read(&d.join("scene.glb")).starts_with(b"glTF"));
    assert!(read(&d.join("scene.csv")).starts_with(b"clip,"));
    let o = util::run_in(d, &["scene.x3d", "--format", "gltf", "--embed", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(read(&d.join("scene.gltf")).starts_with(b"{"));
    let glb = read(&d.join("scene.glb"));
    let o = util::run_in(d, &["scene.x3d", "--format", "gltf", "-o", "scene.glb"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(util::stderr(&o).contains("names a .glb file but --format is gltf"));
    assert!(read(&d.join("scene.glb")) == glb);
}

/// A folder given as input is walked for X3D files (by extension and by
/// content), hidden entries skipped, its layout kept under -o; two inputs
/// of one stem in one folder keep their whole names; `-o /dev/null` checks
/// without writing.
#[test]
fn folders_are_walked_and_dev_null_only_checks() {
    let dir = tempfile::tempdir().unwrap();
    let scenes = dir.path().join("scenes");
    std::fs::create_dir_all(scenes.join("deep/er")).unwrap();
    std::fs::create_dir_all(scenes.join(".git")).unwrap();
    let root = util::root().join("fixtures/scenes");
    std::fs::copy(root.join("bouncing_box.x3d"), scenes.join("box.x3d")).unwrap();
    std::fs::copy(root.join("bouncing_box.x3dv"), scenes.join("box.x3dv")).unwrap();
    std::fs::copy(
        root.join("bouncing_box.x3dj"),
        scenes.join("deep/er/j.json"),
    )
    .unwrap();
    std::fs::copy(root.join("routing.x3d"), scenes.join(".git/r.x3d")).unwrap();
    std::fs::write(scenes.join("deep/notes.json"), "{\"a\": 1}").unwrap();
    let o = util::run_in(dir.path(), &["scenes", "-o", "out/", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let out = dir.path().join("out");
    assert_eq!(
        util::names_in(&out),
        ["box.x3d.glb", "box.x3dv.glb", "deep"]
    );
    assert_eq!(util::names_in(&out.join("deep/er")), ["j.glb"]);
    // The same walk into /dev/null: exit 0, nothing written anywhere.
    let names = util::names_in(dir.path());
    for args in [
        &["scenes", "-o", "/dev/null", "-q"][..],
        &["scenes/box.x3d", "-o", "/dev/null"],
        &["scenes/box.x3d", "-o", "/dev/null", "--format", "csv"],
    ] {
        let o = util::run_in(dir.path(), args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", util::stderr(&o));
    }
    assert_eq!(util::names_in(dir.path()), names);
    let o = util::run_in(dir.path(), &["scenes/deep/er", "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let o = util::run_in(dir.path(), &["empty", "-o", "x/"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(util::stderr(&o).contains("no X3D file under empty"));
}

/// Control characters from a scene (ESC, BEL, CR) reach the terminal as
/// escapes, never raw.
#[test]
fn control_characters_in_messages_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("evil.x3d");
    std::fs::write(
        &scene,
        "<X3D><Scene><Transform DEF='A\u{1b}[2J\u{7}B\r'><Shape><Box/></Shape></Transform>\
         <TimeSensor DEF='C' loop='true'/><ScalarInterpolator DEF='S' key='0 1' keyValue='0 1'/>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='S' toField='set_fraction'/>\
         <ROUTE fromNode='S' fromField='value_changed' toNode='A\u{1b}[2J\u{7}B\r' toField='nope'/>\
         </Scene></X3D>",
    )
    .unwrap();
    for args in [
        &["evil.x3d", "-o", "/dev/null", "-v"][..],
        &["inspect", "evil.x3d"],
    ] {
        let o = util::run_in(dir.path(), args);
        let all = [o.stdout.as_slice(), o.stderr.as_slice()].concat();
        assert!(
            !all.iter().any(|&b| b == 0x1b || b == 0x07 || b == b'\r'),
            "{args:?}: {}",
            String::from_utf8_lossy(&all)
        );
        assert!(
            String::from_utf8_lossy(&all).contains("A\\x1b[2J\\x07B\\x0d"),
            "{args:?}: {}",
            String::from_utf8_lossy(&all)
        );
    }
}

/// SIGTERM, SIGINT and SIGHUP end a run with 128 + the signal's number,
/// and leave no file; a temporary file a killed run left is removed by the
/// next run that writes into its folder, unless a live writer holds it.
#[cfg(target_os = "linux")]
#[test]
fn signals_exit_as_shells_expect_and_stale_temporaries_go() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    for (signal, code) in [("TERM", 143), ("INT", 130), ("HUP", 129)] {
        // Reading standard input that never ends: the run waits there.
        let mut child = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
            .args(["-", "-o", "out.glb"])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kept open past the wait (which would close it: end of input).
        let _stdin = child.stdin.take();
        // The handler is in place once the process reads: wait until one
        // of its threads blocks on standard input (their states in /proc).
        let tasks = format!("/proc/{}/task", child.id());
        let reading = || {
            std::fs::read_dir(&tasks).unwrap().flatten().any(|t| {
                std::fs::read_to_string(t.path().join("wchan"))
                    .is_ok_and(|w| w.contains("pipe_read"))
            })
        };
        // (Bounded, should a kernel name the wait otherwise.)
        for _ in 0..10_000 {
            if reading() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "SIG{signal}");
    }
    assert!(util::names_in(dir.path()).is_empty());
    // Left by runs that are gone (no such process), and one held by a
    // live writer (this test, under the lock a writer takes).
    let stale = dir.path().join(".out.glb.x3dbake-4194999.tmp");
    let held = dir.path().join(".other.glb.x3dbake-4194998.tmp");
    let mine = dir.path().join(".kept.glb.x3dbake-1.tmp");
    for f in [&stale, &held, &mine] {
        std::fs::write(f, "half").unwrap();
    }
    let lock = std::fs::File::open(&held).unwrap();
    lock.lock().unwrap();
    std::fs::copy(util::root().join(BOX), dir.path().join("scene.x3d")).unwrap();
    let o = util::run_in(dir.path(), &["scene.x3d", "-o", "out.glb", "-q"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!stale.exists(), "a dead run's temporary file is removed");
    assert!(held.exists(), "a locked one is kept");
    assert!(mine.exists(), "one of a live process (pid 1) is kept");
}

/// Completions for every shell and the manual page come from the same
/// definitions as --help: they name the same flags.
#[test]
fn completions_and_the_manual_page_name_every_flag() {
    let help = util::stdout(&util::run(&["--help"]));
    let flags: Vec<&str> = help
        .split_whitespace()
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.trim_end_matches([',', '.', ')', ':']))
        .filter(|w| {
            w.chars()
                .skip(2)
                .all(|c| c.is_ascii_lowercase() || c == '-')
        })
        .collect();
    assert!(flags.contains(&"--deny-warnings") && flags.contains(&"--timeline"));
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let o = util::run(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let text = util::stdout(&o);
        for f in &flags {
            let bare = &f[2..];
            assert!(text.contains(bare), "{shell} completions lack {f}");
        }
    }
    let man = util::run(&["man"]);
    assert_eq!(man.status.code(), Some(0));
    let roff = util::stdout(&man);
    assert!(roff.starts_with(".ie") && roff.contains(".TH x3dbake 1"));
    for f in &flags {
        let escaped = f.replace('-', "\\-");
        assert!(roff.contains(&escaped), "the manual page lacks {f}");
    }
    assert!(help.contains("Examples:") && help.contains("Exit codes:"));
    // Not on a terminal, help is wrapped to 100 columns.
    assert!(
        help.lines().all(|l| l.chars().count() <= 100),
        "{}",
        help.lines().max_by_key(|l| l.len()).unwrap()
    );
}

/// One kind of failure, one exit code and one style: flags that name what
/// the scene lacks (an --event's node, a --clip) are usage errors (2),
/// printed `error: FILE: …`; flags that cannot apply are refused.
#[test]
fn flags_the_scene_or_the_output_cannot_take_are_usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                BOX,
                "-o",
                "-",
                "--timeline",
                "--event",
                "1:Nope.touchTime=1",
            ],
            "error: fixtures/scenes/bouncing_box.x3d: --event 1: no node named `Nope`",
        ),
        (
            &[BOX, "-o", "-", "--clip", "Nope"],
            "error: fixtures/scenes/bouncing_box.x3d: --clip: no clip named `Nope`",
        ),
        (
            &[BOX, "-o", "-", "--timeline", "--clip", "Clock"],
            "error: --clip chooses clips of the clip mode; --timeline plays the whole world",
        ),
        (
            &[BOX, "-o", "/dev/null", "--format", "gltf"],
            "error: a .gltf on /dev/null needs --embed",
        ),
        (
            &[BOX, "-o", "-", "--sync"],
            "error: --sync is for outputs written to files",
        ),
    ];
    for (args, want) in cases {
        let o = util::run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            util::stderr(&o).contains(want),
            "{args:?}: {}",
            util::stderr(&o)
        );
    }
}

/// The library writes the same .glb as the CLI with `Document::write_glb`,
/// its buffer in memory or moved to a file as it was made (a spill after
/// 1 KiB, room left before it or not): the bytes stream back from the file.
#[test]
fn the_library_writes_the_clis_glb_however_its_buffer_was_kept() {
    let scene = util::root().join("fixtures/scenes/morph.x3d");
    let dir = tempfile::tempdir().unwrap();
    let cli = dir.path().join("cli.glb");
    let o = util::run(&[scene.to_str().unwrap(), "-o", cli.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let want = std::fs::read(&cli).unwrap();
    let spills = [None, Some((1024, false)), Some((1024, true))];
    for spill in spills {
        let mut bake = util::load_text(&scene.to_string_lossy(), &std::fs::read(&scene).unwrap());
        bake.animate(Default::default());
        let spill = spill.map(|(after, room)| x3dbake::internal::write::gltf::Spill {
            open: Box::new(|| tempfile::tempfile().ok()),
            after,
            room,
            write_back: false,
        });
        let spilled = spill.is_some();
        let mut doc = bake.gltf_spilled(&Default::default(), None, spill).unwrap();
        assert_eq!(doc.spilled.is_some(), spilled, "the buffer passes 1 KiB");
        let mut got = Vec::new();
        doc.write_glb(&mut got).unwrap();
        assert!(
            got == want,
            "spilled {spilled}: {} bytes, the CLI's {}",
            got.len(),
            want.len()
        );
    }
}

/// Morph targets large enough to be made two at a time on two threads
/// (24 000 corners: 576 KB a target, past half of what `par` splits) hold
/// each key's displacements, in key order, and give the same bytes on one
/// thread as on two.
#[test]
fn morph_targets_made_in_pairs_hold_each_key_in_order() {
    let points = 24_000;
    let at = |i: usize, k: usize| -> [f32; 3] {
        let a = i as f64 * 0.37 + k as f64;
        [a.sin(), a.cos(), (a * 0.5).sin() * k as f64].map(|x| (x * 1e4).round() as f32 / 1e4)
    };
    let coords = |k: usize| {
        let each = (0..points).map(|i| at(i, k).map(|x| format!("{x}")).join(" "));
        each.collect::<Vec<_>>().join(" ")
    };
    let index: String = (0..points / 3)
        .map(|t| format!("{} {} {} -1 ", 3 * t, 3 * t + 1, 3 * t + 2))
        .collect();
    let text = format!(
        r#"<X3D><Scene>
<TimeSensor DEF="T" cycleInterval="2" loop="true"/>
<CoordinateInterpolator DEF="C" key="0 0.5 1" keyValue="{} {} {}"/>
<Shape><IndexedFaceSet coordIndex="{index}"><Coordinate DEF="P" point="{}"/></IndexedFaceSet></Shape>
<ROUTE fromNode="T" fromField="fraction_changed" toNode="C" toField="set_fraction"/>
<ROUTE fromNode="C" fromField="value_changed" toNode="P" toField="set_point"/>
</Scene></X3D>"#,
        coords(0),
        coords(1),
        coords(2),
        coords(0)
    );
    let glb = |threads: usize| {
        x3dbake::internal::par::with_share(threads, || {
            let mut bake = util::load_text("pairs.x3d", text.as_bytes());
            bake.animate(Default::default());
            let mut doc = bake.gltf(&Default::default(), None).unwrap();
            // Each target's first and last corner displacements.
            let buffer = doc.buffer().unwrap().into_owned();
            let root = &doc.root;
            let targets = root.meshes[0].primitives[0].targets.clone().unwrap();
            let moved: Vec<[f32; 6]> = targets
                .iter()
                .map(|t| {
                    let a = &root.accessors[t.positions.unwrap().value()];
                    let view = &root.buffer_views[a.buffer_view.unwrap().value()];
                    let from =
                        view.byte_offset.map_or(0, |o| o.0) + a.byte_offset.map_or(0, |o| o.0);
                    let f = |e: usize| {
                        let b = &buffer[from as usize + 4 * e..][..4];
                        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
                    };
                    let last = 3 * (points - 1);
                    [f(0), f(1), f(2), f(last), f(last + 1), f(last + 2)]
                })
                .collect();
            let mut out = Vec::new();
            doc.write_glb(&mut out).unwrap();
            (out, moved)
        })
    };
    let (one, moved) = glb(1);
    let want: Vec<[f32; 6]> = (0..3)
        .map(|k| {
            let (p, q) = (at(0, k), at(points - 1, k));
            let (p0, q0) = (at(0, 0), at(points - 1, 0));
            [
                p[0] - p0[0],
                p[1] - p0[1],
                p[2] - p0[2],
                q[0] - q0[0],
                q[1] - q0[1],
                q[2] - q0[2],
            ]
        })
        .collect();
    assert_eq!(moved, want, "a target a key, in key order");
    assert!(glb(2).0 == one, "two threads");
}

/// The fits made ahead run on as many threads as `threads` gives (a batch
/// gives each worker its share of the cores): the same bytes whatever the
/// count, one thread included.
#[test]
fn the_thread_budget_changes_no_byte() {
    let scene = util::root().join("fixtures/curves/rotations.x3d");
    let text = std::fs::read(&scene).unwrap();
    let glb = |threads: usize| {
        let mut bake = util::load_text(&scene.to_string_lossy(), &text);
        bake.animate(Default::default());
        let mut opts = x3dbake::internal::write::gltf::Options::default();
        opts.keys.threads = threads;
        let mut doc = bake.gltf(&opts, None).unwrap();
        let mut out = Vec::new();
        doc.write_glb(&mut out).unwrap();
        out
    };
    let one = glb(1);
    for threads in [0, 2, 3, 16] {
        assert!(glb(threads) == one, "{threads} threads");
    }
}
