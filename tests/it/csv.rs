//! CSV tables end to end: long and wide forms, MF indices, world time,
//! several inputs in one table, the byte limit, streaming in bounded memory.

use crate::util;
use crate::util::scenes::BOX;
use crate::util::tables::lines;

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

/// A CSV of a million rows streams: the process never holds the table (57
/// MB of text) but a few megabytes, measured by polling its peak resident
/// size while the rows are read from its pipe.
#[cfg(target_os = "linux")]
#[test]
fn a_csv_of_a_million_rows_is_streamed_in_bounded_memory() {
    use std::io::{BufRead, BufReader};
    let (_dir, path) = util::scene_file(
        "long.x3d",
        &crate::util::scenes::long_scene(1000, "0 0.5 1", "0 0 0 1 2 3 0 0 0"),
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
