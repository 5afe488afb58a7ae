//! H-Anim humanoids as glTF skins (fixtures/scenes/humanoid.x3d): the
//! skin's joints, weights and inverse bind matrices as written, and the
//! skinned points three.js draws against H-Anim's skinning computed here
//! from the X3D alone.

use crate::util;
use glam::{DMat4, DQuat, DVec3};
use std::collections::BTreeMap;
use std::path::Path;
use x3dbake::internal::scene::{NodeId, Scene};

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
/// four weights a vertex summing to 1, the displacer a morph target with
/// its weight animated, and the Khronos validator clean.
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
    // The displacer: a morph target moving the knee's two points 0.3 in z,
    // its weight animated with the clip.
    let deltas: Vec<[f32; 3]> = r
        .read_morph_targets()
        .next()
        .expect("a morph target")
        .0
        .unwrap()
        .collect();
    let moved = deltas.iter().filter(|d| **d == [0.0, 0.0, 0.3]).count();
    assert!(
        moved >= 2
            && deltas
                .iter()
                .all(|d| *d == [0.0; 3] || *d == [0.0, 0.0, 0.3])
    );
    let anim = doc.animations().next().unwrap();
    assert!(
        anim.channels()
            .any(|c| c.target().property() == gltf::animation::Property::MorphTargetWeights)
    );
    util::assert_validator_clean(&[glb]);
}

/// Field values at one time of a clip, from x3dbake's CSV (the clip's
/// evaluation, not the glTF writer): (node, field) → numbers.
type Pose = BTreeMap<(String, String), Vec<f64>>;

/// x3dbake's CSV rows of a scene, by clip and time: (clip, [(time, pose)]).
fn csv_poses(x3d: &Path, flags: &[&str]) -> Vec<(String, Vec<(f64, Pose)>)> {
    let x3d = x3d.to_string_lossy();
    let mut args = vec![x3d.as_ref(), "-o", "-"];
    args.extend(flags);
    let o = util::run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let mut out: Vec<(String, Vec<(f64, Pose)>)> = Vec::new();
    for line in util::stdout(&o).lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        if out.last().is_none_or(|l| l.0 != c[0]) {
            out.push((c[0].to_string(), Vec::new()));
        }
        let times = &mut out.last_mut().unwrap().1;
        let t: f64 = c[1].parse().unwrap();
        if times.last().is_none_or(|l| l.0 != t) {
            times.push((t, Pose::default()));
        }
        let v = c[5..].iter().filter_map(|x| x.parse().ok()).collect();
        times
            .last_mut()
            .unwrap()
            .1
            .insert((c[2].into(), c[3].into()), v);
    }
    out
}

/// Each clip's poses at 20 times over its cycle (its end, where a player
/// wraps to the start, left out), from x3dbake's CSV: the clip's
/// evaluation, not the glTF writer.
fn poses(x3d: &Path) -> Vec<(String, Vec<(f64, Pose)>)> {
    csv_poses(x3d, &["--rate", "10"])
        .into_iter()
        .map(|(clip, rows)| {
            let duration = rows.last().map_or(1.0, |r| r.0);
            let rate = (20.0 / duration).to_string();
            let (_, mut rows) = csv_poses(x3d, &["--clip", &clip, "--rate", &rate])
                .pop()
                .unwrap();
            rows.truncate(20);
            (clip, rows)
        })
        .collect()
}

/// A Transform-like node's matrix T·C·R·SR·S·SR⁻¹·C⁻¹ in a pose.
fn matrix(scene: &Scene, id: NodeId, pose: &Pose) -> DMat4 {
    let name = scene.display_name(id);
    let field = |f: &str| -> Vec<f64> {
        pose.get(&(name.clone(), f.to_string()))
            .cloned()
            .unwrap_or_else(|| scene.floats(id, f).iter().map(|&x| x as f64).collect())
    };
    let v3 = |f: &str| {
        let v = field(f);
        DVec3::new(v[0], v[1], v[2])
    };
    let q = |f: &str| {
        let r = field(f);
        let axis = DVec3::new(r[0], r[1], r[2]);
        if axis.length() == 0.0 {
            DQuat::IDENTITY
        } else {
            DQuat::from_axis_angle(axis.normalize(), r[3])
        }
    };
    let (c, sr) = (v3("center"), q("scaleOrientation"));
    DMat4::from_translation(v3("translation") + c)
        * DMat4::from_quat(q("rotation"))
        * DMat4::from_quat(sr)
        * DMat4::from_scale(v3("scale"))
        * DMat4::from_quat(sr.inverse())
        * DMat4::from_translation(-c)
}

