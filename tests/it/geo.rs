//! The Geospatial component: fixtures/geo/ in GD, UTM and GC, with and
//! without a GeoOrigin (and rotateYUp), against values computed by hand
//! and against X_ITE (its Geospatial component in Node): the vertices it
//! draws, the matrices of its GeoLocation and GeoTransform nodes, a
//! GeoPositionInterpolator's values at its keys, GeoLocations and
//! GeoViewpoints as interpolators move them, a GeoLOD's root level.

use crate::util;
use glam::{DMat4, DQuat, DVec3, Vec3};
use x3dbake::internal::anim::{InterpOptions, NodeFn, node_function};
use x3dbake::internal::mesh::{Mesh, Overrides, Primitive, mesh};

fn fixture(name: &str) -> std::path::PathBuf {
    util::root().join("fixtures/geo").join(name)
}

/// The mesh of each DEF'd geometry node of a fixture.
fn meshes(name: &str, defs: &[&str]) -> Vec<Mesh> {
    let path = fixture(name);
    let mut bake = util::load_text(name, &std::fs::read(path).unwrap());
    let mut out = Vec::new();
    for def in defs {
        let id = bake.scene.def(def).expect("a DEF");
        let m = mesh(&bake.scene, &Overrides::default(), id, &mut bake.diags);
        out.push(m.expect("something drawn"));
    }
    assert_eq!(bake.diags.counts(), (0, 0), "{name}");
    out
}

/// A mesh's corners in drawing order (three a triangle, two a segment, one
/// a point), as X_ITE lists its vertices.
fn corners(m: &Mesh) -> Vec<Vec3> {
    m.indices.iter().map(|&i| m.positions[i as usize]).collect()
}

/// The sum of a triangle list's (b − a) × (c − a) / 2: its area as a
/// vector, turned by the winding (a face drawn the other way shows).
fn area_vector(c: &[Vec3]) -> DVec3 {
    c.chunks_exact(3)
        .map(|t| {
            let [a, b, c] = [t[0], t[1], t[2]].map(|p| p.as_dvec3());
            (b - a).cross(c - a) / 2.0
        })
        .sum()
}

#[test]
fn a_gd_terrain_with_rotate_y_up_as_computed_by_hand() {
    let m = &meshes("gd_yup.x3d", &["Hill"])[0];
    // The grid origin is the GeoOrigin: (0, 0, 0). Row 1 is 0.0008° north
    // of it at height 2·2: north is −Z, and the ground falls away by
    // d²/2M (M the meridian's radius of curvature there).
    let (a, f) = (6378137.0f64, 1.0 / 298.257223563);
    let e2 = f * (2.0 - f);
    let s2 = 37.5f64.to_radians().sin().powi(2);
    let r = a * (1.0 - e2) / (1.0 - e2 * s2).powf(1.5);
    let d = r * 0.0008f64.to_radians();
    let want = [DVec3::ZERO, DVec3::new(0.0, 4.0 - d * d / (2.0 * r), -d)];
    for w in want {
        assert!(
            m.positions.iter().any(|p| p.as_dvec3().distance(w) < 2e-3),
            "{w} not among {:?}",
            m.positions
        );
    }
    // 4 × 3 points: 6 quads, 12 triangles facing up (+Y).
    let c = corners(m);
    assert_eq!(c.len(), 36);
    assert!(area_vector(&c).y > 0.0);
}

#[test]
fn a_geo_position_interpolator_is_linear_in_its_geo_system() {
    let path = fixture("gd_yup.x3d");
    let bake = util::load_text("gd_yup.x3d", &std::fs::read(path).unwrap());
    let id = bake.scene.def("Path").unwrap();
    let Some((NodeFn::Value(it), _)) = node_function(&bake.scene, id, InterpOptions::default())
    else {
        panic!("an interpolator")
    };
    let mut v = Vec::new();
    // Its first key is the GeoOrigin, 60 m up.
    it.eval(0.0, &mut v);
    assert!(
        DVec3::from_slice(&v).distance(DVec3::new(0.0, 60.0, 0.0)) < 1e-6,
        "{v:?}"
    );
    // Halfway to the second key: the GD point halfway, (37.5004,
    // −122.24925, 75), as GeoLocation Marker's place is computed.
    it.eval(0.25, &mut v);
    let frame = x3dbake::internal::geo::Frame::of(&bake.scene, id);
    let want = frame.point(DVec3::new(37.5004, -122.24925, 75.0));
    assert!(DVec3::from_slice(&v).distance(want) < 1e-6, "{v:?} {want}");
}

