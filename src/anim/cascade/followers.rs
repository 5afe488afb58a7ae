//! The Followers component in world time (ISO/IEC 19775-1, 39): a
//! follower's value moves towards the destination it was last sent, and
//! the cascade sends it at frames while it moves. Both families are
//! evaluated exactly at any time from the events they got, as
//! docs/interpretations.md ("Followers") defines them:
//!
//! - A Damper is `order` first-order filters in a chain, each with time
//!   constant `tau`, the first fed the destination: yₖ' = (yₖ₋₁ − yₖ)/τ.
//!   For a destination d held since t₀, with eₖ = yₖ − d and s = (t − t₀)/τ,
//!   eₖ(t) = e⁻ˢ Σⱼ₌₀..ₖ₋₁ eₖ₋ⱼ(t₀) sʲ/j!. It stops when every stage is
//!   within `tolerance` (0.001 when −1) of the destination.
//! - A Chaser is a finite impulse response: each change of destination
//!   (dₖ at tₖ) adds (dₖ − dₖ₋₁)·S(t − tₖ), S rising from 0 to 1 over
//!   `duration` as ½ − ½cos(π u / duration). It stops `duration` after
//!   the last change.
//!
//! Rotations follow as quaternions, each destination taken in the
//! hemisphere of the one before, the value normalised.

use super::frames::value_of;
use super::{Ev, Player, Sending};
use crate::anim::track_numbers;
use crate::hash::{HashMap, HashSet};
use crate::scene::{FieldType, NodeId, Scene};

/// The tolerance of a Damper whose `tolerance` is −1 (the browser's
/// choice).
const TOLERANCE: f64 = 1e-3;

/// How a follower's value moves.
#[derive(Clone, Debug)]
enum Law {
    Chaser {
        duration: f64,
        /// The value before the changes still in progress.
        base: Vec<f64>,
        /// The destination before the first change in progress.
        from: Vec<f64>,
        /// The changes in progress: when, and to what.
        changes: Vec<(f64, Vec<f64>)>,
    },
    Damper {
        tau: f64,
        order: usize,
        tolerance: f64,
        /// When the stages were last worked out, and the destination.
        t0: f64,
        destination: Vec<f64>,
        /// The stages' values at `t0` (the last is the value).
        stages: Vec<Vec<f64>>,
    },
}

/// A follower node.
#[derive(Clone, Debug)]
pub(super) struct Follower {
    /// The type of its value.
    ty: FieldType,
    law: Law,
    /// Whether it is moving.
    active: bool,
}

/// The Chaser's step response: 0 before the change, 1 `duration` after.
fn step(u: f64, duration: f64) -> f64 {
    if u <= 0.0 {
        0.0
    } else if u >= duration {
        1.0
    } else {
        0.5 - 0.5 * (std::f64::consts::PI * u / duration).cos()
    }
}

impl Follower {
    /// The follower of a node, from its fields; `None` for other nodes.
    fn of(scene: &Scene, id: NodeId) -> Option<Follower> {
        let name = &scene.known(id)?.name;
        if !crate::anim::check::is_follower(name) {
            return None;
        }
        let ty = scene.field_def(id, "value_changed")?.ty;
        let chaser = name.contains("Chaser");
        let value = |f: &str| scene.value(id, f).map(track_numbers).unwrap_or_default();
        let (initial, destination) = (value("initialValue"), value("initialDestination"));
        let law = if chaser {
            Law::Chaser {
                duration: scene.number(id, "duration").max(0.0),
                base: initial.clone(),
                from: initial.clone(),
                changes: if destination == initial {
                    Vec::new()
                } else {
                    vec![(0.0, destination)]
                },
            }
        } else {
            let order = scene
                .ints(id, "order")
                .first()
                .copied()
                .unwrap_or(3)
                .clamp(0, 5);
            let tolerance = scene.number(id, "tolerance");
            Law::Damper {
                tau: scene.number(id, "tau").max(0.0),
                order: order as usize,
                tolerance: if tolerance < 0.0 {
                    TOLERANCE
                } else {
                    tolerance
                },
                t0: 0.0,
                destination,
                stages: vec![initial.clone(); order as usize],
            }
        };
        let mut f = Follower {
            ty,
            law,
            active: false,
        };
        f.active = f.value(0.0) != f.destination() || !f.settled(0.0);
        Some(f)
    }

