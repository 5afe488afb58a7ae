//! User events and the event cascade from the command line: event
//! utilities, Scripts, followers and paused clocks in world time.

use crate::util;
use crate::util::tables::{lines, timeline_number, timeline_row};

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
/// 2·(1 − e⁻ᵗ), at rest at its destination once within 0.001 of it; an
/// OrientationDamper following a clock's interpolator stops within 1e-4
/// rad of the interpolator's end (X_ITE's tolerance) and holds there.
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
    let end = at("6", "Cone,rotation", 3);
    assert!((3.0 - end) < 1e-4 && end < 3.0, "{end}");
    assert_eq!(at("10", "Cone,rotation", 3), end);
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
