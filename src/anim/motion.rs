//! HAnimMotion (H-Anim 2 motion data) as a clip of its own: its `values`
//! are frames of channels (BVH-like: per joint, a count and the channel
//! names, `Xposition`…`Zscale`), one key a frame over `frameDuration`
//! each, from `startFrame` to `endFrame`. A joint's rotation channels are
//! Euler angles in degrees, turned in the order the channels are listed
//! (missing axes after, in X Y Z order): the quaternion q₁·q₂·q₃, as X_ITE
//! reads them. Joints are found by their `name` in the humanoid that holds
//! the motion (`HumanoidRoot` also names `humanoid_root`; `IGNORED`
//! channels are read past).

use super::clock::Clock;
use crate::diag::Diagnostics;
use crate::interp::rotation;
use crate::scene::{NodeId, NodeType, Scene};
use glam::{DQuat, DVec3};

/// One joint's curves from a motion: keys (fractions) and values per key.
pub struct JointCurves {
    /// The joint.
    pub joint: NodeId,
    /// Translation values, three a key, when it has position channels.
    pub translation: Option<Vec<f64>>,
    /// Rotations (axis and angle), four a key, when it has rotation
    /// channels.
    pub rotation: Option<Vec<f64>>,
    /// Scale values, three a key, when it has scale channels.
    pub scale: Option<Vec<f64>>,
}

/// A motion read: its clock and each joint's curves at `keys`.
pub struct Motion {
    /// The motion's clock: one cycle over its frames.
    pub clock: Clock,
    /// The key fractions (a frame each).
    pub keys: Vec<f64>,
    /// The joints' curves.
    pub joints: Vec<JointCurves>,
}

/// The humanoid holding a motion in its `motions` field.
fn humanoid_of(scene: &Scene, motion: NodeId) -> Option<NodeId> {
    (0..scene.nodes.len() as u32).map(NodeId).find(|&h| {
        scene.node_type(h) == Some(NodeType::HAnimHumanoid)
            && scene.nodes_in(h, "motions").contains(&motion)
    })
}

/// The joint channels: a count, then that many channel names, a joint
/// each.
fn channel_groups(text: &str) -> Vec<Vec<&str>> {
    let mut tokens = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty());
    let mut out = Vec::new();
    while let Some(t) = tokens.next() {
        let Ok(n) = t.parse::<usize>() else { continue };
        out.push(tokens.by_ref().take(n).collect());
    }
    out
}

/// A rotation from Euler angles in degrees, turned in `order`.
fn euler(angles: [f64; 3], order: &str) -> DQuat {
    order.chars().fold(DQuat::IDENTITY, |q, axis| {
        let (v, a) = match axis {
            'X' => (DVec3::X, angles[0]),
            'Y' => (DVec3::Y, angles[1]),
            _ => (DVec3::Z, angles[2]),
        };
        q * DQuat::from_axis_angle(v, a.to_radians())
    })
}

