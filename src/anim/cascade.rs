//! World time as the scene plays it: the discrete events of TimeSensors
//! (isActive, cycleTime, and every inputOutput field set by an event)
//! through the Event Utilities (BooleanFilter, BooleanToggle,
//! BooleanTrigger, IntegerTrigger, TimeTrigger) into clocks' startTime,
//! stopTime and enabled, starting from events the user gives
//! (`--event TIME:NODE.FIELD=VALUE`). ISO/IEC 19775-1, "Concepts" (event
//! cascades: events at one timestamp in the order sent, a route firing at
//! most once a timestamp, which breaks loops) and "Time" (a TimeSensor
//! starts when now reaches startTime, ignores startTime while active,
//! stops at a stopTime after its startTime, at the end of its cycle when it
//! does not loop, or when disabled). The continuous outputs (fraction,
//! time) are not events here: the clips evaluate them at any time from the
//! runs found. What the cascade gives: every run of every TimeSensor, and
//! the routes it followed.

use super::clip::clock_of;
use super::clock::Clock;
use crate::diag::Diagnostics;
use crate::hash::{HashMap, HashSet};
use crate::scene::{Dir, NodeId, Scene};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An event a person would cause (a click, a key), given on the command
/// line as `TIME:NODE.FIELD=VALUE`: at world time TIME, NODE sends FIELD
/// (an output, as a TouchSensor's touchTime) or receives it (an input, as a
/// TimeSensor's startTime).
#[derive(Clone, Debug, PartialEq)]
pub struct UserEvent {
    /// World time, seconds.
    pub time: f64,
    /// The node's DEF name.
    pub node: String,
    /// The field, as written.
    pub field: String,
    /// The value, as written (`true`, `2.5`, `3`).
    pub value: String,
}

impl std::str::FromStr for UserEvent {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let form = || format!("`{s}` is not TIME:NODE.FIELD=VALUE (e.g. 2:Button.touchTime=2)");
        let (time, rest) = s.split_once(':').ok_or_else(form)?;
        let (target, value) = rest.split_once('=').ok_or_else(form)?;
        let (node, field) = target.rsplit_once('.').ok_or_else(form)?;
        let time: f64 = time.trim().parse().map_err(|_| form())?;
        if !time.is_finite() || node.is_empty() || field.is_empty() {
            return Err(form());
        }
        Ok(UserEvent {
            time,
            node: node.to_string(),
            field: field.to_string(),
            value: value.trim().to_string(),
        })
    }
}

/// World time asked for: the user's events and how far to play them.
#[derive(Clone, Debug, Default)]
pub struct World {
    /// Events given on the command line.
    pub events: Vec<UserEvent>,
    /// The end of the timeline, when given.
    pub end: Option<f64>,
}

/// How far the cascade plays when no end is given, seconds.
pub const HORIZON: f64 = 3600.0;

/// A discrete event's value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ev {
    Bool(bool),
    Time(f64),
    Int(i64),
}

impl Ev {
    fn truth(self) -> bool {
        match self {
            Ev::Bool(b) => b,
            Ev::Time(t) => t != 0.0,
            Ev::Int(i) => i != 0,
        }
    }
    fn number(self) -> f64 {
        match self {
            Ev::Bool(b) => f64::from(u8::from(b)),
            Ev::Time(t) => t,
            Ev::Int(i) => i as f64,
        }
    }
    fn time(self) -> Option<f64> {
        match self {
            Ev::Time(t) => Some(t),
            Ev::Int(i) => Some(i as f64),
            Ev::Bool(_) => None,
        }
    }
}

/// An event on its way to a node's field, at a time; `seq` keeps the order
/// of sending within one time.
struct Pending<'s> {
    time: f64,
    seq: u64,
    node: NodeId,
    field: Field<'s>,
    value: Ev,
    /// The route it came along.
    via: Option<usize>,
}

