//! Continuous events into Scripts and followers. A TimeSensor's fraction_changed, time
//! and elapsedTime, and the values of the interpolators they drive, change
//! at every instant: the clips evaluate them at any time, but a Script
//! needs them as events, as a browser sends them once a frame, and so does
//! a follower. The cascade sends them at frames (`rate` a second, from
//! world time 0) while the sensor runs, and once more when its run ends,
//! along the routes that lead to a Script or a follower only; the routes
//! to other nodes stay exact in the clips. Moving followers send their
//! values at the same frames. A looping clock's cycle ends are known
//! instants: there it sends them its outputs on both sides, as the cycle
//! ends (fraction 1, at the largest time before) and as the next begins,
//! so that what they make of the fraction jumps where it wraps rather
//! than going straight from one frame to the next.

use super::{Ev, Field, Player, Sending};
use crate::anim::check::is_chain_node;
use crate::anim::clock::Clock;
use crate::anim::track::SurfaceOutput;
use crate::anim::{InterpOptions, NodeFn, node_function};
use crate::hash::{HashMap, HashSet};
use crate::interp::rotation;
use crate::scene::value::{Data, Scalar};
use crate::scene::{FieldType, NodeId, NodeType, Scene, Value};
use glam::DQuat;

/// The continuous outputs of a TimeSensor.
const CONTINUOUS: [&str; 3] = ["fraction_changed", "time", "elapsedTime"];

/// The routes frames follow.
pub(super) struct Frames {
    /// Routes from a TimeSensor's continuous outputs, or from an
    /// interpolator they drive, that lead to a Script or a follower.
    pub routes: HashSet<usize>,
    /// TimeSensors with such routes.
    pub sensors: HashSet<NodeId>,
    /// Frames a second.
    pub rate: f64,
}

impl Frames {
    /// The routes from continuous outputs that lead to one of `listeners`
    /// (Scripts, followers); and, from the sensors those have, to one of
    /// `read` (nodes Scripts hold), so that at a frame a Script reads what
    /// the frame's events have set so far, as the browser passes them.
    pub fn find(scene: &Scene, listeners: &[NodeId], read: &[NodeId], rate: f64) -> Frames {
        let mut frames = Frames {
            routes: HashSet::default(),
            sensors: HashSet::default(),
            rate,
        };
        frames.add(scene, listeners, None);
        let known = frames.sensors.clone();
        frames.add(scene, read, Some(&known));
        frames
    }

    /// Adds the routes from continuous outputs to `to`, through
    /// interpolators and EaseInEaseOut: from any sensor, or from those of
    /// `only`.
    fn add(&mut self, scene: &Scene, to: &[NodeId], only: Option<&HashSet<NodeId>>) {
        let mut leads: HashSet<NodeId> = to.iter().copied().collect();
        // Interpolators and EaseInEaseOut whose outputs lead there, through
        // others of them: backwards from those.
        let mut senders: HashMap<NodeId, Vec<NodeId>> = HashMap::default();
        for r in &scene.routes {
            senders.entry(r.to).or_default().push(r.from);
        }
        let mut stack: Vec<NodeId> = to.to_vec();
        while let Some(n) = stack.pop() {
            for &from in senders.get(&n).map_or(&[][..], Vec::as_slice) {
                if is_chain_node(scene, from) && leads.insert(from) {
                    stack.push(from);
                }
            }
        }
        for (ri, r) in scene.routes.iter().enumerate() {
            if !leads.contains(&r.to) {
                continue;
            }
            let from_sensor = scene.node_type(r.from) == Some(NodeType::TimeSensor)
                && CONTINUOUS.contains(&r.from_field.as_str());
            if from_sensor && only.is_none_or(|o| o.contains(&r.from)) {
                self.sensors.insert(r.from);
                self.routes.insert(ri);
            } else if !from_sensor && leads.contains(&r.from) && is_chain_node(scene, r.from) {
                self.routes.insert(ri);
            }
        }
    }
}

impl<'s> Player<'s> {
    /// Frame `k`: the running sensors that Scripts and followers follow send their
    /// continuous outputs.
    pub(super) fn frame(&mut self, t: f64, k: u64) {
        let mut sensors: Vec<NodeId> = self.frames.sensors.iter().copied().collect();
        sensors.sort();
        for id in sensors {
            let Some(s) = self.sensors.get(&id) else {
                continue; // not running here (another clip's clock)
            };
            if let (Some((_, start)), Some(part)) = (s.current(), s.part(f64::NEG_INFINITY)) {
                self.continuous(t, id, &part, start);
            }
        }
        let next = (k + 1) as f64 / self.frames.rate;
        if next <= self.until {
            self.sending = Sending::default();
            self.push(next, NodeId(0), Field::Frame(k + 1), Ev::Bool(true));
        }
    }

    /// A sensor's continuous outputs at `t` in a run, towards Scripts and followers.
    pub(super) fn continuous(&mut self, t: f64, id: NodeId, run: &Clock, start: f64) {
        if let Some((fraction, _)) = run.world_event(t) {
            self.continuous_with(t, id, fraction, start, false);
        }
    }

    /// A sensor's continuous outputs at `t`, its fraction `fraction`, in a
    /// run begun at `start`, towards Scripts and followers (`ending`: at
    /// the instant before a cycle's end, see [`Sending`]).
    pub(super) fn continuous_with(
        &mut self,
        t: f64,
        id: NodeId,
        fraction: f64,
        start: f64,
        ending: bool,
    ) {
        self.sending = Sending {
            towards_frames: true,
            sampled: true,
            ending,
        };
        self.send(t, id, "fraction_changed", Ev::Time(fraction));
        self.send(t, id, "time", Ev::Time(t));
        self.send(t, id, "elapsedTime", Ev::Time(t - start));
    }

