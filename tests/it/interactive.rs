//! `--interactive`: the behaviour graph played by a real client. Babylon.js
//! (tools/babylon-play.mjs: its NullEngine, KHR_interactivity and
//! KHR_node_selectability) loads each fixture's .glb, the graph must be
//! valid, picks are simulated at given times, and every node's transform
//! and visibility at 20 times must equal x3dbake's own world-time bake of
//! the same clicks (`--timeline --event`, played by three.js) within 1e-4.
//!
//! Babylon starts an animation at the frame after the one it is started
//! in (its first step plays clip time 0), and sets a field in the frame of
//! the click: so x3dbake is told of each click one frame after Babylon
//! sees it, and no sample falls on a click's own frame. A clip the graph
//! starts with the scene (`event/onStart`) is one frame ahead at each
//! frame: x3dbake's world loads one frame later (`--load-time`). A clock
//! that a clock's end starts (the `done` flow) starts in Babylon at the
//! end itself, as in x3dbake's world time.

use crate::util::{self, bake_ok};
use glam::DQuat;
use serde_json::Value;
use std::path::Path;

/// Babylon's frame, in seconds (a power of two: frame times are exact).
const STEP: f64 = 1.0 / 128.0;

/// A fixture, the glTF node clicked and when (seconds from the load), and
/// the sensor's events x3dbake is told of for each click.
struct Case {
    file: &'static str,
    node: usize,
    clicks: &'static [f64],
    events: &'static [&'static str],
}

const CASES: [Case; 4] = [
    Case {
        file: "fixtures/interactive/door.x3d",
        node: 0,
        clicks: &[0.5, 1.5, 3.0],
        events: &["Handle.touchTime={t}"],
    },
    Case {
        file: "fixtures/interactive/lamp.x3d",
        node: 0,
        clicks: &[0.5, 1.5, 2.0],
        events: &["Switch.isActive=true", "Switch.isActive=false"],
    },
    // (The second click shows the sign: an IntegerTrigger sends on FALSE
    // too.)
    Case {
        file: "fixtures/interactive/release.x3d",
        node: 0,
        clicks: &[0.5, 1.5],
        events: &["Press.isActive=true", "Press.isActive=false"],
    },
    Case {
        file: "fixtures/interactive/chain.x3d",
        node: 0,
        clicks: &[0.5, 1.0],
        events: &["Button.touchTime={t}"],
    },
];

/// Babylon's node states (`samples`) with the graphs' validity.
fn babylon(dir: &Path, glb: &Path, node: usize, clicks: &[f64], times: &[f64]) -> Value {
    let mut args = vec![
        util::root()
            .join("tools/babylon-play.mjs")
            .to_string_lossy()
            .into_owned(),
        glb.to_string_lossy().into_owned(),
        "--step".into(),
        STEP.to_string(),
    ];
    for t in clicks {
        args.extend(["--pick".into(), format!("{node}@{t}")]);
    }
    args.push("--at".into());
    args.extend(times.iter().map(f64::to_string));
    let out = util::node(&args, None, &[("X3DBAKE_BABYLON", dir)]);
    serde_json::from_slice(&out).expect("babylon-play prints JSON")
}

/// x3dbake's world-time bake of the clicks, played by three.js at `times`:
/// its one clip's samples.
fn timeline(three: &Path, scene: &str, out: &Path, case: &Case, times: &[f64]) -> Vec<Value> {
    // Babylon plays the clips that start with the graph (event/onStart)
    // one frame ahead: the world loads a frame later for x3dbake.
    let load = format!("{}", 2_000_000_000.0 + STEP);
    // (Shown and hidden as the graph does: KHR_node_visibility.)
    let mut flags: Vec<String> = vec![
        "--timeline".into(),
        "--end".into(),
        "8".into(),
        "--visibility".into(),
        "extension".into(),
    ];
    flags.extend(["--load-time".into(), load]);
    // (Fitted close to the curve: the comparison is of the events, not of
    // the world-time clip's default bound.)
    flags.extend(["--tolerance".into(), "1e-6".into()]);
    for &t in case.clicks {
        // The frame after the click: where Babylon's clip time begins.
        let seen = t + STEP;
        for e in case.events {
            flags.push("--event".into());
            flags.push(format!("{seen}:{}", e.replace("{t}", &seen.to_string())));
        }
    }
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    bake_ok(scene, out, &flags);
    let mut args = vec![
        util::root().join("tools/three-play.mjs").into_os_string(),
        out.as_os_str().to_owned(),
    ];
    args.extend(times.iter().map(|t| t.to_string().into()));
    let played = util::node(&args, None, &[("X3DBAKE_THREE", three)]);
    let v: Value = serde_json::from_slice(&played).expect("three-play prints JSON");
    let clips = v["animations"].as_array().unwrap();
    assert_eq!(clips.len(), 1, "{scene}: one world-time clip");
    clips[0]["samples"].as_array().unwrap().clone()
}