/// The field a pending event goes to: an input by its catalogue name; a
/// user's event, which the node sends from an output, receives into an
/// input, or both; or a clock's own timer (its start, a cycle's end, its
/// stop), checked when it fires against the run it was set for.
#[derive(Clone, Debug, PartialEq)]
enum Field<'s> {
    Input(&'s str),
    User {
        sends: Option<&'s str>,
        receives: Option<&'s str>,
    },
    Start,
    CycleEnd(u32),
    Stop(u32),
}

impl PartialEq for Pending<'_> {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Pending<'_> {}
impl PartialOrd for Pending<'_> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending<'_> {
    // Earliest first (the heap is a max-heap).
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.total_cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

/// A TimeSensor as the cascade plays it.
struct Sensor {
    clock: Clock,
    /// When the run under way began (its number is `played.len()`).
    active: Option<f64>,
    /// Runs ended so far: the clock with each run's start and stop.
    played: Vec<Clock>,
}

impl Sensor {
    /// The run under way: its number and start.
    fn current(&self) -> Option<(u32, f64)> {
        self.active.map(|start| (self.played.len() as u32, start))
    }
}

/// The runs and routes the cascade found.
#[derive(Debug, Default)]
pub struct Played {
    /// Each TimeSensor's runs in world time, in order (none: it never ran):
    /// its fields with the start and stop of the run (a run with no stop
    /// has a stopTime before its start).
    pub runs: HashMap<NodeId, Vec<Clock>>,
    /// Routes that carried an event.
    pub followed: HashSet<usize>,
    /// Fields of other nodes set by events (a Switch's whichChoice from an
    /// IntegerTrigger), in the order set.
    pub sets: Vec<Set>,
}

/// A field set by an event of the cascade.
#[derive(Clone, Debug)]
pub struct Set {
    /// World time.
    pub time: f64,
    /// The node set.
    pub node: NodeId,
    /// Its field.
    pub field: String,
    /// The field's type.
    pub ty: crate::scene::FieldType,
    /// The value as a number (a bool as 0 or 1).
    pub value: f64,
    /// The route the event came along.
    pub route: usize,
}

/// Events processed at most (a cascade that keeps sending stops there,
/// with a warning).
const MAX_EVENTS: usize = 1_000_000;

/// Plays the discrete events of the scene from world time 0 to `until`.
/// A user event naming no node, or no field of it, is an error.
pub fn play(scene: &Scene, events: &[UserEvent], until: f64, diags: &mut Diagnostics) -> Played {
    let mut p = Player {
        scene,
        queue: BinaryHeap::new(),
        seq: 0,
        sensors: HashMap::default(),
        toggles: HashMap::default(),
        routes: HashMap::default(),
        inputs: scene
            .routes
            .iter()
            .map(|r| {
                scene
                    .find_field(r.to, &r.to_field, Dir::In)
                    .map_or(r.to_field.as_str(), |d| d.name.as_str())
            })
            .collect(),
        fired: HashSet::default(),
        now: f64::NEG_INFINITY,
        played: Played::default(),
        until,
    };
    for (ri, r) in scene.routes.iter().enumerate() {
        p.routes
            .entry((r.from, r.from_field.as_str()))
            .or_default()
            .push(ri);
    }
    for id in (0..scene.nodes.len() as u32).map(NodeId) {
        // (A prototype's template: its instances' copies are the clocks.)
        if scene.node(id).in_proto.is_some() {
            continue;
        }
        if let Some(clock @ Clock::TimeSensor { .. }) = clock_of(scene, id) {
            p.sensors.insert(
                id,
                Sensor {
                    clock,
                    active: None,
                    played: Vec::new(),
                },
            );
            p.initial_start(id);
        }
    }
    for e in events {
        let Some(node) = scene.def(&e.node) else {
            diags.error(
                format!("--event {}: no node named `{}`", e.time, e.node),
                None,
            );
            continue;
        };
        let sends = scene.find_field(node, &e.field, Dir::Out);
        let receives = scene.find_field(node, &e.field, Dir::In);
        let value = match sends.or(receives) {
            Some(def) => parse_value(&e.value, def.ty.single().name()),
            None => {
                diags.error(
                    format!(
                        "--event {}: `{}` ({}) has no field `{}`",
                        e.time,
                        e.node,
                        scene.node(node).type_name,
                        e.field
                    ),
                    None,
                );
                continue;
            }
        };
        let Some(value) = value else {
            diags.error(
                format!(
                    "--event {}: `{}` is not a value of `{}.{}`",
                    e.time, e.value, e.node, e.field
                ),
                None,
            );
            continue;
        };
        let field = Field::User {
            sends: sends.map(|d| d.name.as_str()),
            receives: receives.map(|d| d.name.as_str()),
        };
        p.push(e.time, node, field, value);
    }
    let mut processed = 0;
    while let Some(ev) = p.queue.pop() {
        if ev.time > until {
            break;
        }
        processed += 1;
        if processed > MAX_EVENTS {
            diags.warning(
                format!(
                    "the event cascade passed {MAX_EVENTS} events before {until} s: stopped at {} s",
                    ev.time
                ),
                None,
            );
            break;
        }
        if ev.time > p.now {
            p.now = ev.time;
            p.fired.clear();
        }
        p.deliver(ev);
    }
    // Runs still under way at the end go on.
    for (id, s) in p.sensors {
        let mut runs = s.played;
        if let Some(start) = s.active {
            runs.push(s.clock.run(start, f64::NEG_INFINITY));
        }
        runs.sort_by(|a, b| a.start().total_cmp(&b.start()));
        p.played.runs.insert(id, runs);
    }
    p.played
}

/// Whether the cascade plays the events of a route: from an event utility,
/// or a TimeSensor's discrete outputs (isActive, cycleTime, and its
/// inputOutput fields as they are set; not fraction, time or elapsedTime,
/// which change continuously).
pub fn simulates(scene: &Scene, r: &crate::scene::Route) -> bool {
    match scene.node(r.from).type_name.as_str() {
        "BooleanFilter" | "BooleanToggle" | "BooleanTrigger" | "IntegerTrigger" | "TimeTrigger" => {
            true
        }
        "TimeSensor" => !matches!(
            r.from_field.as_str(),
            "fraction_changed" | "time" | "elapsedTime" | "isPaused"
        ),
        _ => false,
    }
}

/// A value as written on the command line, for a field of type `ty`.
fn parse_value(text: &str, ty: &str) -> Option<Ev> {
    match ty {
        "SFBool" => match text {
            "true" | "TRUE" | "1" => Some(Ev::Bool(true)),
            "false" | "FALSE" | "0" => Some(Ev::Bool(false)),
            _ => None,
        },
        "SFInt32" => text.parse().ok().map(Ev::Int),
        "SFTime" | "SFFloat" | "SFDouble" => text
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite())
            .map(Ev::Time),
        _ => None,
    }
}

