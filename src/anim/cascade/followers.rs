//! The Followers component in world time (ISO/IEC 19775-1, 39): a
//! follower's value moves towards its destination, and the cascade sends
//! it while it moves. Both families are evaluated in continuous time from
//! the destination's history, as docs/interpretations.md ("Followers")
//! defines them:
//!
//! - A Damper is `order` first-order filters in a chain, each with time
//!   constant `tau`, the first fed the destination: yₖ' = (yₖ₋₁ − yₖ)/τ.
//!   For a destination moving at a constant rate r from d₀ at t₀ (held:
//!   r = 0), stage k settles on d(t) − k·r·τ, and its error from that,
//!   eₖ, with s = (t − t₀)/τ, is eₖ(t) = e⁻ˢ Σⱼ₌₀..ₖ₋₁ eₖ₋ⱼ(t₀) sʲ/j!: exact
//!   for destinations that are piecewise linear in time. It stops when
//!   every stage is within `tolerance` (0.001 when −1) of the destination.
//! - A Chaser is the transition the text gives each change of destination
//!   (dₖ − dₖ₋₁)·S(t − tₖ), S rising from 0 to 1 over `duration` as
//!   ½ − ½cos(π u / duration), summed: y(t) = ∫₀ᴰ d(t − v) S'(v) dv, which
//!   for a moving destination is the limit of many small changes. It stops
//!   `duration` after the last change.
//!
//! A destination is what was sent (an event holds until the next), or a
//! clock's run through interpolators (`Feed`): the fraction of a
//! TimeSensor that reaches `set_destination` through interpolators and
//! EaseInEaseOut, evaluated at any time instead of at frames, as straight
//! pieces within 1e-8 of it, through which both families are exact. What a
//! follower sends, it sends at times it chooses, at least `rate` a second,
//! closer where its value bends, so that the straight line between two of
//! them is within 1e-6 of it.
//!
//! Rotations follow as quaternions, each destination taken in the
//! hemisphere of the one before, the value normalised. A Damper's stages
//! of a rotation turn along the rotation itself, as X_ITE steps them: each
//! turns towards its input about the axis between them, at the angle
//! between them over τ (X_ITE's slerp by 1 − e^(−Δt/τ) a frame, in
//! continuous time); it stops when its value is within `tolerance` radians
//! (1e-4 when −1, X_ITE's) of the destination, and holds that value.

use super::frames::value_of;
use super::{Ev, Field, Player, Sending};
use crate::anim::clock::Clock;
use crate::anim::reduce::distance;
use crate::anim::{NodeFn, track_numbers};
use crate::hash::{HashMap, HashSet};
use crate::interp::rotation;
use crate::math;
use crate::scene::{FieldType, NodeId, Scene};
use glam::{DQuat, DVec3};
use std::cell::RefCell;
use std::rc::Rc;

/// The tolerance of a Damper whose `tolerance` is −1 (the browser's
/// choice).
const TOLERANCE: f64 = 1e-3;

/// The tolerance of an OrientationDamper whose `tolerance` is −1, in
/// radians (X_ITE's).
const ANGLE_TOLERANCE: f64 = 1e-4;

/// The steps an OrientationDamper's stages are integrated in, per τ.
const TURN_STEPS: f64 = 100.0;

/// How many τ a destination held brings a Damper's stages onto it (within
/// e⁻⁶⁰·60⁴/4! < 1e-20 of it, order 5).
const HELD: f64 = 60.0;

/// How far a moving destination may stray from the straight pieces the
/// followers take it through (times the size of its values, at least 1).
const FEED_ERROR: f64 = 1e-8;

/// How far a follower's value may stray from the straight line between
/// two values it sends (times the size of its values, at least 1).
const SAMPLE_ERROR: f64 = 1e-6;

/// The shortest piece: a destination that jumps (a looping clock's wrap)
/// is taken across it in one.
const SHORTEST: f64 = 1e-9;

/// The longest piece a moving destination is taken through in one.
const LONGEST: f64 = 0.25;

