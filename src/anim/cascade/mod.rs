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
//! does not loop, or when disabled). Script nodes (`scripts`) and
//! followers (`followers`) take part: what they send is an event like any
//! other. The continuous outputs (fraction, time) are not events here, the
//! clips evaluate them at any time from the runs found, but for Scripts
//! and followers, which get them at frames (`frames`). What the cascade
//! gives: every run of every TimeSensor, the routes it followed, and the
//! fields of other nodes it set.

mod feeds;
mod followers;
mod frames;
mod pauses;
mod scripts;
mod sensors;
mod user_events;

use sensors::Sensor;
pub use user_events::UserEvent;

use super::clock::Clock;
use super::clock::clock_of;
use crate::diag::Diagnostics;
use crate::hash::{HashMap, HashSet};
use crate::scene::value::{Data, Scalar};
use crate::scene::{Dir, FieldDef, FieldType, NodeId, NodeType, Scene, Value};
use crate::script::Budget;
use crate::source::{Sources, Span};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::rc::Rc;

/// The load instant when none is given: 2 000 000 000 s after 1970
/// (2033-05-18), later than any date files hold today, so that every
/// startTime a file gives has come at load.
pub const DEFAULT_LOAD_TIME: f64 = 2_000_000_000.0;

/// World time asked for: the instant the world loads, the user's events
/// and how far to play them.
#[derive(Clone, Debug)]
pub struct World {
    /// The absolute time (seconds since 1970) at which the world loads:
    /// world time t is `load + t` for the file's SFTime values and Scripts.
    pub load: f64,
    /// Events given on the command line.
    pub events: Vec<UserEvent>,
    /// The end of the timeline, when given.
    pub end: Option<f64>,
    /// Frames a second at which Scripts get continuous events (a
    /// TimeSensor's fraction, an interpolator's value).
    pub rate: f64,
}

impl World {
    /// The first event that names what `scene` does not have, as the
    /// error a bake would give for it; a caller can refuse the run before
    /// playing it.
    pub fn check(&self, scene: &Scene) -> Result<(), String> {
        self.events
            .iter()
            .try_for_each(|e| e.resolve(scene).map(drop))
    }
}

impl Default for World {
    fn default() -> World {
        World {
            load: DEFAULT_LOAD_TIME,
            events: Vec::new(),
            end: None,
            rate: 60.0,
        }
    }
}

/// How far the cascade plays when no end is given, seconds.
pub const HORIZON: f64 = 3600.0;

/// An event's value: the scalar ones the event utilities pass, or any
/// other (a Script's or an interpolator's).
#[derive(Clone, Debug, PartialEq)]
enum Ev {
    Bool(bool),
    Time(f64),
    Int(i64),
    Value(Rc<Value>),
}