    /// Where it is going.
    fn destination(&self) -> Vec<f64> {
        match &self.law {
            Law::Chaser { from, changes, .. } => {
                changes.last().map_or_else(|| from.clone(), |c| c.1.clone())
            }
            Law::Damper { destination, .. } => destination.clone(),
        }
    }

    /// Its value at world time `t` (not before its last event).
    pub fn value(&self, t: f64) -> Vec<f64> {
        let mut v = match &self.law {
            Law::Chaser {
                duration,
                base,
                from,
                changes,
            } => {
                let mut v = base.clone();
                let mut before = from;
                for (tk, d) in changes {
                    let s = step(t - tk, *duration);
                    for (i, x) in v.iter_mut().enumerate() {
                        *x += (d.get(i).copied().unwrap_or(0.0)
                            - before.get(i).copied().unwrap_or(0.0))
                            * s;
                    }
                    before = d;
                }
                v
            }
            Law::Damper {
                order: 0,
                destination,
                ..
            } => destination.clone(),
            Law::Damper { stages, .. } => {
                self.stages_at(t).pop().unwrap_or_else(|| stages[0].clone())
            }
        };
        if self.ty.single() == FieldType::SFRotation {
            for q in v.chunks_exact_mut(4) {
                let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
                if n > 0.0 {
                    q.iter_mut().for_each(|x| *x /= n);
                }
            }
        }
        v
    }

    /// A Damper's stages at `t`.
    fn stages_at(&self, t: f64) -> Vec<Vec<f64>> {
        let Law::Damper {
            tau,
            t0,
            destination: d,
            stages,
            ..
        } = &self.law
        else {
            return Vec::new();
        };
        if *tau <= 0.0 {
            return vec![d.clone(); stages.len()];
        }
        let s = (t - t0).max(0.0) / tau;
        let decay = (-s).exp();
        let errors: Vec<Vec<f64>> = stages
            .iter()
            .map(|y| y.iter().zip(d).map(|(a, b)| a - b).collect())
            .collect();
        (0..stages.len())
            .map(|k| {
                // eₖ(t) = e⁻ˢ Σⱼ eₖ₋ⱼ(t₀) sʲ/j! (stages counted from 1 in the
                // formula, from 0 here).
                let mut e = vec![0.0; d.len()];
                let mut term = 1.0;
                for j in 0..=k {
                    for (x, ej) in e.iter_mut().zip(&errors[k - j]) {
                        *x += ej * term;
                    }
                    term *= s / (j + 1) as f64;
                }
                e.iter().zip(d).map(|(x, di)| di + decay * x).collect()
            })
            .collect()
    }

    /// Whether it has arrived by `t`.
    fn settled(&self, t: f64) -> bool {
        match &self.law {
            Law::Chaser {
                duration, changes, ..
            } => changes.last().is_none_or(|c| t >= c.0 + duration),
            Law::Damper {
                tolerance,
                destination,
                ..
            } => self.stages_at(t).iter().all(|y| {
                y.iter()
                    .zip(destination)
                    .all(|(a, b)| (a - b).abs() <= *tolerance)
            }),
        }
    }

    /// A new destination at `t`.
    fn set_destination(&mut self, t: f64, mut d: Vec<f64>) {
        let rotation = self.ty.single() == FieldType::SFRotation;
        let now = self.value(t);
        if rotation {
            // The hemisphere of the destination before.
            let before = self.destination();
            for (q, p) in d.chunks_exact_mut(4).zip(before.chunks_exact(4)) {
                if q.iter().zip(p).map(|(a, b)| a * b).sum::<f64>() < 0.0 {
                    q.iter_mut().for_each(|x| *x = -*x);
                }
            }
        }
        if d.len() != now.len() {
            self.set_value(t, d);
            return;
        }
        let stages = self.stages_at(t);
        match &mut self.law {
            Law::Chaser {
                duration,
                base,
                from,
                changes,
            } => {
                // Changes complete by now fold into the base.
                while changes.first().is_some_and(|c| t >= c.0 + *duration) {
                    let (_, done) = changes.remove(0);
                    for ((b, x), y) in base.iter_mut().zip(&done).zip(from.iter()) {
                        *b += x - y;
                    }
                    *from = done;
                }
                changes.push((t, d));
            }
            Law::Damper {
                t0,
                destination,
                stages: s,
                ..
            } => {
                *s = stages;
                *t0 = t;
                *destination = d;
            }
        }
        self.active = true;
    }