    /// The function of an interpolator, sequencer or EaseInEaseOut, built
    /// the first time an event reaches it.
    pub(super) fn function(&mut self, id: NodeId) -> Option<&NodeFn> {
        let scene = self.scene;
        self.functions
            .entry(id)
            .or_insert_with(|| node_function(scene, id, InterpOptions::default()).map(|(f, _)| f))
            .as_ref()
    }

    /// An interpolator (or EaseInEaseOut) gets a fraction: it sends its value.
    pub(super) fn evaluate(&mut self, t: f64, id: NodeId, fraction: f64) {
        let scene = self.scene;
        let Some((field, numbers)) = self.output(id, fraction) else {
            return;
        };
        let Some(def) = scene.field_def(id, field) else {
            return;
        };
        self.send(t, id, field, Ev::of(value_of(def.ty, numbers)));
    }

    /// What an interpolator (or EaseInEaseOut) sends at a fraction: its
    /// output field and value's numbers.
    fn output(&mut self, id: NodeId, fraction: f64) -> Option<(&'static str, Vec<f64>)> {
        match self.function(id)? {
            NodeFn::Value(it) => {
                let mut out = Vec::new();
                it.eval(fraction, &mut out);
                Some(("value_changed", out))
            }
            NodeFn::Fraction(ease) => {
                Some(("modifiedFraction_changed", vec![ease.modify(fraction)]))
            }
        }
    }

    /// The last frame before `t` (none before the first).
    pub(super) fn frame_before(&self, t: f64) -> Option<f64> {
        let rate = self.frames.rate;
        let mut k = (t * rate).ceil() - 1.0;
        while (k + 1.0) / rate < t {
            k += 1.0;
        }
        while k >= 0.0 && k / rate >= t {
            k -= 1.0;
        }
        (k >= 0.0).then(|| k / rate)
    }

    /// The value at `t` of output `field` of `id`, when it is continuous
    /// (a TimeSensor's fraction, or an interpolator or EaseInEaseOut it
    /// drives, through others of them): its numbers, the time of the
    /// event that gave it (the clock's last), and the clock.
    pub(super) fn continuous_at(
        &mut self,
        t: f64,
        id: NodeId,
        field: &str,
    ) -> Option<(Vec<f64>, f64, NodeId)> {
        let scene = self.scene;
        if scene.node_type(id) == Some(NodeType::TimeSensor) {
            if field != "fraction_changed" {
                return None;
            }
            let s = self.sensors.get(&id)?;
            let run = s
                .part(f64::NEG_INFINITY)
                .or_else(|| s.played.last().cloned())?;
            let (fraction, last) = run.world_event(t)?;
            return Some((vec![fraction], last, id));
        }
        if !is_chain_node(scene, id) {
            return None;
        }
        // (Routes go from one chain node to the next: a loop of them is
        // cut after as many steps as there are routes.)
        let (mut at, mut chain) = (id, vec![id]);
        let (fraction, last, clock) = loop {
            let r = scene
                .routes
                .iter()
                .enumerate()
                .find(|&(ri, r)| r.to == at && self.inputs[ri] == "set_fraction")?
                .1;
            if scene.node_type(r.from) == Some(NodeType::TimeSensor) {
                let (f, last, clock) = self.continuous_at(t, r.from, &r.from_field)?;
                break (f[0], last, clock);
            }
            if !is_chain_node(scene, r.from) || chain.len() > scene.routes.len() {
                return None;
            }
            at = r.from;
            chain.push(at);
        };
        let mut fraction = fraction;
        let mut numbers = Vec::new();
        for &node in chain.iter().rev() {
            numbers = self.output(node, fraction)?.1;
            fraction = numbers.first().copied().unwrap_or(0.0);
        }
        Some((numbers, last, clock))
    }

    /// A NurbsSurfaceInterpolator gets a fraction (u, v): it sends the
    /// surface's normal and point there (see [`SurfaceOutput`]).
    pub(super) fn surface_point(&mut self, t: f64, id: NodeId, v: &Ev) {
        let scene = self.scene;
        let made = self
            .surfaces
            .entry(id)
            .or_insert_with(|| crate::mesh::nurbs_surface(scene, id).map(std::sync::Arc::new));
        let Some(surface) = made.clone() else {
            return;
        };
        let uv = v.numbers();
        for (field, normal) in [("normal_changed", true), ("position_changed", false)] {
            let mut out = Vec::new();
            SurfaceOutput::new(surface.clone(), normal).apply(&uv, &mut out);
            self.send(t, id, field, Ev::of(value_of(FieldType::SFVec3f, out)));
        }
    }
}

/// A value of type `ty` from an interpolator's numbers (rotations as
/// quaternions).
pub(super) fn value_of(ty: FieldType, numbers: Vec<f64>) -> Value {
    let numbers = if ty.single() == FieldType::SFRotation {
        numbers
            .chunks_exact(4)
            .flat_map(|q| rotation::to_axis_angle(DQuat::from_slice(q)))
            .collect()
    } else {
        numbers
    };
    let data = match ty.scalar() {
        Scalar::Bool => Data::Bools(numbers.iter().map(|&x| x != 0.0).collect()),
        Scalar::Int => Data::Ints(numbers.iter().map(|&x| x as i32).collect()),
        Scalar::Double => Data::Doubles(numbers),
        _ => Data::Floats(numbers.iter().map(|&x| x as f32).collect::<Vec<_>>().into()),
    };
    Value { ty, data }
}
