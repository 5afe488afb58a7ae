//! World time from the load instant: the file's times are absolute
//! (seconds since 1970), the world loads at `--load-time` (2 000 000 000 by
//! default), and world time t is seconds after it.

use crate::util;

const DOOR: &str = "fixtures/world/door.x3d";

/// The `--timeline` CSV rows (header left out) of `scene` from 0 to `end`
/// at 1 Hz, with `extra` flags; the run must succeed.
fn timeline_rows(scene: &str, end: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        scene,
        "-o",
        "-",
        "--timeline",
        "--end",
        end,
        "--rate",
        "1",
        "-q",
    ];
    args.extend(extra);
    let o = util::run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    util::stdout(&o).lines().skip(1).map(String::from).collect()
}

/// The door's rotation angle (about +y; 0 when shut) at each whole second
/// of 0..=4, with `extra` flags.
fn door_angles(extra: &[&str]) -> Vec<f64> {
    timeline_rows(DOOR, "4", extra)
        .iter()
        .map(|l| {
            let c: Vec<f64> = l.split(',').skip(5).map(|x| x.parse().unwrap()).collect();
            // An angle about +y, or none about the default axis.
            if c[3] != 0.0 {
                assert_eq!(c[..3], [0.0, 1.0, 0.0], "{l}");
            }
            c[3]
        })
        .collect()
}