/// X_ITE's answers for a fixture's names (see tools/xite-geo.mjs).
fn xite(xite: &std::path::Path, name: &str, names: &[&str]) -> Vec<serde_json::Value> {
    let script = util::root().join("tools/xite-geo.mjs");
    let mut args = vec![script.into_os_string(), xite.into(), fixture(name).into()];
    args.extend(names.iter().map(|n| std::ffi::OsString::from(*n)));
    let out = util::node(&args, Some(xite), &[]);
    String::from_utf8_lossy(&out)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Each fixture's geometry as X_ITE draws it: the same triangles (segments,
/// points), wound the same way, their corners within `tol` metres (2 mm:
/// single precision and X_ITE's shorter UTM series), their normals alike
/// (within 3° on the grids).
#[test]
fn geometry_as_x_ite_draws_it() {
    let Some(dir) = util::tool_dir("X3DBAKE_XITE", "X_ITE's Geospatial geometry") else {
        return;
    };
    let cases: [(&str, &[&str], f32); 3] = [
        ("gd_yup.x3d", &["Hill", "Track"], 2e-3),
        ("utm_origin.x3d", &["Field", "Roof"], 2e-3),
        // Geocentric, no GeoOrigin: single precision at the Earth's radius
        // (half its last place, 0.25 m).
        ("gc_gd_plain.x3d", &["Stars", "Edge", "Plain"], 0.26),
    ];
    for (name, defs, tol) in cases {
        let ours = meshes(name, defs);
        for (answer, (m, def)) in xite(&dir, name, defs).iter().zip(ours.iter().zip(defs)) {
            let theirs: Vec<Vec3> = util::json_numbers(&answer["positions"])
                .chunks_exact(3)
                .map(|p| DVec3::from_slice(p).as_vec3())
                .collect();
            let c = corners(m);
            assert_eq!(c.len(), theirs.len(), "{name} {def}: corners");
            // Each of our triangles (segments, points) is one of X_ITE's,
            // its corners in the same turn (a segment either way).
            let n = match m.primitive() {
                Primitive::Triangles => 3,
                Primitive::Lines => 2,
                Primitive::Points => 1,
            };
            let near = |a: &[Vec3], b: &[Vec3]| a.iter().zip(b).all(|(p, q)| p.distance(*q) <= tol);
            // A triangle's normals at its corners too (creaseAngle): a
            // grid's to 0.05 (x3dbake's faces are its quads, as
            // ElevationGrid's, whose normals span their two triangles;
            // X_ITE's are the triangles), others' to 1e-5.
            let grid = ["Hill", "Field", "Plain"].contains(def);
            let normal_tol = if grid { 0.05 } else { 1e-5 };
            let normals: Vec<Vec3> = m
                .indices
                .iter()
                .map(|&i| m.normals.get(i as usize).copied().unwrap_or_default())
                .collect();
            let their_normals: Vec<Vec3> = util::json_numbers(&answer["normals"])
                .chunks_exact(3)
                .map(|p| DVec3::from_slice(p).as_vec3())
                .collect();
            for (k, ours) in c.chunks_exact(n).enumerate() {
                let found = theirs.chunks_exact(n).enumerate().find_map(|(j, t)| {
                    (0..n)
                        .find(|&r| {
                            let turned: Vec<Vec3> = (0..n).map(|i| t[(i + r) % n]).collect();
                            near(ours, &turned) || (n == 2 && near(ours, &[turned[1], turned[0]]))
                        })
                        .map(|r| (j, r))
                });
                let Some((j, r)) = found else {
                    panic!("{name} {def}: our {k}th {ours:?} is none of X_ITE's {theirs:?}");
                };
                if n == 3 {
                    for i in 0..3 {
                        let (a, b) = (normals[3 * k + i], their_normals[3 * j + (i + r) % 3]);
                        assert!(
                            a.distance(b) <= normal_tol,
                            "{name} {def} triangle {k}: normal {a} against {b}"
                        );
                    }
                }
            }
            if m.primitive() == Primitive::Triangles {
                let (a, b) = (area_vector(&c), area_vector(&theirs));
                assert!(
                    a.distance(b) <= 1e-3 * b.length(),
                    "{name} {def}: {a} against {b}"
                );
            }
        }
    }
}

/// A Geo node's DEF and the names of the glTF nodes written for it, top
/// first.
type Chain<'a> = (&'a str, &'a [&'a str]);

