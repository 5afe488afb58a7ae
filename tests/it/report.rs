//! `--report FILE.html`: the page plots every track (the true curve, the
//! keys, the error against the bound), and a real browser (headless
//! Chromium, tools/report-check.mjs) loads it without errors and lays out
//! one plot a track.

use crate::util;
use std::path::PathBuf;

/// Bakes `scene` to a .glb with its report in a new folder: the folder, the
/// .glb, the page and its text.
fn baked_with_report(scene: &str) -> (tempfile::TempDir, PathBuf, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let (glb, page) = (dir.path().join("out.glb"), dir.path().join("report.html"));
    let o = util::run(&[
        scene,
        "-o",
        &glb.to_string_lossy(),
        "--report",
        &page.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    (dir, glb, page, html)
}

#[test]
fn the_report_shows_one_plot_per_track_in_a_browser() {
    let scene = "fixtures/scenes/bouncing_box.x3d";
    let (dir, _, page, html) = baked_with_report(scene);
    // Four tracks: four value plots; three written on their own, each with
    // its error plot under the bound (transparency goes with the colour).
    assert_eq!(html.matches("<svg class=\"track\"").count(), 4);
    assert_eq!(html.matches("<svg class=\"error\"").count(), 3);
    assert!(html.contains("BoxMaterial.diffuseColor ← Tint: fitted (HSV colour)"));
    assert!(!html.contains("class=\"over\""), "an error over its bound");
    // Only for glTF output, and one input.
    let o = util::run(&[scene, "-o", "-", "--report", &page.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(2));
    let o = util::run(&[
        scene,
        scene,
        "-o",
        &dir.path().to_string_lossy(),
        "--report",
        "r.html",
    ]);
    assert_eq!(o.status.code(), Some(2));

    let Some(browser) = util::tool_dir("X3DBAKE_BROWSER", "the report in headless Chromium") else {
        return;
    };
    let out = util::node(
        &[
            util::root().join("tools/report-check.mjs").into_os_string(),
            page.into_os_string(),
        ],
        None,
        &[("X3DBAKE_BROWSER", &browser)],
    );
    let seen: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(seen["errors"], serde_json::json!([]), "{seen}");
    assert_eq!(seen["tracks"].as_array().unwrap().len(), 4, "{seen}");
    assert_eq!(seen["plots"], 4);
    assert_eq!(seen["drawn"], 4, "every plot laid out: {seen}");
    assert_eq!(seen["errorPlots"], 3);
}

/// The largest error of each rotation track on fixtures/curves/rotations.x3d
/// (10 s; slerp keys, and squad fitted as CUBICSPLINE) read from the report
/// is what three.js shows when it plays the .glb at the report's 400 times
/// against the true rotations (the CSV at 40 Hz: the same times; the last,
/// 10 s, left out, where three.js loops back to the start): glTF
/// normalises a CUBICSPLINE rotation after the component-wise Hermite, and
/// so does the report (it read 3.21e-3 against a bound of 1e-4 before).
/// The page has a time axis in seconds and a legend of each component.
#[test]
fn the_reports_error_is_what_a_gltf_player_shows() {
    let scene = "fixtures/curves/rotations.x3d";
    let (_dir, glb, _, html) = baked_with_report(scene);
    assert!(!html.contains("class=\"over\""), "an error over its bound");
    let reported: Vec<f64> = html
        .split("largest error at 400 times: ")
        .skip(1)
        .map(|s| s[..s.find(' ').unwrap()].parse().unwrap())
        .collect();
    assert_eq!(reported.len(), 2);
    assert!(reported[1] > 5e-5 && reported[1] <= 1e-4, "{reported:?}");
    for label in [
        "━ x</span>",
        "━ w</span>",
        "● keys written",
        "0 s</text>",
        "10 s</text>",
    ] {
        assert!(html.contains(label), "{label}");
    }
    let Some(three) = crate::three::three() else {
        return;
    };
    let times: Vec<f64> = (0..400).map(|i| 10.0 * f64::from(i) / 400.0).collect();
    let played = crate::three::play(&three, &glb, &times);
    let csv = util::run(&[scene, "-o", "-", "--rate", "40"]);
    let truth: std::collections::BTreeMap<(String, usize), glam::DQuat> = util::stdout(&csv)
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            let n: Vec<f64> = c[5..9].iter().map(|x| x.parse().unwrap()).collect();
            let t: f64 = c[1].parse().unwrap();
            let q =
                glam::DQuat::from_axis_angle(glam::DVec3::new(n[0], n[1], n[2]).normalize(), n[3]);
            ((c[2].to_string(), (t * 40.0).round() as usize), q)
        })
        .collect();
    let samples = played["animations"][0]["samples"].as_array().unwrap();
    for (which, name) in ["Mover", "Spinner"].iter().enumerate() {
        let mut worst = 0.0f64;
        for (i, s) in samples.iter().enumerate() {
            let node = util::named(s, name);
            let q: Vec<f64> = node["quaternion"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            let shown = glam::DQuat::from_xyzw(q[0], q[1], q[2], q[3]);
            let want = truth[&(name.to_string(), i)];
            let want = if shown.dot(want) < 0.0 { -want } else { want };
            worst = worst.max(4.0 * (shown - want).length().atan2((shown + want).length()));
        }
        let r = reported[which];
        assert!(
            (worst - r).abs() <= 2e-6 + 0.02 * r,
            "{name}: three.js shows {worst:.3e}, the report {r:.3e}"
        );
        eprintln!("{name}: three.js {worst:.3e}, the report {r:.3e}");
    }
}

/// Every bundled scene has a report, morph targets' tracks among them
/// (their weights channel holds times only: no key to plot, no panic).
#[test]
fn every_fixture_has_a_report() {
    let mut morphs = 0;
    for scene in util::fixtures("scenes", "x3d") {
        let (_dir, _glb, _page, html) = baked_with_report(&scene.to_string_lossy());
        assert!(html.contains("</html>"), "{}", scene.display());
        morphs += usize::from(html.contains("morph"));
    }
    assert!(morphs > 0, "no report shows a morph target");
}