struct Player<'s> {
    scene: &'s Scene,
    queue: BinaryHeap<Pending<'s>>,
    seq: u64,
    sensors: HashMap<NodeId, Sensor>,
    /// BooleanToggle states.
    toggles: HashMap<NodeId, bool>,
    /// The routes from each node's output field.
    routes: HashMap<(NodeId, &'s str), Vec<usize>>,
    /// Each route's input field, by its catalogue name.
    inputs: Vec<&'s str>,
    /// Routes that fired at the current time.
    fired: HashSet<usize>,
    now: f64,
    played: Played,
    until: f64,
}

impl<'s> Player<'s> {
    fn push(&mut self, time: f64, node: NodeId, field: Field<'s>, value: Ev) {
        self.push_via(time, node, field, value, None);
    }

    fn push_via(
        &mut self,
        time: f64,
        node: NodeId,
        field: Field<'s>,
        value: Ev,
        via: Option<usize>,
    ) {
        self.seq += 1;
        self.queue.push(Pending {
            time,
            seq: self.seq,
            node,
            field,
            value,
            via,
        });
    }

    /// `node` sends `field` at time `t`: along each route from it, once a
    /// timestamp.
    fn send(&mut self, t: f64, node: NodeId, field: &str, value: Ev) {
        let routes = self.routes.get(&(node, field)).cloned().unwrap_or_default();
        for ri in routes {
            if !self.fired.insert(ri) {
                continue; // a loop: this route has fired at this time
            }
            self.played.followed.insert(ri);
            let to = self.scene.routes[ri].to;
            self.push_via(t, to, Field::Input(self.inputs[ri]), value, Some(ri));
        }
    }

