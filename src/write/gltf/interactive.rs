//! `--interactive`: what the routes do when the user acts, as one
//! KHR_interactivity behaviour graph. A TouchSensor's activation is an
//! `event/onSelect` on the glTF nodes of its group (KHR_node_selectability);
//! its events go through the routes as the graph's flow: event utilities
//! (BooleanFilter, BooleanToggle, BooleanTrigger, IntegerTrigger,
//! TimeTrigger) decided where their input is known when the graph is made
//! and by graph variables where it is not (a toggle's state); a clock's
//! start is `animation/start` of its clip unless it runs (a variable per
//! clock, as TimeSensor ignores a start while active), its end (`done`) its
//! `isActive` FALSE; fields set by events (`visible`, Switch choices, a
//! light's `on`) `pointer/set`. Looping clocks that run from the load
//! start at `event/onStart`. The graph is a tree of flows from each event,
//! so that a value is always made before it is read (the extension's
//! order); what it cannot hold (Scripts, other sensors, a cycle of starts)
//! is named in a warning and its clips stay in the file.

use super::Writer;
use super::cameras_lights::light_intensity;
use crate::anim::check::{is_event_utility, is_user_sensor};
use crate::hash::HashMap;
use crate::scene::{Dir, NodeId, NodeType, Route, Scene};
use serde_json::{Map, Value, json};

/// The extension, and the one its select event comes from.
pub(super) const EXTENSION: &str = "KHR_interactivity";
pub(super) const SELECTABILITY: &str = "KHR_node_selectability";

/// The graph's types, by index.
const TYPES: [&str; 5] = ["bool", "float", "int", "ref", "float3"];
const BOOL: usize = 0;
const FLOAT: usize = 1;
const INT: usize = 2;
const REF: usize = 3;
const FLOAT3: usize = 4;

/// How deep one event's consequences are followed (routes in a loop).
const MAX_DEPTH: usize = 64;

/// An event's value as the graph knows it.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// Known when the graph is made.
    Bool(bool),
    Int(i32),
    /// A time: the moment of the event (the graph's now).
    Now,
    /// A graph variable's boolean, negated or not.
    Var {
        var: usize,
        not: bool,
    },
}

/// Where the next node's `in` flow comes from: a node's output flow.
#[derive(Clone, Debug)]
struct Flow {
    node: usize,
    socket: String,
}

/// A clock's clip in the document.
#[derive(Clone, Copy)]
pub(super) struct ClipRef {
    pub(super) animation: usize,
    pub(super) duration: f64,
    pub(super) looping: bool,
}

/// The graph being made.
struct Graph<'w, 'a> {
    w: &'w mut Writer<'a>,
    clips: &'w HashMap<NodeId, ClipRef>,
    declarations: Vec<(String, Option<&'static str>)>,
    nodes: Vec<Value>,
    variables: Vec<Value>,
    /// Each clock's "running" variable, each BooleanToggle's state.
    running: HashMap<NodeId, usize>,
    toggles: HashMap<NodeId, usize>,
    /// The clocks being started along the flow being made (a start that
    /// ends in its own start again is a cycle the graph cannot hold).
    starting: Vec<NodeId>,
    /// What was named in a warning, once each.
    warned: crate::hash::HashSet<(NodeId, String)>,
}

/// The field a route writes, as the node declares it (`set_startTime`
/// names `startTime`; `set_boolean` is a field of its own).
fn written_field(scene: &Scene, r: &Route) -> String {
    match scene.find_field(r.to, &r.to_field, Dir::In) {
        Some(f) => f.name.clone(),
        None => r.to_field.clone(),
    }
}

impl Writer<'_> {
    /// The behaviour graph of the scene's sensors and routes (see the
    /// module's documentation), given each clock's clip; `None` where no
    /// sensor and no looping clock gives it anything to do.
    pub(super) fn behaviour_graph(&mut self, clips: &HashMap<NodeId, ClipRef>) -> Option<Value> {
        let mut g = Graph {
            w: self,
            clips,
            declarations: Vec::new(),
            nodes: Vec::new(),
            variables: Vec::new(),
            running: HashMap::default(),
            toggles: HashMap::default(),
            starting: Vec::new(),
            warned: Default::default(),
        };
        g.on_start();
        g.on_select();
        if g.nodes.is_empty() {
            return None;
        }
        let declarations: Vec<Value> = g
            .declarations
            .iter()
            .map(|(op, ext)| match (op.as_str(), ext) {
                ("event/onSelect", Some(ext)) => json!({
                    "op": op, "extension": ext,
                    "outputValueSockets": {
                        "selectedNode": {"type": REF},
                        "selectionRayOrigin": {"type": FLOAT3},
                        "selectionPoint": {"type": FLOAT3},
                        "controllerIndex": {"type": INT},
                        "event": {"type": REF},
                    }
                }),
                (op, _) => json!({ "op": op }),
            })
            .collect();
        let mut graph = json!({
            "types": TYPES.iter().map(|s| json!({"signature": s})).collect::<Vec<_>>(),
            "declarations": declarations,
            "nodes": g.nodes,
        });
        if !g.variables.is_empty() {
            graph["variables"] = Value::Array(g.variables);
        }
        Some(json!({ "graphs": [graph], "graph": 0 }))
    }
}