/// A click-started door (TouchSensor → TimeSensor, startTime 0, not
/// looping, 2 s → OrientationInterpolator 0 → 1.5 rad): loaded at the
/// default instant its clock has long ended, so without `--event` the door
/// stays shut; clicked at 1 s it swings open from 1 s to 3 s (0.75 rad at
/// 2 s) and stays open. With `--load-time 0` the file's startTime 0 is the
/// load itself: it opens at once, as the text reads small times.
#[test]
fn a_click_started_door_stays_shut_until_the_click() {
    assert_eq!(door_angles(&[]), [0.0; 5]);
    assert_eq!(
        door_angles(&["--event", "1:Handle.touchTime=1"]),
        [0.0, 0.0, 0.75, 1.5, 1.5]
    );
    assert_eq!(
        door_angles(&["--load-time", "0"]),
        [0.0, 0.75, 1.5, 1.5, 1.5]
    );
    // The same instant given explicitly is the default.
    assert_eq!(door_angles(&["--load-time", "2000000000"]), [0.0; 5]);
    // A load instant needs world time, and a number.
    let o = util::run(&[DOOR, "--load-time", "5"]);
    assert_eq!(o.status.code(), Some(2));
    let o = util::run(&[DOOR, "--timeline", "--load-time", "inf"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A clock stamped with a real date (startTime = stopTime = 2016-12-28,
/// looping, 4 s; fixtures/world/stamped.x3d) loops from load, in the cycle
/// it is in then: (2e9 − 1482895558) mod 4 = 2 s, half way, where the path
/// is at 2 0 0. Loaded at 0 it has not started: 47 years to wait.
#[test]
fn a_clock_stamped_with_a_date_loops_from_load() {
    let rows = |extra: &[&str]| timeline_rows("fixtures/world/stamped.x3d", "2", extra);
    assert_eq!(
        rows(&[]),
        [
            "timeline,0,Mover,translation,0,2,0,0,",
            "timeline,1,Mover,translation,0,1,0,0,",
            "timeline,2,Mover,translation,0,0,0,0,",
        ]
    );
    assert!(
        rows(&["--load-time", "0"])
            .iter()
            .all(|r| r.ends_with(",0,0,0,0,")),
        "not started"
    );
}

/// A Script sees absolute times: its event's timestamp less the load
/// instant is world time (the Box's x), and an SFTime it sends (its first
/// timestamp + 1 s) starts a clock 1 s after load in world time.
#[test]
fn scripts_see_absolute_times() {
    let (_dir, f) = util::scene_file(
        "s.x3d",
        "<X3D><Scene><Transform DEF='Box'/><Transform DEF='Mover'/>\
         <TimeSensor DEF='Tick' loop='true'/><TimeSensor DEF='Later' cycleInterval='2'/>\
         <PositionInterpolator DEF='P' key='0 1' keyValue='0 0 0 0 4 0'/>\
         <Script DEF='S'>\
           <field accessType='inputOnly' name='set_fraction' type='SFFloat'/>\
           <field accessType='outputOnly' name='go' type='SFTime'/>\
           <field accessType='outputOnly' name='pos' type='SFVec3f'/>\
           <field accessType='initializeOnly' name='sent' type='SFBool' value='false'/>\
           <![CDATA[ecmascript:\n\
             function set_fraction(f, t) {\n\
               if (!sent) { sent = true; go = t + 1; }\n\
               pos = new SFVec3f(t - 2000000000, 0, 0);\n\
             }]]></Script>\
         <ROUTE fromNode='Tick' fromField='fraction_changed' toNode='S' toField='set_fraction'/>\
         <ROUTE fromNode='S' fromField='pos' toNode='Box' toField='translation'/>\
         <ROUTE fromNode='S' fromField='go' toNode='Later' toField='set_startTime'/>\
         <ROUTE fromNode='Later' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='Mover' toField='translation'/>\
         </Scene></X3D>",
    );
    let o = util::run(&[
        &f,
        "-o",
        "-",
        "--timeline",
        "--end",
        "3",
        "--rate",
        "4",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let out = util::stdout(&o);
    let at = |t: &str, node: &str| {
        let prefix = format!("timeline,{t},{node},translation,0,");
        out.lines()
            .find_map(|l| l.strip_prefix(&prefix).map(String::from))
            .unwrap_or_else(|| panic!("no {node} at {t}:\n{out}"))
    };
    assert_eq!(at("0.5", "Box"), "0.5,0,0,");
    assert_eq!(at("2.75", "Box"), "2.75,0,0,");
    assert_eq!(at("1", "Mover"), "0,0,0,");
    assert_eq!(at("2", "Mover"), "0,2,0,");
    assert_eq!(at("3", "Mover"), "0,4,0,");
}

/// The state at load is the glTF's rest pose: a Script's initialize()
/// scales a Transform (6 3 1), and the .glb's node has that scale in the
/// clip mode and in world time alike, as a browser shows the world once
/// loaded; the route's warning says the field keeps its value at load.
#[test]
fn what_the_load_sets_is_the_rest_pose() {
    let (_dir, f) = util::scene_file(
        "init.x3d",
        "<X3D><Scene><Transform DEF='Grid'><Shape><Box/></Shape></Transform>\
         <Script DEF='S'><field accessType='outputOnly' name='size' type='SFVec3f'/>\
         <![CDATA[ecmascript:\nfunction initialize() { size = new SFVec3f(6, 3, 1); }]]></Script>\
         <ROUTE fromNode='S' fromField='size' toNode='Grid' toField='set_scale'/>\
         </Scene></X3D>",
    );
    for extra in [&[][..], &["--timeline", "--end", "1"]] {
        let mut args = vec![f.as_str(), "-o", "-", "--format", "glb"];
        args.extend(extra);
        let o = util::run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
        let (json, _) = util::document_json(&o.stdout);
        let grid = util::named(&json, "Grid");
        assert_eq!(
            grid["scale"],
            serde_json::json!([6.0, 3.0, 1.0]),
            "{extra:?}"
        );
        if extra.is_empty() {
            assert!(
                util::stderr(&o).contains("`Grid.scale` keeps the value it has at load"),
                "{}",
                util::stderr(&o)
            );
        }
    }
}

/// What a glTF document draws: its meshes' POSITION counts by name
/// (unnamed ones as "") and its nodes' translations.
fn drawn(json: &serde_json::Value) -> (Vec<(String, u64)>, Vec<serde_json::Value>) {
    let meshes = json["meshes"].as_array().unwrap();
    let counts = meshes
        .iter()
        .map(|m| {
            let position = m["primitives"][0]["attributes"]["POSITION"]
                .as_u64()
                .unwrap();
            let count = json["accessors"][position as usize]["count"]
                .as_u64()
                .unwrap();
            (m["name"].as_str().unwrap_or("").to_string(), count)
        })
        .collect();
    let nodes = json["nodes"].as_array().unwrap();
    let moved = nodes
        .iter()
        .filter_map(|n| n.get("translation").cloned())
        .collect();
    (counts, nodes_translated(moved))
}

fn nodes_translated(mut list: Vec<serde_json::Value>) -> Vec<serde_json::Value> {
    list.sort_by_key(|v| v.to_string());
    list
}

/// Nodes a Script makes at load are drawn: fixtures/world/created.x3d
/// makes three boxes (createX3DFromString, awaited as X_ITE has it), a
/// sphere (createVrmlFromString), moves the boxes through a field of each
/// and sets a Text's string. The glTF holds the boxes (one mesh, three
/// nodes), the sphere, the
/// label with the new string (as many vertices as the same Text written
/// with it), in both modes; X_ITE's shape census of the scene counts the
/// same shapes by type.
#[test]
fn nodes_a_script_makes_at_load_are_drawn() {
    let f = "fixtures/world/created.x3d";
    for extra in [&[][..], &["--timeline", "--end", "1"]] {
        let mut args = vec![f, "-o", "-", "--format", "glb"];
        args.extend(extra);
        let o = util::run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
        let (json, _) = util::document_json(&o.stdout);
        let (meshes, moved) = drawn(&json);
        let (_dir, label) = util::scene_file(
            "label.x3d",
            "<X3D><Scene><Shape><Text DEF='Label' string='\"built\" \"by a Script\"'/></Shape></Scene></X3D>",
        );
        let written = util::run(&[&label, "-o", "-", "--format", "glb"]);
        let (written, _) = util::document_json(&written.stdout);
        let text = drawn(&written).0[0].1;
        assert_eq!(
            meshes,
            // (The three equal boxes are one mesh.)
            vec![
                (String::new(), 24),
                (String::new(), 561),
                ("Label".to_string(), text),
            ],
            "{extra:?}"
        );
        let boxes = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["mesh"] == 0);
        assert_eq!(boxes.count(), 3, "{extra:?}");
        assert_eq!(
            moved,
            nodes_translated(vec![
                serde_json::json!([2.0, 0.0, 0.0]),
                serde_json::json!([4.0, 0.0, 0.0]),
                serde_json::json!([0.0, 2.0, 0.0]),
            ]),
            "{extra:?}"
        );
    }
    let Some(xite) = util::tool_dir("X3DBAKE_XITE", "X_ITE's census of the nodes a Script makes")
    else {
        return;
    };
    let census = util::xite_census(&xite, &util::root().join(f));
    assert_eq!(
        census["byType"],
        serde_json::json!({"Box": 3, "Sphere": 1, "Text": 1}),
        "{census}"
    );
}

/// ∫₀¹ d(t − v)·(π/2)·sin(πv) dv for the destination of
/// fixtures/world/followers.x3dv (0 before 0, t until 2, 2 after): the
/// Chaser of duration 1, by Simpson's rule on 20 000 intervals.
fn chased(t: f64) -> f64 {
    let d = |u: f64| u.clamp(0.0, 2.0);
    let n = 20_000;
    let h = 1.0 / n as f64;
    let g = |v: f64| d(t - v) * std::f64::consts::FRAC_PI_2 * (std::f64::consts::PI * v).sin();
    (0..n)
        .map(|i| {
            let v = i as f64 * h;
            h / 6.0 * (g(v) + 4.0 * g(v + h / 2.0) + g(v + h))
        })
        .sum()
}

/// The PositionDamper of fixtures/world/followers.x3dv (order 2, τ 0.4)
/// in closed form: stage k settles on d − k·r·τ behind a destination
/// moving at r = 1 from 0, so with s = t/τ, y(t) = t − 2τ + e⁻ˢτ(2 + s)
/// until 2 s; from there it heads for 2 from its stages at 2.
fn damped(t: f64) -> f64 {
    let tau = 0.4;
    let s = |t: f64| t / tau;
    if t <= 2.0 {
        return t - 2.0 * tau + (-s(t)).exp() * tau * (2.0 + s(t));
    }
    let y1 = 2.0 - tau + (-s(2.0)).exp() * tau;
    let y2 = damped(2.0);
    let u = (t - 2.0) / tau;
    2.0 + (-u).exp() * ((y2 - 2.0) + (y1 - 2.0) * u)
}

/// Followers whose destination moves with a clock (through an
/// interpolator) follow it in continuous time, not at frames: the
/// Damper's values in closed form and the Chaser's as the integral of
/// its transitions, at every row of the timeline (4 s, rows every 1/30
/// s) within the bound of the values a follower sends: 1e-6 of their
/// size (2 here).
#[test]
fn followers_of_a_moving_destination_are_exact_in_continuous_time() {
    let o = util::run(&[
        "fixtures/world/followers.x3dv",
        "-o",
        "-",
        "--timeline",
        "--end",
        "4",
        "--rate",
        "30",
        "--load-time",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let rows: Vec<String> = util::stdout(&o).lines().skip(1).map(String::from).collect();
    let mut worst = (0.0f64, String::new());
    let mut checked = 0;
    for row in &rows {
        let cells: Vec<&str> = row.split(',').collect();
        let (Ok(t), Ok(x)) = (cells[1].parse::<f64>(), cells[5].parse::<f64>()) else {
            continue;
        };
        let want = match cells[2] {
            "Damped" => damped(t),
            "Chased" => chased(t),
            _ => continue,
        };
        checked += 1;
        if (x - want).abs() > worst.0 {
            worst = ((x - want).abs(), row.clone());
        }
    }
    assert!(checked >= 240, "{checked} rows");
    assert!(worst.0 < 2e-6, "{worst:?}");
}

/// An OrientationDamper (order 2, τ 0.3) following a looping full turn
/// about +y (fixtures/world/turning-damper.x3dv) against the filters
/// integrated here (classical Runge–Kutta, 1000 steps a row, each stage
/// turning towards its input at the angle between them over τ, q' =
/// q·log(q⁻¹x)/τ), at every 1/60 s row of 8 s: within 1e-5 rad, across
/// the half turn and the wraps (at 60 frames a second the destination's
/// steps put it 1.3e-2 rad off).
#[test]
fn a_damper_follows_a_looping_turn_in_continuous_time() {
    let o = util::run(&[
        "fixtures/world/turning-damper.x3dv",
        "-o",
        "-",
        "--timeline",
        "--end",
        "8",
        "--rate",
        "60",
        "--load-time",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let turn = |a: f64| glam::DQuat::from_axis_angle(glam::DVec3::Y, a);
    // (The file's keyValue as written, not π and 2π.)
    #[allow(clippy::approx_constant)]
    let keys = [turn(0.0), turn(3.14159), turn(6.28318)];
    let destination = |t: f64| {
        let f = (t / 4.0).rem_euclid(1.0);
        let (i, w) = if f < 0.5 {
            (0, f / 0.5)
        } else {
            (1, (f - 0.5) / 0.5)
        };
        let b = if keys[i].dot(keys[i + 1]) < 0.0 {
            -keys[i + 1]
        } else {
            keys[i + 1]
        };
        keys[i].slerp(b, w)
    };
    let tau = 0.3;
    let (mut y1, mut y2) = (glam::DVec4::W, glam::DVec4::W);
    let mut previous = glam::DVec4::from(destination(0.0).to_array());
    let mut at = |t: f64| {
        let d = glam::DVec4::from(destination(t).to_array());
        let d = if d.dot(previous) < 0.0 { -d } else { d };
        previous = d;
        d
    };
    // 1000 steps a row.
    let h = 1.0 / 60_000.0;
    let mut want = std::collections::BTreeMap::new();
    for n in 0..=480_000u32 {
        let t = f64::from(n) * h;
        if n % 1000 == 0 {
            want.insert(i64::from(n / 1000), y2.normalize());
        }
        let (d0, dm, d1) = (at(t), at(t + h / 2.0), at(t + h));
        let towards = |a: glam::DVec4, x: glam::DVec4| {
            let a = glam::DQuat::from_vec4(a);
            let r = a.conjugate() * glam::DQuat::from_vec4(x);
            let r = if r.w < 0.0 { -r } else { r };
            let v = r.xyz();
            let s = v.length();
            let v = if s > 0.0 { v * (s.atan2(r.w) / s) } else { v };
            glam::DVec4::from((a * glam::DQuat::from_xyzw(v.x, v.y, v.z, 0.0)).to_array()) / tau
        };
        let f = |a: glam::DVec4, b: glam::DVec4, d: glam::DVec4| (towards(a, d), towards(b, a));
        let (a1, a2) = f(y1, y2, d0);
        let (b1, b2) = f(y1 + a1 * h / 2.0, y2 + a2 * h / 2.0, dm);
        let (c1, c2) = f(y1 + b1 * h / 2.0, y2 + b2 * h / 2.0, dm);
        let (e1, e2) = f(y1 + c1 * h, y2 + c2 * h, d1);
        y1 += (a1 + 2.0 * b1 + 2.0 * c1 + e1) * h / 6.0;
        y2 += (a2 + 2.0 * b2 + 2.0 * c2 + e2) * h / 6.0;
    }
    let mut worst = (0.0f64, 0.0);
    let mut checked = 0;
    for row in util::stdout(&o).lines().skip(1) {
        let c: Vec<f64> = row
            .split(',')
            .skip(5)
            .filter_map(|x| x.parse().ok())
            .collect();
        let t: f64 = row.split(',').nth(1).unwrap().parse().unwrap();
        let Some(w) = want.get(&((t * 60.0).round() as i64)) else {
            continue;
        };
        let axis = glam::DVec3::new(c[0], c[1], c[2]);
        let q = if axis.length() > 0.0 {
            glam::DQuat::from_axis_angle(axis.normalize(), c[3])
        } else {
            glam::DQuat::IDENTITY
        };
        let e = 2.0 * q.dot(glam::DQuat::from_vec4(*w)).abs().min(1.0).acos();
        checked += 1;
        if e > worst.0 {
            worst = (e, t);
        }
    }
    assert!(checked >= 470, "{checked}");
    assert!(worst.0 < 1e-5, "{worst:?}");
}

/// A user's event straight into a field (`--event T:Grid.set_scale=2 2 2`)
/// sets it at T in the timeline, and one at load (T = 0) is part of the
/// rest pose, as the load's own events are.
#[test]
fn a_user_event_into_a_field_sets_it_and_at_load_is_the_rest_pose() {
    let (_dir, f) = util::scene_file(
        "grid.x3d",
        "<X3D><Scene><Transform DEF='Grid'><Shape><Box/></Shape></Transform></Scene></X3D>",
    );
    let rows = timeline_rows(&f, "2", &["--event", "1:Grid.set_scale=2 2 2"]);
    assert_eq!(
        rows,
        [
            "timeline,0,Grid,scale,0,1,1,1,",
            "timeline,1,Grid,scale,0,2,2,2,",
            "timeline,2,Grid,scale,0,2,2,2,"
        ]
    );
    let o = util::run(&[
        &f,
        "-o",
        "-",
        "--format",
        "glb",
        "--timeline",
        "--end",
        "1",
        "--event",
        "0:Grid.set_scale=2 2 2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    assert_eq!(
        json["nodes"][0]["scale"],
        serde_json::json!([2.0, 2.0, 2.0])
    );
}

/// Ball.translation at 0..=3 s when a person sends (0.5, 0.5) at 1 s and
/// (0.2, 0.9) at 2 s into a NurbsSurfaceInterpolator: ours (`--timeline
/// --event`) and X_ITE's (tools/xite-events.mjs), `None` without X_ITE.
fn surface_events(scene: &std::path::Path) -> (Vec<Vec<f64>>, Option<Vec<Vec<f64>>>) {
    let events = [
        "1:Surface.set_fraction=0.5 0.5",
        "2:Surface.set_fraction=0.2 0.9",
    ];
    let path = scene.to_str().unwrap();
    let extra = ["--event", events[0], "--event", events[1]];
    let ours = timeline_rows(path, "3", &extra)
        .iter()
        .map(|l| {
            l.split(',')
                .skip(5)
                .take(3)
                .map(|x| x.parse().unwrap())
                .collect()
        })
        .collect();
    let Some(xite) = util::tool_dir("X3DBAKE_XITE", "X_ITE's NurbsSurfaceInterpolator") else {
        return (ours, None);
    };
    let tool = util::root().join("tools/xite-events.mjs");
    let mut args: Vec<&std::ffi::OsStr> =
        vec![tool.as_os_str(), xite.as_os_str(), scene.as_os_str()];
    let rest = [
        "0,1,2,3",
        "--base",
        "2000000000",
        "--event",
        events[0],
        "--event",
        events[1],
    ];
    args.extend(rest.iter().map(std::ffi::OsStr::new));
    let out: serde_json::Value =
        serde_json::from_slice(&util::node(&args, Some(&xite), &[])).unwrap();
    let theirs = out["series"]["Ball.translation"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array().unwrap()[1..]
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect();
    (ours, Some(theirs))
}

/// A NurbsSurfaceInterpolator moved by a person's events puts the ball on
/// the surface as X_ITE does; with a weighted control point x3dbake takes
/// the rational surface as the text defines it, X_ITE the weights left out
/// (as for NurbsPositionInterpolator): at (½, ½) of the biquadratic patch
/// with the centre weighted 3, z = (4·⅛·½ + 3·¼·2) / (4·1/16 + 4·⅛ + 3·¼)
/// = 1.75 / 1.5, where X_ITE has 0.75.
#[test]
fn a_nurbs_surface_interpolator_places_what_events_send_it() {
    let weighted = util::root().join("fixtures/world/nurbs_surface_events.x3d");
    let (ours, theirs) = surface_events(&weighted);
    assert_eq!(ours[0], [0.0, 0.0, 0.0]);
    let want = [1.0, 1.0, 1.75 / 1.5];
    assert!(
        ours[1].iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6),
        "{:?}",
        ours[1]
    );
    assert_eq!(ours[2], ours[3], "held until the next event");
    if let Some(theirs) = theirs {
        assert!(
            (theirs[1][2] - 0.75).abs() < 1e-9,
            "X_ITE leaves the weights out: {theirs:?}"
        );
    }
    // Unweighted, the two agree at every time.
    let text = std::fs::read_to_string(&weighted).unwrap();
    let plain = text.replace(r#" weight="1 1 1 1 3 1 1 1 1""#, "");
    assert_ne!(plain, text);
    let (_keep, path) = util::scene_file("plain.x3d", &plain);
    let (ours, theirs) = surface_events(std::path::Path::new(&path));
    assert!((ours[1][2] - 0.75).abs() < 1e-6, "{ours:?}");
    let Some(theirs) = theirs else { return };
    for (a, b) in ours.iter().zip(&theirs) {
        assert!(
            a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6),
            "{ours:?} against X_ITE's {theirs:?}"
        );
    }
}

/// A Script that runs to the limit of its call at every frame is stopped
/// once the Scripts of the bake have taken their budget in all
/// (`Limits::script_checks`): before, world time ran it to the limit at
/// every frame (an hour at 30 frames a second, 108 000 calls of 0.4 s).
/// What it sent before then is baked.
#[test]
fn scripts_are_stopped_when_the_bake_s_budget_is_spent() {
    use x3dbake::Limits;
    let x3d = r#"<X3D><Scene>
<TimeSensor DEF='Clock' loop='true'/>
<Transform DEF='Box'/>
<Script DEF='Spin'>
<field name='tick' type='SFFloat' accessType='inputOnly'/>
<field name='place' type='SFVec3f' accessType='outputOnly'/>
<![CDATA[ecmascript:
function tick(f) { place = new SFVec3f(f, 0, 0); if (Browser.getCurrentTime() % 10 > 2) for (;;) {} }
]]></Script>
<ROUTE fromNode='Clock' fromField='fraction_changed' toNode='Spin' toField='tick'/>
<ROUTE fromNode='Spin' fromField='place' toNode='Box' toField='translation'/>
</Scene></X3D>"#;
    let limits = Limits {
        script_call_checks: 20,
        script_checks: 300,
        ..Limits::default()
    };
    let bake = scripts_for_a_minute("spin.x3d", x3d, limits);
    let messages = util::messages(&bake.diags);
    assert!(!bake.diags.has_errors(), "{messages:?}");
    let stopped = stopped_by_the_bake_s_budget(&messages, 300);
    // (Each second from 2 to 10 takes 30 calls of 20 checks: the budget
    // is spent in the first of them, a little after 2 s.)
    let at: f64 = stopped
        .split(" at ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{stopped}"));
    assert!((2.0..3.0).contains(&at), "{stopped}");
    assert!(
        messages
            .iter()
            .any(|m| m.contains("ran longer than x3dbake allows a call (20 interrupt checks)")),
        "{messages:?}"
    );
    // What it sent before 2 s is baked.
    assert!(
        bake.clips.iter().any(|c| !c.tracks.is_empty()),
        "{messages:?}"
    );
}

/// A call that overflows the Script's stack takes the whole budget of a
/// call from the bake's: QuickJS counts bytecode, not the frames of a deep
/// recursion, so a Script overflowing at every frame took 16 ms a frame
/// (release) and was never stopped. Found by the outputs fuzz target (a
/// fixture's Script whose function calls itself: 45 s with
/// AddressSanitizer for a two-second clip).
#[test]
fn scripts_overflowing_their_stack_at_every_frame_are_stopped() {
    use x3dbake::Limits;
    let x3d = r#"<X3D><Scene>
<TimeSensor DEF='Clock' loop='true'/>
<Script DEF='Deep'>
<field name='tick' type='SFFloat' accessType='inputOnly'/>
<![CDATA[ecmascript:
function down(n) { return down(n + 1) + 1; }
function tick(f) { down(0); }
]]></Script>
<ROUTE fromNode='Clock' fromField='fraction_changed' toNode='Deep' toField='tick'/>
</Scene></X3D>"#;
    let limits = Limits {
        script_call_checks: 1_000,
        script_checks: 3_000,
        ..Limits::default()
    };
    let bake = scripts_for_a_minute("deep.x3d", x3d, limits);
    let messages = util::messages(&bake.diags);
    assert!(
        messages
            .iter()
            .any(|m| m.contains("RangeError: Maximum call stack size exceeded")),
        "{messages:?}"
    );
    // Three calls take the bake's 3 000 checks: stopped at the third frame.
    stopped_by_the_bake_s_budget(&messages, 3000);
}

/// A scene's Scripts played in world time for a minute at 30 frames a
/// second, within `limits`.
fn scripts_for_a_minute(name: &str, x3d: &str, limits: x3dbake::Limits) -> x3dbake::Bake {
    let mut bake = x3dbake::Bake::load(name, x3d.as_bytes().to_vec(), None, None, limits);
    let world = x3dbake::World {
        end: Some(60.0),
        rate: 30.0,
        ..x3dbake::World::default()
    };
    bake.animate_in(x3dbake::ClipOptions::default(), Some(&world));
    bake
}

/// The warning that the bake's budget of `checks` interrupt checks
/// stopped its Scripts.
fn stopped_by_the_bake_s_budget<'m>(messages: &[&'m str], checks: u64) -> &'m str {
    let stopped = messages
        .iter()
        .find(|m| m.starts_with("the Scripts ran longer than x3dbake allows a bake"))
        .unwrap_or_else(|| panic!("{messages:?}"));
    assert!(
        stopped.contains(&format!("({checks} interrupt checks in all)")),
        "{stopped}"
    );
    stopped
}
