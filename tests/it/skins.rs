//! H-Anim humanoids as glTF skins (fixtures/scenes/humanoid.x3d): the
//! skin's joints, weights and inverse bind matrices as written, and the
//! skinned points three.js draws against H-Anim's skinning computed here
//! from the X3D alone.

use crate::util;
use glam::{DMat4, DQuat, DVec3};
use std::path::Path;

/// The humanoid baked to .glb in a fresh folder.
fn baked() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("humanoid.glb");
    let x3d = util::root().join("fixtures/scenes/humanoid.x3d");
    let o = util::run(&[&x3d.to_string_lossy(), "-o", &glb.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(
        util::stderr(&o).contains(
            "`Hum`: 1 skin points are bound to more than 4 joints (glTF keeps 4): the largest kept and scaled to sum 1; the largest weight dropped is 0.1"
        ),
        "{}",
        util::stderr(&o)
    );
    (dir, glb)
}

/// The skin: the humanoid's node and its five joints, inverse bind
/// matrices the identity but the ankle's (its binding position 0 0.1 0),
/// four weights a vertex summing to 1, and the Khronos validator clean.
#[test]
fn a_humanoid_skin_is_a_gltf_skin() {
    let (_dir, glb) = baked();
    let (doc, buffers, _) = gltf::import(&glb).unwrap();
    let skin = doc.skins().next().expect("a skin");
    let names: Vec<String> = skin
        .joints()
        .map(|j| j.name().unwrap_or_default().to_string())
        .collect();
    // The node of each joint's whole transform (after its center).
    assert_eq!(
        names,
        [
            "Hum",
            "Root",
            "Knee_center",
            "Ankle_center",
            "Toe_center",
            "Tip_center"
        ]
    );
    let reader = skin.reader(|b| Some(&buffers[b.index()]));
    let ibm: Vec<[[f32; 4]; 4]> = reader.read_inverse_bind_matrices().unwrap().collect();
    for (i, m) in ibm.iter().enumerate() {
        let mut want = glam::Mat4::IDENTITY.to_cols_array_2d();
        if i == 3 {
            want[3][1] = 0.1;
        }
        assert_eq!(*m, want, "joint {i}");
    }
    let node = doc
        .nodes()
        .find(|n| n.skin().is_some())
        .expect("a skinned node");
    assert_eq!(node.name(), Some("Leg"));
    let prim = node.mesh().unwrap().primitives().next().unwrap();
    let r = prim.reader(|b| Some(&buffers[b.index()]));
    let weights: Vec<[f32; 4]> = r.read_weights(0).unwrap().into_f32().collect();
    let joints: Vec<[u16; 4]> = r.read_joints(0).unwrap().into_u16().collect();
    assert_eq!(weights.len(), r.read_positions().unwrap().count());
    for (w, j) in weights.iter().zip(&joints) {
        let sum: f32 = w.iter().sum();
        assert!((sum - 1.0).abs() < 1e-6, "{w:?}");
        assert!(j.iter().all(|&k| (k as usize) < names.len()), "{j:?}");
    }
    util::assert_validator_clean(&[glb]);
}

/// A joint's transform in its parent's space at clip time `t`: the
/// Transform matrix T·C·R·C⁻¹, with the fixture's interpolators evaluated
/// here (linear, and slerp on the shorter arc).
fn joint_matrix(scene: &x3dbake::scene::Scene, joint: &str, t: f64) -> DMat4 {
    let id = scene.def(joint).unwrap();
    let v = |f: &str| {
        let x = scene.floats(id, f);
        DVec3::new(x[0] as f64, x[1] as f64, x[2] as f64)
    };
    let f = (t / 2.0).rem_euclid(1.0);
    // Tent 0 → 1 → 0 over the cycle (the keys 0, 0.5, 1).
    let tent = if f < 0.5 { 2.0 * f } else { 2.0 - 2.0 * f };
    let (translation, rotation) = match joint {
        "Root" => (DVec3::new(0.0, 0.5 * tent, 0.0), DQuat::IDENTITY),
        "Knee" => (v("translation"), DQuat::from_axis_angle(DVec3::X, tent)),
        "Ankle" => (v("translation"), DQuat::from_axis_angle(DVec3::Z, -0.8 * f)),
        _ => (v("translation"), DQuat::IDENTITY),
    };
    let c = v("center");
    DMat4::from_translation(translation + c)
        * DMat4::from_quat(rotation)
        * DMat4::from_translation(-c)
}

/// Skin points drawn by three.js (SkinnedMesh, bones from the glTF) at 20
/// times of the clip against H-Anim's skinning computed from the X3D:
/// p' = H·(p + Σ wⱼ (Lⱼ·Bⱼ·p − p)), Lⱼ the chain of joint matrices, Bⱼ
/// the binding matrix. Every point within 1e-5 but the one bound to five
/// joints, whose difference (the weight glTF cannot hold) is printed.
#[test]
fn three_js_skins_the_humanoid_as_h_anim_does() {
    let Some(three) = util::tool_dir("X3DBAKE_THREE", "three.js skinning test") else {
        return;
    };
    let (_dir, glb) = baked();
    let x3d = util::root().join("fixtures/scenes/humanoid.x3d");
    let bake = util::load_text(&x3d.to_string_lossy(), &std::fs::read(&x3d).unwrap());
    let scene = &bake.scene;
    let chain = ["Root", "Knee", "Ankle", "Toe", "Tip"];
    let binding = |j: &str| {
        DMat4::from_translation(if j == "Ankle" {
            DVec3::new(0.0, 0.1, 0.0)
        } else {
            DVec3::ZERO
        })
    };
    let points: Vec<DVec3> = scene
        .floats(scene.def("SkinPoints").unwrap(), "point")
        .chunks(3)
        .map(|p| DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64))
        .collect();
    // Each point's (joint, weight), from the joints' own fields.
    let mut bound: Vec<Vec<(usize, f64)>> = vec![Vec::new(); points.len()];
    for (k, j) in chain.iter().enumerate() {
        let id = scene.def(j).unwrap();
        let w = scene.floats(id, "skinCoordWeight");
        for (m, &i) in scene.ints(id, "skinCoordIndex").iter().enumerate() {
            bound[i as usize].push((k, w[m] as f64));
        }
    }
    let h = DMat4::from_translation(DVec3::new(1.0, 0.0, 0.0));
    let times: Vec<f64> = (0..20).map(|i| i as f64 * 0.1).collect();
    let played = play_skinned(&three, &glb, &times);
    // glTF vertices to skin points, by their rest positions.
    let (doc, buffers, _) = gltf::import(&glb).unwrap();
    let node = doc.nodes().find(|n| n.skin().is_some()).unwrap();
    let prim = node.mesh().unwrap().primitives().next().unwrap();
    let rest: Vec<[f32; 3]> = prim
        .reader(|b| Some(&buffers[b.index()]))
        .read_positions()
        .unwrap()
        .collect();
    let point_of: Vec<usize> = rest
        .iter()
        .map(|r| {
            points
                .iter()
                .position(|p| p.as_vec3().to_array() == *r)
                .unwrap()
        })
        .collect();
    let (mut worst, mut lost) = (0.0f64, 0.0f64);
    for (t, drawn) in times.iter().zip(&played) {
        let mut world = DMat4::IDENTITY;
        let joints: Vec<DMat4> = chain
            .iter()
            .map(|j| {
                world *= joint_matrix(scene, j, *t);
                world * binding(j)
            })
            .collect();
        for (v, d) in drawn.iter().enumerate() {
            let p = points[point_of[v]];
            let skinned = bound[point_of[v]].iter().fold(p, |acc, &(k, w)| {
                acc + w * (joints[k].transform_point3(p) - p)
            });
            let want = h.transform_point3(skinned);
            let e = (want - *d).length();
            if bound[point_of[v]].len() > 4 {
                lost = lost.max(e);
            } else {
                worst = worst.max(e);
            }
        }
    }
    assert!(
        worst < 1e-5,
        "three.js differs from H-Anim's skinning by {worst}"
    );
    eprintln!(
        "humanoid skin in three.js at 20 times: worst {worst:.2e}; the point bound to five joints: {lost:.3}"
    );
}

/// The skinned vertices three.js draws at each time, in world space.
fn play_skinned(three: &Path, glb: &Path, times: &[f64]) -> Vec<Vec<DVec3>> {
    let mut args = vec![
        util::root().join("tools/three-play.mjs").into_os_string(),
        glb.as_os_str().to_owned(),
    ];
    args.extend(times.iter().map(|t| t.to_string().into()));
    let out = util::node(&args, None, &[("X3DBAKE_THREE", three)]);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    v["animations"][0]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["skinned"][0]["positions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    let p: Vec<f64> = p
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_f64().unwrap())
                        .collect();
                    DVec3::new(p[0], p[1], p[2])
                })
                .collect()
        })
        .collect()
}
