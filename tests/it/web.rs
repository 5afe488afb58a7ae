//! The page (web/): built by tools/web-build.sh (`.ci/run` builds it and
//! names it in X3DBAKE_WEB), driven in headless Chromium by
//! tools/web-check.mjs as a user would: it loads with no console error and
//! shows x3dbake's version; every bundled scene, and scenes with the
//! options of the command line, convert to the very bytes `x3dbake FILE -o
//! OUT` writes with the same flags; a bad input shows its errors with line
//! and column; the preview draws the scene.

use crate::util;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A conversion: the files the page is given, the scene among them, the
/// page's settings and the command line's flags for the same.
struct Case {
    name: String,
    files: Vec<PathBuf>,
    main: PathBuf,
    settings: Value,
    flags: Vec<&'static str>,
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

fn cases(dir: &Path) -> Vec<Case> {
    let scenes = util::root().join("fixtures/scenes");
    // The scenes and the files they link (given by name, as files picked
    // one by one are: the page finds them by name).
    let mut given = files_in(&scenes);
    given.extend(files_in(&util::root().join("fixtures/include")));
    let mut cases: Vec<Case> = files_in(&scenes)
        .iter()
        .filter(|p| {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            matches!(ext, "x3d" | "x3dv" | "x3dj" | "wrl")
        })
        .map(|p| Case {
            name: format!("{}.glb", p.file_name().unwrap().to_string_lossy()),
            files: given.clone(),
            main: p.clone(),
            settings: json!({}),
            flags: vec![],
        })
        .collect();
    let with = |name: &str, main: &str, settings: Value, flags: Vec<&'static str>| Case {
        name: name.to_string(),
        files: given.clone(),
        main: scenes.join(main),
        settings,
        flags,
    };
    cases.extend([
        with(
            "sample-cubic.glb",
            "bouncing_box.x3d",
            json!({"mode": "sample", "interpolation": "cubic", "rate": 12}),
            vec![
                "--mode",
                "sample",
                "--interpolation",
                "cubic",
                "--rate",
                "12",
            ],
        ),
        with(
            "compressed.glb",
            "morph.x3d",
            json!({"compress": true}),
            vec!["--compress"],
        ),
        with(
            "embedded.gltf",
            "pointers.x3d",
            json!({"format": "gltf"}),
            vec!["--embed"],
        ),
        with(
            "table.csv",
            "bouncing_box.x3d",
            json!({"format": "csv"}),
            vec![],
        ),
        with(
            "tolerance.glb",
            "humanoid.x3d",
            json!({"tolerance": 0.01, "visibility": "scale"}),
            vec!["--tolerance", "0.01", "--visibility", "scale"],
        ),
    ]);
    // A buffer past the size where the command line moves it to a file
    // (its GLB head then has room to spare): the page keeps it, the same
    // bytes.
    let big = dir.join("big.x3d");
    std::fs::write(&big, big_scene()).unwrap();
    cases.push(Case {
        name: "big.glb".into(),
        files: vec![big.clone()],
        main: big,
        settings: json!({}),
        flags: vec![],
    });
    let door = util::root().join("fixtures/interactive/door.x3d");
    cases.push(Case {
        name: "timeline.glb".into(),
        files: vec![door.clone()],
        main: door.clone(),
        settings: json!({"timeline": true, "events": ["1:Handle.touchTime=1"], "end": 4}),
        flags: vec![
            "--timeline",
            "--event",
            "1:Handle.touchTime=1",
            "--end",
            "4",
        ],
    });
    cases.push(Case {
        name: "interactive.glb".into(),
        files: vec![door.clone()],
        main: door,
        settings: json!({"interactive": true}),
        flags: vec!["--interactive"],
    });
    cases
}

