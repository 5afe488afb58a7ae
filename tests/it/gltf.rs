//! glTF output from the command line: every fixture in every form, checked
//! by the Khronos validator (when X3DBAKE_VALIDATOR names its install),
//! read back with an independent reader (the `gltf` crate) and played per
//! the glTF spec against direct evaluation of the X3D; determinism; atomic
//! writes.

use crate::util;
use crate::util::played::{accessor_f32, read_back, strip_pointers};
use crate::util::{bake, bake_ok};

use std::path::Path;
use x3dbake::internal::anim::clip::ClipOptions;

const FORMS: &[(&str, &[&str])] = &[
    ("gltf", &[]),
    ("embedded.gltf", &["--embed"]),
    ("glb", &[]),
    ("sampled.glb", &["--mode", "sample"]),
    (
        "step.glb",
        &[
            "--mode",
            "sample",
            "--interpolation",
            "step",
            "--rate",
            "10",
        ],
    ),
    (
        "cubic.glb",
        &[
            "--mode",
            "sample",
            "--interpolation",
            "cubic",
            "--rate",
            "12",
        ],
    ),
    ("cycles.glb", &["--cycles", "3", "--tangents", "c1"]),
    ("compressed.glb", &["--compress"]),
    ("compressed.gltf", &["--compress"]),
];
#[test]
fn every_fixture_in_every_form_is_validator_clean() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for scene in util::fixtures("scenes", "x3d") {
        let stem = scene.file_stem().unwrap().to_string_lossy().into_owned();
        for (ext, flags) in FORMS {
            let out = dir.path().join(format!("{stem}.{ext}"));
            let o = bake(&scene.to_string_lossy(), &out, flags);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{stem}.{ext}: {}",
                util::stderr(&o)
            );
            files.push(out);
        }
    }
    util::assert_validator_clean(&files);
}
/// The largest error of every channel of a baked file against the X3D, on
/// a grid of 4001 points from the start of each clip to its end, with key
/// counts.
fn max_error(x3d: &Path, baked: &Path) -> (f64, usize) {
    let points = 4000;
    let (mut worst, mut keys) = (0.0f64, 0);
    for p in read_back(x3d, baked, ClipOptions::default()) {
        keys += p.sampler.times.len();
        for i in 0..=points {
            let t = p.clip.duration() * i as f64 / points as f64;
            let e = x3dbake::internal::anim::reduce::distance(
                &p.sampler.at(t),
                &p.want(t),
                p.path == "rotation",
                3,
            );
            worst = worst.max(e);
        }
    }
    (worst, keys)
}
#[test]
fn tolerance_is_a_true_bound_with_fewer_keys() {
    let dir = tempfile::tempdir().unwrap();
    for scene in util::fixtures("scenes", "x3d") {
        let input = scene.to_string_lossy().into_owned();
        let plain = dir.path().join("plain.glb");
        bake(&input, &plain, &["--mode", "sample", "--rate", "60"]);
        let (_, plain_keys) = max_error(&scene, &plain);
        for tol in [0.05, 0.005, 0.0005] {
            for mode in ["exact", "sample"] {
                let out = dir.path().join("t.glb");
                let t = tol.to_string();
                let o = bake(
                    &input,
                    &out,
                    &["--tolerance", &t, "--mode", mode, "--keep-constant"],
                );
                assert_eq!(o.status.code(), Some(0));
                let (err, keys) = max_error(&scene, &out);
                // The bound holds between grid points too, up to f32 storage.
                assert!(
                    err <= tol * 1.05 + 2e-6,
                    "{input} {mode} tolerance {tol}: error {err}"
                );
                if mode == "sample" {
                    assert!(
                        keys <= plain_keys,
                        "{input}: {keys} keys vs {plain_keys} at 60 Hz"
                    );
                }
            }
        }
    }
}
/// A --tolerance finer than glTF's f32 numbers hold (1e-10, 1e-30) is
/// held at four f32 steps of each track's largest value, with a warning:
/// before, the fit cut ever shorter segments until the key limit or memory
/// gave out (killed after minutes). Both give the keys of that bound.
#[test]
fn a_tolerance_finer_than_f32_holds_is_what_f32_holds() {
    let text = std::fs::read(util::root().join("fixtures/scenes/bouncing_box.x3d")).unwrap();
    let made = |tol: f64| {
        let limits = x3dbake::Limits::default();
        let mut bake = x3dbake::Bake::load("bouncing_box.x3d", text.clone(), None, None, limits);
        bake.animate(Default::default());
        let opts = x3dbake::gltf::Options {
            keys: x3dbake::gltf::KeyOptions {
                tolerance: Some(tol),
                ..Default::default()
            },
            ..Default::default()
        };
        let doc = bake.gltf(&opts, None).unwrap();
        let messages = util::messages(&bake.diags);
        assert!(!bake.diags.has_errors(), "{messages:?}");
        let warned = messages
            .iter()
            .filter(|m| m.starts_with(&format!("--tolerance {tol:e} is finer than glTF's f32")))
            .count();
        (doc.json(), doc.buffer().unwrap().into_owned(), warned)
    };
    let (fine, finer) = (made(1e-10), made(1e-30));
    assert_eq!((fine.2, finer.2), (1, 1), "one warning each");
    assert!(fine.0 == finer.0 && fine.1 == finer.1, "the same document");
    let (json, bin, warned) = made(1e-3);
    assert_eq!(warned, 0);
    assert!(bin.len() < fine.1.len(), "{} bytes at 1e-3", json.len());
}