    /// A TimeSensor's own run, from its fields in the file: it starts when
    /// world time reaches its startTime, at load (world time 0) if that
    /// has come, as the text says. (X_ITE starts only looping sensors at
    /// load and none later from the file; docs/interpretations.md.)
    fn initial_start(&mut self, id: NodeId) {
        let Clock::TimeSensor {
            start_time,
            enabled,
            ..
        } = self.sensors[&id].clock
        else {
            return;
        };
        if enabled {
            self.push(start_time, id, Field::Start, Ev::Time(start_time));
        }
    }

    fn deliver(&mut self, ev: Pending<'s>) {
        let (t, id) = (ev.time, ev.node);
        match ev.field {
            Field::Input(name) => self.input(t, id, name, ev.value, ev.via),
            Field::User { sends, receives } => {
                if let Some(out) = sends {
                    self.send(t, id, out, ev.value);
                }
                if let Some(input) = receives {
                    self.input(t, id, input, ev.value, None);
                }
            }
            Field::Start => {
                let waiting = matches!(
                    self.sensors[&id].clock,
                    Clock::TimeSensor { start_time, enabled: true, .. }
                        if Some(start_time) == ev.value.time()
                );
                if waiting && self.sensors[&id].active.is_none() {
                    self.begin(t, id);
                }
            }
            Field::CycleEnd(run) => self.cycle_end(t, id, run),
            Field::Stop(run) => {
                if self.sensors[&id].current().is_some_and(|(r, _)| r == run) {
                    self.end(t, id);
                }
            }
        }
    }

    /// An event into an input of a node.
    fn input(&mut self, t: f64, id: NodeId, field: &'s str, v: Ev, via: Option<usize>) {
        let scene = self.scene;
        match (scene.node(id).type_name.as_str(), field) {
            ("TimeSensor", _) => self.sensor_input(t, id, field, v),
            ("BooleanFilter", "set_boolean") => {
                let b = v.truth();
                self.send(
                    t,
                    id,
                    if b { "inputTrue" } else { "inputFalse" },
                    Ev::Bool(b),
                );
                self.send(t, id, "inputNegate", Ev::Bool(!b));
            }
            ("BooleanToggle", "set_boolean") => {
                if v.truth() {
                    let initial = self.scene.flag(id, "toggle");
                    let state = self.toggles.entry(id).or_insert(initial);
                    *state = !*state;
                    let s = *state;
                    self.send(t, id, "toggle", Ev::Bool(s));
                }
            }
            ("BooleanToggle", "toggle") => {
                self.toggles.insert(id, v.truth());
                self.send(t, id, "toggle", v);
            }
            ("BooleanTrigger", "set_triggerTime") => {
                self.send(t, id, "triggerTrue", Ev::Bool(true))
            }
            ("IntegerTrigger", "set_boolean") => {
                let key = self
                    .scene
                    .ints(id, "integerKey")
                    .first()
                    .copied()
                    .unwrap_or(-1);
                self.send(t, id, "triggerValue", Ev::Int(key.into()));
            }
            ("TimeTrigger", "set_boolean") => self.send(t, id, "triggerTime", Ev::Time(t)),
            _ => {
                let Some(def) = self.scene.field_def(id, field) else {
                    return;
                };
                // A field of the scene set at a time: shown in world time.
                if let Some(ri) = via {
                    self.played.sets.push(Set {
                        time: t,
                        node: id,
                        field: field.to_string(),
                        ty: def.ty,
                        value: v.number(),
                        route: ri,
                    });
                }
                // An inputOutput field passes its new value on.
                if def.access == crate::scene::Access::InputOutput {
                    self.send(t, id, field, v);
                }
            }
        }
    }