/// Each glTF node's parent, of the document at `glb`.
fn parents(glb: &Path) -> Vec<Option<usize>> {
    let (json, _) = util::document_json(&std::fs::read(glb).unwrap());
    let nodes = json["nodes"].as_array().unwrap();
    let mut parents = vec![None; nodes.len()];
    for (p, n) in nodes.iter().enumerate() {
        for c in n["children"].as_array().into_iter().flatten() {
            parents[c.as_u64().unwrap() as usize] = Some(p);
        }
    }
    parents
}

#[test]
fn babylon_plays_the_graph_as_x3dbake_bakes_the_clicks() {
    let Some(bab) = util::tool_dir("X3DBAKE_BABYLON", "Babylon.js playback of --interactive")
    else {
        return;
    };
    let Some(three) = util::tool_dir("X3DBAKE_THREE", "three.js playback of --timeline") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let (mut compared, mut worst, mut values) = (0, 0.0f64, 0usize);
    for case in CASES {
        let scene = util::root().join(case.file);
        let scene = scene.to_string_lossy();
        let glb = dir.path().join("interactive.glb");
        bake_ok(&scene, &glb, &["--interactive"]);
        // 20 times, on frames, over the clicks and what they start.
        let times: Vec<f64> = (0..20).map(|i| f64::from(i) * 40.0 * STEP).collect();
        let played = babylon(&bab, &glb, case.node, case.clicks, &times);
        for g in played["graphs"].as_array().unwrap() {
            assert_eq!(g["valid"], true, "{scene}: {}", g["diagnostics"]);
            assert_eq!(g["diagnostics"], serde_json::json!([]), "{scene}");
        }
        assert_eq!(played["graphs"].as_array().unwrap().len(), 1, "{scene}");
        assert_eq!(played["errors"], serde_json::json!([]), "{scene}");
        let baked_glb = dir.path().join(format!("timeline{compared}.glb"));
        let baked = timeline(&three, &scene, &baked_glb, &case, &times);
        let parents = parents(&baked_glb);
        let samples = played["samples"].as_array().unwrap();
        assert_eq!(samples.len(), times.len());
        let mut moved = false;
        for (b, x) in samples.iter().zip(&baked) {
            let nodes = x["nodes"].as_array().unwrap();
            // (Babylon reports a node under a hidden one hidden; three.js
            // its own flag: compared as shown, the node and its parents.)
            let own = |i: usize| {
                nodes
                    .iter()
                    .any(|n| n["index"] == i && n["visible"] == true)
            };
            let shown = |mut i: usize| loop {
                if !own(i) {
                    break false;
                }
                match parents[i] {
                    Some(p) => i = p,
                    None => break true,
                }
            };
            for n in nodes {
                let i = n["index"].as_u64().unwrap() as usize;
                let m = &b["nodes"][i];
                let what = format!("{scene} at {}: node {i} {n} and Babylon's {m}", b["t"]);
                assert_eq!(m["visible"], shown(i), "{what}");
                for k in ["position", "scale"] {
                    let (p, q) = (util::json_numbers(&n[k]), util::json_numbers(&m[k]));
                    let off = p
                        .iter()
                        .zip(&q)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0, f64::max);
                    assert!(off <= 1e-4, "{what}");
                }
                let (p, q) = (
                    util::json_numbers(&n["quaternion"]),
                    util::json_numbers(&m["quaternion"]),
                );
                let angle = DQuat::from_slice(&p)
                    .normalize()
                    .angle_between(DQuat::from_slice(&q).normalize());
                assert!(angle <= 1e-4, "{what}: {angle} rad");
                worst = worst.max(angle);
                values += 1;
                moved |= util::json_numbers(&n["position"]).iter().any(|&x| x != 0.0)
                    || util::json_numbers(&n["quaternion"])[3] != 1.0
                    || n["visible"] == false;
            }
        }
        assert!(moved, "{scene}: nothing happened");
        files.push(glb.with_file_name(format!("case{compared}.glb")));
        std::fs::rename(&glb, files.last().unwrap()).unwrap();
        compared += 1;
    }
    eprintln!(
        "{compared} scenes: Babylon played each graph as the world-time bake \
         ({values} node states, farthest {worst:e})"
    );
    // (The validator does not know KHR_interactivity: an info, no error.)
    util::assert_validator_clean(&files);
}

