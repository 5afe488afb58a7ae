//! `x3dbake inspect` on the fixtures: golden reports, and rendered errors
//! for each class of bad input.

use crate::util;

#[test]
fn bad_inputs_exit_1_with_rendered_errors() {
    let mut files = util::fixtures("errors", "x3d");
    files.extend(util::fixtures("errors", "x3dj"));
    files.extend(util::fixtures("errors", "x3dv"));
    assert!(files.len() >= 14);
    let mut stems: Vec<_> = files.iter().map(|f| f.with_extension("")).collect();
    stems.sort();
    stems.dedup();
    assert_eq!(
        stems.len(),
        files.len(),
        "two bad inputs share a name: their .expected would clash"
    );
    for path in files {
        let rel = format!(
            "fixtures/errors/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let out = util::run(&["inspect", &rel]);
        assert_eq!(out.status.code(), Some(1), "{rel} should exit 1");
        assert!(out.stdout.is_empty(), "{rel}: nothing on stdout");
        let err = util::stderr(&out);
        assert!(
            err.starts_with(&format!("{rel}:")),
            "{rel}: starts with file:line:col"
        );
        util::check_golden(&path.with_extension("expected"), &err);
    }
}

#[test]
fn scene_reports_are_golden() {
    for path in util::fixtures("scenes", "x3d") {
        let rel = format!(
            "fixtures/scenes/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let out = util::run(&["inspect", &rel]);
        assert_eq!(out.status.code(), Some(0), "{rel}: {}", util::stderr(&out));
        util::check_golden(&path.with_extension("inspect"), &util::stdout(&out));
    }
}

#[test]
fn missing_file_is_an_io_error() {
    let out = util::run(&["inspect", "fixtures/no/such.x3d"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(util::stderr(&out).contains("cannot read fixtures/no/such.x3d"));
}

#[test]
fn warnings_have_locations_and_quiet_hides_them() {
    let (_dir, path) = util::scene_file(
        "w.x3d",
        "<X3D>\n<Scene>\n<Transform foo='1'/>\n<Gizmo a='b'/>\n</Scene>\n</X3D>\n",
    );
    let out = util::run(&["inspect", &path]);
    assert_eq!(out.status.code(), Some(0));
    let err = util::stderr(&out);
    assert!(
        err.contains(&format!(
            "{path}:3:17: warning: `Transform` has no field `foo`: ignored"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{path}:4:2: warning: `Gizmo` is not an X3D node type"
        )),
        "{err}"
    );
    assert!(util::stdout(&out).ends_with("warnings: 2\n"));
    let quiet = util::run(&["inspect", "--quiet", &path]);
    assert!(quiet.stderr.is_empty());
}

#[test]
fn interpolator_key_problems_are_warnings_at_the_keyvalue() {
    let (_dir, path) = util::scene_file(
        "k.x3d",
        "<X3D><Scene>\n<ScalarInterpolator DEF='S' key='0 0.5 1' keyValue='0 1'/>\n</Scene></X3D>\n",
    );
    let out = util::run(&["inspect", &path]);
    assert_eq!(out.status.code(), Some(0));
    let err = util::stderr(&out);
    assert!(
        err.contains(&format!(
            "{path}:2:53: warning: ScalarInterpolator S: keyValue has 2 values for 3 keys: padded with its last value"
        )),
        "{err}"
    );
    assert!(util::stdout(&out).contains("ScalarInterpolator S keys 3 (exact: linear)"));
}

#[test]
fn cycles_lengthen_the_clips() {
    let out = util::run(&[
        "inspect",
        "--cycles",
        "3",
        "fixtures/scenes/bouncing_box.x3d",
    ]);
    let text = util::stdout(&out);
    assert!(
        text.contains("Clock (TimeSensor) duration 6s loop true, 4 tracks"),
        "{text}"
    );
    // Three cycles of keys 0 0.5 1, with a jump back at each boundary.
    assert!(
        text.contains("Box1.translation <- Bounce: exact linear, 9 keyframes"),
        "{text}"
    );
    let bad = util::run(&[
        "inspect",
        "--cycles",
        "0",
        "fixtures/scenes/bouncing_box.x3d",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn inspect_json_follows_its_documented_schema() {
    let o = util::run(&["inspect", "--json", "fixtures/scenes/bouncing_box.x3d"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(o.stderr.is_empty(), "diagnostics go in the document");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["schema"], "x3dbake-inspect/1");
    assert_eq!(doc["errors"], 0);
    let clocks = doc["clocks"].as_array().unwrap();
    assert_eq!(clocks[0]["type"], "TimeSensor");
    assert_eq!(clocks[0]["cycleInterval"], 2.0);
    let tracks = doc["clips"][0]["tracks"].as_array().unwrap();
    let form = |target: &str, field: &str| {
        tracks
            .iter()
            .find(|t| t["target"] == target && t["field"] == field)
            .unwrap_or_else(|| panic!("{target}.{field}"))
    };
    let t = form("Box1", "translation");
    assert_eq!(
        (&t["form"], &t["interpolation"], &t["keyframes"]),
        (&"exact".into(), &"linear".into(), &3.into())
    );
    let c = form("BoxMaterial", "diffuseColor");
    assert_eq!(c["form"], "fitted");
    assert_eq!(c["bound"], 1e-4);
    assert_eq!(c["gltf"], "KHR_animation_pointer");
    // The documentation names every key the document has.
    let schema = std::fs::read_to_string(util::root().join("docs/inspect-json.md")).unwrap();
    let mut keys = std::collections::BTreeSet::new();
    fn collect(v: &serde_json::Value, keys: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(m) => m.iter().for_each(|(k, v)| {
                keys.insert(k.clone());
                collect(v, keys);
            }),
            serde_json::Value::Array(a) => a.iter().for_each(|v| collect(v, keys)),
            _ => {}
        }
    }
    collect(&doc, &mut keys);
    for k in &keys {
        assert!(
            schema.contains(&format!("\"{k}\"")) || schema.contains(&format!(" {k}")),
            "{k} undocumented"
        );
    }
    // Errors: in the document, with their place, and exit 1.
    let (_dir, bad) = util::scene_file(
        "bad.x3d",
        "<X3D><Scene><Script><field name='a' type='SFFoo'/></Script></Scene></X3D>",
    );
    let o = util::run(&["inspect", "--json", &bad]);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["errors"], 1);
    let d = &doc["diagnostics"][0];
    assert_eq!(
        (&d["severity"], &d["line"], &d["column"]),
        (&"error".into(), &1.into(), &22.into())
    );
}

/// The CI recipes of docs/inspect-json.md, run as written (bash, jq):
/// each passes on a clean scene, fails on a scene whose track the glTF
/// leaves out (a Switch's hidden choice), and fails when x3dbake fails (a missing
/// file: `pipefail`), where the document still parses and holds the error.
#[test]
fn the_documented_ci_recipes_fail_when_anything_is_lost() {
    let doc = std::fs::read_to_string(util::root().join("docs/inspect-json.md")).unwrap();
    let recipes: Vec<String> = doc
        .split("    set -o pipefail\n")
        .skip(1)
        .map(|r| {
            let lines: Vec<&str> = r
                .lines()
                .take_while(|l| l.starts_with("    "))
                .map(str::trim)
                .collect();
            lines.join("\n")
        })
        .collect();
    assert_eq!(recipes.len(), 2, "{recipes:?}");
    if std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_err()
    {
        util::skipped("PATH", "the inspect --json CI recipes (jq not found)");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_x3dbake");
    let run = |recipe: &str, scene: &str| {
        let script = format!(
            "set -o pipefail\nx3dbake() {{ \"{bin}\" \"$@\"; }}\n{}",
            recipe.replace("scene.x3d", scene)
        );
        std::process::Command::new("bash")
            .args(["-c", &script])
            .current_dir(util::root())
            .output()
            .unwrap()
            .status
            .success()
    };
    for r in &recipes {
        assert!(run(r, "fixtures/scenes/bouncing_box.x3d"), "{r}");
        assert!(!run(r, "fixtures/pipeline/hidden_track.x3d"), "{r}");
        assert!(!run(r, "fixtures/no/such.x3d"), "{r}");
    }
    let o = util::run(&["inspect", "--json", "fixtures/no/such.x3d"]);
    assert_eq!(o.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        doc["error"].as_str().unwrap().contains("cannot read"),
        "{doc}"
    );
    assert_eq!(doc["errors"], 1);
    // The hidden choice's track: what the bake leaves out, inspect says.
    let o = util::run(&["inspect", "--json", "fixtures/pipeline/hidden_track.x3d"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let track = &doc["clips"][0]["tracks"][0];
    assert_eq!(track["gltf"], "none (not written: see its warning)");
    assert_eq!(doc["warnings"], 2);
    // The text report says it too.
    let text = util::stdout(&util::run(&[
        "inspect",
        "fixtures/pipeline/hidden_track.x3d",
    ]));
    assert!(
        text.contains("; glTF: none (not written: see its warning)\n"),
        "{text}"
    );
}

/// Input browsers read with a complaint (a ROUTE naming what is not
/// there or of another type, bytes that are not UTF-8): exit 0 with the
/// rendered warnings (fixtures/warnings/*.expected), the rest of the scene
/// read; `--deny-warnings` fails them.
#[test]
fn doubtful_inputs_exit_0_with_rendered_warnings() {
    let mut files = util::fixtures("warnings", "x3d");
    files.extend(util::fixtures("warnings", "x3dj"));
    files.extend(util::fixtures("warnings", "x3dv"));
    assert!(files.len() >= 6);
    for path in files {
        let rel = format!(
            "fixtures/warnings/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let out = util::run(&["inspect", "-v", &rel]);
        assert_eq!(out.status.code(), Some(0), "{rel}: {}", util::stderr(&out));
        let err = util::stderr(&out);
        assert!(err.contains(": warning: "), "{rel}: {err}");
        util::check_golden(&path.with_extension("expected"), &err);
        let denied = util::run(&[&rel, "-o", "/dev/null", "--deny-warnings", "-q"]);
        assert_eq!(denied.status.code(), Some(1), "{rel}");
    }
    // The Latin-1 byte is read as its character.
    let o = util::run(&[
        "fixtures/warnings/not_utf8.x3d",
        "-o",
        "-",
        "--format",
        "glb",
        "-q",
    ]);
    let (json, _) = util::document_json(&o.stdout);
    assert_eq!(json["asset"]["extras"]["title"], "café");
}