/// A destination that moves: a TimeSensor's run, its fraction through
/// interpolators and EaseInEaseOut, taken as straight pieces (each within
/// FEED_ERROR of it), found as time goes on and kept.
#[derive(Debug)]
pub(super) struct Feed {
    /// The run (the stretch under way: paused, it holds).
    run: Clock,
    /// The nodes the fraction goes through, in order.
    chain: Rc<[NodeFn]>,
    /// Quaternions: each value is taken in the hemisphere of the one
    /// before it in time (a looping rotation wraps without a turn back).
    rotation: bool,
    /// The straight pieces found so far.
    line: RefCell<Line>,
}

impl Feed {
    /// A run through a chain.
    pub fn new(run: Clock, chain: Rc<[NodeFn]>) -> Feed {
        Feed {
            run,
            chain,
            rotation: false,
            line: RefCell::new((Vec::new(), LONGEST / 16.0)),
        }
    }

    /// The destination at `t`, exactly.
    fn exact(&self, t: f64) -> Vec<f64> {
        let fraction = self.run.world_event(t).map_or(0.0, |e| e.0);
        let mut x = vec![fraction];
        let mut out = Vec::new();
        for f in self.chain.iter() {
            match f {
                NodeFn::Fraction(ease) => x = vec![ease.modify(x[0])],
                NodeFn::Value(it) => {
                    it.eval(x[0], &mut out);
                    std::mem::swap(&mut x, &mut out);
                }
            }
        }
        x
    }

    /// The destination at `t`, in the hemisphere of `near` (rotations).
    fn exact_near(&self, t: f64, near: &[f64]) -> Vec<f64> {
        let mut x = self.exact(t);
        if self.rotation {
            align(&mut x, near);
        }
        x
    }

    /// The straight pieces from `since` (when it began moving) past `t`.
    fn reach(&self, since: f64, t: f64) {
        let mut line = self.line.borrow_mut();
        let (points, step) = &mut *line;
        if points.is_empty() {
            points.push((since, self.exact(since)));
        }
        while let Some((a, fa)) = points.last().cloned()
            && a < t
        {
            let mut h = (*step * 2.0).min(LONGEST);
            let (b, fb) = loop {
                let b = a + h;
                let fb = self.exact_near(b, &fa);
                let straight = [0.25, 0.5, 0.75].iter().all(|&w| {
                    let line: Vec<f64> = fa.iter().zip(&fb).map(|(x, z)| x + (z - x) * w).collect();
                    let (far, size) = apart(&self.exact_near(a + w * h, &fa), &line);
                    far <= FEED_ERROR * size
                });
                if straight || h <= SHORTEST {
                    break (b, fb);
                }
                h /= 2.0;
            };
            *step = h;
            points.push((b, fb));
        }
    }

    /// The straight pieces' value at `t` (within FEED_ERROR of the
    /// destination), `since` when it began moving.
    fn at(&self, since: f64, t: f64) -> Vec<f64> {
        self.reach(since, t);
        let line = self.line.borrow();
        let points = &line.0;
        if points.len() == 1 {
            return points[0].1.clone(); // (at its start)
        }
        let i = points
            .partition_point(|p| p.0 <= t)
            .clamp(1, points.len() - 1);
        let ((a, fa), (b, fb)) = (&points[i - 1], &points[i]);
        let w = if b > a {
            ((t - a) / (b - a)).clamp(0.0, 1.0)
        } else {
            1.0
        };
        fa.iter().zip(fb).map(|(x, z)| x + (z - x) * w).collect()
    }

    /// The straight pieces between `a` and `b`: their ends, with `a` and
    /// `b` themselves.
    fn pieces(&self, since: f64, a: f64, b: f64) -> Vec<(f64, Vec<f64>)> {
        self.reach(since, b);
        let inside: Vec<(f64, Vec<f64>)> = {
            let line = self.line.borrow();
            line.0
                .iter()
                .filter(|p| p.0 > a && p.0 < b)
                .cloned()
                .collect()
        };
        let mut out = vec![(a, self.at(since, a))];
        out.extend(inside);
        out.push((b, self.at(since, b)));
        out
    }
}

/// The ends of the straight pieces a moving destination is taken through,
/// from the time it began moving; and the last piece's length.
type Line = (Vec<(f64, Vec<f64>)>, f64);