    /// The value set at `t`: it holds there, at rest.
    fn set_value(&mut self, t: f64, v: Vec<f64>) {
        match &mut self.law {
            Law::Chaser {
                base,
                from,
                changes,
                ..
            } => {
                *base = v.clone();
                *from = v;
                changes.clear();
            }
            Law::Damper {
                t0,
                destination,
                stages,
                ..
            } => {
                *t0 = t;
                stages.iter_mut().for_each(|s| *s = v.clone());
                *destination = v;
            }
        }
        self.active = true;
    }
}

/// The followers of a scene (of `only`, when given).
pub(super) fn load(scene: &Scene, only: Option<&HashSet<NodeId>>) -> HashMap<NodeId, Follower> {
    (0..scene.nodes.len() as u32)
        .map(NodeId)
        .filter(|&id| scene.node(id).in_proto.is_none())
        .filter(|id| only.is_none_or(|o| o.contains(id)))
        .filter_map(|id| Some((id, Follower::of(scene, id)?)))
        .collect()
}

impl<'s> Player<'s> {
    /// An event into a follower: a new destination, or a value.
    pub(super) fn follower_input(&mut self, t: f64, id: NodeId, field: &str, v: &Ev) {
        let Some(f) = self.followers.get_mut(&id) else {
            return;
        };
        let Some(value) = v.value(f.ty) else { return };
        let n = track_numbers(&value);
        let was = f.active;
        match field {
            "set_destination" => f.set_destination(t, n),
            "set_value" => f.set_value(t, n),
            _ => return,
        }
        if !was {
            self.send(t, id, "isActive", Ev::Bool(true));
        }
        self.follower_sends(t, id);
    }

    /// The moving followers send their values at a frame; those that
    /// arrive stop.
    pub(super) fn followers_frame(&mut self, t: f64) {
        let mut moving: Vec<NodeId> = self
            .followers
            .iter()
            .filter(|(_, f)| f.active)
            .map(|(&id, _)| id)
            .collect();
        moving.sort();
        for id in moving {
            self.follower_sends(t, id);
        }
    }