/// The joints under a node, with their matrices from the humanoid's space.
fn joints_under(
    scene: &Scene,
    id: NodeId,
    parent: DMat4,
    pose: &Pose,
    out: &mut BTreeMap<NodeId, DMat4>,
) {
    let ty = scene.node(id).type_name.as_str();
    let m = match ty {
        "HAnimJoint" | "HAnimSegment" | "HAnimSite" | "Transform" => {
            parent * matrix(scene, id, pose)
        }
        "Group" => parent,
        _ => return,
    };
    if ty == "HAnimJoint" {
        out.insert(id, m);
    }
    for &child in scene
        .value(id, "children")
        .map(|v| v.nodes())
        .unwrap_or_default()
    {
        joints_under(scene, child, m, pose, out);
    }
}

/// H-Anim's skinning of every skin point of the scene's (root) humanoid in
/// a pose, in world space: H·(p + Σ wⱼ (Lⱼ·Bⱼ·p − p)), and how many
/// joints bind each point.
fn h_anim_skin(scene: &Scene, pose: &Pose) -> Vec<(DVec3, DVec3, usize)> {
    let hum = (0..scene.nodes.len() as u32)
        .map(NodeId)
        .find(|&i| scene.node(i).type_name == "HAnimHumanoid")
        .unwrap();
    let h = matrix(scene, hum, pose);
    let mut placed = BTreeMap::new();
    for &root in scene.value(hum, "skeleton").unwrap().nodes() {
        joints_under(scene, root, DMat4::IDENTITY, pose, &mut placed);
    }
    let coord = scene.child(hum, "skinCoord").unwrap();
    let points: Vec<DVec3> = scene
        .floats(coord, "point")
        .chunks(3)
        .map(|p| DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64))
        .collect();
    let floats = |f: &str| scene.floats(hum, f).to_vec();
    let (bt, br, bs) = (
        floats("jointBindingPositions"),
        floats("jointBindingRotations"),
        floats("jointBindingScales"),
    );
    let mut moved: Vec<DVec3> = points.clone();
    let mut count = vec![0; points.len()];
    for (i, &joint) in scene
        .value(hum, "joints")
        .unwrap()
        .nodes()
        .iter()
        .enumerate()
    {
        let Some(l) = placed.get(&joint) else {
            continue;
        };
        let part = |v: &[f32], n: usize| {
            v.get(i * n..i * n + n)
                .map(|x| x.iter().map(|&y| y as f64).collect::<Vec<_>>())
        };
        let t = part(&bt, 3).map_or(DVec3::ZERO, |v| DVec3::new(v[0], v[1], v[2]));
        let r = part(&br, 4).map_or(DQuat::IDENTITY, |v| {
            DQuat::from_axis_angle(DVec3::new(v[0], v[1], v[2]).normalize(), v[3])
        });
        let sc = part(&bs, 3).map_or(DVec3::ONE, |v| DVec3::new(v[0], v[1], v[2]));
        let jb = *l * DMat4::from_scale_rotation_translation(sc, r, t);
        let w = scene.floats(joint, "skinCoordWeight");
        for (m, &k) in scene.ints(joint, "skinCoordIndex").iter().enumerate() {
            let weight = w.get(m).copied().unwrap_or(1.0) as f64;
            let p = points[k as usize];
            moved[k as usize] += weight * (jb.transform_point3(p) - p);
            count[k as usize] += 1;
        }
        // Its displacers: each displacement times the weight, turned as
        // the joint turns.
        for &d in scene
            .value(joint, "displacers")
            .map(|v| v.nodes())
            .unwrap_or_default()
        {
            let name = scene.display_name(d);
            let weight = pose
                .get(&(name, "weight".to_string()))
                .map_or(scene.number(d, "weight"), |v| v[0]);
            let by = scene.floats(d, "displacements");
            for (i, &k) in scene.ints(d, "coordIndex").iter().enumerate() {
                let v = DVec3::new(by[3 * i] as f64, by[3 * i + 1] as f64, by[3 * i + 2] as f64);
                moved[k as usize] += jb.transform_vector3(v * weight);
            }
        }
    }
    points
        .iter()
        .zip(moved)
        .zip(count)
        .map(|((&p, m), n)| (p, h.transform_point3(m), n))
        .collect()
}

