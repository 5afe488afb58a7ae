//! Script nodes in the cascade: each loaded at the start of world time,
//! its initialize() called at 0, each event into one of its inputs a call
//! of its function, eventsProcessed() after the events of a timestamp,
//! and what it sends passed on along its routes, or (directOutput) into
//! the nodes it holds. A Script that cannot run is named once, with why;
//! a call that throws is named with its file line, and its outputs are
//! dropped.

use super::{Ev, Field, Player, Via};
use crate::diag::Diagnostics;
use crate::hash::{HashMap, HashSet};
use crate::scene::{Dir, FieldDef, FieldType, NodeId, Scene, Value};
use crate::script::{
    Budget, Created, Engine, Failure, Language, Output, Script, ScriptSource, line_span,
};
use crate::source::{Sources, Span};

/// A Script that runs, and what it did that is reported at the end.
struct Hosted {
    script: Script,
    /// Where its program stands (lines count from there).
    span: Span,
    /// Calls that failed after the first (which is reported at once).
    failures: usize,
    /// Lines printed, and the first.
    prints: usize,
    first_print: Option<String>,
    /// Values not passed on, and why the first was not.
    dropped: usize,
    first_dropped: Option<String>,
    /// The nodes it holds.
    held: HashSet<NodeId>,
    /// The values of fields of those nodes it was last given (see
    /// [`Scripts::renew`]).
    seen: HashMap<(NodeId, String), Value>,
}

/// The Scripts of a scene.
pub(super) struct Scripts {
    hosted: HashMap<NodeId, Hosted>,
    /// Running Scripts in scene order.
    order: Vec<NodeId>,
    /// Diagnostics of calls, to be merged into the bake's.
    diags: Diagnostics,
    /// The absolute time of world time 0 (the load instant): a Script sees
    /// times (its timestamps, `now`, SFTime values) as seconds since 1970.
    pub(super) load: f64,
    /// The engine (dropped after the Scripts, which live in it), and the
    /// nodes the Scripts made.
    engine: Option<Engine>,
    /// When the bake's budget for Scripts ran out (world time).
    stopped: Option<f64>,
}

/// What is called.
enum Call<'a> {
    Initialize,
    EventsProcessed,
    Event(&'a str, &'a Value),
}

impl Scripts {
    /// Loads every ECMAScript Script of the scene (of `only`, when given),
    /// their calls taking their checks from `budget`; names each Script
    /// that will not run, and why.
    pub fn load(
        scene: &Scene,
        sources: &Sources,
        only: Option<&HashSet<NodeId>>,
        budget: &Budget,
        diags: &mut Diagnostics,
    ) -> Scripts {
        let mut hosted = HashMap::default();
        let mut order = Vec::new();
        let mut engine = None;
        for id in (0..scene.nodes.len() as u32).map(NodeId) {
            let node = scene.node(id);
            let wanted = only.is_none_or(|o| o.contains(&id));
            if node.type_name != "Script" || node.in_proto.is_some() || !wanted {
                continue;
            }
            let name = scene.display_name(id);
            let (code, span) = match ScriptSource::of(scene, id) {
                ScriptSource::Inline {
                    language: Language::EcmaScript,
                    code,
                    span,
                    ..
                } => (code, span),
                ScriptSource::Inline { prefix, .. } => {
                    let language = prefix.unwrap_or_default();
                    diags.warning(
                        format!(
                            "Script `{name}` is written in {language}, which x3dbake does not run: it sends nothing"
                        ),
                        Some(node.span),
                    );
                    continue;
                }
                ScriptSource::External(urls) => {
                    diags.warning(
                        format!(
                            "Script `{name}`: its program is in a file ({}), which x3dbake does not read: it sends nothing",
                            urls.join(", ")
                        ),
                        Some(node.span),
                    );
                    continue;
                }
                ScriptSource::Empty => {
                    diags.warning(
                        format!("Script `{name}` has no program: it sends nothing"),
                        Some(node.span),
                    );
                    continue;
                }
            };
            if engine.is_none() {
                match Engine::new(scene, budget) {
                    Ok(e) => engine = Some(e),
                    Err(f) => {
                        diags.error(
                            format!("the ECMAScript engine does not start: {}", f.message),
                            None,
                        );
                        break;
                    }
                }
            }
            let Some(e) = &engine else { break };
            match Script::load(e, scene, id, &code) {
                Ok(script) => {
                    hosted.insert(
                        id,
                        Hosted {
                            held: script.held().iter().copied().collect(),
                            seen: HashMap::default(),
                            script,
                            span,
                            failures: 0,
                            prints: 0,
                            first_print: None,
                            dropped: 0,
                            first_dropped: None,
                        },
                    );
                    order.push(id);
                }
                Err(f) => diags.warning(
                    format!(
                        "Script `{name}` does not load: {}; it sends nothing",
                        f.message
                    ),
                    Some(at_line(sources, span, &f)),
                ),
            }
        }
        Scripts {
            load: 0.0,
            hosted,
            order,
            diags: Diagnostics::default(),
            engine,
            stopped: None,
        }
    }