impl Graph<'_, '_> {
    /// A node of operation `op`; returns its index.
    fn node(&mut self, op: &str, ext: Option<&'static str>, body: Value) -> usize {
        let d = match self
            .declarations
            .iter()
            .position(|(o, e)| o == op && *e == ext)
        {
            Some(d) => d,
            None => {
                self.declarations.push((op.to_string(), ext));
                self.declarations.len() - 1
            }
        };
        let mut node = body;
        node["declaration"] = d.into();
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Joins `from` to node `to`'s `in` flow.
    fn join(&mut self, from: &Flow, to: usize) {
        let flows = &mut self.nodes[from.node]["flows"];
        if !flows.is_object() {
            *flows = Value::Object(Map::new());
        }
        flows[from.socket.as_str()] = json!({ "node": to, "socket": "in" });
    }

    /// A node that continues `from`; returns its index.
    fn then(&mut self, from: &Flow, op: &str, body: Value) -> usize {
        let n = self.node(op, None, body);
        self.join(from, n);
        n
    }

    /// Flows for `n` things done one after another from `from` (a
    /// flow/sequence where there are several).
    fn fan_out(&mut self, from: &Flow, n: usize) -> Vec<Flow> {
        match n {
            0 => Vec::new(),
            1 => vec![from.clone()],
            n => {
                let s = self.then(from, "flow/sequence", json!({}));
                // (Zero-padded: the sequence runs its outputs in the order
                // of their names.)
                (0..n)
                    .map(|i| Flow {
                        node: s,
                        socket: format!("{i:03}"),
                    })
                    .collect()
            }
        }
    }

    fn warn(&mut self, id: NodeId, what: String) {
        if self.warned.insert((id, what.clone())) {
            let span = Some(self.w.scene.node(id).span);
            self.w.diags.warning(what, span);
        }
    }

    /// A variable, with its first value; returns its index.
    fn variable(&mut self, ty: usize, value: Value) -> usize {
        self.variables.push(json!({ "type": ty, "value": [value] }));
        self.variables.len() - 1
    }

    /// `event/onStart`: the looping clocks that run from the load.
    fn on_start(&mut self) {
        let scene = self.w.scene;
        let mut looping: Vec<NodeId> = self
            .clips
            .iter()
            .filter(|(id, c)| {
                c.looping
                    && scene.node_type(**id) == Some(NodeType::TimeSensor)
                    && scene.flag(**id, "enabled")
            })
            .map(|(&id, _)| id)
            .collect();
        looping.sort_unstable();
        if looping.is_empty() {
            return;
        }
        let start = self.node("event/onStart", None, json!({}));
        let from = Flow {
            node: start,
            socket: "out".into(),
        };
        for (flow, clock) in self.fan_out(&from, looping.len()).into_iter().zip(looping) {
            self.start_clock(clock, &flow, 0);
        }
    }

    /// `event/onSelect` for each place of each TouchSensor's group: the
    /// sensor's events of a click (isActive TRUE, touchTime, isActive
    /// FALSE) through its routes. Other sensors with routes are named.
    fn on_select(&mut self) {
        let scene = self.w.scene;
        // (Once, not a pass over the routes for each node.)
        let sources: crate::hash::HashSet<NodeId> = scene.routes.iter().map(|r| r.from).collect();
        let mut sensors = Vec::new();
        for (i, node) in scene.nodes.iter().enumerate() {
            let id = NodeId(i as u32);
            if node.in_proto.is_some() {
                continue;
            }
            let routed = sources.contains(&id);
            match scene.node_type(id) {
                Some(NodeType::TouchSensor) if routed => sensors.push(id),
                Some(ty) if routed && is_user_sensor(ty) => self.warn(
                    id,
                    format!(
                        "`{}`: a {} has no event in a KHR_interactivity graph: its routes are \
                         not carried (the clips they would start stay in the file)",
                        scene.display_name(id),
                        scene.node(id).type_name
                    ),
                ),
                _ => {}
            }
        }
        let groups = self.w.sensor_groups();
        for sensor in sensors {
            let places: Vec<usize> = groups
                .get(&sensor)
                .into_iter()
                .flatten()
                .flat_map(|g| self.w.tree.placed.get(g).cloned().unwrap_or_default())
                .map(|n| n.value())
                .collect();
            if places.is_empty() {
                self.warn(
                    sensor,
                    format!(
                        "`{}`: its group draws nothing: nothing to select",
                        scene.display_name(sensor)
                    ),
                );
            }
            for place in places {
                let before = (self.declarations.len(), self.variables.len());
                let select = self.node(
                    "event/onSelect",
                    Some(SELECTABILITY),
                    json!({ "configuration": { "nodeIndex": { "value": [place] } } }),
                );
                let from = Flow {
                    node: select,
                    socket: "out".into(),
                };
                let click = [
                    ("isActive", Event::Bool(true)),
                    ("touchTime", Event::Now),
                    ("isActive", Event::Bool(false)),
                ];
                self.send_each(sensor, &click, &from, 0);
                // A click that sets nothing off (its routes all named in
                // warnings): no event for it.
                let acts = self.nodes[select..].iter().any(|n| {
                    let op = &self.declarations[n["declaration"].as_u64().unwrap_or(0) as usize].0;
                    matches!(
                        op.as_str(),
                        "animation/start" | "pointer/set" | "variable/set"
                    )
                });
                if !acts {
                    self.nodes.truncate(select);
                    self.declarations.truncate(before.0);
                    self.variables.truncate(before.1);
                }
            }
        }
    }

    /// Whether `id` sends anything from `field`.
    fn sends(&self, id: NodeId, field: &str) -> bool {
        let scene = self.w.scene;
        scene
            .routes
            .iter()
            .any(|r| r.from == id && r.from_field == field)
    }

    /// `id` sends each of `events` (field and value) in turn, those that
    /// go somewhere.
    fn send_each(&mut self, id: NodeId, events: &[(&str, Event)], from: &Flow, depth: usize) {
        let sent: Vec<_> = events.iter().filter(|(f, _)| self.sends(id, f)).collect();
        let flows = self.fan_out(from, sent.len());
        for (flow, &&(field, event)) in flows.iter().zip(&sent) {
            self.send(id, field, event, flow, depth);
        }
    }

    /// `id` sends `event` from `field`: through each of its routes.
    fn send(&mut self, id: NodeId, field: &str, event: Event, from: &Flow, depth: usize) {
        let scene = self.w.scene;
        let routes: Vec<(NodeId, String)> = scene
            .routes
            .iter()
            .filter(|r| r.from == id && r.from_field == field)
            .map(|r| (r.to, written_field(scene, r)))
            .collect();
        if depth > MAX_DEPTH {
            self.warn(
                id,
                format!(
                    "`{}.{field}`: its events go round the routes: followed {MAX_DEPTH} deep",
                    scene.display_name(id)
                ),
            );
            return;
        }
        for (flow, (to, field)) in self.fan_out(from, routes.len()).into_iter().zip(routes) {
            self.receive(to, &field, event, &flow, depth + 1);
        }
    }

    /// `id` receives `event` into `field`.
    fn receive(&mut self, id: NodeId, field: &str, event: Event, from: &Flow, depth: usize) {
        let scene = self.w.scene;
        use NodeType::*;
        match (scene.node_type(id), field, event) {
            (Some(TimeSensor), "startTime", _) => self.start_clock(id, from, depth),
            (Some(BooleanFilter), "set_boolean", Event::Bool(b)) => {
                let out = if b { "inputTrue" } else { "inputFalse" };
                let sent = [(out, Event::Bool(b)), ("inputNegate", Event::Bool(!b))];
                self.send_each(id, &sent, from, depth);
            }
            (Some(BooleanFilter), "set_boolean", Event::Var { var, not }) => {
                let negated = Event::Var { var, not: !not };
                let filtered = self.sends(id, "inputTrue") || self.sends(id, "inputFalse");
                let flows = match (filtered, self.sends(id, "inputNegate")) {
                    (true, true) => self.fan_out(from, 2),
                    _ => vec![from.clone(), from.clone()],
                };
                if filtered {
                    let (yes, no) = self.branch(var, not, &flows[0]);
                    self.send(id, "inputTrue", Event::Bool(true), &yes, depth);
                    self.send(id, "inputFalse", Event::Bool(false), &no, depth);
                }
                self.send(id, "inputNegate", negated, &flows[1], depth);
            }
            (Some(BooleanToggle), "set_boolean", Event::Bool(true)) => self.toggle(id, from, depth),
            (Some(BooleanToggle), "set_boolean", Event::Var { var, not }) => {
                let (yes, _) = self.branch(var, not, from);
                self.toggle(id, &yes, depth);
            }
            (Some(BooleanTrigger), "set_triggerTime", _) => {
                self.send(id, "triggerTrue", Event::Bool(true), from, depth)
            }
            (Some(TimeTrigger), "set_boolean", _) => {
                self.send(id, "triggerTime", Event::Now, from, depth)
            }
            // Any set_boolean, FALSE too (as the text and X_ITE have it).
            (Some(IntegerTrigger), "set_boolean", _) => {
                let value = scene.ints(id, "integerKey").first().copied().unwrap_or(-1);
                self.send(id, "triggerValue", Event::Int(value), from, depth)
            }
            // FALSE into a toggle: nothing happens.
            (Some(BooleanToggle), "set_boolean", Event::Bool(false)) => {}
            (Some(Switch), "whichChoice", Event::Int(choice)) => self.choose(id, choice, from),
            (Some(_), "visible", Event::Bool(_) | Event::Var { .. }) => {
                let places = self.w.tree.placed.get(&id).cloned().unwrap_or_default();
                let pointers = places
                    .iter()
                    .map(|n| visibility_pointer(n.value()))
                    .collect();
                self.w.extensions.push("KHR_node_visibility");
                self.set_all(pointers, BOOL, event, [json!(true), json!(false)], from);
            }
            (
                Some(DirectionalLight | PointLight | SpotLight),
                "on",
                Event::Bool(_) | Event::Var { .. },
            ) => {
                let lights = self.w.tree.lights.get(&id).cloned().unwrap_or_default();
                let pointers = lights
                    .iter()
                    .map(|l| format!("/extensions/KHR_lights_punctual/lights/{l}/intensity"))
                    .collect();
                let on = f64::from(light_intensity(scene, id));
                self.set_all(pointers, FLOAT, event, [json!(on), json!(0.0)], from);
            }
            _ => {
                let what = match scene.node_type(id) {
                    Some(Script) => "a Script's event has no place in a KHR_interactivity graph",
                    _ => "this event is not carried in the KHR_interactivity graph",
                };
                self.warn(
                    id,
                    format!(
                        "`{}.{field}` set by a user's action: {what}",
                        scene.display_name(id)
                    ),
                );
            }
        }
    }

    /// A variable/get of `var`: the value input that reads it.
    fn get(&mut self, var: usize) -> Value {
        let get = self.node(
            "variable/get",
            None,
            json!({ "configuration": { "variable": { "value": [var] } } }),
        );
        json!({ "node": get, "socket": "value" })
    }

    /// A branch on a boolean variable (negated or not): its true and false
    /// flows.
    fn branch(&mut self, var: usize, not: bool, from: &Flow) -> (Flow, Flow) {
        let condition = self.get(var);
        let b = self.then(
            from,
            "flow/branch",
            json!({ "values": { "condition": condition } }),
        );
        let (yes, no) = if not {
            ("false", "true")
        } else {
            ("true", "false")
        };
        let f = |s: &str| Flow {
            node: b,
            socket: s.into(),
        };
        (f(yes), f(no))
    }

    /// Sets a boolean variable, a step with nothing after it.
    fn set_variable(&mut self, from: &Flow, var: usize, value: bool) {
        self.then(
            from,
            "variable/set",
            json!({
                "configuration": { "variables": { "value": [var] } },
                "values": { var.to_string(): { "type": BOOL, "value": [value] } }
            }),
        );
    }

    /// A BooleanToggle receives TRUE: its state flips and is sent.
    fn toggle(&mut self, id: NodeId, from: &Flow, depth: usize) {
        let var = match self.toggles.get(&id) {
            Some(&v) => v,
            None => {
                let v = self.variable(BOOL, json!(self.w.scene.flag(id, "toggle")));
                self.toggles.insert(id, v);
                v
            }
        };
        let state = self.get(var);
        let not = self.node("math/not", None, json!({ "values": { "a": state } }));
        // (A set's own out flow is not in every reader's version of the
        // extension: what follows a set is the next step of a sequence.)
        let steps = self.fan_out(from, 1 + usize::from(self.sends(id, "toggle")));
        self.then(
            &steps[0],
            "variable/set",
            json!({
                "configuration": { "variables": { "value": [var] } },
                "values": { var.to_string(): { "node": not, "socket": "value" } }
            }),
        );
        if let Some(next) = steps.get(1) {
            self.send(id, "toggle", Event::Var { var, not: false }, next, depth);
        }
    }

    /// Sets each pointer to `event`'s value (`values`: what TRUE and FALSE
    /// write), one after another.
    fn set_all(
        &mut self,
        pointers: Vec<String>,
        ty: usize,
        event: Event,
        values: [Value; 2],
        from: &Flow,
    ) {
        let value = match event {
            Event::Bool(b) => json!({ "type": ty, "value": [values[usize::from(!b)].clone()] }),
            Event::Var { var, not } => {
                let condition = self.get(var);
                let [a, b] = values;
                let (a, b) = if not { (b, a) } else { (a, b) };
                let select = self.node(
                    "math/select",
                    None,
                    json!({ "values": {
                        "condition": condition,
                        "a": { "type": ty, "value": [a] },
                        "b": { "type": ty, "value": [b] },
                    } }),
                );
                json!({ "node": select, "socket": "value" })
            }
            Event::Int(_) | Event::Now => return,
        };
        let steps = self.fan_out(from, pointers.len());
        for (step, pointer) in steps.iter().zip(pointers) {
            self.set_pointer(step, pointer, ty, value.clone());
        }
    }

    /// A pointer/set of `pointer` to `value` (an inline value or a
    /// node's output), a step with nothing after it.
    fn set_pointer(&mut self, from: &Flow, pointer: String, ty: usize, value: Value) {
        self.then(
            from,
            "pointer/set",
            json!({
                "configuration": { "pointer": { "value": [pointer] }, "type": { "value": [ty] } },
                "values": { "value": value }
            }),
        );
    }

    /// A Switch gets choice `choice`: each choice node's visibility.
    fn choose(&mut self, id: NodeId, choice: i32, from: &Flow) {
        let places = self.w.tree.switches.get(&id).cloned().unwrap_or_default();
        if places.is_empty() {
            let scene = self.w.scene;
            self.warn(
                id,
                format!(
                    "`{}.whichChoice` set by a user's action: its choices are not animated nodes \
                     (bake with the choice animated by a clock to carry it)",
                    scene.display_name(id)
                ),
            );
            return;
        }
        self.w.extensions.push("KHR_node_visibility");
        let choices: Vec<(usize, bool)> = places
            .iter()
            .flat_map(|place| {
                place.iter().enumerate().map(|(i, node)| {
                    let shown = i32::try_from(i).is_ok_and(|i| i == choice);
                    (node.value(), shown)
                })
            })
            .collect();
        let steps = self.fan_out(from, choices.len());
        for (step, (node, shown)) in steps.iter().zip(choices) {
            let value = json!({ "type": BOOL, "value": [shown] });
            self.set_pointer(step, visibility_pointer(node), BOOL, value);
        }
    }

    /// A clock is started: unless it runs, its clip starts (its isActive
    /// TRUE sent first), and at the clip's end its isActive FALSE.
    fn start_clock(&mut self, id: NodeId, from: &Flow, depth: usize) {
        let scene = self.w.scene;
        let Some(&clip) = self.clips.get(&id) else {
            // A clock that drives nothing still sends isActive.
            self.send(id, "isActive", Event::Bool(true), from, depth);
            return;
        };
        if self.starting.contains(&id) {
            self.warn(
                id,
                format!(
                    "`{}`: its start comes round to start it again: the graph holds one round",
                    scene.display_name(id)
                ),
            );
            return;
        }
        self.starting.push(id);
        let running = match self.running.get(&id) {
            Some(&v) => v,
            None => {
                let v = self.variable(BOOL, json!(false));
                self.running.insert(id, v);
                v
            }
        };
        let (_, idle) = self.branch(running, false, from);
        let active = self.sends(id, "isActive");
        let steps = self.fan_out(&idle, 2 + usize::from(active));
        self.set_variable(&steps[0], running, true);
        if active {
            self.send(id, "isActive", Event::Bool(true), &steps[1], depth);
        }
        let end = if clip.looping {
            let inf = self.node("math/Inf", None, json!({}));
            json!({ "node": inf, "socket": "value" })
        } else {
            json!({ "type": FLOAT, "value": [clip.duration] })
        };
        let start = self.then(
            steps.last().expect("two steps or three"),
            "animation/start",
            json!({ "values": {
                "animation": { "type": REF, "value": [format!("/animations/{}", clip.animation)] },
                "startTime": { "type": FLOAT, "value": [0.0] },
                "endTime": end,
                "speed": { "type": FLOAT, "value": [1.0] },
            } }),
        );
        if !clip.looping {
            let done = Flow {
                node: start,
                socket: "done".into(),
            };
            let steps = self.fan_out(&done, 1 + usize::from(active));
            self.set_variable(&steps[0], running, false);
            if active {
                self.send(id, "isActive", Event::Bool(false), &steps[1], depth);
            }
        }
        self.starting.pop();
    }
}

/// The fields the graph may set (`visible`, a light's `on`, a Switch's
/// choice, from an event utility or a TouchSensor): the writer makes
/// them as it makes animated ones (a node's visibility, a light that is
/// off, a Switch's choices as nodes of their own).
pub(super) fn event_fields(scene: &Scene) -> impl Iterator<Item = (NodeId, String)> + '_ {
    scene
        .routes
        .iter()
        .filter(move |r| {
            scene
                .node_type(r.from)
                .is_some_and(|ty| ty == NodeType::TouchSensor || is_event_utility(ty))
        })
        .map(|r| (r.to, written_field(scene, r)))
        .filter(|(_, f)| matches!(f.as_str(), "visible" | "on" | "whichChoice"))
}

/// The pointer to a node's KHR_node_visibility.
fn visibility_pointer(node: usize) -> String {
    format!("/nodes/{node}/extensions/KHR_node_visibility/visible")
}

impl Writer<'_> {
    /// Each TouchSensor's groups: the grouping nodes that hold it as a
    /// child (its siblings and their children are what it senses).
    fn sensor_groups(&self) -> HashMap<NodeId, Vec<NodeId>> {
        let scene = self.scene;
        let mut groups: HashMap<NodeId, Vec<NodeId>> = HashMap::default();
        for i in 0..scene.nodes.len() {
            let id = NodeId(i as u32);
            for field in self.children_fields(id).unwrap_or_default() {
                for &child in scene.nodes_in(id, field) {
                    if scene.node_type(child) == Some(NodeType::TouchSensor) {
                        groups.entry(child).or_default().push(id);
                    }
                }
            }
        }
        groups
    }
}