#[test]
fn constant_tracks_collapse_and_unchanging_ones_are_dropped() {
    let (dir, x3d) = util::scene_file(
        "k.x3d",
        "<X3D><Scene><Transform DEF='Still' translation='1 2 3'/><Transform DEF='Moved' translation='0 0 0'/>\
         <TimeSensor DEF='T' cycleInterval='2'/>\
         <PositionInterpolator DEF='Same' key='0 0.5 1' keyValue='1 2 3 1 2 3 1 2 3'/>\
         <PositionInterpolator DEF='Hold' key='0 1' keyValue='5 5 5 5 5 5'/>\
         <ROUTE fromNode='T' fromField='fraction_changed' toNode='Same' toField='set_fraction'/>\
         <ROUTE fromNode='Same' fromField='value_changed' toNode='Still' toField='translation'/>\
         <ROUTE fromNode='T' fromField='fraction_changed' toNode='Hold' toField='set_fraction'/>\
         <ROUTE fromNode='Hold' fromField='value_changed' toNode='Moved' toField='translation'/></Scene></X3D>",
    );
    let out = dir.path().join("k.gltf");
    let channels = |extra: &[&str]| {
        bake(&x3d, &out, &[&["--embed"], extra].concat());
        let (doc, buffers, _) = gltf::import(&out).unwrap();
        doc.animations()
            .flat_map(|a| a.channels().collect::<Vec<_>>())
            .map(|c| {
                let n = c
                    .reader(|b| Some(&buffers[b.index()]))
                    .read_inputs()
                    .unwrap()
                    .count();
                (c.target().node().name().unwrap().to_string(), n)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        channels(&[]),
        [("Still".to_string(), 3), ("Moved".to_string(), 2)]
    );
    // Still never leaves its own translation: dropped. Moved holds at 5 5 5: one key.
    assert_eq!(
        channels(&["--tolerance", "0.001"]),
        [("Moved".to_string(), 1)]
    );
    assert_eq!(
        channels(&["--tolerance", "0.001", "--keep-constant"]),
        [("Still".to_string(), 1), ("Moved".to_string(), 1)]
    );
}
/// The glTF document of the scene at `path` (its clips as a default bake
/// makes them; no images read), and its diagnostics.
fn build_document(
    path: &Path,
    opts: &x3dbake::internal::write::gltf::Options,
) -> (
    x3dbake::internal::write::gltf::Document,
    x3dbake::internal::diag::Diagnostics,
) {
    let (scene, clips) = util::load_clips(path, ClipOptions::default());
    let mut diags = x3dbake::internal::diag::Diagnostics::default();
    let mut no_images = |_: x3dbake::internal::scene::NodeId, _: &str| Err("none".to_string());
    let doc = x3dbake::internal::write::gltf::build(
        &scene,
        &clips,
        opts,
        &mut no_images,
        &mut diags,
        None,
    );
    (doc, diags)
}

#[test]
fn meshes_past_the_buffer_limit_stop_the_bake_at_the_geometry() {
    // 40 spheres of different radii, each tessellated and stored on its
    // own (their normals, texture coordinates and indices, equal, shared);
    // a limit of ten and a half spheres' bytes stops at the eleventh,
    // reported there.
    let build = |text: &str, limit: usize| {
        let (_dir, path) = util::scene_file("spheres.x3d", text);
        let opts = x3dbake::internal::write::gltf::Options {
            limits: x3dbake::Limits {
                buffer_bytes: limit,
                ..Default::default()
            },
            ..Default::default()
        };
        let (doc, diags) = build_document(Path::new(&path), &opts);
        (doc.buffer_len(), diags.list().to_vec())
    };
    let sphere = |i: usize| format!("<Shape><Sphere radius='{}'/></Shape>\n", 10 + i);
    let scene = |n: usize| {
        format!(
            "<X3D><Scene>\n{}</Scene></X3D>",
            (0..n).map(sphere).collect::<String>()
        )
    };
    let (one, diags) = build(&scene(1), usize::MAX);
    assert!(diags.is_empty() && one > 10_000, "{one} {diags:?}");
    // Each sphere after the first adds its positions alone.
    let (two, _) = build(&scene(2), usize::MAX);
    let more = two - one;
    assert!(more > 5_000 && more < one / 2, "{one} {more}");
    let forty = scene(40);
    let (all, diags) = build(&forty, one + 39 * more);
    assert_eq!((all, diags.len()), (one + 39 * more, 0), "{diags:?}");
    let limit = one + 9 * more + more / 2;
    let (stopped, diags) = build(&forty, limit);
    assert_eq!(stopped, one + 10 * more);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        diags[0].message,
        format!(
            "the glTF buffer would hold more than {limit} bytes (a mesh is stored for each \
             geometry node, and again for each appearance it is USE'd with): stopped at `<Sphere>`"
        )
    );
    // The eleventh Sphere, on line 12: its element after `<Shape>`.
    let span = diags[0].span.unwrap();
    let start = "<X3D><Scene>\n".len() + 10 * sphere(0).len() + "<Shape><".len();
    assert_eq!(span.start as usize, start);
}
#[test]
fn an_image_texture_used_by_several_appearances_is_embedded_once() {
    // One ImageTexture node, USE'd in three appearances (two of them with
    // their own TextureTransform): one image, one texture, three materials.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.glb");
    let x3d = util::root().join("fixtures/scenes/textures.x3d");
    bake_ok(&x3d.to_string_lossy(), &out, &[]);
    let (json, _) = util::document_json(&std::fs::read(&out).unwrap());
    assert_eq!(json["images"].as_array().unwrap().len(), 1);
    assert_eq!(json["textures"].as_array().unwrap().len(), 1);
    let materials = json["materials"].as_array().unwrap();
    assert_eq!(materials.len(), 3);
    let transforms: Vec<&serde_json::Value> = materials
        .iter()
        .map(|m| {
            let info = &m["pbrMetallicRoughness"]["baseColorTexture"];
            assert_eq!(info["index"], 0);
            &info["extensions"]["KHR_texture_transform"]
        })
        .collect();
    assert!(transforms[0].is_null());
    assert_eq!(transforms[1]["rotation"], 0.4);
    assert_eq!(transforms[2]["scale"], serde_json::json!([2.0, 2.0]));
}
#[test]
fn a_line_set_whose_counts_pass_its_points_draws_the_points_there_are() {
    // vertexCount 2, then 2^31 - 1 a thousand times over four points: the
    // first strip is points 0-1, the second what is left (2-3), the rest
    // empty. Each count was walked point by point (0.8 s each).
    let counts = format!("2{}", " 2147483647".repeat(1000));
    let text = format!(
        "<X3D><Scene><Shape><LineSet vertexCount='{counts}'>\
         <Coordinate point='0 0 0, 1 0 0, 2 0 0, 3 0 0'/></LineSet></Shape></Scene></X3D>"
    );
    let (dir, path) = util::scene_file("lines.x3d", &text);
    let out = dir.path().join("lines.glb");
    let o = util::run_within(&[&path, "-o", out.to_str().unwrap()], 20);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&std::fs::read(&out).unwrap());
    let prim = &json["meshes"][0]["primitives"][0];
    assert_eq!(prim["mode"], 1, "LINES");
    let count = |a: &serde_json::Value| &json["accessors"][a.as_u64().unwrap() as usize]["count"];
    assert_eq!(count(&prim["attributes"]["POSITION"]), 4);
    assert_eq!(count(&prim["indices"]), 4);
}
#[test]
fn interpolators_setting_one_field_at_once_bake_the_last_event() {
    // Three interpolators of one clock drive X.translation; the fraction
    // routes reach P0, P2, P1 in that order, so P1's event comes last and
    // wins (X_ITE 15 plays (0, 0.25, 0) at t = 0.25). glTF allows one
    // channel a target in an animation: three were written, which the
    // validator refused (ANIMATION_DUPLICATE_TARGETS).
    let text = "<X3D><Scene><TimeSensor DEF='T' loop='true'/><Transform DEF='X'/>
<PositionInterpolator DEF='P0' key='0 1' keyValue='0 0 0 1 0 0'/>
<PositionInterpolator DEF='P1' key='0 1' keyValue='0 0 0 0 1 0'/>
<PositionInterpolator DEF='P2' key='0 1' keyValue='0 0 0 0 0 1'/>
<ROUTE fromNode='P1' fromField='value_changed' toNode='X' toField='translation'/>
<ROUTE fromNode='T' fromField='fraction_changed' toNode='P0' toField='set_fraction'/>
<ROUTE fromNode='T' fromField='fraction_changed' toNode='P2' toField='set_fraction'/>
<ROUTE fromNode='P0' fromField='value_changed' toNode='X' toField='translation'/>
<ROUTE fromNode='T' fromField='fraction_changed' toNode='P1' toField='set_fraction'/>
<ROUTE fromNode='P2' fromField='value_changed' toNode='X' toField='translation'/>
</Scene></X3D>";
    let (dir, path) = util::scene_file("three.x3d", text);
    let out = dir.path().join("three.glb");
    let o = util::run(&[&path, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        util::stderr(&o).lines().next().unwrap(),
        format!(
            "{path}:8:2: warning: `X.translation` is set 3 times at once in clip `T`: the last \
             event, from `P1`, wins; the others (from `P0`, `P2`) are not baked"
        )
    );
    let (scene, clips) = util::load_clips(Path::new(&path), ClipOptions::default());
    assert_eq!(clips[0].tracks.len(), 1);
    let track = &clips[0].tracks[0];
    assert_eq!(scene.node(track.source).def.as_deref(), Some("P1"));
    let mut v = Vec::new();
    clips[0].eval(track, 0.25, &mut v);
    assert_eq!(v, [0.0, 0.25, 0.0]);
    let (json, _) = util::document_json(&std::fs::read(&out).unwrap());
    assert_eq!(
        json["animations"][0]["channels"].as_array().unwrap().len(),
        1
    );
    util::assert_validator_clean(&[out]);
}
#[test]
fn long_def_names_are_cut_in_the_gltf() {
    // Each copy of a USE'd node carries its name: a name of 100 KB copied
    // 500 000 times took 16 GB. Names are cut to 256 bytes, at a character
    // boundary ('é' is two bytes: 128 of them).
    let name = "é".repeat(300);
    let text = format!(
        "<X3D><Scene><Group DEF='G'><Transform DEF='{name}'/></Group>\
         <Group USE='G'/></Scene></X3D>"
    );
    let (dir, path) = util::scene_file("names.x3d", &text);
    let out = dir.path().join("names.glb");
    bake_ok(&path, &out, &[]);
    let (json, _) = util::document_json(&std::fs::read(&out).unwrap());
    let cut = "é".repeat(128);
    let names: Vec<&str> = util::node_names(&json)
        .into_iter()
        .filter(|n| n.starts_with('é'))
        .collect();
    assert_eq!(names, [cut.as_str(), cut.as_str()]);
}
/// A full turn in quarter steps is never one value within 3 rad: between
/// its keys at a quarter and three quarters of a turn, the slerp arc passes
/// the half turn, π from the start. (Keys alone were all within π/2 of it,
/// and the track collapsed to one key, π off.)
#[test]
fn a_turn_is_not_constant_within_less_than_pi() {
    let (dir, x3d) = util::scene_file(
        "turn.x3d",
        "<X3D><Scene><Transform DEF='T'><Shape><Box/></Shape></Transform>\
         <TimeSensor DEF='TS' loop='true' cycleInterval='4'/>\
         <OrientationInterpolator DEF='OI' key='0 0.25 0.5 0.75 1' \
          keyValue='1 0 0 0, 1 0 0 1.571, 1 0 0 3.142, 1 0 0 4.712, 1 0 0 6.2831'/>\
         <ROUTE fromNode='TS' fromField='fraction_changed' toNode='OI' toField='set_fraction'/>\
         <ROUTE fromNode='OI' fromField='value_changed' toNode='T' toField='rotation'/>\
         </Scene></X3D>",
    );
    let out = dir.path().join("turn.glb");
    for tol in ["2.24", "3"] {
        bake_ok(&x3d, &out, &["--tolerance", tol, "--keep-constant"]);
        let (err, keys) = max_error(Path::new(&x3d), &out);
        let tol: f64 = tol.parse().unwrap();
        assert!(
            err <= tol * 1.001,
            "{keys} keys, {err} rad off at --tolerance {tol}"
        );
        assert!(keys > 1);
    }
}
/// A light turned on by a sequencer is written with no intensity at rest
/// and a STEP intensity channel of the file's intensity or 0, in both
/// modes; one whose intensity is animated too has no pointer for the
/// product, and its `on` track is named as not written.
#[test]
fn a_light_turned_on_and_off_is_its_intensity_or_none() {
    let scene = r#"<X3D><Scene>
      <PointLight DEF="Blink" intensity="0.6" on="false"/>
      <PointLight DEF="Both"/>
      <TimeSensor DEF="C" cycleInterval="2" loop="true"/>
      <BooleanSequencer DEF="S" key="0 0.5" keyValue="true false"/>
      <ScalarInterpolator DEF="I" key="0 1" keyValue="0.2 1"/>
      <ROUTE fromNode="C" fromField="fraction_changed" toNode="S" toField="set_fraction"/>
      <ROUTE fromNode="C" fromField="fraction_changed" toNode="I" toField="set_fraction"/>
      <ROUTE fromNode="S" fromField="value_changed" toNode="Blink" toField="on"/>
      <ROUTE fromNode="S" fromField="value_changed" toNode="Both" toField="on"/>
      <ROUTE fromNode="I" fromField="value_changed" toNode="Both" toField="intensity"/>
    </Scene></X3D>"#;
    let (dir, path) = util::scene_file("lights.x3d", scene);
    for flags in [&[][..], &["--mode", "sample"][..]] {
        let out = dir.path().join("lights.glb");
        let o = util::run(
            &[&path, "-o", &out.to_string_lossy()]
                .into_iter()
                .chain(flags.iter().copied())
                .collect::<Vec<_>>(),
        );
        assert!(o.status.success(), "{}", util::stderr(&o));
        assert!(
            util::stderr(&o).contains("`Both.on` (PointLight) has no glTF animation target yet"),
            "{}",
            util::stderr(&o)
        );
        let (json, _) = util::document_json(&std::fs::read(&out).unwrap());
        let lights = &json["extensions"]["KHR_lights_punctual"]["lights"];
        assert_eq!(
            (lights[0]["name"].as_str(), lights[0]["intensity"].as_f64()),
            (Some("Blink"), Some(0.0))
        );
        let (stripped, pointers) = strip_pointers(&out);
        let on: Vec<_> = pointers
            .iter()
            .filter(|p| p.pointer == "/extensions/KHR_lights_punctual/lights/0/intensity")
            .collect();
        assert_eq!(on.len(), 1, "{flags:?}");
        assert_eq!(on[0].interpolation, "STEP", "{flags:?}");
        let (doc, buffers, _) = gltf::import(&stripped).unwrap();
        let values = accessor_f32(&doc, &buffers, on[0].output);
        assert!(values.iter().all(|&v| v == 0.0 || v == 0.6), "{values:?}");
        assert!(values.contains(&0.0) && values.contains(&0.6), "{values:?}");
    }
}
/// Meshes are named after their geometry's DEF (else their Shape's) and
/// materials after their Material's (else their Appearance's), so that an
/// editor shows the X3D names.
#[test]
fn meshes_and_materials_are_named_after_their_x3d_nodes() {
    let (_dir, f) = util::scene_file(
        "n.x3d",
        "<X3D><Scene>\
         <Shape DEF='Hull'><Appearance><Material DEF='Paint'/></Appearance><Box DEF='Block'/></Shape>\
         <Shape DEF='Mast'><Appearance DEF='Look'><Material/></Appearance><Sphere/></Shape>\
         <Shape><Sphere radius='2'/></Shape>\
         </Scene></X3D>",
    );
    let o = util::run(&[&f, "-o", "-", "--format", "glb", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    let names = |what: &str| -> Vec<serde_json::Value> {
        json[what]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].clone())
            .collect()
    };
    assert_eq!(
        names("meshes"),
        [
            serde_json::json!("Block"),
            serde_json::json!("Mast"),
            serde_json::Value::Null
        ]
    );
    let materials = names("materials");
    assert!(
        materials.contains(&serde_json::json!("Paint")),
        "{materials:?}"
    );
    assert!(
        materials.contains(&serde_json::json!("Look")),
        "{materials:?}"
    );
}
/// A node with nothing under it that nothing names, animates or skins is
/// not written (the validator's NODE_EMPTY: an unnamed Switch showing
/// none of its choices, an Inline whose file is not there); a DEF'd one
/// stays, a name a viewer or script may look for.
#[test]
fn empty_nodes_nothing_names_are_left_out() {
    let (_dir, f) = util::scene_file(
        "e.x3d",
        "<X3D><Scene><Group><Switch whichChoice='-1'><Shape><Box/></Shape></Switch>\
         <Inline url='\"missing.x3d\"'/><Shape><Sphere/></Shape></Group>\
         <Switch DEF='Kept' whichChoice='-1'><Shape><Box/></Shape></Switch></Scene></X3D>",
    );
    let o = util::run(&[&f, "-o", "-", "--format", "glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    let nodes = json["nodes"].as_array().unwrap();
    // The Group with its Sphere, and Kept.
    assert_eq!(nodes.len(), 3, "{nodes:?}");
    assert_eq!(nodes[0]["children"], serde_json::json!([1]));
    assert!(nodes[1]["mesh"].is_u64());
    assert_eq!(nodes[2]["name"], "Kept");
    assert_eq!(json["scenes"][0]["nodes"], serde_json::json!([0, 2]));
}
/// Equal things are written once: three Spheres with equal Materials (no
/// DEF, no USE) are one mesh and one material on three nodes; a Material
/// a clip animates keeps its own (its channel must not move the others).
#[test]
fn equal_meshes_and_materials_are_written_once() {
    let shape = |t: &str, def: &str| {
        format!(
            "<Transform translation='{t} 0 0'><Shape><Appearance><Material {def} diffuseColor='1 0 0'/>\
             </Appearance><Sphere/></Shape></Transform>"
        )
    };
    let (_dir, f) = util::scene_file(
        "same.x3d",
        &format!(
            "<X3D><Scene>{}{}{}{}\
             <TimeSensor DEF='C' loop='true'/><ColorInterpolator DEF='I' key='0 1' keyValue='1 0 0 0 0 1'/>\
             <ROUTE fromNode='C' fromField='fraction_changed' toNode='I' toField='set_fraction'/>\
             <ROUTE fromNode='I' fromField='value_changed' toNode='M' toField='diffuseColor'/></Scene></X3D>",
            shape("0", ""),
            shape("3", ""),
            shape("6", ""),
            shape("9", "DEF='M'")
        ),
    );
    let o = util::run(&[&f, "-o", "-", "--format", "glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    assert_eq!(json["materials"].as_array().unwrap().len(), 2);
    assert_eq!(json["meshes"].as_array().unwrap().len(), 2);
    let meshes: Vec<u64> = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["mesh"].as_u64())
        .collect();
    assert_eq!(meshes, [0, 0, 0, 1]);
    assert_eq!(json["meshes"][1]["primitives"][0]["material"], 1);
    assert_eq!(json["materials"][1]["name"], "M");
}
/// A CollidableShape's shape is drawn where it stands, as X_ITE draws it
/// (its `shape` field, not `children`, moved by its translation), as a
/// CADFace's is.
#[test]
fn collidable_shapes_and_cad_faces_are_drawn() {
    let (_dir, f) = util::scene_file(
        "c.x3d",
        "<X3D profile='Full'><Scene><CollidableShape translation='1 0 0'><Shape containerField='shape'><Box/></Shape></CollidableShape>\
         <CADFace><Shape containerField='shape'><Sphere/></Shape></CADFace></Scene></X3D>",
    );
    let o = util::run(&[&f, "-o", "-", "--format", "glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    let nodes = json["nodes"].as_array().unwrap();
    assert_eq!(nodes.iter().filter(|n| n["mesh"].is_u64()).count(), 2);
    assert_eq!(nodes[0]["translation"], serde_json::json!([1.0, 0.0, 0.0]));
}

/// Keys closer than 0.01 frame at 24 fps (Blender merges them) are named
/// with their clip; a clip of whole frames is not.
#[test]
fn keys_closer_than_a_frame_grid_keeps_are_named() {
    let scene = |cycle: &str| {
        format!(
            "<X3D><Scene><TimeSensor DEF='Fast' cycleInterval='{cycle}' loop='true'/>\
             <Transform DEF='T'/>\
             <PositionInterpolator DEF='P' key='0 0.5 1' keyValue='0 0 0 1 0 0 0 0 0'/>\
             <ROUTE fromNode='Fast' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
             <ROUTE fromNode='P' fromField='value_changed' toNode='T' toField='translation'/>\
             </Scene></X3D>"
        )
    };
    for (cycle, named) in [("0.0002", true), ("0.1", false)] {
        let (dir, x3d) = util::scene_file("fast.x3d", &scene(cycle));
        let o = util::run(&[&x3d, "-o", &dir.path().join("f.glb").to_string_lossy()]);
        assert!(o.status.success(), "{}", util::stderr(&o));
        let said = util::stderr(&o);
        assert_eq!(
            said.contains("clip `Fast`: keys 1.00e-4 s apart, 2.4e-3 frames at 24 fps"),
            named,
            "{cycle}: {said}"
        );
    }
    // A jump (two keys at one fraction) in LINEAR keys is named too: Blender
    // merges the two keys.
    let jumping = scene("1").replace("key='0 0.5 1'", "key='0 0.5 0.5'");
    let (dir, x3d) = util::scene_file("jump.x3d", &jumping);
    let o = util::run(&[&x3d, "-o", &dir.path().join("j.glb").to_string_lossy()]);
    assert!(
        util::stderr(&o).contains("clip `Fast`: a value jumps at 0.5 s (two keys at one time)"),
        "{}",
        util::stderr(&o)
    );
}

#[test]
fn a_counted_document_places_every_accessor_where_a_bake_does() {
    // `inspect`'s document counts the buffer's bytes: a large morphing
    // grid (its displacements never made, its normals remade at each key),
    // a small one and equal Spheres (whose accessors, shared, are still
    // compared) must land where a bake puts them.
    let grid = |n: usize, name: &str| {
        let mut points = String::new();
        let mut moved = String::new();
        for i in 0..n * n {
            let (x, z) = ((i % n) as f32, (i / n) as f32);
            points.push_str(&format!("{x} 0 {z} "));
            moved.push_str(&format!("{x} {} {z} ", (x * 0.3).sin() * z));
        }
        let quads: String = (0..(n - 1) * (n - 1))
            .map(|q| {
                let (i, j) = (q % (n - 1), q / (n - 1));
                let a = j * n + i;
                format!("{a} {} {} {} -1 ", a + 1, a + n + 1, a + n)
            })
            .collect();
        format!(
            "<Shape><IndexedFaceSet coordIndex='{quads}'><Coordinate DEF='{name}' point='{points}'/>\
             </IndexedFaceSet></Shape>\
             <CoordinateInterpolator DEF='{name}I' key='0 0.5 1' keyValue='{points} {moved} {points}'/>\
             <ROUTE fromNode='Clock' fromField='fraction_changed' toNode='{name}I' toField='set_fraction'/>\
             <ROUTE fromNode='{name}I' fromField='value_changed' toNode='{name}' toField='set_point'/>"
        )
    };
    // A large grid whose normals and texture coordinates are animated
    // too (each target's three parts counted).
    let lit = |n: usize| {
        let plain = grid(n, "Lit");
        let quads = plain.split('\'').nth(1).unwrap().to_string();
        let each = |v: &str| v.repeat(n * n);
        let uv = |i: usize, v: f32| format!("{} {v} ", (i % n) as f32 / n as f32);
        let uvs: String = (0..n * n)
            .map(|i| uv(i, (i / n) as f32 / n as f32))
            .collect();
        let shifted: String = (0..n * n).map(|i| uv(i, 0.5)).collect();
        let (up, tilted) = (each("0 1 0 "), each("0.6 0.8 0 "));
        let inside = format!(
            "<Normal DEF='LitN' vector='{up}'/><TextureCoordinate DEF='LitT' point='{uvs}'/>\
             </IndexedFaceSet>"
        );
        let indices = format!("<IndexedFaceSet normalIndex='{quads}' texCoordIndex='{quads}' ");
        let textured = "<Shape><Appearance>\
             <PixelTexture image='2 2 3 0xFF0000 0x00FF00 0x0000FF 0xFFFFFF'/></Appearance>";
        plain
            .replacen("</IndexedFaceSet>", &inside, 1)
            .replacen("<IndexedFaceSet ", &indices, 1)
            .replacen("<Shape>", textured, 1)
            + &format!(
                "<NormalInterpolator DEF='LitNI' key='0 0.5 1' keyValue='{up} {tilted} {up}'/>\
                 <CoordinateInterpolator2D DEF='LitTI' key='0 0.5 1' \
                 keyValue='{uvs} {shifted} {uvs}'/>\
                 <ROUTE fromNode='Clock' fromField='fraction_changed' toNode='LitNI' \
                 toField='set_fraction'/>\
                 <ROUTE fromNode='Clock' fromField='fraction_changed' toNode='LitTI' \
                 toField='set_fraction'/>\
                 <ROUTE fromNode='LitNI' fromField='value_changed' toNode='LitN' \
                 toField='set_vector'/>\
                 <ROUTE fromNode='LitTI' fromField='value_changed' toNode='LitT' \
                 toField='set_point'/>"
            )
    };
    let text = format!(
        "<X3D><Scene><TimeSensor DEF='Clock' loop='true'/>{}{}{}\
         <Shape><Sphere/></Shape><Shape><Sphere/></Shape></Scene></X3D>",
        grid(100, "Big"),
        grid(5, "Small"),
        lit(100)
    );

    let (_dir, path) = util::scene_file("grids.x3d", &text);
    let build = |counted: bool| {
        let opts = x3dbake::internal::write::gltf::Options {
            counted,
            ..Default::default()
        };
        build_document(Path::new(&path), &opts).0
    };
    let (baked, counted) = (build(false), build(true));
    assert!(counted.buffer_len() == 0 && baked.buffer_len() > 20 * 10_000 * 12);
    let placed = |doc: &x3dbake::internal::write::gltf::Document| {
        let mut root = serde_json::to_value(&doc.root).unwrap();
        for a in root["accessors"].as_array_mut().unwrap() {
            let a = a.as_object_mut().unwrap();
            a.remove("min");
            a.remove("max");
        }
        (
            root["accessors"].clone(),
            root["bufferViews"].clone(),
            root["buffers"].clone(),
        )
    };
    let (accessors, views, buffers) = placed(&baked);
    // Targets at three keys for each grid, the big ones past sharing; the
    // lit grid's (its three arrays sampled at the same times) with normals
    // and texture coordinates.
    let targets = |m: usize| baked.root.meshes[m].primitives[0].targets.as_ref();
    assert_eq!(targets(0).map(Vec::len), Some(3));
    let lit = targets(2).unwrap();
    assert!(
        lit.len() > 3 && lit.iter().all(|t| t.normals.is_some()),
        "{lit:?}"
    );
    assert_eq!(baked.morph_uvs.len(), lit.len());
    assert_eq!(counted.morph_uvs, baked.morph_uvs);
    assert!(accessors.as_array().unwrap().len() > 12);
    assert_eq!(placed(&counted), (accessors, views, buffers));
}