/// A baked scene's skinned vertices as three.js draws them at 20 times of
/// each clip, against H-Anim's skinning of the X3D in the clip's pose
/// (each vertex matched to the skin points at its rest position). The
/// worst difference of points bound to at most four joints, and of those
/// bound to more (glTF keeps four).
fn skin_against_h_anim(three: &Path, x3d: &Path, glb: &Path) -> (f64, f64, usize) {
    skin_against(three, x3d, glb, h_anim_skin)
}

/// A skinning computed from the X3D: each skin point at rest, where it is
/// in a pose, and how many joints bind it.
type Skinning = fn(&Scene, &Pose) -> Vec<(DVec3, DVec3, usize)>;

/// A baked scene's skinned vertices as three.js draws them at 20 times of
/// each clip against `reference`'s skinning of the X3D in the clip's pose:
/// (the worst difference of points bound to at most four joints, of those
/// bound to more, and the number compared).
fn skin_against(three: &Path, x3d: &Path, glb: &Path, reference: Skinning) -> (f64, f64, usize) {
    let bake = util::load_text(&x3d.to_string_lossy(), &std::fs::read(x3d).unwrap());
    let scene = &bake.scene;
    let (doc, buffers, _) = gltf::import(glb).unwrap();
    let rest: Vec<Vec<[f32; 3]>> = doc
        .nodes()
        .filter(|n| n.skin().is_some())
        .filter(|n| {
            n.mesh().unwrap().primitives().next().unwrap().mode() == gltf::mesh::Mode::Triangles
        })
        .map(|n| {
            let prim = n.mesh().unwrap().primitives().next().unwrap();
            prim.reader(|b| Some(&buffers[b.index()]))
                .read_positions()
                .unwrap()
                .collect()
        })
        .collect();
    let (mut worst, mut lost, mut compared) = (0.0f64, 0.0f64, 0);
    for (clip, poses) in poses(x3d) {
        // (A clip with nothing glTF holds has no animation.)
        let Some(anim) = doc
            .animations()
            .position(|a| a.name() == Some(clip.as_str()))
        else {
            continue;
        };
        let times: Vec<f64> = poses.iter().map(|p| p.0).collect();
        let drawn = play_skinned(three, glb, &times, anim);
        for ((_, pose), meshes) in poses.iter().zip(&drawn) {
            let want = reference(scene, pose);
            for (mesh, rest) in meshes.iter().zip(&rest) {
                for (d, r) in mesh.iter().zip(rest) {
                    // The points at this rest position: the nearest one.
                    let (e, n) = want
                        .iter()
                        .filter(|w| w.0.as_vec3().to_array() == *r)
                        .map(|w| ((w.1 - *d).length(), w.2))
                        .min_by(|a, b| a.0.total_cmp(&b.0))
                        .unwrap();
                    compared += 1;
                    if n > 4 {
                        lost = lost.max(e);
                    } else {
                        worst = worst.max(e);
                    }
                }
            }
        }
    }
    (worst, lost, compared)
}

