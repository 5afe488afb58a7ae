//! Moving geometry as morph targets: points, texture coordinates and the
//! normals made from moving points, played back against the X3D.

use crate::util;
use crate::util::bake_ok;
use crate::util::played::{Sampler, accessor_f32, close, strip_pointers};
use x3dbake::internal::anim::clip::ClipOptions;

/// A morph-weights channel of `n` targets as a sampler.
fn weights_sampler(
    channel: gltf::animation::Channel,
    buffers: &[gltf::buffer::Data],
    n: usize,
) -> Sampler {
    let r = channel.reader(|b| Some(&buffers[b.index()]));
    let weights: Vec<f32> = match r.read_outputs().unwrap() {
        gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => w.into_f32().collect(),
        _ => panic!("a weights channel"),
    };
    Sampler {
        times: r.read_inputs().unwrap().collect(),
        outputs: weights.chunks(n).map(|c| c.to_vec()).collect(),
        interpolation: channel.sampler().interpolation(),
        rotation: false,
    }
}

#[test]
fn animated_points_play_back_as_morph_targets() {
    let dir = tempfile::tempdir().unwrap();
    let x3d = util::root().join("fixtures/scenes/morph.x3d");
    let baked = dir.path().join("m.glb");
    bake_ok(&x3d.to_string_lossy(), &baked, &[]);
    let (doc, buffers, _) = gltf::import(&baked).unwrap();
    let (_, clips) = util::load_clips(&x3d, ClipOptions::default());
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|b| Some(&buffers[b.index()]));
    let base: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
    let targets: Vec<Vec<[f32; 3]>> = reader
        .read_morph_targets()
        .map(|(p, _, _)| p.unwrap().collect())
        .collect();
    // 3 keys of Flap (exact) and the eased Grow, fitted within the default
    // bound with fewer keys than 30 Hz sampling (91 over its 3 s).
    let grow = doc.animations().find(|a| a.name() == Some("Slow")).unwrap();
    let grow_keys = grow.samplers().next().unwrap().input().count();
    assert!(grow_keys < 91, "{grow_keys} keys");
    assert_eq!(targets.len(), 3 + grow_keys);
    let mut checked = 0;
    for anim in doc.animations() {
        let clip = clips
            .iter()
            .find(|c| Some(c.name.as_str()) == anim.name())
            .unwrap();
        let track = &clip.tracks[0];
        // f32 storage, and the default bound of a track that is not exact.
        let tol = 1e-5 + x3dbake::internal::anim::fit::default_tolerance(track);
        let n = targets.len();
        let sampler = weights_sampler(anim.channels().next().unwrap(), &buffers, n);
        let mut want = Vec::new();
        for i in 0..300 {
            let t = clip.duration() * (i as f64 + 0.41) / 300.0;
            let w = sampler.at(t);
            clip.eval(track, t, &mut want);
            // Each corner of the quad is a vertex: corner v is point v here.
            for (v, b) in base.iter().enumerate() {
                let p: Vec<f64> = (0..3)
                    .map(|c| {
                        b[c] as f64 + (0..n).map(|k| w[k] * targets[k][v][c] as f64).sum::<f64>()
                    })
                    .collect();
                assert!(
                    close("", &p, &want[3 * v..3 * v + 3], tol),
                    "{} at {t}: vertex {v} {p:?} vs {:?}",
                    clip.name,
                    &want[3 * v..3 * v + 3]
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 300 * 4);
}

#[test]
fn animated_texture_coordinates_play_back_as_uv_morph_targets() {
    let dir = tempfile::tempdir().unwrap();
    let x3d = util::root().join("fixtures/scenes/visibility_textures.x3d");
    let baked = dir.path().join("v.glb");
    bake_ok(&x3d.to_string_lossy(), &baked, &[]);
    // The gltf crate reads no TEXCOORD_0 of morph targets: those come from
    // the JSON, the rest (accessors, the weights channel) from the crate.
    let (json, _) = util::document_json(&std::fs::read(&baked).unwrap());
    let (stripped, _) = strip_pointers(&baked);
    let (doc, buffers, _) = gltf::import(&stripped).unwrap();
    let (scene, clips) = util::load_clips(&x3d, ClipOptions::default());
    let (mesh, prim) = json["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .find_map(|(i, m)| {
            let p = &m["primitives"][0];
            p["targets"][0].get("TEXCOORD_0").map(|_| (i, p))
        })
        .expect("a mesh with TEXCOORD_0 morph targets");
    let uv = |a: &serde_json::Value| -> Vec<f32> {
        accessor_f32(&doc, &buffers, a.as_u64().unwrap() as usize)
    };
    let base = uv(&prim["attributes"]["TEXCOORD_0"]);
    let targets: Vec<Vec<f32>> = prim["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| uv(&t["TEXCOORD_0"]))
        .collect();
    let n = targets.len();
    let node = doc
        .nodes()
        .find(|nd| nd.mesh().is_some_and(|m| m.index() == mesh))
        .unwrap();
    let clip = &clips[0];
    let track = clip
        .tracks
        .iter()
        .find(|t| scene.node(t.target).def.as_deref() == Some("Scroll"))
        .unwrap();
    let channel = doc
        .animations()
        .flat_map(|a| a.channels())
        .find(|c| c.target().node().index() == node.index())
        .expect("a weights channel for the mesh");
    let sampler = weights_sampler(channel, &buffers, n);
    let mut want = Vec::new();
    for i in 0..300 {
        let t = clip.duration() * (i as f64 + 0.41) / 300.0;
        let w = sampler.at(t);
        clip.eval(track, t, &mut want);
        // The quad's corners are its vertices, in order: corner v is point v.
        for v in 0..base.len() / 2 {
            let got: Vec<f64> = (0..2)
                .map(|c| {
                    let b = base[2 * v + c] as f64;
                    b + (0..n)
                        .map(|k| w[k] * targets[k][2 * v + c] as f64)
                        .sum::<f64>()
                })
                .collect();
            // glTF's v runs down: v' = 1 − v.
            let x3d = [want[2 * v], 1.0 - want[2 * v + 1]];
            assert!(
                close("", &got, &x3d, 1e-5),
                "at {t}: vertex {v} {got:?} vs {x3d:?}"
            );
        }
    }
}

/// Normals made from the points follow animated points: each morph target's
/// normals are those of its own positions (checked by making them here from
/// the triangles: face normals, averaged around a point within the crease
/// angle), for a smooth and a faceted mesh.
#[test]
fn normals_made_from_moving_points_follow_them() {
    let grid = "0 0 0, 1 0 0, 2 0 0, 0 1 0, 1 1 0, 2 1 0, 0 2 0, 1 2 0, 2 2 0";
    let bent = "0 0 0, 1 0 0.3, 2 0 0, 0 1 0.5, 1 1 1, 2 1 -0.2, 0 2 0, 1 2 0.4, 2 2 0";
    let twisted = "0 0 0.2, 1 0 -0.3, 2 0 0, 0 1 0.1, 1 1 -0.8, 2 1 0.6, 0 2 0, 1 2 -0.4, 2 2 0.9";
    let tris = "0 1 4 -1 0 4 3 -1 1 2 5 -1 1 5 4 -1 3 4 7 -1 3 7 6 -1 4 5 8 -1 4 8 7 -1";
    let shape = |def: &str, crease: f64, ccw: bool| {
        format!(
            r#"<Shape><IndexedFaceSet creaseAngle="{crease}" ccw="{ccw}" coordIndex="{tris}">
                 <Coordinate DEF="{def}" point="{grid}"/></IndexedFaceSet></Shape>
               <CoordinateInterpolator DEF="{def}_move" key="0 0.5 1"
                 keyValue="{grid}, {bent}, {twisted}"/>
               <ROUTE fromNode="Clock" fromField="fraction_changed" toNode="{def}_move" toField="set_fraction"/>
               <ROUTE fromNode="{def}_move" fromField="value_changed" toNode="{def}" toField="point"/>"#
        )
    };
    let text = format!(
        r#"<X3D version="3.3"><Scene><TimeSensor DEF="Clock" cycleInterval="2" loop="true"/>
           {}{}</Scene></X3D>"#,
        shape("Smooth", 1.2, true),
        shape("Faceted", 0.0, false)
    );
    let (dir, x3d) = util::scene_file("normals.x3d", &text);
    let baked = dir.path().join("n.glb");
    bake_ok(&x3d, &baked, &[]);
    let (doc, buffers, _) = gltf::import(&baked).unwrap();
    let mut checked = 0;
    for (mesh, crease) in doc.meshes().zip([1.2f32, 0.0]) {
        let prim = mesh.primitives().next().unwrap();
        let reader = prim.reader(|b| Some(&buffers[b.index()]));
        let v3 = |a: [f32; 3]| glam::Vec3::from_array(a);
        let base: Vec<glam::Vec3> = reader.read_positions().unwrap().map(v3).collect();
        let base_n: Vec<glam::Vec3> = reader.read_normals().unwrap().map(v3).collect();
        let index: Vec<usize> = reader
            .read_indices()
            .unwrap()
            .into_u32()
            .map(|i| i as usize)
            .collect();
        let targets: Vec<_> = reader.read_morph_targets().collect();
        assert_eq!(targets.len(), 3, "a target per key");
        for (p, n, _) in targets {
            let p: Vec<_> = p.unwrap().map(v3).zip(&base).map(|(d, b)| *b + d).collect();
            let n: Vec<_> = n
                .unwrap()
                .map(v3)
                .zip(&base_n)
                .map(|(d, b)| *b + d)
                .collect();
            // glTF triangles wind counter-clockwise seen from their normal
            // side: ccw FALSE faces were turned, and their normals with them.
            let face = |t: &[usize]| (p[t[1]] - p[t[0]]).cross(p[t[2]] - p[t[0]]).normalize();
            let faces: Vec<_> = index.chunks(3).map(|t| (t, face(t))).collect();
            for &(t, own) in &faces {
                for &v in t {
                    // Every face around the same point (corners at the same
                    // rest position) within the crease angle of this one.
                    let want = faces
                        .iter()
                        .filter(|(u, f)| {
                            u.iter().any(|&w| base[w] == base[v]) && f.dot(own) >= crease.cos()
                        })
                        .map(|(_, f)| *f)
                        .sum::<glam::Vec3>()
                        .normalize();
                    let want = if crease > 0.0 { want } else { own };
                    assert!(
                        (n[v] - want).length() < 1e-5,
                        "{:?} corner {v}: {} vs {want}",
                        mesh.name(),
                        n[v]
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 2 * 3 * 24);
}