/// Each quaternion of `q` in the hemisphere of `near`'s.
fn align(q: &mut [f64], near: &[f64]) {
    for (q, p) in q.chunks_exact_mut(4).zip(near.chunks_exact(4)) {
        if q.iter().zip(p).map(|(a, b)| a * b).sum::<f64>() < 0.0 {
            q.iter_mut().for_each(|x| *x = -*x);
        }
    }
}

/// Where a follower is heading, from a time on.
#[derive(Clone, Debug)]
enum Dest {
    /// A value sent to it.
    Value(Vec<f64>),
    /// A destination that moves.
    Moving(Rc<Feed>),
}

impl Dest {
    /// The destination at `t`, this piece beginning at `since`.
    fn at(&self, since: f64, t: f64) -> Vec<f64> {
        match self {
            Dest::Value(v) => v.clone(),
            Dest::Moving(f) => f.at(since, t),
        }
    }
}

/// The destination's history: each piece from its time on.
type Pieces = Vec<(f64, Dest)>;

/// The destination at `t`.
fn dest_at(pieces: &Pieces, t: f64) -> Vec<f64> {
    let i = pieces.partition_point(|p| p.0 <= t).saturating_sub(1);
    pieces[i].1.at(pieces[i].0, t)
}

/// How a follower's value moves.
#[derive(Clone, Debug)]
enum Law {
    Chaser {
        duration: f64,
        /// The destination's history, the first piece from −∞.
        pieces: Pieces,
    },
    Damper {
        tau: f64,
        order: usize,
        tolerance: f64,
        /// When the stages were last worked out.
        t0: f64,
        /// The stages' values at `t0` (the last is the value).
        stages: Vec<Vec<f64>>,
        /// The destination's history from the piece under way at `t0`.
        pieces: Pieces,
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
    /// The number of the next value it has set itself to send (one set
    /// before it was sent something new is stale).
    sample: u64,
    /// The time between the last two values it sent itself.
    step: f64,
}

/// The Chaser's step response: 0 before the change, 1 `duration` after.
fn step(u: f64, duration: f64) -> f64 {
    if u <= 0.0 {
        0.0
    } else if u >= duration {
        1.0
    } else {
        0.5 - 0.5 * math::cos(std::f64::consts::PI * u / duration)
    }
}

/// Adds `w`·`x` to `y`, component by component.
fn add_scaled(y: &mut [f64], x: &[f64], w: f64) {
    for (a, b) in y.iter_mut().zip(x) {
        *a += w * b;
    }
}

/// The largest difference of two values, and the size of the first (at
/// least 1): what the error bounds are measured against.
fn apart(a: &[f64], b: &[f64]) -> (f64, f64) {
    let far = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    let size = a.iter().map(|x| x.abs()).fold(1.0, f64::max);
    (far, size)
}

/// ∫₀ᵛ S(x) dx for the Chaser's step S over `duration`.
fn step_area(v: f64, duration: f64) -> f64 {
    if v <= 0.0 {
        0.0
    } else if v >= duration {
        duration / 2.0 + (v - duration)
    } else {
        let pi = std::f64::consts::PI;
        v / 2.0 - duration / (2.0 * pi) * math::sin(pi * v / duration)
    }
}

/// What a destination going straight from `dp` at `p` to `dq` at `q`
/// adds to the Chaser's value at `t`: ∫ d(u)·S'(t − u) du over [p, q],
/// by parts d(p)S(t − p) − d(q)S(t − q) + r·∫ S(t − u) du.
fn chaser_piece(
    y: &mut [f64],
    (p, dp): (f64, &[f64]),
    (q, dq): (f64, &[f64]),
    t: f64,
    duration: f64,
) {
    let (sp, sq) = (step(t - p, duration), step(t - q, duration));
    let area = step_area(t - p, duration) - step_area(t - q, duration);
    for ((y, a), b) in y.iter_mut().zip(dp).zip(dq) {
        let rate = if q > p { (b - a) / (q - p) } else { 0.0 };
        *y += a * sp - b * sq + rate * area;
    }
}

/// The Damper's stages after `h` seconds of a destination going straight
/// from `dp` to `dq`, from `stages`.
fn ramp(stages: &mut [Vec<f64>], dp: &[f64], dq: &[f64], h: f64, tau: f64) {
    if tau <= 0.0 {
        stages.iter_mut().for_each(|y| *y = dq.to_vec());
        return;
    }
    let rate: Vec<f64> = dp
        .iter()
        .zip(dq)
        .map(|(p, q)| if h > 0.0 { (q - p) / h } else { 0.0 })
        .collect();
    // Stage k (from 1) settles on d − k·r·τ; its error from that decays.
    let settled = |d: &[f64], k: usize| -> Vec<f64> {
        d.iter()
            .zip(&rate)
            .map(|(x, r)| x - k as f64 * r * tau)
            .collect()
    };
    let errors: Vec<Vec<f64>> = stages
        .iter()
        .enumerate()
        .map(|(k, y)| {
            y.iter()
                .zip(settled(dp, k + 1))
                .map(|(a, b)| a - b)
                .collect()
        })
        .collect();
    let s = h / tau;
    let decay = math::exp(-s);
    for (k, y) in stages.iter_mut().enumerate() {
        // eₖ(t) = e⁻ˢ Σⱼ eₖ₋ⱼ(t₀) sʲ/j! (stages counted from 1 in the
        // formula, from 0 here).
        let mut e = vec![0.0; dq.len()];
        let mut term = 1.0;
        for j in 0..=k {
            add_scaled(&mut e, &errors[k - j], term);
            term *= s / (j + 1) as f64;
        }
        *y = settled(dq, k + 1)
            .iter()
            .zip(&e)
            .map(|(d, e)| d + decay * e)
            .collect();
    }
}

/// The turn from `y` towards `x` (on the shorter arc) as a rate, per τ:
/// y·log(y⁻¹x), whose angle is the angle between them.
fn towards(y: DQuat, x: DQuat) -> DQuat {
    let r = y.conjugate() * x;
    let r = if r.w < 0.0 { -r } else { r };
    let v = DVec3::new(r.x, r.y, r.z);
    let s = v.length();
    if s < 1e-300 {
        return DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    }
    let v = v * (math::atan2(s, r.w) / s);
    y * DQuat::from_xyzw(v.x, v.y, v.z, 0.0)
}

/// An OrientationDamper's stages after `h` seconds of a destination going
/// straight (normalised) from `dp` to `dq`, from `stages`: stage k turns
/// as qₖ' = qₖ·log(qₖ⁻¹qₖ₋₁)/τ, q₀ the destination. Order 1 towards a
/// held destination is slerp(q, d, 1 − e⁻ˢ), s = h/τ; otherwise the
/// classical Runge–Kutta method in steps of at most τ/TURN_STEPS.
fn turn(stages: &mut [Vec<f64>], dp: &[f64], dq: &[f64], h: f64, tau: f64) {
    if tau <= 0.0 || (dp == dq && h > HELD * tau) {
        stages.iter_mut().for_each(|y| *y = dq.to_vec());
        return;
    }
    if h <= 0.0 {
        return;
    }
    for c in (0..dq.len()).step_by(4) {
        let quat = |v: &[f64]| DQuat::from_slice(&v[c..c + 4]);
        let (p, q) = (quat(dp), quat(dq));
        let mut y: Vec<DQuat> = stages.iter().map(|s| quat(s)).collect();
        if dp == dq && y.len() == 1 {
            y[0] = rotation::slerp(y[0], q, 1.0 - math::exp(-h / tau));
        } else {
            let at = |u: f64| (p + (q - p) * (u / h)).normalize();
            let rates = |y: &[DQuat], x: DQuat| -> Vec<DQuat> {
                let mut input = x;
                y.iter()
                    .map(|&yk| {
                        let r = towards(yk, input) * (1.0 / tau);
                        input = yk;
                        r
                    })
                    .collect()
            };
            let moved = |y: &[DQuat], k: &[DQuat], w: f64| -> Vec<DQuat> {
                y.iter().zip(k).map(|(&a, &b)| a + b * w).collect()
            };
            let n = (h * TURN_STEPS / tau).ceil();
            let dt = h / n;
            for i in 0..n as u64 {
                let u = i as f64 * dt;
                let k1 = rates(&y, at(u));
                let k2 = rates(&moved(&y, &k1, dt / 2.0), at(u + dt / 2.0));
                let k3 = rates(&moved(&y, &k2, dt / 2.0), at(u + dt / 2.0));
                let k4 = rates(&moved(&y, &k3, dt), at(u + dt));
                for (j, yk) in y.iter_mut().enumerate() {
                    let d = k1[j] + (k2[j] + k3[j]) * 2.0 + k4[j];
                    *yk = (*yk + d * (dt / 6.0)).normalize();
                }
            }
        }
        for (s, yk) in stages.iter_mut().zip(&y) {
            s[c..c + 4].copy_from_slice(&yk.to_array());
        }
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
            let mut pieces = vec![(f64::NEG_INFINITY, Dest::Value(initial.clone()))];
            if destination != initial {
                pieces.push((0.0, Dest::Value(destination)));
            }
            Law::Chaser {
                duration: scene.number(id, "duration").max(0.0),
                pieces,
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
                tolerance: if tolerance >= 0.0 {
                    tolerance
                } else if ty.single() == FieldType::SFRotation {
                    ANGLE_TOLERANCE
                } else {
                    TOLERANCE
                },
                t0: 0.0,
                stages: vec![initial.clone(); order as usize],
                pieces: vec![(0.0, Dest::Value(destination))],
            }
        };
        let mut f = Follower {
            ty,
            law,
            active: false,
            sample: 0,
            step: f64::INFINITY,
        };
        f.active = f.value(0.0) != f.destination() || !f.settled(0.0);
        Some(f)
    }

