//! What a scene may make of a bake: limits refused before the work, and
//! the work counted linear in the scene's size (no wall-clock limits).

use crate::util;
use crate::util::scenes::{long_scene, morph_scene};
use std::process::{Command, Stdio};

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