/// What a graph cannot hold is named: a sensor with no graph event, a
/// Script's field, a start that comes round to itself; the rest of the
/// graph is still made, and without the flag there is none.
#[test]
fn what_the_graph_cannot_hold_is_named() {
    let (dir, path) = util::scene_file(
        "named.x3d",
        "<X3D><Scene>\
         <Transform DEF='T'><TouchSensor DEF='Touch'/><PlaneSensor DEF='Drag'/><Shape><Box/></Shape></Transform>\
         <Script DEF='S'><field name='go' type='SFTime' accessType='inputOnly'/></Script>\
         <TimeSensor DEF='C' cycleInterval='1'/>\
         <PositionInterpolator DEF='P' key='0 1' keyValue='0 0 0 1 0 0'/>\
         <BooleanFilter DEF='F'/><TimeTrigger DEF='Again'/>\
         <ROUTE fromNode='Touch' fromField='touchTime' toNode='S' toField='go'/>\
         <ROUTE fromNode='Drag' fromField='translation_changed' toNode='T' toField='set_translation'/>\
         <ROUTE fromNode='Touch' fromField='touchTime' toNode='C' toField='set_startTime'/>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='T' toField='set_translation'/>\
         <ROUTE fromNode='C' fromField='isActive' toNode='F' toField='set_boolean'/>\
         <ROUTE fromNode='F' fromField='inputFalse' toNode='Again' toField='set_boolean'/>\
         <ROUTE fromNode='Again' fromField='triggerTime' toNode='C' toField='set_startTime'/>\
         </Scene></X3D>",
    );
    let input = path.as_str();
    let glb = dir.path().join("named.glb");
    let o = util::run(&[input, "-o", &glb.to_string_lossy(), "--interactive"]);
    assert!(o.status.success(), "{}", util::stderr(&o));
    let err = util::stderr(&o);
    for said in [
        "`Drag`: a PlaneSensor has no event in a KHR_interactivity graph",
        "`S.go` set by a user's action: a Script's event has no place",
        "`C`: its start comes round to start it again",
    ] {
        assert!(err.contains(said), "{said:?} not in:\n{err}");
    }
    // The routes the graph takes are not also called unbaked.
    assert!(!err.contains("is not baked"), "{err}");
    let (doc, _) = util::document_json(&std::fs::read(&glb).unwrap());
    let graph = &doc["extensions"]["KHR_interactivity"]["graphs"][0];
    let ops: Vec<&str> = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            graph["declarations"][n["declaration"].as_u64().unwrap() as usize]["op"]
                .as_str()
                .unwrap()
        })
        .collect();
    let starts = ops.iter().filter(|&&op| op == "animation/start").count();
    assert_eq!(starts, 1, "{ops:?}");
    assert!(ops.contains(&"event/onSelect"), "{ops:?}");
    let plain = dir.path().join("plain.glb");
    bake_ok(input, &plain, &[]);
    let (doc, _) = util::document_json(&std::fs::read(&plain).unwrap());
    assert!(
        doc.get("extensions")
            .is_none_or(|e| e.get("KHR_interactivity").is_none())
    );
    assert!(!doc["extensionsUsed"].to_string().contains("interactivity"));
}

