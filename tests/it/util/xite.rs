//! X_ITE, the oracle: where it is installed, its timelines, and how far
//! its values are from ours.

use std::path::PathBuf;
use x3dbake::internal::interp::rotation;

pub fn oracle() -> Option<PathBuf> {
    super::tool_dir("X3DBAKE_XITE", "X_ITE conformance test")
}

pub fn is_rotation(ty: &str) -> bool {
    ty.contains("Orientation")
}

/// Distance between two outputs: rotations as quaternions (q = −q),
/// everything else relative, 1e-5 meaning "agrees".
/// The angle between two rotations given as quaternions (x, y, z, w).
pub fn quaternion_angle(a: &[f64], b: &[f64]) -> f64 {
    let (a, b) = (glam::DQuat::from_slice(a), glam::DQuat::from_slice(b));
    2.0 * a.dot(b).abs().min(1.0).acos()
}

pub fn distance(ty: &str, ours: &[f64], theirs: &[f64]) -> f64 {
    if is_rotation(ty) {
        let q = glam::DQuat::from_slice(ours);
        let p = rotation::from_axis_angle(theirs);
        return (q - p).length().min((q + p).length());
    }
    assert_eq!(ours.len(), theirs.len(), "{ty}: value sizes");
    ours.iter()
        .zip(theirs)
        .map(|(a, b)| (a - b).abs() / (1.0 + b.abs()))
        .fold(0.0, f64::max)
}

/// The largest difference of a vector field, component by component,
/// between X_ITE's rows (`[t, v…]`) and ours at the same milliseconds.
pub fn worst_difference(
    rows: &[serde_json::Value],
    ours: &std::collections::BTreeMap<(String, i64), Vec<f64>>,
    field: &str,
    width: usize,
) -> f64 {
    let mut worst = 0.0f64;
    for r in rows {
        let k = (r[0].as_f64().unwrap() * 1000.0).round() as i64;
        let mine = &ours[&(field.to_string(), k)];
        for c in 0..width {
            worst = worst.max((mine[c] - r[c + 1].as_f64().unwrap()).abs());
        }
    }
    worst
}

/// X_ITE playing `scene` on a simulated clock at `times`, started as the
/// text says with small file times as seconds after load (`--kick-start`),
/// with chain.x3d's Switch recorded too.
pub fn xite_timeline(
    dir: &std::path::Path,
    scene: &std::path::Path,
    times: &[String],
    oracle: &str,
    extra: &[&str],
) -> serde_json::Value {
    xite_timeline_from(
        dir,
        scene,
        times,
        oracle,
        &[&["--kick-start"], extra].concat(),
    )
}

/// The same, with X_ITE's own start at load (`extra`: `--base B` for the
/// load instant).
pub fn xite_timeline_from(
    dir: &std::path::Path,
    scene: &std::path::Path,
    times: &[String],
    oracle: &str,
    extra: &[&str],
) -> serde_json::Value {
    let script = dir.join(oracle);
    let times = times.join(",");
    let mut args = vec![script.as_os_str(), scene.as_os_str(), times.as_ref()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    let out = super::node(&args, Some(dir), &[]);
    serde_json::from_slice(&out).expect("xite-timeline prints JSON")
}

/// A scene's `--timeline` CSV over 5 s at 20 rows a second: (NODE.field,
/// time in ms) → values (a bool as 0 or 1).
pub fn timeline_rows(
    scene: &std::path::Path,
) -> std::collections::BTreeMap<(String, i64), Vec<f64>> {
    timeline_rows_at(scene, "0")
}

/// The same, the world loaded at `load` (seconds since 1970).
pub fn timeline_rows_at(
    scene: &std::path::Path,
    load: &str,
) -> std::collections::BTreeMap<(String, i64), Vec<f64>> {
    timeline_rows_over(scene, load, "20", "5")
}

/// The same, `rate` rows a second until `end`.
pub fn timeline_rows_over(
    scene: &std::path::Path,
    load: &str,
    rate: &str,
    end: &str,
) -> std::collections::BTreeMap<(String, i64), Vec<f64>> {
    let o = super::run(&[
        &scene.to_string_lossy(),
        "-o",
        "-",
        "--timeline",
        "--load-time",
        load,
        "--rate",
        rate,
        "--end",
        end,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", super::stderr(&o));
    let mut ours = std::collections::BTreeMap::new();
    for line in super::stdout(&o).lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        let t = (c[1].parse::<f64>().unwrap() * 1000.0).round() as i64;
        let v: Vec<f64> = c[5..]
            .iter()
            .filter(|x| !x.is_empty())
            .map(|x| match *x {
                "true" => 1.0,
                "false" => 0.0,
                x => x.parse().unwrap(),
            })
            .collect();
        // (A list's elements come a row each: one value, in order.)
        let key = (format!("{}.{}", c[2], c[3]), t);
        if c[4] == "0" {
            ours.insert(key, v);
        } else {
            ours.entry(key).or_default().extend(v);
        }
    }
    ours
}