    /// A follower sends its value at `t`, and stops once it has arrived.
    fn follower_sends(&mut self, t: f64, id: NodeId) {
        let Some(f) = self.followers.get_mut(&id) else {
            return;
        };
        let settled = f.settled(t);
        let numbers = if settled {
            f.active = false;
            f.destination()
        } else {
            f.value(t)
        };
        let ty = f.ty;
        self.sending = Sending {
            towards_frames: false,
            sampled: true,
        };
        self.send(t, id, "value_changed", Ev::of(value_of(ty, numbers)));
        if settled {
            self.send(t, id, "isActive", Ev::Bool(false));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diagnostics;
    use crate::limits::Limits;
    use crate::source::Sources;

    /// Every follower type of X3D 4.0 moves by its family's law, component
    /// by component (a rotation as a normalised quaternion), from its
    /// initialValue to its initialDestination from load: a Chaser
    /// (duration 1) halfway at 0.5 s, a Damper (tau 0.5, order 2) at
    /// d + (v₀ − d)·e⁻¹·(1 + 1).
    #[test]
    fn every_follower_type_follows_its_law() {
        let types = [
            ("Color", "0 0 0", "1 0.5 0.25"),
            ("Coordinate", "0 0 0 1 1 1", "2 0 0 3 1 1"),
            ("Orientation", "0 1 0 0", "0 1 0 1"),
            ("Position", "0 0 0", "4 2 0"),
            ("Position2D", "0 0", "4 2"),
            ("Scalar", "0", "3"),
            ("TexCoord2D", "0 0 1 1", "1 1 0 0"),
        ];
        let mut text = String::from("#X3D V4.0 utf8\n");
        for (name, from, to) in types {
            let (chaser, damper) = match name.strip_suffix("2D") {
                Some(base) => (format!("{base}Chaser2D"), format!("{base}Damper2D")),
                None => (format!("{name}Chaser"), format!("{name}Damper")),
            };
            let (from, to) = match name {
                "Coordinate" | "TexCoord2D" => (format!("[{from}]"), format!("[{to}]")),
                _ => (from.to_string(), to.to_string()),
            };
            text += &format!(
                "DEF C{name} {chaser} {{ duration 1 initialValue {from} initialDestination {to} }}\n\
                 DEF D{name} {damper} {{ tau 0.5 order 2 initialValue {from} initialDestination {to} }}\n"
            );
        }
        let mut sources = Sources::new();
        let file = sources.add("f.x3dv", text);
        let mut diags = Diagnostics::default();
        let scene = crate::syntax::parse(&sources, file, &Limits::default(), &mut diags);
        assert!(!diags.has_errors(), "{:?}", diags.list());
        let followers = load(&scene, None);
        assert_eq!(followers.len(), 14);
        for (name, _, _) in types {
            for (prefix, w) in [("C", 0.5), ("D", 1.0 - (-1.0f64).exp() * 2.0)] {
                let id = scene.def(&format!("{prefix}{name}")).expect("node");
                let f = &followers[&id];
                assert!(f.active, "{prefix}{name} moves from load");
                let value = |field: &str| track_numbers(scene.value(id, field).unwrap());
                let (from, to) = (value("initialValue"), value("initialDestination"));
                let mut want: Vec<f64> =
                    from.iter().zip(&to).map(|(a, b)| a + (b - a) * w).collect();
                if name == "Orientation" {
                    let n = want.iter().map(|x| x * x).sum::<f64>().sqrt();
                    want.iter_mut().for_each(|x| *x /= n);
                }
                let got = f.value(0.5);
                assert_eq!(got.len(), want.len(), "{prefix}{name}");
                for (g, x) in got.iter().zip(&want) {
                    assert!((g - x).abs() < 1e-12, "{prefix}{name}: {got:?} ≠ {want:?}");
                }
            }
        }
    }

    fn damper(order: usize, tau: f64) -> Follower {
        Follower {
            ty: FieldType::SFFloat,
            law: Law::Damper {
                tau,
                order,
                tolerance: 1e-9,
                t0: 0.0,
                destination: vec![0.0],
                stages: vec![vec![0.0]; order],
            },
            active: false,
        }
    }

    /// A step of a Damper against its closed form worked by hand: order 1
    /// is 1 − e⁻ˢ, order 2 is 1 − e⁻ˢ(1 + s), order 3 1 − e⁻ˢ(1 + s + s²/2);
    /// a second step midway starts from where the stages are.
    #[test]
    fn a_damper_step_is_the_closed_form() {
        for order in 1..=3 {
            let mut f = damper(order, 0.5);
            f.set_destination(1.0, vec![1.0]);
            for t in [1.0, 1.25, 1.5, 2.0, 3.0] {
                let s: f64 = (t - 1.0) / 0.5;
                let sum: f64 = [1.0, s, s * s / 2.0][..order].iter().sum();
                let want = 1.0 - (-s).exp() * sum;
                assert!((f.value(t)[0] - want).abs() < 1e-12, "order {order} at {t}");
            }
        }
        // Order 1, a new destination 2 at 2 s: from y(2) = 1 − e⁻², e⁻ˢ
        // towards 2.
        let mut f = damper(1, 1.0);
        f.set_destination(1.0, vec![1.0]);
        f.set_destination(2.0, vec![2.0]);
        let y2 = 1.0 - (-1.0f64).exp();
        let want = 2.0 + (y2 - 2.0) * (-0.5f64).exp();
        assert!((f.value(2.5)[0] - want).abs() < 1e-12);
    }

    /// A Chaser moves as the cosine step over its duration, and two
    /// changes add.
    #[test]
    fn a_chaser_adds_cosine_steps() {
        let mut f = Follower {
            ty: FieldType::SFFloat,
            law: Law::Chaser {
                duration: 2.0,
                base: vec![0.0],
                from: vec![0.0],
                changes: Vec::new(),
            },
            active: false,
        };
        f.set_destination(1.0, vec![4.0]);
        assert_eq!(f.value(1.0), vec![0.0]);
        assert!((f.value(2.0)[0] - 2.0).abs() < 1e-12);
        assert!((f.value(3.0)[0] - 4.0).abs() < 1e-12);
        assert!(!f.settled(2.9) && f.settled(3.0));
        // Back to 0 at 2 s: 4·S(t − 1) − 4·S(t − 2).
        f.set_destination(2.0, vec![0.0]);
        let s = |u: f64| 0.5 - 0.5 * (std::f64::consts::PI * u / 2.0).cos();
        let want = 4.0 * s(1.5) - 4.0 * s(0.5);
        assert!((f.value(2.5)[0] - want).abs() < 1e-12);
        assert!((f.value(4.0)[0]).abs() < 1e-12);
    }
}