impl Ev {
    /// The event of a value: a scalar one as such.
    fn of(value: Value) -> Ev {
        match value.ty {
            FieldType::SFBool => Ev::Bool(value.as_bool()),
            FieldType::SFInt32 => Ev::Int(value.ints().first().copied().unwrap_or(0).into()),
            FieldType::SFTime | FieldType::SFDouble | FieldType::SFFloat => {
                Ev::Time(value.as_f64())
            }
            _ => Ev::Value(Rc::new(value)),
        }
    }
    /// The value it gives a field of type `ty` (`None`: not of the type).
    fn value(&self, ty: FieldType) -> Option<Value> {
        let scalar = |x: f64| {
            let data = match ty {
                FieldType::SFBool => Data::Bools(vec![x != 0.0]),
                FieldType::SFInt32 => Data::Ints(vec![x as i32]),
                FieldType::SFFloat => Data::Floats(vec![x as f32].into()),
                FieldType::SFTime | FieldType::SFDouble => Data::Doubles(vec![x]),
                _ => return None,
            };
            Some(Value { ty, data })
        };
        match self {
            Ev::Value(v) => (v.ty == ty).then(|| (**v).clone()),
            scalar_event => scalar(scalar_event.number()),
        }
    }
    fn truth(&self) -> bool {
        match self {
            Ev::Bool(b) => *b,
            Ev::Value(v) => v.as_bool() || v.as_f64() != 0.0,
            other => other.number() != 0.0,
        }
    }
    fn number(&self) -> f64 {
        match self {
            Ev::Bool(b) => f64::from(u8::from(*b)),
            Ev::Time(t) => *t,
            Ev::Int(i) => *i as f64,
            Ev::Value(v) => v.as_f64(),
        }
    }
    fn time(&self) -> Option<f64> {
        match self {
            Ev::Time(t) => Some(*t),
            Ev::Int(i) => Some(*i as f64),
            Ev::Bool(_) | Ev::Value(_) => None,
        }
    }
    /// The numbers of the value (a bool as 0 or 1; none for strings and
    /// nodes).
    fn numbers(&self) -> Vec<f64> {
        match self {
            Ev::Value(v) => v.numbers(),
            scalar => vec![scalar.number()],
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
    /// Where it came from.
    via: Via,
    /// How it was sent (see [`Sending`]).
    sending: Sending,
}

/// How the event being delivered was sent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sending {
    /// A frame's copy of a continuous event: it goes only along the routes
    /// towards Scripts and followers (the clips have the rest exact).
    towards_frames: bool,
    /// A value at a frame of a value that changes continuously (a Script
    /// following a clock, a follower): interpolated between frames.
    sampled: bool,
    /// Sent at the instant before a cycle's end (the largest time below
    /// it): the value as the cycle ends, the left side of a jump there.
    ending: bool,
}

/// Where an event came from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Via {
    /// A clock's own timer, or the user.
    Nothing,
    /// Along a route.
    Route(usize),
    /// Written by a Script (directOutput).
    Script(NodeId),
    /// Given by the user (`--event`) straight to the field.
    User,
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
    /// The end of a cycle of run `.0`, set in its `.1`th stretch between
    /// pauses (one set before a pause is stale after it).
    CycleEnd(u32, u32),
    /// The instant before such an end: the continuous outputs as the
    /// cycle ends, towards Scripts and followers.
    CycleEnding(u32, u32),
    Stop(u32),
    /// A pause, and a resume, of a run.
    Pause(u32),
    Resume(u32),
    /// A frame: continuous events into Scripts.
    Frame(u64),
    /// A follower's own next value (its number: see `Follower::sample`).
    Sample(u64),
    /// A Script's initialize().
    Initialize,
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
impl Pending<'_> {
    /// A frame comes after the other events of its time, as a browser
    /// starts and stops its clocks before it sends their fractions.
    fn is_frame(&self) -> bool {
        matches!(self.field, Field::Frame(_))
    }
}
impl Ord for Pending<'_> {
    // Earliest first (the heap is a max-heap); at one time, frames last.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time
            .total_cmp(&self.time)
            .then(o.is_frame().cmp(&self.is_frame()))
            .then(o.seq.cmp(&self.seq))
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
    /// Script nodes that ran, and followers: nodes whose inputs the
    /// cascade plays (a clip's track into them is played there).
    pub listeners: HashSet<NodeId>,
    /// Routes along which frames carry continuous events into Scripts.
    pub framed: HashSet<usize>,
    /// The nodes Scripts made (numbered after the scene's).
    pub created: crate::script::Created,
}

impl Played {
    /// Whether the cascade carried the events of route `ri`: it fired, it
    /// carried frames, it leaves a Script or a follower, or it is one the
    /// cascade plays (see [`simulates`]).
    pub fn carried(&self, scene: &Scene, ri: usize) -> bool {
        let r = &scene.routes[ri];
        self.followed.contains(&ri)
            || self.framed.contains(&ri)
            || self.listeners.contains(&r.from)
            || simulates(scene, r)
    }
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
    pub ty: FieldType,
    /// The value's numbers (a bool as 0 or 1, a rotation as axis and
    /// angle; none for strings and nodes).
    pub values: Vec<f64>,
    /// The value itself when it is not numbers (strings, nodes).
    pub other: Option<Rc<Value>>,
    /// The route the event came along (none: a Script wrote it).
    pub route: Option<usize>,
    /// The node that sent it (the route's, or the Script).
    pub source: NodeId,
    /// The ROUTE, or the Script that wrote it.
    pub span: Span,
    /// Set at a frame (a value that changes continuously).
    pub sampled: bool,
    /// Set at the instant before a clock's cycle ends (`time` is the
    /// largest below the end): the value as it ends, the left side of a
    /// jump at the end.
    pub ending: bool,
}