/// Skin points drawn by three.js (SkinnedMesh, bones from the glTF) at 20
/// times of each clip against H-Anim's skinning computed from the X3D in
/// the clip's pose: the fixture humanoid (its point bound to five joints
/// apart, whose difference, the weight glTF cannot hold, is printed) and
/// the corpus's skinned humanoid, h3dapi BoxMan.x3d, when the corpus is
/// there.
#[test]
fn three_js_skins_humanoids_as_h_anim_does() {
    let Some(three) = util::tool_dir("X3DBAKE_THREE", "three.js skinning test") else {
        return;
    };
    let (_dir, glb) = baked();
    let x3d = util::root().join("fixtures/scenes/humanoid.x3d");
    let (worst, lost, n) = skin_against_h_anim(&three, &x3d, &glb);
    assert!(
        worst < 1e-5,
        "three.js differs from H-Anim's skinning by {worst}"
    );
    eprintln!(
        "humanoid.x3d: {n} vertices compared, worst {worst:.2e}; the point bound to five joints: {lost:.3}"
    );
    let boxman = util::root().join("../shared/corpus/h3dapi/examples/All/BoxMan.x3d");
    if !boxman.exists() {
        eprintln!("BoxMan.x3d: skipped (no ../shared/corpus)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("boxman.glb");
    let o = util::run(&[&boxman.to_string_lossy(), "-o", &glb.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (worst, lost, n) = skin_against_h_anim(&three, &boxman, &glb);
    eprintln!("BoxMan.x3d: {n} vertices compared, worst {worst:.2e} ({lost:.2e} past four joints)");
    assert!(
        worst < 1e-5,
        "BoxMan: three.js differs from H-Anim's skinning by {worst}"
    );
}

/// Every Transform under a node (through Groups' children, Transforms'
/// children and a Castle Skin's skeleton), with its matrix from world
/// space.
fn transforms_under(
    scene: &Scene,
    id: NodeId,
    parent: DMat4,
    pose: &Pose,
    out: &mut BTreeMap<NodeId, DMat4>,
) {
    let (m, field) = match scene.node(id).type_name.as_str() {
        "Transform" => (parent * matrix(scene, id, pose), "children"),
        "Group" => (parent, "children"),
        "Skin" => (parent, "skeleton"),
        _ => return,
    };
    out.insert(id, m);
    for &child in scene
        .value(id, field)
        .map(|v| v.nodes())
        .unwrap_or_default()
    {
        transforms_under(scene, child, m, pose, out);
    }
}

/// Castle Game Engine's skinning of the points of a Skin's shape in a
/// pose, in world space, as its fields say: Σₖ wₖ·Jₖ·Bₖ·p over the joints
/// skinJoints0 names, Jₖ the joint's matrix from world space, Bₖ its
/// inverse bind matrix (inverseBindMatrices, by rows with the translation
/// in the last row), the weights skinWeights0 scaled to sum 1; and how
/// many joints bind each point.
fn castle_skin(scene: &Scene, pose: &Pose) -> Vec<(DVec3, DVec3, usize)> {
    let skin = (0..scene.nodes.len() as u32)
        .map(NodeId)
        .find(|&i| scene.node(i).type_name == "Skin")
        .unwrap();
    let mut placed = BTreeMap::new();
    for &root in &scene.roots {
        transforms_under(scene, root, DMat4::IDENTITY, pose, &mut placed);
    }
    let joints = scene.value(skin, "joints").unwrap().nodes();
    let binds = scene.floats(skin, "inverseBindMatrices");
    let bound: Vec<DMat4> = joints
        .iter()
        .enumerate()
        .map(|(k, j)| {
            let b: Vec<f64> = binds[16 * k..16 * k + 16]
                .iter()
                .map(|&x| x as f64)
                .collect();
            placed[j] * DMat4::from_cols_slice(&b)
        })
        .collect();
    let shape = scene.value(skin, "shapes").unwrap().nodes()[0];
    let geometry = scene.child(shape, "geometry").unwrap();
    let coord = scene.child(geometry, "coord").unwrap();
    let (js, ws) = (
        scene.floats(geometry, "skinJoints0"),
        scene.floats(geometry, "skinWeights0"),
    );
    scene
        .floats(coord, "point")
        .chunks(3)
        .enumerate()
        .map(|(i, p)| {
            let p = DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64);
            let w = &ws[4 * i..4 * i + 4];
            let sum: f64 = w.iter().map(|&x| x as f64).sum();
            let moved = (0..4)
                .map(|k| bound[js[4 * i + k] as usize].transform_point3(p) * (w[k] as f64 / sum))
                .sum();
            (p, moved, w.iter().filter(|&&x| x > 0.0).count())
        })
        .collect()
}

/// Castle Game Engine's Fox (the corpus's Fox.x3d: its glTF skin as a
/// Castle `Skin`): one skeleton (30 glTF nodes, not a copy per joint
/// listed by USE), a glTF skin of its 24 joints, 21 channels a clip on the
/// joints, and the vertices three.js draws at 20 times of each of its
/// three clips within 1e-4 (of a fox 150 units long) of the skinning its
/// fields give. Skipped without ../shared/corpus.
#[test]
fn castle_s_fox_is_a_gltf_skin_three_js_draws_as_castle_does() {
    let fox = util::root()
        .join("../shared/corpus/castle-demo-models/animation/gltf_skinned_animation/fox_from_khronos/Fox.x3d");
    if !fox.exists() {
        eprintln!("Fox.x3d: skipped (no ../shared/corpus)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("fox.glb");
    let o = util::run(&[&fox.to_string_lossy(), "-o", &glb.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (doc, _, _) = gltf::import(&glb).unwrap();
    assert_eq!(doc.nodes().count(), 30);
    let skins: Vec<_> = doc.skins().collect();
    assert_eq!(skins.len(), 1);
    assert_eq!(skins[0].joints().count(), 24);
    for a in doc.animations() {
        assert_eq!(a.channels().count(), 21, "{:?}", a.name());
    }
    util::assert_validator_clean(std::slice::from_ref(&glb));
    let Some(three) = util::tool_dir("X3DBAKE_THREE", "three.js skinning of the Fox") else {
        return;
    };
    let (worst, _, n) = skin_against(&three, &fox, &glb, castle_skin);
    eprintln!("Fox.x3d: {n} vertices compared, worst {worst:.2e}");
    assert!(n > 100_000, "{n}");
    assert!(
        worst < 1e-4,
        "three.js differs from the Skin's skinning by {worst}"
    );
}

/// The skinned vertices three.js draws at each time of animation `anim`,
/// in world space, mesh by mesh.
fn play_skinned(three: &Path, glb: &Path, times: &[f64], anim: usize) -> Vec<Vec<Vec<DVec3>>> {
    let mut args = vec![
        util::root().join("tools/three-play.mjs").into_os_string(),
        glb.as_os_str().to_owned(),
    ];
    args.extend(times.iter().map(|t| t.to_string().into()));
    let out = util::node(&args, None, &[("X3DBAKE_THREE", three)]);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let point = |p: &serde_json::Value| {
        let p: Vec<f64> = p
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        DVec3::new(p[0], p[1], p[2])
    };
    v["animations"][anim]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["skinned"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    m["positions"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(point)
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// An HAnimMotion is a clip of its own, a key a frame: the fixture's Kick
/// turns the knee 90° about X (its Xrotation channel, in degrees) and the
/// ankle −30° about Z at its middle frame, 0.5 s in.
#[test]
fn a_motion_is_a_clip_of_its_own() {
    let x3d = util::root().join("fixtures/scenes/humanoid.x3d");
    let (_, rows) = csv_poses(&x3d, &["--clip", "Kick", "--rate", "2"])
        .pop()
        .unwrap();
    let at = |t: f64, joint: &str| {
        rows.iter().find(|r| r.0 == t).unwrap().1[&(joint.to_string(), "rotation".to_string())]
            .clone()
    };
    let close = |a: Vec<f64>, b: [f64; 4]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
    assert!(
        close(
            at(0.5, "Knee"),
            [1.0, 0.0, 0.0, std::f64::consts::FRAC_PI_2]
        ),
        "{:?}",
        at(0.5, "Knee")
    );
    assert!(
        close(
            at(0.5, "Ankle"),
            [0.0, 0.0, -1.0, std::f64::consts::FRAC_PI_6]
        ),
        "{:?}",
        at(0.5, "Ankle")
    );
    assert!(
        close(at(1.0, "Knee"), [0.0, 0.0, 1.0, 0.0]),
        "{:?}",
        at(1.0, "Knee")
    );
}