/// Every corpus scene baked with --interactive: the graph Babylon loads is
/// valid, with no error, and the validator finds nothing wrong.
#[test]
fn every_corpus_graph_is_valid_in_babylon() {
    let Some(scenes) = crate::corpus::corpus_files(crate::corpus::READ) else {
        return;
    };
    let Some(bab) = util::tool_dir("X3DBAKE_BABYLON", "Babylon.js loading --interactive graphs")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut with_graph = Vec::new();
    for (i, scene) in scenes.iter().enumerate() {
        let glb = dir.path().join(format!("{i}.glb"));
        let o = util::run(&[
            &scene.to_string_lossy(),
            "-o",
            &glb.to_string_lossy(),
            "--interactive",
        ]);
        if !o.status.success() {
            continue; // (the corpus test says which scenes do not bake)
        }
        let (doc, _) = util::document_json(&std::fs::read(&glb).unwrap());
        if doc["extensions"].get("KHR_interactivity").is_some() {
            with_graph.push(glb);
        }
    }
    let mut args = vec![
        util::root().join("tools/babylon-play.mjs").into_os_string(),
        "--graphs".into(),
    ];
    args.extend(with_graph.iter().map(|p| p.as_os_str().to_owned()));
    let out = util::node(&args, None, &[("X3DBAKE_BABYLON", &bab)]);
    let v: Value = serde_json::from_slice(&out).expect("babylon-play prints JSON");
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), with_graph.len());
    for f in files {
        let graphs = f["graphs"].as_array().unwrap();
        assert_eq!(graphs.len(), 1, "{f}");
        assert!(
            graphs[0]["valid"] == true && graphs[0]["diagnostics"] == serde_json::json!([]),
            "{f}"
        );
        assert_eq!(f["errors"], serde_json::json!([]), "{f}");
    }
    eprintln!(
        "{} of {} corpus scenes have a graph; Babylon finds each valid",
        files.len(),
        scenes.len()
    );
    assert!(files.len() >= 40, "{} graphs", files.len());
    util::assert_validator_clean(&with_graph);
}

/// Prototype instances inside a prototype's body are expanded in the
/// body's order (they were taken in the order of a hash map, which
/// differs from run to run): six buttons, each an instance whose
/// TouchSensor sends to a Script, are met, and named in the warnings, in
/// their order, the same in every run.
#[test]
fn nested_instances_are_expanded_in_their_order() {
    let buttons: String = (1..=6).map(|k| format!("DEF B{k} Button {{ }} ")).collect();
    let fields: String = (1..=6).map(|k| format!("eventIn SFTime t{k} ")).collect();
    let routes: String = (1..=6)
        .map(|k| format!("ROUTE B{k}.touchTime TO SCR.t{k}\n"))
        .collect();
    let text = format!(
        "#VRML V2.0 utf8\n\
         PROTO Button [ eventOut SFTime touchTime ] {{\n\
           Group {{ children [ TouchSensor {{ touchTime IS touchTime }} Shape {{ geometry Box {{ }} }} ] }}\n\
         }}\n\
         PROTO Panel [ ] {{\n\
           Group {{ children [ {buttons} DEF SCR Script {{ {fields} url \"javascript: function t1(v) {{ }}\" }} ] }}\n\
           {routes}\
         }}\n\
         Panel {{ }}\n"
    );
    let (dir, path) = util::scene_file("panel.wrl", &text);
    let out = dir.path().join("panel.glb").to_string_lossy().into_owned();
    let want: Vec<String> = (1..=6).map(|k| format!("Panel_1.SCR.t{k}")).collect();
    let mut first = None;
    for _ in 0..3 {
        let o = util::run(&[&path, "--interactive", "-o", &out]);
        let stderr = util::stderr(&o);
        let met: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains("set by a user's action"))
            .filter_map(|l| l.split('`').nth(1))
            .collect();
        assert_eq!(met, want, "{stderr}");
        let bytes = std::fs::read(&out).unwrap();
        assert!(first.get_or_insert_with(|| bytes.clone()) == &bytes);
    }
}