/// Events processed at most (a cascade that keeps sending stops there,
/// with a warning).
const MAX_EVENTS: usize = 1_000_000;

/// Plays the events of the scene from world time 0 to `until`, Scripts
/// included (within `budget`). A user event naming no node, or no field
/// of it, is an error.
pub fn play(
    scene: &Scene,
    sources: &Sources,
    world: &World,
    until: f64,
    budget: &Budget,
    diags: &mut Diagnostics,
) -> Played {
    let mut p = Player::new(scene, sources, world.rate, until, None, budget, diags);
    p.scripts.load = world.load;
    p.load_clocks(world.load);
    p.user_events(&world.events, diags);
    p.run(diags)
}

/// The fields the load sets, as a browser shows the world when it has
/// loaded: every event of the load's cascade at world time 0 and before
/// (Scripts' initialize(), the clocks running at load and what they
/// drive, triggers and sequencers, the user's events at world time 0 and
/// before), the last value of each field; and the nodes Scripts made
/// meanwhile (which the sets may hold). Played with `world`'s load
/// instant, Scripts within `budget`; diagnostics of the play are dropped
/// (the bake's own play gives them).
pub fn state_at_load(
    scene: &Scene,
    sources: &Sources,
    world: &World,
    budget: &Budget,
) -> (Vec<Set>, crate::script::Created) {
    let mut quiet = Diagnostics::default();
    let mut p = Player::new(scene, sources, world.rate, 0.0, None, budget, &mut quiet);
    p.scripts.load = world.load;
    p.load_clocks(world.load);
    // (The user's events at load and before are part of it.)
    let early: Vec<UserEvent> = world
        .events
        .iter()
        .filter(|e| e.time <= 0.0)
        .cloned()
        .collect();
    p.user_events(&early, &mut quiet);
    let played = p.run(&mut quiet);
    let sets = played.sets.into_iter().filter(|s| s.time <= 0.0).collect();
    (sets, played.created)
}

/// Plays one clock's clip as the clip mode bakes it: the clock alone,
/// started at 0 (other clocks do not run), for `until` seconds, with the
/// Scripts (within `budget`) and followers among `reached` (the nodes its
/// events reach); what they set is in the result's `sets`.
#[allow(clippy::too_many_arguments)]
pub fn play_clip(
    scene: &Scene,
    sources: &Sources,
    clock: NodeId,
    reached: &HashSet<NodeId>,
    until: f64,
    rate: f64,
    budget: &Budget,
    diags: &mut Diagnostics,
) -> Played {
    let solo = Some((clock, reached));
    Player::new(scene, sources, rate, until, solo, budget, diags).run(diags)
}