/// A glTF node's own matrix (translation, rotation, scale).
fn local(node: &serde_json::Value) -> DMat4 {
    let get = |k: &str, d: Vec<f64>| node.get(k).map_or(d, util::json_numbers);
    let t = get("translation", vec![0.0; 3]);
    let r = get("rotation", vec![0.0, 0.0, 0.0, 1.0]);
    let s = get("scale", vec![1.0; 3]);
    DMat4::from_scale_rotation_translation(
        DVec3::from_slice(&s),
        DQuat::from_slice(&r),
        DVec3::from_slice(&t),
    )
}

/// GeoLocation, GeoTransform and GeoViewpoint nodes as X_ITE places them:
/// the product of the glTF nodes x3dbake writes for each against X_ITE's
/// matrix (a viewpoint's position and orientation).
#[test]
fn locations_and_transforms_as_x_ite_places_them() {
    let Some(dir) = util::tool_dir("X3DBAKE_XITE", "X_ITE's Geospatial nodes") else {
        return;
    };
    let cases: [(&str, &[Chain]); 3] = [
        (
            "gd_yup.x3d",
            &[("Marker", &["Marker"]), ("View", &["View"])],
        ),
        (
            "utm_origin.x3d",
            &[
                (
                    "Block",
                    &["Block_geoCenter", "Block", "Block_geoCenterInverse"],
                ),
                ("Far", &["Far"]),
                ("Look", &["Look"]),
            ],
        ),
        ("gc_gd_plain.x3d", &[("Pin", &["Pin"])]),
    ];
    let t = tempfile::tempdir().unwrap();
    for (name, nodes) in cases {
        let out = t.path().join(name).with_extension("gltf");
        util::bake_ok(&fixture(name).to_string_lossy(), &out, &[]);
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let gltf_nodes = doc["nodes"].as_array().unwrap();
        let by_name = |n: &str| {
            gltf_nodes
                .iter()
                .find(|x| x["name"] == n)
                .unwrap_or_else(|| panic!("{name}: no node {n}"))
        };
        let defs: Vec<&str> = nodes.iter().map(|(d, _)| *d).collect();
        for (answer, (def, chain)) in xite(&dir, name, &defs).iter().zip(nodes) {
            let theirs = match answer.get("matrix") {
                Some(m) => DMat4::from_cols_slice(&util::json_numbers(m)),
                // A GeoViewpoint: its place and turn.
                None => DMat4::from_rotation_translation(
                    DQuat::from_slice(&util::json_numbers(&answer["quaternion"])),
                    DVec3::from_slice(&util::json_numbers(&answer["position"])),
                ),
            };
            let ours = chain
                .iter()
                .fold(DMat4::IDENTITY, |m, n| m * local(by_name(n)));
            // Single precision: the axes to 1e-6, the translation to
            // half its last place (and 0.1 mm).
            let worst = (0..3)
                .map(|c| (ours.col(c) - theirs.col(c)).abs().max_element())
                .fold(0.0, f64::max);
            assert!(worst <= 1e-6, "{name} {def}: {ours} against {theirs}");
            let (a, b) = (ours.w_axis.truncate(), theirs.w_axis.truncate());
            let tol = (1.2e-7 * b.length()).max(1e-4);
            assert!(a.distance(b) <= tol, "{name} {def}: {a} against {b}");
        }
    }
}