    /// Whether it is moving.
    pub fn moving(&self) -> bool {
        self.active
    }

    fn pieces(&self) -> &Pieces {
        match &self.law {
            Law::Chaser { pieces, .. } | Law::Damper { pieces, .. } => pieces,
        }
    }

    /// Where it is going: the last value sent, or where a moving
    /// destination is now.
    fn destination(&self) -> Vec<f64> {
        let (t, d) = self.pieces().last().expect("a destination");
        d.at(*t, *t)
    }

    /// Its value at world time `t` (not before its last event).
    pub fn value(&self, t: f64) -> Vec<f64> {
        let mut v = match &self.law {
            Law::Chaser { duration, pieces } => {
                if *duration <= 0.0 {
                    dest_at(pieces, t)
                } else {
                    let mut y = vec![0.0; dest_at(pieces, t).len()];
                    let from = t - duration;
                    for (i, (since, d)) in pieces.iter().enumerate() {
                        let next = pieces.get(i + 1).map_or(f64::INFINITY, |p| p.0);
                        let (a, b) = (since.max(from), next.min(t));
                        if b <= a {
                            continue;
                        }
                        match d {
                            Dest::Value(v) => add_scaled(
                                &mut y,
                                v,
                                step(t - a, *duration) - step(t - b, *duration),
                            ),
                            Dest::Moving(f) => {
                                let points = f.pieces(*since, a, b);
                                for w in points.windows(2) {
                                    chaser_piece(
                                        &mut y,
                                        (w[0].0, &w[0].1),
                                        (w[1].0, &w[1].1),
                                        t,
                                        *duration,
                                    );
                                }
                            }
                        }
                    }
                    // (Before any piece: the value the history starts with.)
                    if pieces[0].0 > from {
                        let first = pieces[0].1.at(pieces[0].0, pieces[0].0);
                        add_scaled(&mut y, &first, 1.0 - step(t - pieces[0].0, *duration));
                    }
                    y
                }
            }
            Law::Damper {
                order: 0, pieces, ..
            } => dest_at(pieces, t),
            Law::Damper { .. } => self.stages_at(t).pop().unwrap_or_default(),
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

    /// A Damper's stages at `t` (from its last checkpoint on).
    fn stages_at(&self, t: f64) -> Vec<Vec<f64>> {
        let Law::Damper {
            tau,
            t0,
            stages,
            pieces,
            ..
        } = &self.law
        else {
            return Vec::new();
        };
        let law = if self.turns() { turn } else { ramp };
        let mut y = stages.clone();
        for (i, (since, d)) in pieces.iter().enumerate() {
            let next = pieces.get(i + 1).map_or(f64::INFINITY, |p| p.0);
            let (a, b) = (since.max(*t0), next.min(t));
            if b <= a {
                continue;
            }
            match d {
                Dest::Value(v) => law(&mut y, v, v, b - a, *tau),
                Dest::Moving(f) => {
                    for w in f.pieces(*since, a, b).windows(2) {
                        law(&mut y, &w[0].1, &w[1].1, w[1].0 - w[0].0, *tau);
                    }
                }
            }
        }
        y
    }

    /// Whether it is a Damper of rotations (whose stages turn).
    fn turns(&self) -> bool {
        matches!(self.law, Law::Damper { .. }) && self.ty.single() == FieldType::SFRotation
    }

    /// Whether it has arrived by `t`: a Chaser `duration` after the last
    /// change; a Damper when every stage is within `tolerance` of the
    /// destination, of rotations when its value is (X_ITE's).
    fn settled(&self, t: f64) -> bool {
        let still = matches!(self.pieces().last(), Some((_, Dest::Value(_))));
        match &self.law {
            Law::Chaser {
                duration, pieces, ..
            } => still && pieces.last().is_some_and(|p| t >= p.0 + duration),
            Law::Damper { tolerance, .. } => {
                let d = self.destination();
                let stages = self.stages_at(t);
                still
                    && if self.turns() {
                        stages
                            .last()
                            .is_none_or(|y| distance(y, &d, true, 4) < *tolerance)
                    } else {
                        stages
                            .iter()
                            .all(|y| y.iter().zip(&d).all(|(a, b)| (a - b).abs() <= *tolerance))
                    }
            }
        }
    }

    /// What it holds once it has arrived at `t`: its destination; a Damper
    /// of rotations its value (X_ITE's).
    fn arrived(&self, t: f64) -> Vec<f64> {
        if self.turns() {
            self.value(t)
        } else {
            self.destination()
        }
    }

    /// Moves its checkpoint on to `t` (a Damper's stages worked out
    /// there; history no longer needed dropped).
    fn advance(&mut self, t: f64) {
        if let Law::Damper { t0, .. } = &self.law
            && t <= *t0
        {
            return;
        }
        let stages = self.stages_at(t);
        match &mut self.law {
            Law::Chaser { duration, pieces } => {
                let from = t - *duration;
                let keep = pieces.partition_point(|p| p.0 <= from).saturating_sub(1);
                pieces.drain(..keep);
            }
            Law::Damper {
                t0,
                stages: s,
                pieces,
                ..
            } => {
                *s = stages;
                *t0 = t;
                let keep = pieces.partition_point(|p| p.0 <= t).saturating_sub(1);
                pieces.drain(..keep);
            }
        }
    }

    /// A new destination from `t` on.
    fn head_for(&mut self, t: f64, d: Dest) {
        self.advance(t);
        match &mut self.law {
            Law::Chaser { pieces, .. } | Law::Damper { pieces, .. } => pieces.push((t, d)),
        }
        self.active = true;
    }

    /// A new destination at `t`.
    fn set_destination(&mut self, t: f64, mut d: Vec<f64>) {
        let now = self.value(t);
        if self.ty.single() == FieldType::SFRotation {
            // The hemisphere of the destination before.
            align(&mut d, &dest_at(self.pieces(), t));
        }
        if d.len() != now.len() {
            self.set_value(t, d);
            return;
        }
        self.head_for(t, Dest::Value(d));
    }

    /// A destination that moves, from `t` on.
    fn set_feed(&mut self, t: f64, mut feed: Feed) {
        let before = dest_at(self.pieces(), t);
        feed.rotation = self.ty.single() == FieldType::SFRotation;
        // It starts in the hemisphere of the destination before.
        let first = feed.exact_near(t, &before);
        if first.len() != self.value(t).len() {
            return;
        }
        feed.line.borrow_mut().0.push((t, first));
        self.head_for(t, Dest::Moving(Rc::new(feed)));
    }

    /// A moving destination stops where it is at `t`.
    fn freeze(&mut self, t: f64) {
        if let Some((since, Dest::Moving(f))) = self.pieces().last() {
            let d = f.at(*since, t);
            self.head_for(t, Dest::Value(d));
        }
    }

    /// The value set at `t`: it holds there, at rest.
    fn set_value(&mut self, t: f64, v: Vec<f64>) {
        match &mut self.law {
            Law::Chaser { pieces, .. } => *pieces = vec![(f64::NEG_INFINITY, Dest::Value(v))],
            Law::Damper {
                t0, stages, pieces, ..
            } => {
                *t0 = t;
                stages.iter_mut().for_each(|s| *s = v.clone());
                *pieces = vec![(t, Dest::Value(v))];
            }
        }
        self.active = true;
    }

    /// How long after `t` it sends its next value: at most `longest`, and
    /// short enough that the straight line to it is within SAMPLE_ERROR
    /// of the value between.
    fn next_step(&self, t: f64, longest: f64) -> f64 {
        let y0 = self.value(t);
        let mut h = longest.min(self.step * 2.0);
        while h > 1e-6 {
            let y1 = self.value(t + h);
            let fits = [0.25, 0.5, 0.75].iter().all(|&w| {
                let line: Vec<f64> = y0.iter().zip(&y1).map(|(a, b)| a + (b - a) * w).collect();
                let (far, size) = apart(&self.value(t + w * h), &line);
                far <= SAMPLE_ERROR * size
            });
            if fits {
                break;
            }
            h /= 2.0;
        }
        h
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
        self.follower_moved(t, id, was);
    }

    /// A follower's destination moves with a clock's run from `t` on.
    pub(super) fn follower_feed(&mut self, t: f64, id: NodeId, feed: Feed) {
        let Some(f) = self.followers.get_mut(&id) else {
            return;
        };
        let was = f.active;
        f.set_feed(t, feed);
        self.follower_moved(t, id, was);
    }

    /// A follower's moving destination stops where it is at `t`.
    pub(super) fn follower_freeze(&mut self, t: f64, id: NodeId) {
        if let Some(f) = self.followers.get_mut(&id) {
            f.freeze(t);
        }
    }

    /// A follower got something new at `t`: it sends its value, and goes
    /// on sending while it moves.
    fn follower_moved(&mut self, t: f64, id: NodeId, was: bool) {
        if !was {
            self.send(t, id, "isActive", Ev::Bool(true));
        }
        self.follower_sends(t, id);
    }

    /// A follower's own next value, set for `sample`: stale once it got
    /// something new.
    pub(super) fn follower_sample(&mut self, t: f64, id: NodeId, sample: u64) {
        if self
            .followers
            .get(&id)
            .is_some_and(|f| f.sample == sample && f.active)
        {
            self.follower_sends(t, id);
        }
    }

    /// A follower sends its value at `t`, stops once it has arrived, and
    /// otherwise sets when it sends the next.
    pub(super) fn follower_sends(&mut self, t: f64, id: NodeId) {
        let longest = 1.0 / self.frames.rate;
        let until = self.until;
        let Some(f) = self.followers.get_mut(&id) else {
            return;
        };
        f.advance(t);
        let settled = f.settled(t);
        let numbers = if settled {
            f.active = false;
            f.arrived(t)
        } else {
            f.value(t)
        };
        f.sample += 1;
        let next = (!settled).then(|| {
            f.step = f.next_step(t, longest);
            t + f.step
        });
        let (ty, sample) = (f.ty, f.sample);
        self.sending = Sending {
            towards_frames: false,
            sampled: true,
            ending: false,
        };
        self.send(t, id, "value_changed", Ev::of(value_of(ty, numbers)));
        if settled {
            self.send(t, id, "isActive", Ev::Bool(false));
        }
        // (The last one at the end of the play.)
        if let Some(next) = next.filter(|_| t < until) {
            self.push(next.min(until), id, Field::Sample(sample), Ev::Bool(true));
        }
    }
}

#[cfg(test)]
mod tests;