/// Reads an HAnimMotion node; `None` (named in a warning) when it drives
/// nothing.
pub fn read(scene: &Scene, motion: NodeId, diags: &mut Diagnostics) -> Option<Motion> {
    let name = scene.display_name(motion);
    let span = Some(scene.node(motion).span);
    let Some(humanoid) = humanoid_of(scene, motion) else {
        diags.warning(
            format!("HAnimMotion `{name}` is in no humanoid's motions: it moves nothing"),
            span,
        );
        return None;
    };
    let joint_of = |n: &str| {
        let n = if n == "HumanoidRoot" {
            "humanoid_root"
        } else {
            n
        };
        scene
            .nodes_in(humanoid, "joints")
            .iter()
            .copied()
            .find(|&j| {
                scene
                    .value(j, "name")
                    .and_then(|v| v.strings().first().cloned())
                    .is_some_and(|s| s.trim() == n)
            })
    };
    let text = |f: &str| {
        scene
            .value(motion, f)
            .and_then(|v| v.strings().first().cloned())
            .unwrap_or_default()
    };
    let joint_names: Vec<String> = text("joints")
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    let channels_text = text("channels");
    let groups = channel_groups(&channels_text);
    let values = scene.floats(motion, "values");
    let per_frame: usize = groups.iter().map(Vec::len).sum();
    let frames = values.len().checked_div(per_frame).unwrap_or(0);
    if frames < 2 || groups.len() != joint_names.len() {
        diags.warning(
            format!(
                "HAnimMotion `{name}`: {} joints, {} channel groups and {frames} frames of {per_frame} values: it moves nothing",
                joint_names.len(),
                groups.len()
            ),
            span,
        );
        return None;
    }
    let first = scene
        .ints(motion, "startFrame")
        .first()
        .map_or(0, |&f| f.max(0) as usize);
    let last = match scene.ints(motion, "endFrame").first() {
        Some(&e) if e > 0 => (e as usize).min(frames - 1),
        _ => frames - 1,
    };
    let (first, last) = (first.min(last), first.max(last));
    let span_frames = last - first;
    if span_frames == 0 {
        return None;
    }
    let keys: Vec<f64> = (0..=span_frames)
        .map(|k| k as f64 / span_frames as f64)
        .collect();
    let mut joints = Vec::new();
    let mut missing = Vec::new();
    let mut offset = 0;
    for (name, group) in joint_names.iter().zip(&groups) {
        let at = offset;
        offset += group.len();
        if name == "IGNORED" {
            continue;
        }
        let Some(joint) = joint_of(name) else {
            missing.push(name.clone());
            continue;
        };
        let mut curves = JointCurves {
            joint,
            translation: None,
            rotation: None,
            scale: None,
        };
        let has = |p: &str| group.iter().any(|c| c.ends_with(p));
        let mut order: String = group
            .iter()
            .filter(|c| c.ends_with("rotation"))
            .filter_map(|c| c.chars().next())
            // (Only the axes: another first letter, multi-byte too, turns
            // about no axis. A `ẞrotation` channel cut `order` inside a
            // character below, and panicked.)
            .filter(|a| matches!(a, 'X' | 'Y' | 'Z'))
            .collect();
        for axis in ['X', 'Y', 'Z'] {
            if !order.contains(axis) {
                order.push(axis);
            }
        }
        order.truncate(3);
        for frame in first..=last {
            let row = &values[frame * per_frame + at..frame * per_frame + at + group.len()];
            let get = |c: &str, default: f64| {
                group
                    .iter()
                    .position(|g| *g == c)
                    .map_or(default, |i| row[i] as f64)
            };
            if has("position") {
                let v = [
                    get("Xposition", 0.0),
                    get("Yposition", 0.0),
                    get("Zposition", 0.0),
                ];
                curves.translation.get_or_insert_with(Vec::new).extend(v);
            }
            if has("rotation") {
                let q = euler(
                    [
                        get("Xrotation", 0.0),
                        get("Yrotation", 0.0),
                        get("Zrotation", 0.0),
                    ],
                    &order,
                );
                curves
                    .rotation
                    .get_or_insert_with(Vec::new)
                    .extend(rotation::to_axis_angle(q));
            }
            if has("scale") {
                let v = [get("Xscale", 1.0), get("Yscale", 1.0), get("Zscale", 1.0)];
                curves.scale.get_or_insert_with(Vec::new).extend(v);
            }
        }
        joints.push(curves);
    }
    if !missing.is_empty() {
        diags.warning(
            format!(
                "HAnimMotion `{name}`: no joint of its humanoid is named {}: their channels are left out",
                missing.join(", ")
            ),
            span,
        );
    }
    let duration = scene.number(motion, "frameDuration").max(0.0) * span_frames as f64;
    let clock = Clock::TimeSensor {
        cycle_interval: duration,
        looping: scene.flag(motion, "loop"),
        enabled: true,
        start_time: 0.0,
        stop_time: 0.0,
        pause_time: 0.0,
        resume_time: 0.0,
        from: f64::NEG_INFINITY,
    };
    Some(Motion {
        clock,
        keys,
        joints,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_are_counted_groups() {
        assert_eq!(
            channel_groups(
                "6 Xposition Yposition Zposition Zrotation Xrotation Yrotation 3 Zrotation Xrotation Yrotation"
            ),
            vec![
                vec![
                    "Xposition",
                    "Yposition",
                    "Zposition",
                    "Zrotation",
                    "Xrotation",
                    "Yrotation"
                ],
                vec!["Zrotation", "Xrotation", "Yrotation"]
            ]
        );
    }

    /// Euler angles in their listed order, against rotations worked by
    /// hand: "ZXY" with 90° about X and about Z is Rz(90°)·Rx(90°), which
    /// takes x to y (Rx keeps x, Rz turns it to y) and z to x (Rx turns z
    /// to −y, Rz turns −y to x).
    #[test]
    fn euler_turns_in_the_listed_order() {
        let q = euler([90.0, 0.0, 90.0], "ZXY");
        let v = q * DVec3::X;
        assert!((v - DVec3::Y).length() < 1e-12, "{v}");
        let v = q * DVec3::Z;
        assert!((v - DVec3::X).length() < 1e-12, "{v}");
    }
}