/// A GeoPositionInterpolator's values at its keys as X_ITE's (between
/// them X_ITE slerps the origin-relative points, see
/// docs/interpretations.md, and the two part).
#[test]
fn interpolator_keys_as_x_ite_sends_them() {
    let Some(dir) = util::tool_dir("X3DBAKE_XITE", "X_ITE's GeoPositionInterpolator") else {
        return;
    };
    for (name, def, keys, tol) in [
        ("gd_yup.x3d", "Path", [0.0, 0.5, 1.0], 1e-6),
        ("gc_gd_plain.x3d", "Route", [0.0, 1.0, 1.0], 1e-6),
    ] {
        let path = fixture(name);
        let bake = util::load_text(name, &std::fs::read(path).unwrap());
        let id = bake.scene.def(def).unwrap();
        let Some((NodeFn::Value(it), _)) = node_function(&bake.scene, id, InterpOptions::default())
        else {
            panic!("an interpolator")
        };
        let fractions = keys.map(|k| k.to_string()).join(",");
        let answer = &xite(&dir, name, &[&format!("{def}@{fractions}")])[0];
        let mut v = Vec::new();
        for (k, theirs) in keys.iter().zip(answer["values"].as_array().unwrap()) {
            it.eval(*k, &mut v);
            let theirs = DVec3::from_slice(&util::json_numbers(theirs));
            let ours = DVec3::from_slice(&v);
            assert!(
                ours.distance(theirs) <= tol * theirs.length().max(1.0),
                "{name} {def} at {k}: {ours} against {theirs}"
            );
        }
    }
}

/// Every fixture bakes without a warning (but lod_root.x3d's GeoLODs)
/// into glTF the Khronos validator passes; a GeoTransform's translation
/// is animated on its middle node (inside its geoCenter's frame).
#[test]
fn fixtures_bake_clean_and_geo_transforms_animate() {
    let t = tempfile::tempdir().unwrap();
    let mut outs = Vec::new();
    for name in [
        "gd_yup.x3d",
        "utm_origin.x3d",
        "gc_gd_plain.x3d",
        "moving_view.x3d",
    ] {
        let out = t.path().join(name).with_extension("glb");
        let o = util::bake(&fixture(name).to_string_lossy(), &out, &["--deny-warnings"]);
        assert!(o.status.success(), "{name}: {}", util::stderr(&o));
        outs.push(out);
    }
    // (Its GeoLODs are warned about: see
    // geo_lods_at_their_root_level_as_x_ite_draws_them.)
    let lods = t.path().join("lod_root.glb");
    util::bake_ok(&fixture("lod_root.x3d").to_string_lossy(), &lods, &[]);
    outs.push(lods);
    util::assert_validator_clean(&outs);
    let (_d, scene) = util::scene_file(
        "gt.x3d",
        "<X3D><Scene><GeoTransform DEF='GT' geoCenter='37 -122 0'><Shape><Box/></Shape>\
         </GeoTransform><TimeSensor DEF='C' loop='true'/>\
         <PositionInterpolator DEF='P' key='0 1' keyValue='0 0 0 1 2 3'/>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='GT' toField='translation'/>\
         </Scene></X3D>",
    );
    let out = t.path().join("gt.gltf");
    util::bake_ok(&scene, &out, &["--deny-warnings"]);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let target = &doc["animations"][0]["channels"][0]["target"];
    assert_eq!(target["path"], "translation");
    let node = &doc["nodes"][target["node"].as_u64().unwrap() as usize];
    assert_eq!(node["name"], "GT");
    let names = util::node_names(&doc);
    assert_eq!(names, ["GT_geoCenter", "GT", "GT_geoCenterInverse"]);
}

/// GeoLocations that GeoPositionInterpolators move (fixtures/geo/
/// moving_location.x3d: their geovalue_changed into set_geoCoords, in GD
/// with rotateYUp and in UTM) move and turn with their coordinates: the
/// glTF node's translation and rotation, sampled (`--mode sample --rate
/// 10`) and played at each sample. At the interpolators' keys, against
/// X_ITE's matrix: the axes to 1e-6 (a turn of 1.4e-4 rad at the GD
/// path's far end, which a translation alone would miss), the
/// translation to 1 mm (single precision at a few kilometres; 2 cm in
/// UTM, where X_ITE's GeoOrigin is 1.8 cm from its GeoLocation). Between
/// them (where X_ITE slerps the origin-relative points, see
/// docs/interpretations.md), the frame at the coordinates linear in the
/// geoSystem, to the same bounds.
#[test]
fn moving_locations_as_x_ite_places_them() {
    moving_as_x_ite_places_them(
        "moving_location.x3d",
        &[
            ("Rover", "Drive", &[0.0, 0.5, 1.0], 1e-3),
            ("Drone", "Fly", &[0.0, 1.0], 2e-2),
        ],
    );
}

