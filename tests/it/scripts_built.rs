//! What Scripts build while the world loads (fixtures/scripts/): nodes
//! made with createNode or `new SFNode(text)` and hung under Groups,
//! geometry filled through SFNode fields, points filled in place. Each
//! fixture's .glb, in the clip mode and in world time, draws what X_ITE's
//! shape census of it counts.

use crate::util;
use std::f64::consts::PI;
use x3dbake::internal::interp::rotation;

/// The drawn places of a .glb: one a node with a mesh, each with its
/// primitives (triangles, line segments or points) in all.
fn drawn(glb: &[u8]) -> Vec<usize> {
    let (json, _) = util::document_json(glb);
    let meshes = json["meshes"].as_array().cloned().unwrap_or_default();
    let accessors = json["accessors"].as_array().cloned().unwrap_or_default();
    let primitives = |mesh: &serde_json::Value| -> usize {
        let list = mesh["primitives"].as_array().cloned().unwrap_or_default();
        list.iter()
            .map(|p| {
                let at = p["indices"]
                    .as_u64()
                    .or(p["attributes"]["POSITION"].as_u64())
                    .unwrap() as usize;
                let n = accessors[at]["count"].as_u64().unwrap() as usize;
                match p["mode"].as_u64().unwrap_or(4) {
                    0 => n,
                    1 => n / 2,
                    _ => n / 3,
                }
            })
            .sum()
    };
    let mut list: Vec<usize> = json["nodes"]
        .as_array()
        .map(|nodes| {
            nodes
                .iter()
                .filter_map(|n| n["mesh"].as_u64())
                .map(|m| primitives(&meshes[m as usize]))
                .collect()
        })
        .unwrap_or_default();
    list.sort_unstable();
    list
}

/// Bakes `fixture` in the clip mode and in world time: what each draws,
/// and the warnings.
fn bake(fixture: &str) -> Vec<(Vec<usize>, String)> {
    [&[][..], &["--timeline", "--end", "1"]]
        .iter()
        .map(|extra| {
            let mut args = vec![fixture, "-o", "-", "--format", "glb"];
            args.extend(*extra);
            let o = util::run(&args);
            assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
            (drawn(&o.stdout), util::stderr(&o))
        })
        .collect()
}

/// Geometry whose primitives each browser chooses (glyphs, the
/// tessellation of round solids): counted, not compared.
const CUT_BY_EACH: [&str; 4] = ["Text", "Sphere", "Cone", "Cylinder"];

/// X_ITE's census of `fixture`: the shapes it draws by geometry type, and
/// the primitives of those whose primitives the scene gives.
fn xite(fixture: &str) -> Option<(usize, serde_json::Value, Vec<usize>)> {
    let xite = util::tool_dir("X3DBAKE_XITE", "X_ITE's census of what Scripts build")?;
    let census = util::xite_census(&xite, &util::root().join(fixture));
    let shapes = census["shapes"].as_array().unwrap();
    let mut primitives: Vec<usize> = shapes
        .iter()
        .filter(|s| !CUT_BY_EACH.iter().any(|t| s["geometryType"] == *t))
        .map(|s| s["primitives"].as_u64().unwrap() as usize)
        .collect();
    primitives.sort_unstable();
    let count = census["count"].as_u64().unwrap() as usize;
    Some((count, census["byType"].clone(), primitives))
}

/// Asserts that every bake of `fixture` draws `count` shapes, among them
/// shapes of `primitives`, and that X_ITE draws as many, of `by_type`,
/// with those primitives.
fn assert_drawn(fixture: &str, count: usize, by_type: serde_json::Value, primitives: &[usize]) {
    for (drawn, err) in bake(fixture) {
        assert_eq!(drawn.len(), count, "{fixture}: {drawn:?}\n{err}");
        let mut left = drawn.clone();
        for p in primitives {
            let at = left.iter().position(|d| d == p);
            let at = at.unwrap_or_else(|| panic!("{fixture}: {p} not in {drawn:?}"));
            left.remove(at);
        }
    }
    if let Some(theirs) = xite(fixture) {
        let want = (count, by_type, primitives.to_vec());
        assert_eq!(theirs, want, "{fixture}: X_ITE");
    }
}

/// initialize() makes 14 labels, 4 boxes and 2 spheres with
/// `Browser.currentScene.createNode`, sets their fields, and hangs them
/// under Groups by addChildren, a children assignment and `children[i] =`;
/// of three addChildren in one call only the last adds its cylinder (a
/// field takes one event a call, as in X_ITE).
#[test]
fn nodes_made_with_create_node_are_drawn() {
    let by_type = serde_json::json!({"Text": 14, "Box": 4, "Sphere": 2, "Cylinder": 1});
    assert_drawn("fixtures/scripts/labels_grid.x3d", 21, by_type, &[12; 4]);
}

