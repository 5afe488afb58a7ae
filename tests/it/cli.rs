//! The command line end to end: options, piping, CSV forms, batches, exit
//! codes.

use crate::util;

use std::io::Write as _;
use std::process::{Command, Stdio};

const BOX: &str = "fixtures/scenes/bouncing_box.x3d";

fn lines(o: &std::process::Output) -> Vec<String> {
    util::stdout(o).lines().map(String::from).collect()
}

/// The `--timeline` CSV row of NODE,field (`what`) at time `t`.
fn timeline_row(rows: &[String], t: &str, what: &str) -> String {
    rows.iter()
        .find(|r| r.starts_with(&format!("timeline,{t},{what},")))
        .unwrap_or_else(|| panic!("no {what} at {t}: {rows:#?}"))
        .clone()
}

/// Component `c` of that row's value, as a number.
fn timeline_number(rows: &[String], t: &str, what: &str, c: usize) -> f64 {
    let row = timeline_row(rows, t, what);
    row.split(',').nth(5 + c).unwrap().parse().unwrap()
}

#[test]
fn csv_long_form_header_order_and_values() {
    let o = util::run(&[BOX, "-o", "-", "--rate", "2", "--quiet"]);
    assert_eq!(o.status.code(), Some(0));
    let l = lines(&o);
    assert_eq!(l[0], "clip,time,node,field,index,c0,c1,c2,c3");
    // 5 times (0, 0.5, 1, 1.5, 2) × 4 fields.
    assert_eq!(l.len(), 1 + 5 * 4);
    // Ordered by time, then node, field.
    assert_eq!(l[1], "Clock,0,Box1,translation,0,0,0,0,");
    assert_eq!(l[2], "Clock,0,BoxMaterial,diffuseColor,0,1,0,0,");
    assert_eq!(l[3], "Clock,0,BoxMaterial,transparency,0,0,,,");
    assert_eq!(l[4], "Clock,0,Spinner,rotation,0,0,0,1,0");
    assert_eq!(l[5], "Clock,0.5,Box1,translation,0,0,1,0,");
    // HSV: red to blue passes magenta; rotation as axis and angle.
    assert_eq!(l[6], "Clock,0.5,BoxMaterial,diffuseColor,0,1,0,1,");
    assert_eq!(l[8], "Clock,0.5,Spinner,rotation,0,0,1,0,1.570795");
    let times: Vec<f64> = l[1..]
        .iter()
        .map(|r| r.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn csv_wide_has_a_column_per_component() {
    let o = util::run(&[BOX, "-o", "-", "--rate", "1", "--wide", "--clip", "Clock"]);
    let l = lines(&o);
    assert_eq!(
        l[0],
        "clip,time,Box1.translation[0].c0,Box1.translation[0].c1,Box1.translation[0].c2,\
         BoxMaterial.diffuseColor[0].c0,BoxMaterial.diffuseColor[0].c1,BoxMaterial.diffuseColor[0].c2,\
         BoxMaterial.transparency[0].c0,Spinner.rotation[0].c0,Spinner.rotation[0].c1,\
         Spinner.rotation[0].c2,Spinner.rotation[0].c3"
    );
    assert_eq!(l.len(), 4);
    assert_eq!(l[2], "Clock,1,0,2,0,0,0,1,0.25,0,1,0,3.14159");
    assert!(l.iter().all(|r| r.split(',').count() == 13));
}

#[test]
fn csv_mf_values_have_an_index_per_element() {
    let (_dir, x3d) = util::scene_file(
        "m.x3d",
        "<X3D><Scene><Shape><IndexedFaceSet><Coordinate DEF='C' point='0 0 0 1 0 0'/></IndexedFaceSet></Shape>\
         <TimeSensor DEF='T'/><CoordinateInterpolator DEF='I' key='0 1' keyValue='0 0 0 1 0 0 0 1 0 1 1 0'/>\
         <ROUTE fromNode='T' fromField='fraction_changed' toNode='I' toField='set_fraction'/>\
         <ROUTE fromNode='I' fromField='value_changed' toNode='C' toField='point'/></Scene></X3D>",
    );
    let o = util::run(&[&x3d, "-o", "-", "--rate", "2"]);
    let l = lines(&o);
    assert_eq!(&l[1..3], ["T,0,C,point,0,0,0,0,", "T,0,C,point,1,1,0,0,"]);
    assert_eq!(
        &l[3..5],
        ["T,0.5,C,point,0,0,0.5,0,", "T,0.5,C,point,1,1,0.5,0,"]
    );
}

#[test]
fn timeline_uses_world_time() {
    let (_dir, x3d) = util::scene_file(
        "t.x3d",
        "<X3D><Scene><Transform DEF='X' translation='9 9 9'/>\
         <TimeSensor DEF='T' startTime='1' cycleInterval='2'/><PositionInterpolator DEF='P' key='0 1' keyValue='0 0 0 2 0 0'/>\
         <ROUTE fromNode='T' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='X' toField='translation'/></Scene></X3D>",
    );
    let o = util::run(&[
        &x3d,
        "-o",
        "-",
        "--timeline",
        "--load-time",
        "0",
        "--rate",
        "1",
        "--end",
        "4",
    ]);
    assert_eq!(
        lines(&o)[1..],
        [
            // Before startTime the field keeps its own value.
            "timeline,0,X,translation,0,9,9,9,",
            "timeline,1,X,translation,0,0,0,0,",
            "timeline,2,X,translation,0,1,0,0,",
            "timeline,3,X,translation,0,2,0,0,",
            // After the one cycle, the last value stays.
            "timeline,4,X,translation,0,2,0,0,",
        ]
    );
    let bad = util::run(&[&x3d, "-o", "-", "--start", "1"]);
    assert_eq!(bad.status.code(), Some(2), "--start needs --timeline");
}

/// Two clocks write one field: the value is the last event sent. B starts
/// later (2 s) but runs one cycle (to 3 s); A loops from 0 s and keeps
/// sending, so after 3 s the field follows A again. A looping clock that
/// started before load (-1 s) is a quarter into its cycle at load, as the
/// text and X_ITE have it; with the default pauseTime and resumeTime (0,
/// 0: a pause at or before resumeTime is ignored) it moves.
#[test]
fn timeline_takes_the_last_event_and_ignores_the_default_pause() {
    let (_dir, x3d) = util::scene_file(
        "t.x3d",
        "<X3D><Scene><Transform DEF='X'/>         <TimeSensor DEF='A' startTime='-1' stopTime='-1' cycleInterval='4' loop='true'/>         <TimeSensor DEF='B' startTime='2' cycleInterval='1'/>         <PositionInterpolator DEF='PA' key='0 1' keyValue='0 0 0 4 0 0'/>         <PositionInterpolator DEF='PB' key='0 1' keyValue='0 10 0 0 20 0'/>         <ROUTE fromNode='A' fromField='fraction_changed' toNode='PA' toField='set_fraction'/>         <ROUTE fromNode='B' fromField='fraction_changed' toNode='PB' toField='set_fraction'/>         <ROUTE fromNode='PA' fromField='value_changed' toNode='X' toField='translation'/>         <ROUTE fromNode='PB' fromField='value_changed' toNode='X' toField='translation'/>         </Scene></X3D>",
    );
    let o = util::run(&[
        &x3d,
        "-o",
        "-",
        "--timeline",
        "--load-time",
        "0",
        "--rate",
        "2",
        "--end",
        "4",
    ]);
    assert_eq!(
        lines(&o)[1..],
        [
            "timeline,0,X,translation,0,1,0,0,",
            "timeline,0.5,X,translation,0,1.5,0,0,",
            "timeline,1,X,translation,0,2,0,0,",
            "timeline,1.5,X,translation,0,2.5,0,0,",
            "timeline,2,X,translation,0,0,10,0,",
            "timeline,2.5,X,translation,0,0,15,0,",
            "timeline,3,X,translation,0,0,20,0,",
            "timeline,3.5,X,translation,0,0.5,0,0,",
            "timeline,4,X,translation,0,1,0,0,",
        ]
    );
}

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
fn several_inputs_on_standard_output_make_one_table_with_a_file_column() {
    let (a, b) = (
        "fixtures/scenes/bouncing_box.x3d",
        "fixtures/scenes/routing.x3d",
    );
    let o = util::run(&[a, b, "-o", "-", "--quiet"]);
    assert_eq!(o.status.code(), Some(0));
    let text = util::stdout(&o);
    let mut rows = text.lines();
    assert_eq!(
        rows.next(),
        Some("file,clip,time,node,field,index,c0,c1,c2,c3")
    );
    // Each input's rows together, in the order given.
    let mut files: Vec<&str> = rows.map(|r| r.split(',').next().unwrap()).collect();
    files.dedup();
    assert_eq!(files, [a, b]);
    // Wide tables have columns of their own: refused.
    let o = util::run(&[a, b, "-o", "-", "--wide"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(util::stderr(&o).contains("several wide tables"));
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
fn use_copies_past_the_node_limit_are_an_error_and_write_nothing() {
    // Each Group holds the one before twice: 2^40 copies of the Shape.
    let mut text = String::from("<X3D><Scene>\n<Group DEF='G0'><Shape><Box/></Shape></Group>\n");
    for i in 1..=40 {
        let j = i - 1;
        text += &format!("<Group DEF='G{i}'><Group USE='G{j}'/><Group USE='G{j}'/></Group>\n");
    }
    text += "</Scene></X3D>\n";
    let (dir, path) = util::scene_file("uses.x3d", &text);
    let out = dir.path().join("uses.glb");
    let run = util::run(&[&path, "-o", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    let err = util::stderr(&run);
    assert!(
        err.contains(": error: the glTF scene would have more than 500000 nodes"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn many_diagnostics_keep_the_first_thousand_of_each_and_count_the_rest() {
    // 1 500 unknown nodes, then a field of no X3D type, all on one line of 2.4 MB
    // with 200 000 more unknown nodes: the error is listed after the first
    // 1 000 warnings, the rest are counted, and a long line is no slower
    // to report on than a short one (a character index every 4 KiB).
    let mut text = String::from("<X3D><Scene>");
    text += &"<Foo/>".repeat(1500);
    text += "<Script><field name='a' type='SFFoo' accessType='inputOutput'/></Script>";
    text += &"<Foo a='1'/>".repeat(200_000);
    text += "</Scene></X3D>\n";
    let (dir, path) = util::scene_file("many.x3d", &text);
    let out = dir.path().join("many.glb");
    let run = util::run_within(&[&path, "-o", out.to_str().unwrap()], 20);
    assert_eq!(run.status.code(), Some(1));
    let err = util::stderr(&run);
    // The first 1 000 warnings are one warning repeated: given once.
    let headlines: Vec<&str> = err.lines().filter(|l| l.contains(".x3d:1:")).collect();
    assert_eq!(headlines.len(), 2, "{err}");
    assert!(headlines[0].contains(": warning: `Foo` is not an X3D node type"));
    assert!(
        err.contains("\n  … and 999 more times, at lines 1\n"),
        "{err}"
    );
    assert!(
        headlines[1].ends_with(": error: `SFFoo` is not an X3D field type"),
        "{err}"
    );
    let last: Vec<&str> = err.lines().rev().take(2).collect();
    assert_eq!(
        last[1],
        "note: 1 error and 201500 warnings in all; the first 1000 of each are listed"
    );
    assert!(last[0].ends_with("many.x3d: 201500 warnings (1 different), 1 error"));
    assert!(!out.exists());
    let quiet = util::stderr(&util::run(&[&path, "-o", out.to_str().unwrap(), "-q"]));
    assert_eq!(
        quiet.lines().filter(|l| l.contains(": warning:")).count(),
        0
    );
    assert!(!quiet.contains("note:"), "{quiet}");
}

/// A CoordinateInterpolator of `keys` keys on a triangle, over 600 s.
fn morph_scene(keys: usize) -> String {
    use std::fmt::Write as _;
    let mut text = String::from(
        "<X3D><Scene><TimeSensor DEF='T' cycleInterval='600' loop='true'/>\n\
         <Shape><IndexedFaceSet coordIndex='0 1 2'>\
         <Coordinate DEF='C' point='0 0 0 1 0 0 0 1 0'/></IndexedFaceSet></Shape>\n\
         <CoordinateInterpolator DEF='I' key='",
    );
    for k in 0..keys {
        write!(text, "{} ", k as f64 / (keys - 1) as f64).unwrap();
    }
    text += "' keyValue='";
    for k in 0..keys {
        write!(text, "{} 0 0 1 0 0 0 1 0 ", k % 7).unwrap();
    }
    text + "'/>\n<ROUTE fromNode='T' fromField='fraction_changed' toNode='I' toField='set_fraction'/>\n\
            <ROUTE fromNode='I' fromField='value_changed' toNode='C' toField='point'/>\n</Scene></X3D>\n"
}

#[test]
fn animations_past_the_number_limit_are_refused_before_they_are_made() {
    use std::fmt::Write as _;
    // One-hot morph weights grow with the square of the keys: 16 000 keys
    // on a triangle (half a megabyte of X3D, default flags) ask for 256
    // million weights. Before the limit this aborted on an allocation of
    // 1 GB (100 000 keys, 3.7 MB of X3D, asked for 40 GB).
    let (dir, morph) = util::scene_file("morph.x3d", &morph_scene(16_000));
    // Exact keys repeated by --cycles: 10 000 keys over 10 000 cycles are
    // 100 million keyframes of four numbers, refused before any is made.
    let mut text = String::from(
        "<X3D><Scene><TimeSensor DEF='T'/><Transform DEF='X'/>\n<PositionInterpolator DEF='P' key='",
    );
    for k in 0..10_000 {
        write!(text, "{} ", k as f64 / 9_999.0).unwrap();
    }
    text += "' keyValue='";
    for k in 0..10_000 {
        write!(text, "{k} 0 0 ").unwrap();
    }
    text += "'/>\n<ROUTE fromNode='T' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\n\
             <ROUTE fromNode='P' fromField='value_changed' toNode='X' toField='set_translation'/>\n</Scene></X3D>\n";
    let cycles = dir.path().join("cycles.x3d");
    std::fs::write(&cycles, text).unwrap();
    let cycles = cycles.to_string_lossy().into_owned();
    let out = dir.path().join("out.glb");
    for (input, flags, place, at) in [
        (
            &morph,
            &[][..],
            "morph.x3d:5:2",
            "`C.point` in clip `T` (600 s, --rate 30)",
        ),
        (
            &cycles,
            &["--cycles", "10000"][..],
            "cycles.x3d:4:2",
            "`X.translation` in clip `T` (10000 s, --rate 30)",
        ),
    ] {
        let mut args = vec![input.as_str(), "-o", out.to_str().unwrap()];
        args.extend(flags);
        let o = util::run_within(&args, 60);
        let err = util::stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        let want = format!(
            "{place}: error: the animations would hold more than 250000000 numbers (keys, \
             morph targets and weights): stopped at {at}"
        );
        assert!(err.contains(&want), "{err}");
        assert_eq!(err.matches(": error: ").count(), 1, "{err}");
        assert!(!out.exists());
    }
    // Below the limit the same morph bakes: 4 000 keys, 16 million weights.
    let (_small_dir, small) = util::scene_file("small.x3d", &morph_scene(4_000));
    let o = util::run_within(&[&small, "-o", out.to_str().unwrap()], 60);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
}

#[test]
fn a_csv_table_past_its_byte_limit_is_an_error() {
    use x3dbake::internal::write::csv::{CsvOptions, to_vec};
    let path = util::root().join("fixtures/scenes/bouncing_box.x3d");
    let (scene, clips) = util::load_clips(&path, Default::default());
    let opts = CsvOptions {
        rate: 30.0,
        wide: false,
        timeline: None,
    };
    let whole = to_vec(&scene, &clips, &opts, usize::MAX).unwrap();
    assert_eq!(to_vec(&scene, &clips, &opts, whole.len()).unwrap(), whole);
    let err = to_vec(&scene, &clips, &opts, whole.len() - 1).unwrap_err();
    let limit = whole.len() - 1;
    assert_eq!(
        err.to_string(),
        format!(
            "the CSV table would be larger than {limit} bytes at --rate 30; fewer rows come from a lower --rate, or a shorter --start to --end"
        )
    );
}

#[test]
fn a_point_of_too_many_faces_is_flat_with_a_warning() {
    // 2 000 triangles around one point, smooth (creaseAngle): comparing each
    // corner there with every face is the square of the count (a 100 000
    // fan took 27 s), so that point's corners keep their faces' normals.
    use std::fmt::Write as _;
    let n = 2000;
    let mut index = String::new();
    let mut points = String::from("0 0 1 ");
    for i in 0..n {
        write!(index, "0 {} {} -1 ", 1 + i, 1 + (i + 1) % n).unwrap();
        let a = std::f64::consts::TAU * i as f64 / n as f64;
        write!(points, "{} {} 0 ", a.cos(), a.sin()).unwrap();
    }
    let text = format!(
        "<X3D><Scene><Shape><IndexedFaceSet DEF='Fan' creaseAngle='3' coordIndex='{index}'>\
         <Coordinate point='{points}'/></IndexedFaceSet></Shape></Scene></X3D>"
    );
    let (dir, path) = util::scene_file("fan.x3d", &text);
    let out = dir.path().join("fan.glb");
    let o = util::run_within(&[&path, "-o", out.to_str().unwrap()], 20);
    let err = util::stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning: points of `Fan` shared by more than 1024 faces have flat normals at their corners (1 of them;"),
        "{err}"
    );
}

#[test]
fn prototypes_of_many_connected_fields_expand_in_linear_time() {
    // 40 000 interface fields, each connected to a body node, and two
    // instances: every connection looked its field up among all the others
    // (1.6 billion comparisons an instance; 60 000 fields took 17 s
    // in a release build), now by name at once.
    use std::fmt::Write as _;
    let n = 40_000;
    let mut text = String::from("#X3D V3.3 utf8\nPROTO P [\n");
    for i in 0..n {
        writeln!(text, "inputOutput SFFloat f{i} 0").unwrap();
    }
    text += "] { Group { children [\n";
    for i in 0..n {
        writeln!(text, "ScalarInterpolator {{ set_fraction IS f{i} }}").unwrap();
    }
    text += "] } }\nP { f7 0.5 } P { }\n";
    let (_dir, path) = util::scene_file("wide.x3dv", &text);
    let out = util::run_ok_within(&["inspect", &path], 30);
    assert!(out.contains("interpolators: 80000"), "{out}");
}

#[test]
fn nodes_of_many_declared_fields_read_in_linear_time() {
    // A Script of 60 000 fields, each the end of a route, and a prototype
    // instance giving values to its 60 000 fields: each route and value
    // looked its field up among all the others (6.4 s and 11.2 s in a
    // release build), now by name at once.
    use std::fmt::Write as _;
    let n = 60_000;
    let mut script = String::from("<X3D><Scene><TimeSensor DEF='T'/><Script DEF='S'>\n");
    for i in 0..n {
        writeln!(
            script,
            "<field name='f{i}' type='SFTime' accessType='inputOnly'/>"
        )
        .unwrap();
    }
    script += "</Script>\n";
    for i in 0..n {
        writeln!(
            script,
            "<ROUTE fromNode='T' fromField='time' toNode='S' toField='f{i}'/>"
        )
        .unwrap();
    }
    script += "</Scene></X3D>\n";
    let (_dir, path) = util::scene_file("script.x3d", &script);
    let out = util::run_ok_within(&["inspect", &path], 30);
    assert!(out.contains("routes: 60000\n"), "{out}");
    assert!(out.contains("T.time -> S.f59999 (SFTime)\n"), "{out}");

    let mut proto = String::from("<X3D><Scene><ProtoDeclare name='P'><ProtoInterface>\n");
    for i in 0..n {
        writeln!(
            proto,
            "<field name='f{i}' type='SFFloat' accessType='inputOutput' value='0'/>"
        )
        .unwrap();
    }
    proto += "</ProtoInterface><ProtoBody><Group/></ProtoBody></ProtoDeclare>\n";
    proto += "<ProtoInstance name='P'>\n";
    for i in 0..n {
        writeln!(proto, "<fieldValue name='f{i}' value='1'/>").unwrap();
    }
    proto += "</ProtoInstance></Scene></X3D>\n";
    let (_dir, path) = util::scene_file("proto.x3d", &proto);
    let out = util::run_ok_within(&["inspect", &path], 30);
    assert!(out.contains("warnings: 0\n"), "{out}");
}

#[test]
fn scenes_of_many_tracks_links_and_imports_bake_in_linear_time() {
    // Each track looked for its partners (a Material's transparency, a
    // TextureTransform's other fields) among all the clip's tracks, each
    // Link for its DEF names among all DEFs, and each IMPORT went through
    // all routes: 60 000 animated Transforms took 6.8 s, 20 000 Links
    // 2.5 s and 20 000 IMPORTs 5.0 s in a release build.
    use std::fmt::Write as _;
    let n = 30_000;
    let mut tracks = String::from("<X3D><Scene><TimeSensor DEF='T' loop='true'/>\n");
    let mut links = String::from("<X3D><Scene><Timer DEF='T' period='4'/>\n");
    let mut imports = String::from(
        "<X3D><Scene><TimeSensor DEF='T' loop='true'/><Inline DEF='I' url='\"child.x3d\"'/>\n",
    );
    let mut child = String::from("<X3D><Scene>\n");
    for i in 0..n {
        let interp = format!("<PositionInterpolator DEF='P{i}' key='0 1' keyValue='0 0 0 1 1 1'/>");
        let fraction = format!(
            "<ROUTE fromNode='T' fromField='fraction_changed' toNode='P{i}' toField='set_fraction'/>"
        );
        let value = |to: &str| {
            format!(
                "<ROUTE fromNode='P{i}' fromField='value_changed' toNode='{to}{i}' toField='translation'/>"
            )
        };
        writeln!(
            tracks,
            "<Transform DEF='X{i}'/>{interp}{fraction}{}",
            value("X")
        )
        .unwrap();
        writeln!(links, "<Transform DEF='X{i}'/>{interp}<Link TIMER='T' INTERPOLATOR='P{i}' TO_NODE='X{i}' TO_FIELD='translation'/>").unwrap();
        writeln!(
            imports,
            "<IMPORT inlineDEF='I' importedDEF='E{i}' AS='L{i}'/>{interp}{fraction}{}",
            value("L")
        )
        .unwrap();
        writeln!(
            child,
            "<Transform DEF='X{i}'/><EXPORT localDEF='X{i}' AS='E{i}'/>"
        )
        .unwrap();
    }
    let end = "</Scene></X3D>\n";
    let (dir, _) = util::scene_file("child.x3d", &(child + end));
    for (name, text) in [("tracks", tracks), ("links", links), ("imports", imports)] {
        let path = dir.path().join(format!("{name}.x3d"));
        std::fs::write(&path, text + end).unwrap();
        let out = util::run_ok_within(&["inspect", path.to_str().unwrap()], 30);
        assert!(out.contains("clips: 1\n"), "{name}: {out}");
        assert!(out.contains(&format!(", {n} tracks\n")), "{name}: {out}");
        let out_path = dir.path().join(format!("{name}.glb"));
        util::run_ok_within(
            &[path.to_str().unwrap(), "-o", out_path.to_str().unwrap()],
            30,
        );
    }
}

#[test]
fn scenes_of_many_clocks_and_prototypes_bake_in_linear_time() {
    // Each mesh looked through every clip for tracks of its points (20 000
    // clocks each moving a Box: 6.8 s in a release build), and each
    // prototype instance through every declaration for its name (60 000 of
    // each: 15.9 s).
    use std::fmt::Write as _;
    let mut clocks = String::from("<X3D><Scene>\n");
    for i in 0..20_000 {
        writeln!(
            clocks,
            "<TimeSensor DEF='T{i}' loop='true'/><Transform DEF='X{i}'><Shape><Box/></Shape></Transform>\
             <PositionInterpolator DEF='P{i}' key='0 1' keyValue='0 0 0 1 1 1'/>\
             <ROUTE fromNode='T{i}' fromField='fraction_changed' toNode='P{i}' toField='set_fraction'/>\
             <ROUTE fromNode='P{i}' fromField='value_changed' toNode='X{i}' toField='translation'/>"
        )
        .unwrap();
    }
    clocks += "</Scene></X3D>\n";
    let mut protos = String::from("#VRML V2.0 utf8\n");
    for i in 0..60_000 {
        writeln!(protos, "PROTO P{i} [ field SFFloat a 0 ] {{ Group {{ }} }}").unwrap();
    }
    for i in 0..60_000 {
        writeln!(protos, "P{i} {{ a 1 }}").unwrap();
    }
    for (name, text, clips) in [("clocks.x3d", clocks, 20_000), ("protos.wrl", protos, 0)] {
        let (dir, path) = util::scene_file(name, &text);
        let out = dir.path().join("out.glb");
        util::run_ok_within(&[&path, "-o", out.to_str().unwrap()], 30);
        let out = util::run_ok_within(&["inspect", &path], 30);
        assert!(out.contains(&format!("clips: {clips}\n")), "{name}: {out}");
        assert!(out.contains("warnings: 0\n"), "{name}: {out}");
    }
}

#[test]
fn a_node_inside_itself_is_reported_once_with_its_name_cut() {
    // A Group that holds itself, copied to 1 024 places by USE: one warning
    // (there was one a copy: 166 000 of them formatted a 1 MB name for 47
    // s), its name cut to 256 bytes ('é' is two: 128 of them).
    let name = "é".repeat(300);
    let mut text = format!(
        "<X3D><Scene>\n<Group DEF='G0'><Group DEF='{name}'><Group USE='{name}'/></Group></Group>\n"
    );
    for k in 1..=10 {
        text += &format!(
            "<Group DEF='G{k}'><Group USE='G{}'/><Group USE='G{}'/></Group>\n",
            k - 1,
            k - 1
        );
    }
    text += "</Scene></X3D>\n";
    let (dir, path) = util::scene_file("inside.x3d", &text);
    let out = dir.path().join("inside.glb");
    let o = util::run_within(&[&path, "-o", out.to_str().unwrap()], 30);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let err = util::stderr(&o);
    let headlines: Vec<&str> = err.lines().filter(|l| l.contains(": warning: ")).collect();
    let cut = "é".repeat(128);
    assert_eq!(
        headlines,
        [format!(
            "{path}:2:18: warning: `{cut}` contains itself (through USE): the inner copy is left out"
        )]
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
        &[box_x3d, "-o", "x.glb", "--interpolation", "cubic"],
        "--interpolation is for --mode sample",
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

/// A looping clock of `seconds` moving T by a PositionInterpolator of these
/// keys and values.
fn long_scene(seconds: u32, key: &str, values: &str) -> String {
    format!(
        "<X3D><Scene><Transform DEF='T'/><TimeSensor DEF='C' cycleInterval='{seconds}' loop='true'/>\
         <PositionInterpolator DEF='P' key='{key}' keyValue='{values}'/>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='T' toField='translation'/></Scene></X3D>"
    )
}

/// A CSV of a million rows streams: the process never holds the table (57
/// MB of text) but a few megabytes, measured by polling its peak resident
/// size while the rows are read from its pipe.
#[cfg(target_os = "linux")]
#[test]
fn a_csv_of_a_million_rows_is_streamed_in_bounded_memory() {
    use std::io::{BufRead, BufReader};
    let (_dir, path) = util::scene_file(
        "long.x3d",
        &long_scene(1000, "0 0.5 1", "0 0 0 1 2 3 0 0 0"),
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_x3dbake"))
        .args([path.as_str(), "-o", "-", "--rate", "1000"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let (mut lines, mut bytes) = (0usize, 0usize);
        for line in BufReader::new(out).split(b'\n') {
            lines += 1;
            bytes += line.unwrap().len() + 1;
        }
        (lines, bytes)
    });
    let peak_kb = |pid: u32| -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        peak = peak.max(peak_kb(pid).unwrap_or(0));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (lines, bytes) = reader.join().unwrap();
    assert_eq!(lines, 1 + 1_000_001, "header and a row a millisecond");
    assert!(bytes > 50_000_000, "{bytes} bytes");
    assert!(
        peak > 0 && peak < 32_000,
        "peak resident {peak} kB for {bytes} bytes of CSV"
    );
}

/// Every route that does not reach the output is named, a sensor's into a
/// field no clock animates included, with what it leaves.
#[test]
fn a_route_from_a_sensor_to_a_still_field_is_named() {
    let (_dir, x3d) = util::scene_file(
        "p.x3d",
        "<X3D><Scene><ProximitySensor DEF='Near' size='10 10 10'/>\
         <Transform DEF='Follow'><Shape><Box/></Shape></Transform>\
         <ROUTE fromNode='Near' fromField='position_changed' toNode='Follow' toField='translation'/>\
         </Scene></X3D>",
    );
    let out = util::run(&[&x3d, "-o", "-", "--format", "csv"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        util::stderr(&out).contains(
            "ROUTE from `Near.position_changed` (ProximitySensor) to `Follow.translation` is not \
             baked: a person's events from ProximitySensor are played only by `--timeline \
             --event TIME:Near.position_changed=VALUE`; `Follow.translation` keeps the value \
             it has at load"
        ),
        "{}",
        util::stderr(&out)
    );
}

/// The event utilities in world time, from events given on the command
/// line, against values worked out by hand: at 1 s a FALSE into a
/// BooleanFilter goes out as inputFalse (into a TimeTrigger, whose
/// triggerTime 1 starts the clock: X from 0 at 1 s to 4 at 2 s) and as
/// inputNegate TRUE (into a BooleanToggle, which flips from true to false:
/// the Shape hides); at 3 s a BooleanTrigger's triggerTrue makes an
/// IntegerTrigger send its integerKey 2 to a Switch.
#[test]
fn event_utilities_pass_user_events_on_in_world_time() {
    let (_dir, x3d) = util::scene_file(
        "u.x3d",
        "<X3D><Scene><Transform DEF='X'><Shape DEF='Seen'><Box/></Shape></Transform>\
         <Switch DEF='Sw'><Shape><Box/></Shape></Switch>\
         <TimeSensor DEF='Clock' cycleInterval='1' startTime='100'/>\
         <PositionInterpolator DEF='P' key='0 1' keyValue='0 0 0 4 0 0'/>\
         <BooleanFilter DEF='F'/><TimeTrigger DEF='TT'/><BooleanToggle DEF='Tog' toggle='true'/>\
         <BooleanTrigger DEF='BT'/><IntegerTrigger DEF='IT' integerKey='2'/>\
         <ROUTE fromNode='Clock' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='X' toField='translation'/>\
         <ROUTE fromNode='F' fromField='inputFalse' toNode='TT' toField='set_boolean'/>\
         <ROUTE fromNode='TT' fromField='triggerTime' toNode='Clock' toField='set_startTime'/>\
         <ROUTE fromNode='F' fromField='inputNegate' toNode='Tog' toField='set_boolean'/>\
         <ROUTE fromNode='Tog' fromField='toggle_changed' toNode='Seen' toField='visible'/>\
         <ROUTE fromNode='BT' fromField='triggerTrue' toNode='IT' toField='set_boolean'/>\
         <ROUTE fromNode='IT' fromField='triggerValue' toNode='Sw' toField='whichChoice'/>\
         </Scene></X3D>",
    );
    let o = util::run(&[
        &x3d,
        "-o",
        "-",
        "--timeline",
        "--load-time",
        "0",
        "--rate",
        "1",
        "--end",
        "4",
        "--event",
        "1:F.set_boolean=false",
        "--event",
        "3:BT.set_triggerTime=3",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let rows = lines(&o);
    let at = |t: &str, what: &str| timeline_row(&rows, t, what);
    assert_eq!(
        at("0", "X,translation"),
        "timeline,0,X,translation,0,0,0,0,"
    );
    assert_eq!(at("0", "Seen,visible"), "timeline,0,Seen,visible,0,true,,,");
    assert_eq!(
        at("0", "Sw,whichChoice"),
        "timeline,0,Sw,whichChoice,0,-1,,,"
    );
    assert_eq!(
        at("1", "X,translation"),
        "timeline,1,X,translation,0,0,0,0,"
    );
    assert_eq!(
        at("1", "Seen,visible"),
        "timeline,1,Seen,visible,0,false,,,"
    );
    assert_eq!(
        at("2", "X,translation"),
        "timeline,2,X,translation,0,4,0,0,"
    );
    assert_eq!(
        at("2", "Sw,whichChoice"),
        "timeline,2,Sw,whichChoice,0,-1,,,"
    );
    assert_eq!(
        at("3", "Sw,whichChoice"),
        "timeline,3,Sw,whichChoice,0,2,,,"
    );
    assert_eq!(
        at("4", "Seen,visible"),
        "timeline,4,Seen,visible,0,false,,,"
    );
    assert!(
        !util::stderr(&o).contains("is not baked"),
        "every route is played: {}",
        util::stderr(&o)
    );
    // A user event naming no node is a usage error that says so, as an
    // unknown --clip is.
    let bad = util::run(&[
        &x3d,
        "-o",
        "-",
        "--timeline",
        "--load-time",
        "0",
        "--event",
        "1:Nope.touchTime=1",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(util::stderr(&bad).contains(": --event 1: no node named `Nope`"));
    let form = util::run(&[
        &x3d,
        "-o",
        "-",
        "--timeline",
        "--load-time",
        "0",
        "--event",
        "F.set_boolean",
    ]);
    assert_eq!(form.status.code(), Some(2));
    assert!(util::stderr(&form).contains("is not TIME:NODE.FIELD=VALUE"));
}

/// Scripts in world time, against values worked by hand
/// (fixtures/scenes/scripts.x3d): a Script that follows a clock moves a
/// Box to 2 × fraction at every frame; one started by a clock starts
/// another half a second on and hides a Shape through directOutput; one
/// that throws is named with the file line of the statement, and what it
/// sent in that call is dropped. Scripts x3dbake cannot run are named.
#[test]
fn scripts_run_in_world_time_and_a_throw_is_named_with_its_line() {
    let scene = util::root().join("fixtures/scenes/scripts.x3d");
    let o = util::run(&[
        &scene.to_string_lossy(),
        "-o",
        "-",
        "--timeline",
        "--load-time",
        "0",
        "--rate",
        "4",
        "--end",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let rows = lines(&o);
    let at = |t: &str, what: &str| timeline_row(&rows, t, what);
    // Box: x = 2 × fraction = 2 × (t / 2 mod 1) = t mod 2.
    assert_eq!(
        at("0.75", "Box,translation"),
        "timeline,0.75,Box,translation,0,0.75,0,0,"
    );
    assert_eq!(
        at("2.5", "Box,translation"),
        "timeline,2.5,Box,translation,0,0.5,0,0,"
    );
    // Later runs from load (startTime 0), then from 1.5 s as Starter says.
    assert_eq!(
        at("0.5", "Slider,translation"),
        "timeline,0.5,Slider,translation,0,0.5,0,0,"
    );
    assert_eq!(
        at("1.5", "Slider,translation"),
        "timeline,1.5,Slider,translation,0,0,0,0,"
    );
    assert_eq!(
        at("2", "Slider,translation"),
        "timeline,2,Slider,translation,0,0.5,0,0,"
    );
    assert_eq!(
        at("0.75", "Hidden,visible"),
        "timeline,0.75,Hidden,visible,0,true,,,"
    );
    assert_eq!(
        at("1", "Hidden,visible"),
        "timeline,1,Hidden,visible,0,false,,,"
    );
    // Broken's spin, sent before it threw, is dropped.
    assert!(
        !rows.iter().any(|r| r.contains("Slider,rotation")),
        "{rows:#?}"
    );
    let err = util::stderr(&o);
    assert!(
        err.contains("scripts.x3d:50:1: warning: Script `Broken` failed in `set_active` at 1 s: ReferenceError: nothing is not defined"),
        "{err}"
    );

    // The clip mode plays each clip's Scripts too: the Clock clip moves
    // the Box (x = 2 × fraction), the Once clip hides the Shape from its
    // start; Starter's startTime for Later is named (clips play alone).
    let o = util::run(&[&scene.to_string_lossy(), "-o", "-", "--rate", "4"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let rows = lines(&o);
    for want in [
        "Clock,0.5,Box,translation,0,0.5,0,0,",
        "Clock,1.75,Box,translation,0,1.75,0,0,",
        "Once,0,Hidden,visible,0,false,,,",
    ] {
        assert!(rows.iter().any(|r| r == want), "{want}: {rows:#?}");
    }
    assert!(
        util::stderr(&o)
            .contains("ROUTE from `Starter.go` (Script) to `Later.startTime` is not baked"),
        "{}",
        util::stderr(&o)
    );

    // A Script in another language, one in a file, one with no program.
    let (_dir, x3d) = util::scene_file(
        "other.x3dv",
        "#X3D V3.0 utf8\n\
         DEF Castle Script { url \"castlescript: x := 1\" }\n\
         DEF Away Script { url \"move.js\" }\n\
         DEF Nothing Script { }\n",
    );
    let o = util::run(&[
        &x3d,
        "-o",
        "-",
        "--timeline",
        "--load-time",
        "0",
        "--end",
        "1",
    ]);
    let err = util::stderr(&o);
    for want in [
        "other.x3dv:2:12: warning: Script `Castle` is written in castlescript, which x3dbake does not run",
        "other.x3dv:3:10: warning: Script `Away`: its program is in a file (move.js), which x3dbake does not read",
        "other.x3dv:4:13: warning: Script `Nothing` has no program",
    ] {
        assert!(err.contains(want), "{want}\n{err}");
    }
}

/// Followers in world time against their closed forms worked by hand
/// (fixtures/scenes/followers.x3d): a PositionChaser (duration 2) sent
/// 4 0 0 at 1 s by the user moves as 4·(½ − ½cos(π(t − 1)/2)); a
/// PositionDamper (order 1, tau 1) moving from load to 0 2 0 as
/// 2·(1 − e⁻ᵗ), at rest at its destination once within 0.001 of it; a
/// damper following a clock's interpolator reaches the interpolator's end.
/// Between the values a follower sends (at times it chooses), the timeline
/// is within 1e-6 of the value's size (at least 1).
#[test]
fn followers_move_as_their_closed_forms() {
    let scene = util::root().join("fixtures/scenes/followers.x3d");
    let o = util::run(&[
        &scene.to_string_lossy(),
        "-o",
        "-",
        "--timeline",
        "--load-time",
        "0",
        "--rate",
        "4",
        "--end",
        "10",
        "--event",
        "1:Chase.set_destination=4 0 0",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let rows = lines(&o);
    let at = |t: &str, what: &str, c: usize| timeline_number(&rows, t, what, c);
    let pi = std::f64::consts::PI;
    for (t, want) in [
        (1.0, 0.0),
        (1.5, 2.0 * (1.0 - (pi / 4.0).cos())),
        (2.0, 2.0),
        (3.0, 4.0),
    ] {
        let got = at(&t.to_string(), "Box,translation", 0);
        assert!((got - want).abs() < 4e-6, "Chase at {t}: {got} ≠ {want}");
    }
    for t in [0.5f64, 1.0, 2.5] {
        let want = 2.0 * (1.0 - (-t).exp());
        let got = at(&t.to_string(), "Ball,translation", 1);
        assert!((got - want).abs() < 2e-6, "Drift at {t}: {got} ≠ {want}");
    }
    // 2·e⁻ᵗ ≤ 0.001 from t = 7.6 s: at rest at 0 2 0 by 7.75.
    assert_eq!(at("7.75", "Ball,translation", 1), 2.0);
    assert!(at("7.5", "Ball,translation", 1) < 2.0);
    assert_eq!(at("6", "Cone,rotation", 3), 3.0);
    // What the clock sends the damper is the damper's, not a column.
    assert!(
        !rows.iter().any(|r| r.contains("set_destination")),
        "{rows:#?}"
    );
}

/// A TimeSensor paused and resumed by events (the Time component): from
/// 1 s to 2 s its fraction holds and isPaused is TRUE; after, it goes on
/// from where it held, its run (4 s) ending a second later, at 5 s. The
/// Mover goes x = 4·fraction: t, then 1, then t − 1.
#[test]
fn a_clock_paused_and_resumed_by_events_goes_on_from_where_it_held() {
    let (_dir, x3d) = util::scene_file(
        "p.x3d",
        "<X3D><Scene><Transform DEF='Mover'><Shape><Box/></Shape></Transform>\
         <Transform DEF='Marker' visible='false'><Shape><Sphere/></Shape></Transform>\
         <TimeSensor DEF='Clock' cycleInterval='4'/>\
         <PositionInterpolator DEF='P' key='0 1' keyValue='0 0 0 4 0 0'/>\
         <ROUTE fromNode='Clock' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='Mover' toField='translation'/>\
         <ROUTE fromNode='Clock' fromField='isPaused' toNode='Marker' toField='visible'/>\
         </Scene></X3D>",
    );
    let o = util::run(&[
        &x3d,
        "-o",
        "-",
        "--timeline",
        "--load-time",
        "0",
        "--rate",
        "4",
        "--end",
        "6",
        "--event",
        "1:Clock.pauseTime=1",
        "--event",
        "2:Clock.resumeTime=2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let rows = lines(&o);
    let x = |t: &str| timeline_number(&rows, t, "Mover,translation", 0);
    for (t, want) in [
        ("0.5", 0.5),
        ("1", 1.0),
        ("1.5", 1.0),
        ("2", 1.0),
        ("3", 2.0),
        ("4.5", 3.5),
        ("5", 4.0),
        ("6", 4.0),
    ] {
        assert!((x(t) - want).abs() < 1e-6, "at {t}: {} ≠ {want}", x(t));
    }
    let shown = |t: &str| timeline_row(&rows, t, "Marker,visible");
    assert!(shown("0.5").contains(",false,"), "{}", shown("0.5"));
    assert!(shown("1.5").contains(",true,"), "{}", shown("1.5"));
    assert!(shown("2.5").contains(",false,"), "{}", shown("2.5"));
    // The glTF of the same timeline holds it too (validator-clean where
    // the validator is installed).
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("p.glb");
    let o = util::run(&[
        &x3d,
        "-o",
        &glb.to_string_lossy(),
        "--timeline",
        "--load-time",
        "0",
        "--end",
        "6",
        "--event",
        "1:Clock.pauseTime=1",
        "--event",
        "2:Clock.resumeTime=2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    util::assert_validator_clean(&[glb]);
}

/// A clock a Script, many times over: each clip plays with the Scripts its
/// clock reaches, not with every Script of the scene (400 of them took six
/// minutes when each clip loaded all).
#[test]
fn scenes_of_many_scripted_clocks_bake_in_linear_time() {
    use std::fmt::Write as _;
    let mut text = String::from("<X3D><Scene>\n");
    for i in 0..200 {
        writeln!(
            text,
            "<TimeSensor DEF='T{i}' loop='true'/><Transform DEF='X{i}'><Shape><Box/></Shape></Transform>\
             <Script DEF='S{i}'><field name='set_fraction' type='SFFloat' accessType='inputOnly'/>\
             <field name='p' type='SFVec3f' accessType='outputOnly'/>\
             <![CDATA[ecmascript: function set_fraction(f) {{ p = new SFVec3f(f, 0, 0); }} ]]></Script>\
             <ROUTE fromNode='T{i}' fromField='fraction_changed' toNode='S{i}' toField='set_fraction'/>\
             <ROUTE fromNode='S{i}' fromField='p' toNode='X{i}' toField='translation'/>"
        )
        .unwrap();
    }
    text += "</Scene></X3D>\n";
    let (dir, path) = util::scene_file("scripted.x3d", &text);
    let out = dir.path().join("out.glb");
    util::run_ok_within(&[&path, "-o", out.to_str().unwrap()], 30);
    let report = util::run_ok_within(&["inspect", &path], 30);
    assert!(report.contains("clips: 200\n"), "{report}");
}

/// Scenes of `grids` ElevationGrids of `n` × `n` heights (a glTF buffer of
/// about 1.5 MB each at 100 × 100 from 20 KB of text), and a morph of them.
fn grids_scene(grids: usize, n: usize) -> String {
    let heights = vec!["0"; n * n].join(" ");
    let mut x3d = String::from("<X3D><Scene>");
    for g in 0..grids {
        x3d.push_str(&format!(
            "<Transform translation='{}.5 0 0'><Shape><ElevationGrid xDimension='{n}' \
             zDimension='{n}' height='{heights}'/></Shape></Transform>",
            g * n
        ));
    }
    x3d.push_str(
        &morph_scene(40)
            .replace("<X3D><Scene>", "")
            .replace("</Scene></X3D>", ""),
    );
    x3d + "</Scene></X3D>"
}

/// The peak resident size (kB) of a bake of `path` to a GLB on standard
/// output, read when the GLB starts coming (the document is made then, and
/// the process cannot end before its pipe is read), and the GLB's length.
#[cfg(target_os = "linux")]
fn peak_before_output_kb(path: &str) -> (u64, usize) {
    use std::io::Read as _;
    use std::os::fd::AsRawFd as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
        .args([path, "-o", "-", "--format", "glb", "--quiet"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut ready = libc::pollfd {
        fd: out.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, for the pipe we hold.
    assert_eq!(
        unsafe { libc::poll(&mut ready, 1, 120_000) },
        1,
        "no output"
    );
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let peak = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut glb = Vec::new();
    out.read_to_end(&mut glb).unwrap();
    assert!(child.wait().unwrap().success());
    (peak, glb.len())
}

/// A glTF buffer past 16 MiB is moved to a file as it is made: the
/// .glb, the .bin beside a .gltf and a GLB on standard output hold the
/// bytes of the buffer an embedded .gltf has from memory, with and without
/// --sync, new or replacing a file, and nothing is left beside them. The
/// GLB's JSON fills the room its buffer's file left before the buffer,
/// which starts on a 4 KiB page.
#[test]
fn a_buffer_moved_out_of_memory_writes_the_same_bytes() {
    let (dir, path) = util::scene_file("grids.x3d", &grids_scene(4, 200));
    let out = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let run = |args: &[&str]| {
        let o = util::run(&[&[path.as_str()], args].concat());
        assert!(o.status.success(), "{}", util::stderr(&o));
        o.stdout
    };
    run(&["-o", &out("e.gltf"), "--embed"]);
    let (_, buffers, _) = gltf::import(out("e.gltf")).unwrap();
    let bin = &buffers[0].0;
    assert!(bin.len() > 16 << 20, "{} bytes", bin.len());
    // A GLB's BIN chunk: after the header and the JSON chunk.
    let bin_chunk = |glb: &[u8]| {
        let json = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let len = u32::from_le_bytes(glb[20 + json..24 + json].try_into().unwrap()) as usize;
        assert_eq!(glb.len(), 28 + json + len);
        assert_eq!((28 + json) % 4096, 0, "the buffer starts on a page");
        glb[28 + json..].to_vec()
    };
    for sync in ["--quiet", "--sync"] {
        run(&["-o", &out("a.glb"), sync]);
        let glb = std::fs::read(out("a.glb")).unwrap();
        assert!(bin_chunk(&glb) == *bin, "{sync} .glb");
        util::assert_validator_clean(&[out("a.glb").into()]);
        assert!(
            run(&["-o", "-", "--format", "glb", "--quiet"]) == glb,
            "{sync} stdout"
        );
        run(&["-o", &out("a.gltf"), sync]);
        assert!(std::fs::read(out("a.bin")).unwrap() == *bin, "{sync} .bin");
    }
    let names = util::names_in(dir.path());
    assert_eq!(names, ["a.bin", "a.glb", "a.gltf", "e.gltf", "grids.x3d"]);
}

/// A GLB whose JSON outgrows the room its buffer's file left for it (the
/// room is judged by the JSON made when the buffer first passes its size:
/// here the grids' few nodes, before 800 animated Transforms) is written
/// with the JSON unpadded and the buffer copied after it: the same buffer
/// bytes, a valid GLB.
#[test]
fn a_glb_whose_json_outgrows_its_room_is_written_whole() {
    let mut text = grids_scene(3, 200).replace("</Scene></X3D>", "");
    for i in 0..800 {
        text.push_str(&format!(
            "<Transform DEF='T{i}'/><PositionInterpolator DEF='P{i}' key='0 0.3 1' \
             keyValue='0 0 0 {i} 1 0 0 0 {i}'/><TimeSensor DEF='C{i}' cycleInterval='{}'/>\
             <ROUTE fromNode='C{i}' fromField='fraction_changed' toNode='P{i}' toField='set_fraction'/>\
             <ROUTE fromNode='P{i}' fromField='value_changed' toNode='T{i}' toField='translation'/>",
            1 + i % 7
        ));
    }
    text.push_str("</Scene></X3D>");
    let (dir, path) = util::scene_file("many.x3d", &text);
    let out = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    for args in [
        [&path, "-o", &out("e.gltf"), "--embed"],
        [&path, "-o", &out("a.glb"), "--quiet"],
    ] {
        let o = util::run(&args);
        assert!(o.status.success(), "{}", util::stderr(&o));
    }
    let (_, buffers, _) = gltf::import(out("e.gltf")).unwrap();
    let glb = std::fs::read(out("a.glb")).unwrap();
    let (json, bin) = util::document_json(&glb);
    assert!(
        bin.len() > 8 << 20 && bin == buffers[0].0,
        "{} bytes",
        bin.len()
    );
    // Unpadded: the JSON chunk is the JSON text to a multiple of 4 bytes.
    let chunk = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let text = serde_json::to_string(&json).unwrap();
    assert!(chunk > 200_000, "{chunk}");
    assert_eq!(
        chunk,
        glb[20..20 + chunk]
            .trim_ascii_end()
            .len()
            .next_multiple_of(4)
    );
    assert!(text.len() <= chunk);
    util::assert_validator_clean(&[out("a.glb").into()]);
}

/// A bake never holds its glTF buffer whole: three times the grids (42 MB
/// more of buffer, 2 MB more of numbers read) raise its peak by a few
/// megabytes, not by the buffer.
#[cfg(target_os = "linux")]
#[test]
fn a_large_gltf_buffer_is_never_whole_in_memory() {
    let (_a, small) = util::scene_file("small.x3d", &grids_scene(20, 100));
    let (_b, large) = util::scene_file("large.x3d", &grids_scene(60, 100));
    let (small_peak, small_len) = peak_before_output_kb(&small);
    let (large_peak, large_len) = peak_before_output_kb(&large);
    let more = (large_len - small_len) as u64 / 1000;
    assert!(more > 40_000, "{more} kB");
    assert!(
        large_peak < small_peak + more / 6,
        "peaks {small_peak} and {large_peak} kB, buffers {small_len} and {large_len} bytes"
    );
}

/// A large input is mapped and its pages let go as it is read, so that
/// the text is never held beside its numbers: reading 24 MB of text for
/// 12 MB of floats (metadata, which the bake reads and does not write)
/// peaks far below reading the same file into memory (as it is while
/// another process has it open for writing: no lease), and bakes to the
/// same GLB.
#[cfg(target_os = "linux")]
#[test]
fn a_large_input_is_not_held_beside_its_numbers() {
    let floats = "1.5     ".repeat(3_000_000);
    // Triangles enough that the GLB fills the pipe: the bake waits for
    // its reader, so its peak can be read.
    let faces = "0 1 2 -1 ".repeat(3_000);
    let text = format!(
        "<X3D><Scene><WorldInfo><MetadataFloat name='m' value='{floats}'/></WorldInfo>\
         <Shape><IndexedFaceSet coordIndex='{faces}'><Coordinate point='0 0 0 1 0 0 0 1 0'/>\
         </IndexedFaceSet></Shape></Scene></X3D>"
    );
    let (_dir, path) = util::scene_file("long.x3d", &text);
    let (mapped, mapped_glb) = peak_before_output_kb(&path);
    let writer = std::fs::OpenOptions::new().append(true).open(&path);
    let (read, read_glb) = peak_before_output_kb(&path);
    drop(writer);
    assert!(
        mapped + text.len() as u64 / 3000 < read,
        "peaks {mapped} and {read} kB, text {} bytes",
        text.len()
    );
    assert_eq!(mapped_glb, read_glb);
}

/// A destination that is not a file (a named pipe here; /dev/null alike)
/// is written into, never replaced by a file renamed onto it: a CSV, a GLB
/// and a GLB whose buffer was moved out of memory come through whole.
#[cfg(unix)]
#[test]
fn an_output_into_a_named_pipe_is_written_through_it() {
    use std::io::Read as _;
    use std::os::unix::fs::FileTypeExt as _;
    let (dir, small) = util::scene_file("a.x3d", &morph_scene(3));
    let large = dir.path().join("grids.x3d");
    std::fs::write(&large, grids_scene(3, 200)).unwrap();
    let pipe = dir.path().join("pipe");
    // (mkfifo(1): libc is a dependency on Linux only, and this runs on
    // every Unix.)
    let made = std::process::Command::new("mkfifo").arg(&pipe).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", pipe.display());
    let large = large.to_str().unwrap();
    for (input, format) in [(small.as_str(), "csv"), (&small, "glb"), (large, "glb")] {
        let reader = {
            let pipe = pipe.clone();
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                std::fs::File::open(pipe)
                    .unwrap()
                    .read_to_end(&mut bytes)
                    .unwrap();
                bytes
            })
        };
        let o = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
            .args([input, "-o", pipe.to_str().unwrap(), "--format", format])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // Before the reader is joined: a replaced pipe leaves it waiting.
        let kind = std::fs::metadata(&pipe).unwrap().file_type();
        assert!(kind.is_fifo(), "{input} {format}: the pipe was replaced");
        let through_pipe = reader.join().unwrap();
        let stdout = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
            .args([input, "-o", "-", "--format", format])
            .output()
            .unwrap()
            .stdout;
        assert!(
            through_pipe.len() > 100 && through_pipe == stdout,
            "{input} {format}"
        );
    }
}

/// An output through a symbolic link (as /dev/stdout is one) writes the
/// file the link names, atomically beside it, and leaves the link a link;
/// a link to nothing yet makes the file it names.
#[cfg(unix)]
#[test]
fn an_output_through_a_symbolic_link_writes_what_it_names() {
    let (dir, path) = util::scene_file("a.x3d", &morph_scene(3));
    let real = tempfile::tempdir().unwrap();
    let link = dir.path().join("out.csv");
    let target = real.path().join("table.csv");
    std::fs::write(&target, "before").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let dangling = dir.path().join("later.csv");
    std::os::unix::fs::symlink(real.path().join("later.csv"), &dangling).unwrap();
    let stdout = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
        .args([&path, "-o", "-", "--format", "csv"])
        .output()
        .unwrap()
        .stdout;
    for (l, t) in [(&link, target), (&dangling, real.path().join("later.csv"))] {
        let o = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
            .args([&path, "-o", l.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(
            std::fs::symlink_metadata(l)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(std::fs::read(t).unwrap() == stdout, "{}", l.display());
    }
}

/// Past the samples a track may take (duration × --rate) a bake stops with
/// an error that names the flag; --max-samples raises the limit, and the
/// CSV then streams (read here up to its 200 001st row).
#[test]
fn max_samples_raises_the_limit_on_samples_a_track() {
    use std::io::{BufRead, BufReader};
    let (_dir, path) = util::scene_file("long.x3d", &long_scene(100_000, "0 1", "0 0 0 1 2 3"));
    let refused = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
        .args([path.as_str(), "-o", "-", "--rate", "1000"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&refused.stderr);
    assert!(
        msg.contains("more than 50000000 samples a track (--max-samples)"),
        "{msg}"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
        .args([path.as_str(), "-o", "-", "--rate", "1000"])
        .args(["--max-samples", "100000001"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let rows = BufReader::new(child.stdout.take().unwrap()).lines();
    let last = rows.take(200_002).last().unwrap().unwrap();
    assert!(
        last.starts_with("C,200,T,translation,0,0.002,0.004,0.006"),
        "{last}"
    );
    // The rest is not read: the pipe closes and the bake ends.
    assert!(child.wait().unwrap().code().is_some());
}