/// GeoViewpoints that GeoPositionInterpolators move (fixtures/geo/
/// moving_view.x3d: their geovalue_changed into set_position, in GD with
/// rotateYUp and in UTM): the camera node moves and turns as the
/// GeoLocations above, its orientation kept relative to the frame at its
/// position (its up the local up), to the same bounds against X_ITE's
/// position and orientation at the keys, and between them. One that an
/// OrientationInterpolator turns (into set_orientation): its rotation is
/// the frame's at its position times the orientation, X_ITE's to 1e-6 at
/// the keys and between them.
#[test]
fn moving_geo_viewpoints_as_x_ite_places_them() {
    let name = "moving_view.x3d";
    moving_as_x_ite_places_them(
        name,
        &[
            ("Pilot", "Glide", &[0.0, 0.5, 1.0], 1e-3),
            ("Chase", "Follow", &[0.0, 1.0], 2e-2),
        ],
    );
    let Some(dir) = util::tool_dir("X3DBAKE_XITE", "X_ITE's turned GeoViewpoint") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let glb = t.path().join("turned.glb");
    util::bake_ok(&fixture(name).to_string_lossy(), &glb, &[]);
    let (doc, buffers, _) = gltf::import(&glb).unwrap();
    let channel = doc
        .animations()
        .flat_map(|a| a.channels().collect::<Vec<_>>())
        .find(|c| c.target().node().name() == Some("Turner"))
        .expect("Turner's rotation");
    let reader = channel.reader(|b| Some(&buffers[b.index()]));
    let gltf::animation::util::ReadOutputs::Rotations(r) = reader.read_outputs().unwrap() else {
        panic!("a rotation channel")
    };
    let played = util::played::Sampler {
        times: reader.read_inputs().unwrap().collect(),
        outputs: r.into_f32().map(|v| v.to_vec()).collect(),
        interpolation: channel.sampler().interpolation(),
        rotation: true,
    };
    let turner = doc.nodes().find(|n| n.name() == Some("Turner")).unwrap();
    let keys = [0.0, 0.25, 0.5, 0.75, 1.0];
    let spec = format!("Turner<Spin@{}", keys.map(|k| k.to_string()).join(","));
    let answer = &xite(&dir, name, &[&spec])[0];
    for (f, view) in keys.iter().zip(answer["views"].as_array().unwrap()) {
        let theirs = DQuat::from_slice(&util::json_numbers(&view["quaternion"]));
        let ours = DQuat::from_slice(&played.at(f * 8.0)).normalize();
        assert!(
            ours.angle_between(theirs) < 1e-6,
            "Turner at {f}: {ours} against {theirs}"
        );
        let at = DVec3::from_slice(&util::json_numbers(&view["position"]));
        let (place, _, _) = turner.transform().decomposed();
        assert!(
            Vec3::from(place).as_dvec3().distance(at) < 1e-3,
            "Turner at {f}: {place:?} against {at}"
        );
    }
}

/// A Geo node moved by a GeoPositionInterpolator, the interpolator, the
/// keys X_ITE is asked at, the bound on the translation there.
type Moved<'a> = (&'a str, &'a str, &'a [f64], f64);