/// `new SFNode('Transform { }')` places in an MFNode field, each given a
/// shape by `children[0] =`, handed to a Group through an SFNode field.
#[test]
fn places_filled_in_place_are_drawn() {
    let by_type = serde_json::json!({"Cone": 5});
    assert_drawn("fixtures/scripts/copies.x3d", 5, by_type, &[]);
}

/// Geometry built through SFNode fields: points pushed and set_index
/// assigned to an IndexedTriangleSet (24 triangles), points set by index
/// and coordIndex assigned to an IndexedFaceSet (5).
#[test]
fn geometry_a_script_builds_is_drawn() {
    let by_type = serde_json::json!({"IndexedTriangleSet": 1, "IndexedFaceSet": 1});
    assert_drawn("fixtures/scripts/built_mesh.x3d", 2, by_type, &[5, 24]);
}

/// A PointSet's points emptied, given a length and filled in place
/// (`var p = points[i]; p.x = …`): eight points at load.
#[test]
fn points_filled_in_place_are_drawn() {
    let by_type = serde_json::json!({"PointSet": 1});
    assert_drawn("fixtures/scripts/point_wave.x3d", 1, by_type, &[8]);
}

/// A number field sent NaN (X_ITE's `+undefined`, here a field Material
/// does not have) is not passed on and named; the call's other outputs
/// stand (they were all dropped): the box hung under a Group is drawn,
/// and a Transform is lifted by a string X_ITE (and x3dbake) turn into
/// 2.5.
#[test]
fn a_value_not_a_number_drops_only_itself() {
    let f = "fixtures/scripts/not_a_number.x3d";
    let by_type = serde_json::json!({"Box": 1, "Sphere": 1});
    assert_drawn(f, 2, by_type, &[12]);
    let o = util::run(&[f, "-o", "-", "--format", "glb", "--timeline", "--end", "1"]);
    let (json, _) = util::document_json(&o.stdout);
    assert_eq!(
        util::named(&json, "Lift")["translation"],
        serde_json::json!([0.0, 2.5, 0.0])
    );
    let err = util::stderr(&o);
    assert!(
        err.contains("Script `Sender` sent a value x3dbake does not pass on (the first in initialize() at 0 s: `level` (SFFloat) was sent a number that is not finite"),
        "{err}"
    );
}

/// Nodes made with createNode and set by `set_` events
/// (fixtures/scripts/made_moved.x3d): at load `Fixed` stands where
/// `set_translation` put it (in both bakes) and X_ITE draws both boxes;
/// in world time `Made` moves and turns at each fraction of the clock as
/// the Script computes it (X_ITE's timeline tool lists the nodes it
/// records as the scene loads, before initialize() has hung the made ones
/// in it, so it records none of them: the Script's own arithmetic is the
/// reference), within 1e-5.
#[test]
fn set_events_on_made_nodes_place_them_at_load_and_in_world_time() {
    let f = "fixtures/scripts/made_moved.x3d";
    let by_type = serde_json::json!({"Box": 2});
    assert_drawn(f, 2, by_type, &[12, 12]);
    for extra in [&[][..], &["--timeline", "--end", "1"]] {
        let mut args = vec![f, "-o", "-", "--format", "glb"];
        args.extend(extra);
        let o = util::run(&args);
        let (json, _) = util::document_json(&o.stdout);
        assert_eq!(
            util::named(&json, "Fixed")["translation"],
            serde_json::json!([1.0, 2.0, 3.0])
        );
    }
    let rows = util::xite::timeline_rows(&util::root().join(f));
    let mut seen = 0;
    for ((what, ms), v) in &rows {
        let t = *ms as f64 / 1000.0;
        let fraction = (t / 2.0).fract();
        let off = match what.as_str() {
            "Made.translation" => {
                let want = [3.0 * fraction, (2.0 * PI * fraction).sin(), 0.0];
                v.iter()
                    .zip(want)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max)
            }
            "Made.rotation" => {
                // As quaternions (an axis and angle have two forms).
                let q = rotation::from_axis_angle(v);
                let want = rotation::from_axis_angle(&[0.0, 1.0, 0.0, 2.0 * PI * fraction]);
                1.0 - q.dot(want).abs()
            }
            _ => continue,
        };
        seen += 1;
        assert!(off < 1e-5, "{what} at {t}: {v:?} is {off} off");
    }
    // Every 50 ms over 5 s, and the rotation where it turns.
    assert!(seen > 190, "{seen} rows of Made");
}