    fn sensor_input(&mut self, t: f64, id: NodeId, field: &'s str, v: Ev) {
        let active = self.sensors[&id].current();
        let Some(s) = self.sensors.get_mut(&id) else {
            return;
        };
        let Clock::TimeSensor {
            start_time,
            stop_time,
            enabled,
            looping,
            cycle_interval,
            ..
        } = &mut s.clock
        else {
            return;
        };
        match field {
            // Ignored while active.
            "startTime" if active.is_none() => {
                let Some(v) = v.time() else { return };
                *start_time = v;
                if *enabled {
                    // A startTime already past starts the clock now.
                    self.push(v.max(t), id, Field::Start, Ev::Time(v));
                }
            }
            "stopTime" => {
                let Some(v) = v.time() else { return };
                *stop_time = v;
                if let Some((run, start)) = active
                    && v > start
                {
                    self.push(v.max(t), id, Field::Stop(run), Ev::Time(v));
                }
            }
            "enabled" => {
                let on = v.truth();
                *enabled = on;
                if !on && active.is_some() {
                    self.end(t, id);
                }
            }
            "loop" => *looping = v.truth(),
            "cycleInterval" if active.is_none() => {
                if let Some(v) = v.time() {
                    *cycle_interval = v;
                }
            }
            _ => {}
        }
        if matches!(
            field,
            "startTime" | "stopTime" | "enabled" | "loop" | "cycleInterval"
        ) {
            self.send(t, id, field, v);
        }
    }

    /// A run begins at `t`.
    fn begin(&mut self, t: f64, id: NodeId) {
        let s = self.sensors.get_mut(&id).expect("a sensor");
        let Clock::TimeSensor { cycle_interval, .. } = s.clock else {
            return;
        };
        if cycle_interval <= 0.0 {
            return;
        }
        let run = s.played.len() as u32;
        s.active = Some(t);
        if let Clock::TimeSensor { stop_time, .. } = s.clock
            && stop_time > t
        {
            self.push(stop_time, id, Field::Stop(run), Ev::Time(stop_time));
        }
        self.send(t, id, "isActive", Ev::Bool(true));
        self.send(t, id, "cycleTime", Ev::Time(t));
        if t + cycle_interval <= self.until {
            self.push(t + cycle_interval, id, Field::CycleEnd(run), Ev::Time(t));
        }
    }

    fn cycle_end(&mut self, t: f64, id: NodeId, run: u32) {
        let s = &self.sensors[&id];
        if s.current().is_none_or(|(r, _)| r != run) {
            return;
        }
        let Clock::TimeSensor {
            cycle_interval,
            looping,
            ..
        } = s.clock
        else {
            return;
        };
        if !looping {
            self.end(t, id);
            return;
        }
        self.send(t, id, "cycleTime", Ev::Time(t));
        // Only when something listens: a looping clock has no end.
        let listened = self.routes.contains_key(&(id, "cycleTime"));
        if listened && t + cycle_interval <= self.until {
            self.push(t + cycle_interval, id, Field::CycleEnd(run), Ev::Time(t));
        }
    }

    /// The run under way ends at `t`.
    fn end(&mut self, t: f64, id: NodeId) {
        let s = self.sensors.get_mut(&id).expect("a sensor");
        let Some(start) = s.active.take() else {
            return;
        };
        let run = s.clock.run(start, t);
        s.played.push(run);
        self.send(t, id, "isActive", Ev::Bool(false));
    }
}