fn moving_as_x_ite_places_them(name: &str, cases: &[Moved]) {
    let Some(dir) = util::tool_dir("X3DBAKE_XITE", "X_ITE's moving Geo nodes") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let glb = t.path().join("moving.glb");
    let flags = ["--mode", "sample", "--rate", "10"];
    util::bake_ok(&fixture(name).to_string_lossy(), &glb, &flags);
    let (doc, buffers, _) = gltf::import(&glb).unwrap();
    let anim = doc.animations().next().expect("the clock's clip");
    let sampler = |node: &str, rotation: bool| {
        use gltf::animation::Property;
        let path = if rotation {
            Property::Rotation
        } else {
            Property::Translation
        };
        let channel = anim
            .channels()
            .find(|c| c.target().node().name() == Some(node) && c.target().property() == path)
            .unwrap_or_else(|| panic!("no channel of {node}"));
        let reader = channel.reader(|b| Some(&buffers[b.index()]));
        use gltf::animation::util::ReadOutputs::*;
        let outputs: Vec<Vec<f32>> = match reader.read_outputs().unwrap() {
            Translations(it) => it.map(|v| v.to_vec()).collect(),
            Rotations(r) => r.into_f32().map(|v| v.to_vec()).collect(),
            _ => panic!("{node}: not a translation or a rotation"),
        };
        util::played::Sampler {
            times: reader.read_inputs().unwrap().collect(),
            outputs,
            interpolation: channel.sampler().interpolation(),
            rotation,
        }
    };
    // Ours at fraction f of the 8 s cycle.
    let ours = |node: &str, f: f64| {
        let t = f * 8.0;
        DMat4::from_rotation_translation(
            DQuat::from_slice(&sampler(node, true).at(t)),
            DVec3::from_slice(&sampler(node, false).at(t)),
        )
    };
    let close = |what: &str, ours: DMat4, theirs: DMat4, tol: f64| {
        let worst = (0..3)
            .map(|c| (ours.col(c) - theirs.col(c)).abs().max_element())
            .fold(0.0, f64::max);
        assert!(worst <= 1e-6, "{what}: {ours} against {theirs}");
        let (a, b) = (ours.w_axis.truncate(), theirs.w_axis.truncate());
        assert!(a.distance(b) <= tol, "{what}: {a} against {b}");
    };
    let specs: Vec<String> = cases
        .iter()
        .map(|(l, i, keys, _)| {
            let keys: Vec<String> = keys.iter().map(f64::to_string).collect();
            format!("{l}<{i}@{}", keys.join(","))
        })
        .collect();
    let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
    let answers = xite(&dir, name, &specs);
    let mut turned = 0.0f64;
    for ((node, _, keys, tol), answer) in cases.iter().zip(&answers) {
        // A GeoLocation's matrices, a GeoViewpoint's places and turns.
        let theirs: Vec<DMat4> = match answer.get("matrices") {
            Some(m) => m
                .as_array()
                .unwrap()
                .iter()
                .map(|m| DMat4::from_cols_slice(&util::json_numbers(m)))
                .collect(),
            None => answer["views"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| {
                    DMat4::from_rotation_translation(
                        DQuat::from_slice(&util::json_numbers(&v["quaternion"])),
                        DVec3::from_slice(&util::json_numbers(&v["position"])),
                    )
                })
                .collect(),
        };
        assert_eq!(theirs.len(), keys.len(), "{node}");
        for (f, &theirs) in keys.iter().zip(&theirs) {
            close(&format!("{node} at key {f}"), ours(node, *f), theirs, *tol);
            let turn = DQuat::from_mat4(&theirs).angle_between(DQuat::from_mat4(&ours(node, 0.0)));
            turned = turned.max(turn);
        }
    }
    assert!(turned > 1e-4, "the GD path turns the node: {turned}");
    // Between the keys: the frame at the coordinates, linear in the
    // geoSystem (a GeoViewpoint's then turned by its orientation).
    let bake = util::load_text(name, &std::fs::read(fixture(name)).unwrap());
    for &(node, interp, _, _) in cases {
        let turn = match bake
            .scene
            .value(bake.scene.def(node).unwrap(), "orientation")
        {
            Some(o) => {
                let o = o.numbers();
                DQuat::from_axis_angle(DVec3::from_slice(&o).normalize(), o[3])
            }
            None => DQuat::IDENTITY,
        };
        let id = bake.scene.def(interp).unwrap();
        let key = bake.scene.value(id, "key").unwrap().numbers();
        let values = bake.scene.value(id, "keyValue").unwrap().numbers();
        let frame = x3dbake::internal::geo::Frame::of(&bake.scene, bake.scene.def(node).unwrap());
        for k in 0..=80 {
            let f = f64::from(k) / 80.0;
            let i = key.partition_point(|&x| x <= f).clamp(1, key.len() - 1);
            let w = ((f - key[i - 1]) / (key[i] - key[i - 1])).clamp(0.0, 1.0);
            let (a, b) = (
                DVec3::from_slice(&values[3 * (i - 1)..]),
                DVec3::from_slice(&values[3 * i..]),
            );
            let place = frame.location(a.lerp(b, w));
            let want = DMat4::from_rotation_translation(
                DQuat::from_mat3(&place.matrix3) * turn,
                place.translation,
            );
            close(&format!("{node} at {f}"), ours(node, f), want, 1e-3);
        }
    }
}