    /// The declared field of a name of a node the Scripts made.
    pub fn created_field(&self, id: NodeId, name: &str) -> Option<&'static FieldDef> {
        self.engine.as_ref()?.created().field_def(id, name)
    }

    /// The nodes the Scripts made, taken out.
    pub fn take_created(&self) -> Created {
        self.engine
            .as_ref()
            .map(Engine::take_created)
            .unwrap_or_default()
    }

    /// The Scripts that run, in scene order.
    pub fn running(&self) -> Vec<NodeId> {
        self.order.clone()
    }

    /// Whether `id` is a Script that runs.
    pub fn runs(&self, id: NodeId) -> bool {
        self.hosted.contains_key(&id)
    }

    /// For each Script, the fields of the nodes it holds that routes set:
    /// the field (as the event sets it), its type and the route.
    pub fn watch<'s>(
        &self,
        scene: &'s Scene,
    ) -> HashMap<NodeId, Vec<(NodeId, &'s str, FieldType, usize)>> {
        let mut watch: HashMap<NodeId, Vec<_>> = HashMap::default();
        for (&id, h) in &self.hosted {
            for (ri, r) in scene.routes.iter().enumerate() {
                if !h.held.contains(&r.to) {
                    continue;
                }
                if let Some(def) = scene.find_field(r.to, &r.to_field, Dir::In) {
                    let stored = scene.field_set_by(r.to, def);
                    let entry = (r.to, stored.name.as_str(), stored.ty, ri);
                    watch.entry(id).or_default().push(entry);
                }
            }
        }
        watch
    }

    /// Gives Script `id` the fields of `now` that changed since it last
    /// saw them.
    pub fn renew(&mut self, id: NodeId, now: Vec<(NodeId, &str, Value)>) {
        let Some(h) = self.hosted.get_mut(&id) else {
            return;
        };
        let changed: Vec<(NodeId, &str, Value)> = now
            .into_iter()
            .filter(|(node, field, value)| {
                let key = (*node, field.to_string());
                let new = h.seen.get(&key) != Some(value);
                if new {
                    h.seen.insert(key, value.clone());
                }
                new
            })
            .collect();
        if !changed.is_empty() {
            // (What fails here is x3dbake's binding: the Script reads the
            // values it had.)
            let _ = h.script.renew(&changed);
        }
    }

    /// Calls `initialize()`.
    pub fn initialize(&mut self, id: NodeId, t: f64, sources: &Sources) -> Vec<Output> {
        self.call(id, Call::Initialize, t, sources)
    }

    fn call(&mut self, id: NodeId, call: Call<'_>, t: f64, sources: &Sources) -> Vec<Output> {
        let Some(h) = self.hosted.get_mut(&id) else {
            return Vec::new();
        };
        let now = self.load + t;
        let (result, what) = match call {
            Call::Initialize => (h.script.initialize(now), "initialize()".to_string()),
            Call::EventsProcessed => (
                h.script.events_processed(now),
                "eventsProcessed()".to_string(),
            ),
            Call::Event(field, value) => (h.script.event(field, value, now), format!("`{field}`")),
        };
        match result {
            Ok(out) => {
                for o in &out {
                    match o {
                        Output::Print(text) => {
                            h.prints += 1;
                            h.first_print.get_or_insert_with(|| text.clone());
                        }
                        Output::Dropped(why) => {
                            h.dropped += 1;
                            h.first_dropped
                                .get_or_insert_with(|| format!("in {what} at {t} s: {why}"));
                        }
                        _ => {}
                    }
                }
                out
            }
            Err(f) => {
                if h.failures == 0 {
                    let span = at_line(sources, h.span, &f);
                    self.diags.warning(
                        format!(
                            "Script `{}` failed in {what} at {t} s: {}; what it sent in that call is dropped",
                            h.script.name(),
                            f.message
                        ),
                        Some(span),
                    );
                }
                h.failures += 1;
                if self.stopped.is_none() && self.engine.as_ref().is_some_and(Engine::spent) {
                    self.stopped = Some(t);
                }
                Vec::new()
            }
        }
    }

    /// Names what the Scripts did that the bake does not show: calls that
    /// failed after the first, lines printed, and when the bake's budget
    /// stopped them all.
    pub fn report(&mut self, scene: &Scene, diags: &mut Diagnostics) {
        for d in std::mem::take(&mut self.diags).list() {
            diags.push(d.clone());
        }
        if let (Some(t), Some(engine)) = (self.stopped, &self.engine) {
            diags.warning(
                format!(
                    "{} at {t} s; what they would send after is not baked",
                    engine.stopped()
                ),
                None,
            );
        }
        for &id in &self.order {
            let h = &self.hosted[&id];
            let span = Some(scene.node(id).span);
            if h.failures > 1 {
                diags.warning(
                    format!(
                        "Script `{}` failed in {} calls in all",
                        h.script.name(),
                        h.failures
                    ),
                    span,
                );
            }
            if let Some(first) = &h.first_dropped {
                diags.warning(
                    format!(
                        "Script `{}` sent {} x3dbake does not pass on (the first {first})",
                        h.script.name(),
                        if h.dropped == 1 {
                            "a value".to_string()
                        } else {
                            format!("{} values", h.dropped)
                        }
                    ),
                    span,
                );
            }
            if let Some(first) = &h.first_print {
                diags.warning(
                    format!(
                        "Script `{}` printed {} lines, which a bake does not show (the first: {first:?})",
                        h.script.name(),
                        h.prints
                    ),
                    span,
                );
            }
        }
    }
}