impl<'s> Player<'s> {
    /// A player of the scene with its Scripts loaded and its clocks set to
    /// start (`solo`: that clock alone, from 0, with the Scripts and
    /// followers among the nodes it reaches).
    fn new(
        scene: &'s Scene,
        sources: &'s Sources,
        rate: f64,
        until: f64,
        solo: Option<(NodeId, &HashSet<NodeId>)>,
        budget: &Budget,
        diags: &mut Diagnostics,
    ) -> Player<'s> {
        let only = solo.map(|(_, reached)| reached);
        let scripts = scripts::Scripts::load(scene, sources, only, budget, diags);
        let followers = followers::load(scene, only);
        let solo = solo.map(|(clock, _)| clock);
        let mut listeners = scripts.running();
        listeners.extend(followers.keys());
        let watch = scripts.watch(scene);
        let read: Vec<NodeId> = watch.values().flatten().map(|w| w.0).collect();
        let mut frames = frames::Frames::find(scene, &listeners, &read, rate);
        let feeds = feeds::Feeds::find(scene, &followers.keys().copied().collect());
        frames.routes.retain(|ri| !feeds.routes.contains(ri));
        let mut p = Player {
            scene,
            sources,
            queue: BinaryHeap::new(),
            seq: 0,
            sensors: HashMap::default(),
            toggles: HashMap::default(),
            surfaces: HashMap::default(),
            functions: HashMap::default(),
            scripts,
            followers,
            feeds,
            touched: Vec::new(),
            frames,
            sending: Sending::default(),
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
            state: HashMap::default(),
            watch,
        };
        for (ri, r) in scene.routes.iter().enumerate() {
            p.routes
                .entry((r.from, r.from_field.as_str()))
                .or_default()
                .push(ri);
        }
        // Scripts are initialised before anything else happens.
        for id in p.scripts.running() {
            p.push(0.0, id, Field::Initialize, Ev::Bool(true));
        }
        if !p.frames.sensors.is_empty() {
            p.push(0.0, NodeId(0), Field::Frame(0), Ev::Bool(true));
        }
        // Followers moving from load send their values from then on.
        let mut moving: Vec<NodeId> = p
            .followers
            .iter()
            .filter(|f| f.1.moving())
            .map(|f| *f.0)
            .collect();
        moving.sort();
        for id in moving {
            p.push(0.0, id, Field::Sample(0), Ev::Bool(true));
        }
        for id in (0..scene.nodes.len() as u32).map(NodeId) {
            // (A prototype's template: its instances' copies are the clocks.)
            if scene.node(id).in_proto.is_some() || solo.is_some_and(|c| c != id) {
                continue;
            }
            if let Some(mut clock @ Clock::TimeSensor { .. }) = clock_of(scene, id) {
                if let Clock::TimeSensor {
                    start_time,
                    stop_time,
                    enabled,
                    ..
                } = &mut clock
                    && solo.is_some()
                {
                    (*start_time, *stop_time, *enabled) = (0.0, 0.0, true);
                }
                p.sensors.insert(id, Sensor::new(clock));
                if solo.is_some() {
                    p.initial_start(id);
                }
            }
        }
        p
    }

    /// The user's events, each at its time; one that names what the scene
    /// does not have is an error.
    fn user_events(&mut self, events: &[UserEvent], diags: &mut Diagnostics) {
        for e in events {
            match e.resolve(self.scene) {
                Ok((node, field, value)) => self.push(e.time, node, field, value),
                Err(message) => diags.error(message, None),
            }
        }
    }

    /// Plays the events in time order to the end, and gives what was played.
    fn run(mut self, diags: &mut Diagnostics) -> Played {
        let until = self.until;
        let mut processed = 0;
        loop {
            // After the events of a timestamp, the Scripts that got some
            // process them (their outputs are events of the same time).
            if !self.touched.is_empty() && self.queue.peek().is_none_or(|e| e.time > self.now) {
                self.events_processed();
                continue;
            }
            let Some(ev) = self.queue.pop() else { break };
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
            if ev.time > self.now {
                self.now = ev.time;
                self.fired.clear();
            }
            self.deliver(ev);
        }
        // Runs still under way at the end go on.
        for (id, s) in std::mem::take(&mut self.sensors) {
            let part = s.part(f64::NEG_INFINITY);
            let mut runs = s.played;
            if let Some(part) = part {
                runs.extend(s.parts);
                runs.push(part);
            }
            runs.sort_by(|a, b| a.begins().total_cmp(&b.begins()));
            self.played.runs.insert(id, runs);
        }
        self.scripts.report(self.scene, diags);
        self.played.listeners = self.scripts.running().into_iter().collect();
        self.played.listeners.extend(self.followers.keys());
        self.played.framed = self.frames.routes.clone();
        self.played.created = self.scripts.take_created();
        self.played
    }
}

/// Whether the cascade plays the events of a route: from an event utility,
/// or a TimeSensor's discrete outputs (isActive, isPaused, cycleTime, and
/// its inputOutput fields as they are set; not fraction, time or
/// elapsedTime, which change continuously).
pub fn simulates(scene: &Scene, r: &crate::scene::Route) -> bool {
    use NodeType::*;
    match scene.node_type(r.from) {
        Some(BooleanFilter | BooleanToggle | BooleanTrigger | IntegerTrigger | TimeTrigger) => true,
        Some(TimeSensor) => !matches!(
            r.from_field.as_str(),
            "fraction_changed" | "time" | "elapsedTime"
        ),
        _ => false,
    }
}