/// A GeoCoordinate whose points a Script moves (fixtures/geo/
/// moving_points.x3d: MFVec3d into set_point, a corner rising 200 m and
/// going east each 4 s cycle) is drawn as a morph of its points in the
/// scene's frame. Baked in world time (`--timeline --rate 10`, within
/// 0.1 mm: `--tolerance 1e-4`) and played
/// at 80 times between the frames, among them either side of the clock's
/// wrap: each corner where X_ITE's points (its timeline of the
/// GeoCoordinate, its Script run on its clock) are drawn, to 1 mm (the
/// points taken to the scene's frame as X_ITE draws them, see
/// `geometry_as_x_ite_draws_it`).
#[test]
fn points_a_script_moves_as_x_ite_moves_them() {
    let Some(dir) = util::tool_dir("X3DBAKE_XITE", "X_ITE's GeoCoordinate in world time") else {
        return;
    };
    let name = "moving_points.x3d";
    let times: Vec<f64> = (0..80).map(|i| 0.05 + f64::from(i) / 10.0).collect();
    let text: Vec<String> = times.iter().map(|t| format!("{t}")).collect();
    let theirs = util::xite::xite_timeline(
        &dir,
        &fixture(name),
        &text,
        "xite-timeline-e2e.mjs",
        &["--load-urls", "--all-components"],
    );
    let t = tempfile::tempdir().unwrap();
    let glb = t.path().join("points.glb");
    let flags = [
        "--timeline",
        "--load-time",
        "0",
        "--rate",
        "10",
        "--end",
        "8.5",
        "--tolerance",
        "1e-4",
    ];
    util::bake_ok(&fixture(name).to_string_lossy(), &glb, &flags);
    let (doc, buffers, _) = gltf::import(&glb).unwrap();
    let data = |b: gltf::Buffer| Some(&buffers[b.index()][..]);
    let primitive = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = primitive.reader(data);
    let rest: Vec<DVec3> = reader
        .read_positions()
        .unwrap()
        .map(|p| Vec3::from(p).as_dvec3())
        .collect();
    let targets: Vec<Vec<DVec3>> = reader
        .read_morph_targets()
        .map(|(p, _, _)| p.unwrap().map(|p| Vec3::from(p).as_dvec3()).collect())
        .collect();
    let channel = doc.animations().next().unwrap().channels().next().unwrap();
    let r = channel.reader(data);
    let keys: Vec<f32> = r.read_inputs().unwrap().collect();
    let weights: Vec<f32> = match r.read_outputs().unwrap() {
        gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => w.into_f32().collect(),
        _ => panic!("a weights channel"),
    };
    let n = targets.len();
    // The corners at time t: the rest plus the weighted targets, the
    // weights linear between keys.
    let drawn = |t: f64| -> Vec<DVec3> {
        let i = keys
            .partition_point(|&k| f64::from(k) <= t)
            .clamp(1, keys.len() - 1);
        let (a, b) = (f64::from(keys[i - 1]), f64::from(keys[i]));
        let s = ((t - a) / (b - a)).clamp(0.0, 1.0);
        let w = |j: usize| {
            let (x, y) = (weights[(i - 1) * n + j], weights[i * n + j]);
            f64::from(x) + s * f64::from(y - x)
        };
        (0..rest.len())
            .map(|v| rest[v] + (0..n).map(|j| targets[j][v] * w(j)).sum::<DVec3>())
            .collect()
    };
    let bake = util::load_text(name, &std::fs::read(fixture(name)).unwrap());
    let frame = x3dbake::internal::geo::Frame::of(&bake.scene, bake.scene.def("Corners").unwrap());
    let rows = theirs["series"]["Corners.point"]["rows"]
        .as_array()
        .unwrap();
    assert_eq!(rows.len(), times.len());
    let mut worst = (0.0f64, 0.0);
    for (row, &t) in rows.iter().zip(&times) {
        let geo = util::json_numbers(row);
        let ours = drawn(t);
        for (p, q) in geo[1..].chunks_exact(3).zip(&ours) {
            let e = frame.point(DVec3::from_slice(p)).distance(*q);
            if e > worst.0 {
                worst = (e, t);
            }
        }
    }
    assert!(worst.0 < 1e-3, "{worst:?}");
}