/// A mesh of 20 000 points morphed through 12 keys: a glTF buffer of
/// 2.9 MB, past the 2 MiB the command line keeps in memory.
fn big_scene() -> String {
    let n = 20_000;
    let point = |i: usize, k: usize| format!("{} {} {}", i % 200, i / 200, (i * 7 + k * 13) % 17);
    let points = |k: usize| (0..n).map(|i| point(i, k)).collect::<Vec<_>>().join(" ");
    let keys: Vec<String> = (0..12).map(|k| format!("{}", k as f64 / 11.0)).collect();
    let values: Vec<String> = (0..12).map(points).collect();
    format!(
        "<X3D><Scene><Shape><PointSet><Coordinate DEF='C' point='{}'/></PointSet></Shape>\
         <TimeSensor DEF='T' loop='true'/>\
         <CoordinateInterpolator DEF='I' key='{}' keyValue='{}'/>\
         <ROUTE fromNode='T' fromField='fraction_changed' toNode='I' toField='set_fraction'/>\
         <ROUTE fromNode='I' fromField='value_changed' toNode='C' toField='point'/>\
         </Scene></X3D>",
        points(0),
        keys.join(" "),
        values.join(" ")
    )
}

#[test]
fn the_page_converts_as_the_command_line_does() {
    let Some(web) = util::tool_dir("X3DBAKE_WEB", "the page (tools/web-build.sh)") else {
        return;
    };
    let Some(browser) = util::tool_dir("X3DBAKE_BROWSER", "the page in headless Chromium") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (page_dir, cli_dir) = (dir.path().join("page"), dir.path().join("cli"));
    std::fs::create_dir_all(&page_dir).unwrap();
    std::fs::create_dir_all(&cli_dir).unwrap();
    let mut list: Vec<Value> = Vec::new();
    let cases = cases(dir.path());
    for c in &cases {
        list.push(json!({
            "name": c.name,
            "files": c.files,
            "main": c.main.file_name().unwrap().to_string_lossy(),
            "settings": c.settings,
        }));
    }
    // Last: a scene with errors, and then one the preview shows.
    let bad = util::root().join("fixtures/errors/bad_attributes.x3d");
    list.push(
        json!({"name": "bad.glb", "files": [bad], "main": "bad_attributes.x3d", "settings": {}}),
    );
    let shown = util::root().join("fixtures/scenes/bouncing_box.x3d");
    list.push(
        json!({"name": "shown.glb", "files": [shown], "main": "bouncing_box.x3d", "settings": {}}),
    );
    let cases_file = dir.path().join("cases.json");
    std::fs::write(&cases_file, serde_json::to_vec(&list).unwrap()).unwrap();
    let args = [
        util::root().join("tools/web-check.mjs").into_os_string(),
        web.into_os_string(),
        page_dir.clone().into_os_string(),
        cases_file.into_os_string(),
    ];
    let out = util::node(&args, None, &[("X3DBAKE_BROWSER", &browser)]);
    let seen: Value = serde_json::from_slice(&out).expect("web-check prints JSON");
    assert_eq!(seen["errors"], json!([]), "the page's errors");
    assert_eq!(seen["version"], env!("CARGO_PKG_VERSION"));
    let results = seen["cases"].as_array().unwrap();
    assert_eq!(results.len(), cases.len() + 2, "{seen}");
    let mut identical = 0;
    let mut differ = Vec::new();
    for (c, r) in cases.iter().zip(results) {
        assert_eq!(r["ok"], true, "{}: {}", c.name, r["messages"]);
        let cli = cli_dir.join(&c.name);
        util::bake_ok(&c.main.to_string_lossy(), &cli, &c.flags);
        let (a, b) = (
            std::fs::read(&cli).unwrap(),
            std::fs::read(page_dir.join(&c.name)).unwrap(),
        );
        if a == b {
            identical += 1;
        } else {
            let first = a.iter().zip(&b).position(|(x, y)| x != y);
            differ.push(format!(
                "{} ({} and {} bytes, first at {first:?})",
                c.name,
                b.len(),
                a.len()
            ));
        }
    }
    assert!(differ.is_empty(), "not the CLI's bytes: {differ:#?}");
    let bad = &results[cases.len()];
    assert_eq!(bad["ok"], false);
    let messages = bad["messages"].as_str().unwrap();
    assert!(
        messages.contains("bad_attributes.x3d:3:44: error: attribute `translation` is given twice"),
        "{messages}"
    );
    // The preview: a red box on the page's dark ground.
    let painted = seen["painted"].as_u64().unwrap();
    assert!(painted > 1000, "{painted} pixels drawn");
    eprintln!(
        "the page: {identical} conversions byte-identical to the CLI's; preview {painted} pixels"
    );
}
