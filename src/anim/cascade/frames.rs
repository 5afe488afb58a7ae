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
    /// (Scripts, followers).
    pub fn find(scene: &Scene, listeners: &[NodeId], rate: f64) -> Frames {
        let mut leads: HashSet<NodeId> = listeners.iter().copied().collect();
        // Interpolators and EaseInEaseOut whose outputs lead to a Script or
        // a follower, through others of them: backwards from those.
        let mut senders: HashMap<NodeId, Vec<NodeId>> = HashMap::default();
        for r in &scene.routes {
            senders.entry(r.to).or_default().push(r.from);
        }
        let mut stack: Vec<NodeId> = listeners.to_vec();
        while let Some(n) = stack.pop() {
            for &from in senders.get(&n).map_or(&[][..], Vec::as_slice) {
                if is_chain_node(scene, from) && leads.insert(from) {
                    stack.push(from);
                }
            }
        }
        let mut frames = Frames {
            routes: HashSet::default(),
            sensors: HashSet::default(),
            rate,
        };
        for (ri, r) in scene.routes.iter().enumerate() {
            if !leads.contains(&r.to) {
                continue;
            }
            let from_sensor = scene.node_type(r.from) == Some(NodeType::TimeSensor)
                && CONTINUOUS.contains(&r.from_field.as_str());
            if from_sensor {
                frames.sensors.insert(r.from);
                frames.routes.insert(ri);
            } else if leads.contains(&r.from) && is_chain_node(scene, r.from) {
                frames.routes.insert(ri);
            }
        }
        frames
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
        let (field, numbers) = match self.function(id) {
            Some(NodeFn::Value(it)) => {
                let mut out = Vec::new();
                it.eval(fraction, &mut out);
                ("value_changed", out)
            }
            Some(NodeFn::Fraction(ease)) => {
                ("modifiedFraction_changed", vec![ease.modify(fraction)])
            }
            None => return,
        };
        let Some(def) = scene.field_def(id, field) else {
            return;
        };
        self.send(t, id, field, Ev::of(value_of(def.ty, numbers)));
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