/// A glTF node's subtree's bounding box in the node's frame (its meshes'
/// accessor bounds, through the nodes' transforms below it).
fn subtree_bounds(node: gltf::Node, m: DMat4, b: &mut (DVec3, DVec3)) {
    for p in node.mesh().iter().flat_map(|m| m.primitives()) {
        let bb = p.bounding_box();
        let (lo, hi) = (Vec3::from(bb.min).as_dvec3(), Vec3::from(bb.max).as_dvec3());
        for k in 0..8 {
            let corner = DVec3::select(glam::BVec3::new(k & 1 > 0, k & 2 > 0, k & 4 > 0), hi, lo);
            let q = m.transform_point3(corner);
            *b = (b.0.min(q), b.1.max(q));
        }
    }
    for c in node.children() {
        let local = glam::Mat4::from_cols_array_2d(&c.transform().matrix()).as_dmat4();
        subtree_bounds(c, m * local, b);
    }
}

/// GeoLODs (fixtures/geo/lod_root.x3d) are written at the root level X_ITE
/// draws at load, from afar: `Near`'s rootNode (a GeoLocation and a
/// Shape), `Far`'s rootUrl file (lod_tile.x3d, read as an Inline's, its
/// DEFs prefixed); the same root nodes as X_ITE's, and the same bounding
/// box (to 1 mm). One warning each names the child URLs and the range
/// switching left out.
#[test]
fn geo_lods_at_their_root_level_as_x_ite_draws_them() {
    let name = "lod_root.x3d";
    let t = tempfile::tempdir().unwrap();
    let glb = t.path().join("lod.glb");
    let input = fixture(name).to_string_lossy().into_owned();
    let o = util::run(&[&input, "-o", &glb.to_string_lossy()]);
    assert!(o.status.success(), "{}", util::stderr(&o));
    let err = util::stderr(&o);
    for want in [
        "`Near` (GeoLOD) is written at its root level, as a viewer farther than its range (500 m) \
         from its center sees it: the level within range (child1Url `lod_tile.x3d`, child2Url \
         `lod_tile.x3d`) and the switching are not written",
        "`Far` (GeoLOD) is written at its root level, as a viewer farther than its range (1000 \
         m) from its center sees it: the level within range (child3Url `lod_tile.x3d`) and the \
         switching are not written",
    ] {
        assert!(err.contains(want), "{err}");
    }
    assert!(err.contains("2 warnings"), "{err}");
    let (doc, _, _) = gltf::import(&glb).unwrap();
    let lod = |n: &str| doc.nodes().find(|x| x.name() == Some(n)).unwrap();
    let roots = |n: &str| -> Vec<String> {
        lod(n)
            .children()
            .map(|c| c.name().unwrap().rsplit('.').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(roots("Near"), ["Mast", "Flag"]);
    assert_eq!(roots("Far"), ["TileSpot"]);
    let Some(dir) = util::tool_dir("X3DBAKE_XITE", "X_ITE's GeoLOD") else {
        return;
    };
    for answer in xite(&dir, name, &["Near", "Far"]) {
        let n = answer["name"].as_str().unwrap();
        let theirs: Vec<String> = answer["roots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[1].as_str().unwrap().to_string())
            .collect();
        assert_eq!(roots(n), theirs, "{n}");
        let mut b = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        subtree_bounds(lod(n), DMat4::IDENTITY, &mut b);
        let size = DVec3::from_slice(&util::json_numbers(&answer["bbox"]["size"]));
        let center = DVec3::from_slice(&util::json_numbers(&answer["bbox"]["center"]));
        assert!(
            (b.1 - b.0).distance(size) < 1e-3,
            "{n}: {b:?} against {size}"
        );
        assert!(
            ((b.0 + b.1) / 2.0).distance(center) < 1e-3,
            "{n}: {b:?} against {center}"
        );
    }
}