struct Player<'s> {
    scene: &'s Scene,
    sources: &'s Sources,
    queue: BinaryHeap<Pending<'s>>,
    seq: u64,
    sensors: HashMap<NodeId, Sensor>,
    /// BooleanToggle states.
    toggles: HashMap<NodeId, bool>,
    /// NurbsSurfaceInterpolators' surfaces, made at their first event.
    surfaces: HashMap<NodeId, Option<std::sync::Arc<crate::interp::nurbs::Surface>>>,
    /// Interpolators, sequencers and EaseInEaseOut as events reach them
    /// (`None`: not one).
    functions: HashMap<NodeId, Option<super::NodeFn>>,
    scripts: scripts::Scripts,
    followers: HashMap<NodeId, followers::Follower>,
    /// Clocks whose runs are followers' destinations.
    feeds: feeds::Feeds,
    /// Scripts that got events at the current time.
    touched: Vec<NodeId>,
    frames: frames::Frames,
    /// How the event being delivered was sent.
    sending: Sending,
    /// The routes from each node's output field.
    routes: HashMap<(NodeId, &'s str), Vec<usize>>,
    /// Each route's input field, by its catalogue name.
    inputs: Vec<&'s str>,
    /// Routes that fired at the current time.
    fired: HashSet<usize>,
    now: f64,
    played: Played,
    until: f64,
    /// The fields of the scene's nodes events set, as they left them (by
    /// the field an event sets): when, and the value.
    state: HashMap<(NodeId, &'s str), (f64, Value)>,
    /// For each Script, the fields of the nodes it holds that routes set
    /// (the field, its type and the route): what it reads of them is
    /// their value at the call's time.
    watch: HashMap<NodeId, Vec<(NodeId, &'s str, FieldType, usize)>>,
}

impl<'s> Player<'s> {
    fn push(&mut self, time: f64, node: NodeId, field: Field<'s>, value: Ev) {
        self.push_via(time, node, field, value, Via::Nothing);
    }

    fn push_via(&mut self, time: f64, node: NodeId, field: Field<'s>, value: Ev, via: Via) {
        self.seq += 1;
        self.queue.push(Pending {
            time,
            seq: self.seq,
            node,
            field,
            value,
            via,
            sending: self.sending,
        });
    }

    /// `node` sends `field` at time `t`: along each route from it, once a
    /// timestamp.
    fn send(&mut self, t: f64, node: NodeId, field: &str, value: Ev) {
        let routes = self.routes.get(&(node, field)).cloned().unwrap_or_default();
        for ri in routes {
            // A frame's events go only towards Scripts.
            if self.sending.towards_frames && !self.frames.routes.contains(&ri) {
                continue;
            }
            if !self.fired.insert(ri) {
                continue; // a loop: this route has fired at this time
            }
            self.played.followed.insert(ri);
            let to = self.scene.routes[ri].to;
            self.push_via(
                t,
                to,
                Field::Input(self.inputs[ri]),
                value.clone(),
                Via::Route(ri),
            );
        }
    }

    fn deliver(&mut self, ev: Pending<'s>) {
        let (t, id) = (ev.time, ev.node);
        self.sending = ev.sending;
        match ev.field {
            Field::Input(name) => self.input(t, id, name, ev.value, ev.via),
            Field::User { sends, receives } => {
                if let Some(out) = sends {
                    self.send(t, id, out, ev.value.clone());
                }
                if let Some(input) = receives {
                    self.input(t, id, input, ev.value, Via::User);
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
            Field::CycleEnd(run, stretch) => self.cycle_end(t, id, run, stretch),
            Field::CycleEnding(run, stretch) => self.cycle_ending(t, id, run, stretch),
            Field::Pause(run) => self.pause(t, id, run),
            Field::Resume(run) => self.resume(t, id, run),
            Field::Stop(run) => {
                if self.sensors[&id].current().is_some_and(|(r, _)| r == run) {
                    self.end(t, id);
                }
            }
            Field::Frame(k) => self.frame(t, k),
            Field::Sample(n) => self.follower_sample(t, id, n),
            Field::Initialize => {
                self.renew(t, id);
                let out = self.scripts.initialize(id, t, self.sources);
                self.script_outputs(t, id, out);
            }
        }
    }

    /// The declared field of a name of a node of the scene, or of one a
    /// Script made (numbered after the scene's).
    fn field_def(&self, id: NodeId, name: &str) -> Option<&'s FieldDef> {
        if self.scene.holds(id) {
            self.scene.field_def(id, name)
        } else {
            self.scripts.created_field(id, name)
        }
    }

    /// An event into an input of a node.
    fn input(&mut self, t: f64, id: NodeId, field: &'s str, v: Ev, via: Via) {
        let scene = self.scene;
        if !scene.holds(id) {
            // A node a Script made: its fields are set as any other's.
            if let Some(def) = self.scripts.created_field(id, field) {
                self.set_field(t, id, field, def, v, via);
            }
            return;
        }
        if self.scripts.runs(id) {
            self.script_event(t, id, field, &v);
            return;
        }
        if self.followers.contains_key(&id) {
            self.follower_input(t, id, field, &v);
            return;
        }
        if field == "set_fraction" && self.function(id).is_some() {
            self.evaluate(t, id, v.number());
            return;
        }
        use NodeType::*;
        match (scene.node_type(id), field) {
            (Some(TimeSensor), _) => self.sensor_input(t, id, field, v),
            (Some(NurbsSurfaceInterpolator), "set_fraction") => self.surface_point(t, id, &v),
            (Some(BooleanFilter), "set_boolean") => {
                let b = v.truth();
                self.send(
                    t,
                    id,
                    if b { "inputTrue" } else { "inputFalse" },
                    Ev::Bool(b),
                );
                self.send(t, id, "inputNegate", Ev::Bool(!b));
            }
            (Some(BooleanToggle), "set_boolean") => {
                if v.truth() {
                    let initial = self.scene.flag(id, "toggle");
                    let state = self.toggles.entry(id).or_insert(initial);
                    *state = !*state;
                    let s = *state;
                    self.send(t, id, "toggle", Ev::Bool(s));
                }
            }
            (Some(BooleanToggle), "toggle") => {
                self.toggles.insert(id, v.truth());
                self.send(t, id, "toggle", v);
            }
            (Some(BooleanTrigger), "set_triggerTime") => {
                self.send(t, id, "triggerTrue", Ev::Bool(true))
            }
            (Some(IntegerTrigger), "set_boolean") => {
                let key = self
                    .scene
                    .ints(id, "integerKey")
                    .first()
                    .copied()
                    .unwrap_or(-1);
                self.send(t, id, "triggerValue", Ev::Int(key.into()));
            }
            (Some(TimeTrigger), "set_boolean") => self.send(t, id, "triggerTime", Ev::Time(t)),
            _ => {
                if let Some(def) = scene.field_def(id, field) {
                    self.set_field(t, id, field, def, v, via);
                }
            }
        }
    }

    /// A field of a node (not a Script, a follower, an interpolator or one
    /// of the nodes the cascade plays) set by an event at `t`: shown in
    /// world time, and passed on when it is an inputOutput field.
    fn set_field(
        &mut self,
        t: f64,
        id: NodeId,
        field: &'s str,
        def: &'s FieldDef,
        v: Ev,
        via: Via,
    ) {
        let Some(value) = v.value(def.ty) else {
            return; // not of the field's type
        };
        // A frame's copy of a continuous event into a node a Script holds
        // is for the Script to read (the clips have it exact); one at the
        // instant before a cycle's end, which is no frame of a browser,
        // not even that: the next frame reads what the frame before left.
        let shown = !self.sending.towards_frames;
        if self.scene.holds(id) && (shown || !self.sending.ending) {
            let stored = self.scene.field_set_by(id, def).name.as_str();
            self.state.insert((id, stored), (t, value));
        }
        // A field of the scene set at a time: shown in world time.
        let origin = match via {
            Via::Route(ri) => {
                let r = &self.scene.routes[ri];
                Some((Some(ri), r.span, r.from))
            }
            Via::Script(s) => Some((None, self.scene.node(s).span, s)),
            // (An output the user sends is not set on the node.)
            Via::User if def.access.writable() => Some((None, self.scene.node(id).span, id)),
            Via::User => None,
            Via::Nothing => None,
        };
        if let Some((route, span, source)) = origin.filter(|_| shown) {
            self.played.sets.push(Set {
                time: t,
                node: id,
                field: field.to_string(),
                ty: def.ty,
                values: v.numbers(),
                other: match &v {
                    Ev::Value(value)
                        if matches!(value.ty.scalar(), Scalar::String | Scalar::Node) =>
                    {
                        Some(value.clone())
                    }
                    _ => None,
                },
                route,
                source,
                span,
                sampled: self.sending.sampled,
                ending: self.sending.ending,
            });
        }
        // An inputOutput field passes its new value on.
        if def.access == crate::scene::Access::InputOutput {
            self.send(t, id, field, v);
        }
    }
}