/// The span of a failure's line in the file, or of the program's field.
fn at_line(sources: &Sources, span: Span, f: &Failure) -> Span {
    match f.line {
        Some(line) => line_span(sources, span, line),
        None => span,
    }
}

impl<'s> Player<'s> {
    /// An event into a Script's input.
    pub(super) fn script_event(&mut self, t: f64, id: NodeId, field: &str, v: &Ev) {
        let Some((ty, _)) = self
            .scripts
            .hosted
            .get(&id)
            .and_then(|h| h.script.field(field))
        else {
            return;
        };
        // A time into a Script is absolute.
        let v = match *v {
            Ev::Time(x) if ty == FieldType::SFTime => Ev::Time(x + self.scripts.load),
            ref v => v.clone(),
        };
        let Some(value) = v.value(ty) else {
            return; // not of the field's type
        };
        if !self.touched.contains(&id) {
            self.touched.push(id);
        }
        self.renew(t, id);
        let out = self
            .scripts
            .call(id, Call::Event(field, &value), t, self.sources);
        self.script_outputs(t, id, out);
    }

    /// The Scripts that got events at the current time process them.
    pub(super) fn events_processed(&mut self) {
        let t = self.now;
        for id in std::mem::take(&mut self.touched) {
            self.renew(t, id);
            let out = self
                .scripts
                .call(id, Call::EventsProcessed, t, self.sources);
            self.script_outputs(t, id, out);
        }
    }

    /// Before a call of Script `id` at `t`: the fields of the nodes it
    /// holds that events changed, as they are at `t`, so that it reads
    /// them as they are now. As a browser passes a frame's events on (the
    /// clocks' outputs before what interpolators make of them), a field a
    /// clock sets through interpolators is as the last frame before `t`
    /// left it: the frames' events set it when the clock sends Scripts
    /// frames, else it is the chain's value then (unless an event set it
    /// since).
    pub(super) fn renew(&mut self, t: f64, id: NodeId) {
        let Some(h) = self.scripts.hosted.get(&id) else {
            return;
        };
        // (Taken out while the clocks are asked, and put back: not copied
        // at every call.)
        let watch = self.watch.remove(&id).unwrap_or_default();
        let mut now: Vec<(NodeId, &str, Value)> = self
            .state
            .iter()
            .filter(|((node, _), _)| h.held.contains(node))
            .map(|(&(node, field), (_, value))| (node, field, value.clone()))
            .collect();
        let before = self.frame_before(t);
        for &(node, field, ty, ri) in &watch {
            let r = &self.scene.routes[ri];
            let Some((numbers, last, clock)) =
                before.and_then(|b| self.continuous_at(b, r.from, &r.from_field))
            else {
                continue;
            };
            let set_since = self.state.get(&(node, field)).is_some_and(|s| s.0 >= last);
            if !self.frames.sensors.contains(&clock) && !set_since {
                now.retain(|n| (n.0, n.1) != (node, field));
                now.push((node, field, super::frames::value_of(ty, numbers)));
            }
        }
        if !watch.is_empty() {
            self.watch.insert(id, watch);
        }
        self.scripts.renew(id, now);
    }

    /// What a Script sent: along its routes, or into the nodes it holds.
    pub(super) fn script_outputs(&mut self, t: f64, id: NodeId, out: Vec<Output>) {
        // A Script's values are new: they go everywhere, not only towards
        // other Scripts (sampled still, when they answer a frame).
        self.sending.towards_frames = false;
        // A time out of a Script is absolute: in world time, seconds after
        // the load.
        let load = self.scripts.load;
        let world = |value: Value| {
            let time = value.ty == FieldType::SFTime;
            match Ev::of(value) {
                Ev::Time(x) if time => Ev::Time(x - load),
                ev => ev,
            }
        };
        for o in out {
            match o {
                Output::Send { field, value } => self.send(t, id, &field, world(value)),
                Output::Write { node, field, value } => {
                    let Some(def) = self.field_def(node, &field) else {
                        continue;
                    };
                    let name = def.name.as_str();
                    self.push_via(t, node, Field::Input(name), world(value), Via::Script(id));
                }
                Output::Print(_) | Output::Dropped(_) => {}
            }
        }
    }
}
