//! `--report FILE.html`: the page plots every track (the true curve, the
//! keys, the error against the bound), and a real browser (headless
//! Chromium, tools/report-check.mjs) loads it without errors and lays out
//! one plot a track.

use crate::util;

#[test]
fn the_report_shows_one_plot_per_track_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let glb = dir.path().join("out.glb");
    let scene = "fixtures/scenes/bouncing_box.x3d";
    let o = util::run(&[
        scene,
        "-o",
        &glb.to_string_lossy(),
        "--report",
        &page.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
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
