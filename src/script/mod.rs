//! Script nodes in ECMAScript, run by an embedded QuickJS engine
//! (`rquickjs`) with the X3D ECMAScript binding (`binding/`). Each Script
//! has its own context: its fields are its globals, its functions are
//! called with an event's value and timestamp, and what it sends is
//! returned as [`Output`]s for the event cascade to pass on.
//!
//! A Script cannot hang or exhaust the bake: each call has a budget of
//! QuickJS interrupt checks (counted, so deterministic), all the calls of
//! a bake's Scripts together another ([`Budget`]), and the engine a
//! memory and stack limit. A Script that throws, or runs out of budget, is
//! reported with the file line of the statement, and the call's outputs
//! are dropped.

mod convert;
mod created;
mod source;

pub use created::Created;
pub use source::{Language, ScriptSource, line_span};

use crate::limits::Limits;
use crate::scene::{Access, FieldType, NodeId, Scene, Value};
use rquickjs::{Context, Ctx, Runtime};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// The binding, run in each Script's context before its own source: the
/// field objects, then the Script's world (nodes, Browser, its fields).
const BINDING: [&str; 2] = [
    include_str!("binding/fields.js"),
    include_str!("binding/world.js"),
];

/// Memory all Scripts of a bake may hold together.
const MEMORY: usize = 512 << 20;

/// The nodes a Script can reach through its SFNode and MFNode fields (and
/// theirs) that it is given, at most.
const MAX_NODES: usize = 4096;

/// Something a Script did in a call.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// It sent a value from one of its fields (an assignment to an
    /// outputOnly or inputOutput field).
    Send {
        /// The field.
        field: String,
        /// The value.
        value: Value,
    },
    /// It wrote a field of a node it holds (directOutput).
    Write {
        /// The node.
        node: NodeId,
        /// The field, by its catalogue name.
        field: String,
        /// The value.
        value: Value,
    },
    /// It printed a line (`print`, `Browser.println`).
    Print(String),
    /// It sent or wrote a value x3dbake cannot pass on (a number field
    /// given NaN, which X_ITE makes of `undefined`, a word or a node, and
    /// sends): why. The call's other outputs stand.
    Dropped(String),
}

/// Why a call failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The exception's message (its class and text).
    pub message: String,
    /// The line of the Script's source, from 1, when known.
    pub line: Option<u32>,
}

/// The QuickJS interrupt checks (one about every 10 000 instructions,
/// counted, so deterministic) the Scripts of a bake may take: each call
/// at most [`Limits::script_call_checks`], all of them together (every
/// engine made with a clone of this one, every call) at most
/// [`Limits::script_checks`].
#[derive(Clone, Debug)]
pub struct Budget {
    call: u32,
    total: u64,
    left: Rc<Cell<u64>>,
}

impl Budget {
    /// The budget `limits` give a bake's Scripts, none of it spent.
    pub fn new(limits: &Limits) -> Budget {
        Budget {
            call: limits.script_call_checks,
            total: limits.script_checks,
            left: Rc::new(Cell::new(limits.script_checks)),
        }
    }

    /// Why a call failed that ran out of checks, given `given` of them.
    fn spent(&self, given: u32) -> String {
        if given < self.call {
            format!(
                "the Scripts ran longer than x3dbake allows a bake ({} interrupt checks in all): they are stopped",
                self.total
            )
        } else {
            format!(
                "ran longer than x3dbake allows a call ({} interrupt checks)",
                self.call
            )
        }
    }
}

/// The engine all Scripts of a scene share, and the nodes they make.
pub struct Engine {
    runtime: Runtime,
    /// The checks the running call has left (what the interrupt handler
    /// counts down).
    budget: Rc<Cell<u32>>,
    bake: Budget,
    created: Rc<RefCell<Created>>,
}

impl Engine {
    /// A new engine for the Scripts of `scene`, with its limits set, its
    /// calls taking their checks from `bake`.
    pub fn new(scene: &Scene, bake: &Budget) -> Result<Engine, Failure> {
        let runtime = Runtime::new().map_err(|e| failure(&e.to_string()))?;
        runtime.set_memory_limit(MEMORY);
        runtime.set_max_stack_size(1 << 20);
        let budget = Rc::new(Cell::new(bake.call));
        let left = budget.clone();
        runtime.set_interrupt_handler(Some(Box::new(move || {
            let n = left.get();
            left.set(n.saturating_sub(1));
            n == 0
        })));
        Ok(Engine {
            runtime,
            budget,
            bake: bake.clone(),
            created: Rc::new(RefCell::new(Created::new(scene))),
        })
    }

    /// Whether the bake's budget is spent: no call runs any more.
    pub fn spent(&self) -> bool {
        self.bake.left.get() == 0
    }

    /// What stopped the Scripts once the bake's budget is spent.
    pub fn stopped(&self) -> String {
        self.bake.spent(0)
    }

    /// The nodes the Scripts made so far.
    pub fn created(&self) -> std::cell::RefMut<'_, Created> {
        self.created.borrow_mut()
    }

    /// The nodes the Scripts made, taken out (none are left).
    pub fn take_created(&self) -> Created {
        std::mem::take(&mut *self.created.borrow_mut())
    }
}

fn failure(message: &str) -> Failure {
    Failure {
        message: message.to_string(),
        line: None,
    }
}

/// One Script node, loaded and initialised.
pub struct Script {
    /// The node's name (its DEF, or `<Script>`).
    name: String,
    context: Context,
    budget: Rc<Cell<u32>>,
    bake: Budget,
    /// The Script's fields: name, type, access.
    fields: Vec<(String, FieldType, Access)>,
    /// Its source, for the line a failure names.
    code: String,
    /// The nodes it holds (through its SFNode and MFNode fields, and
    /// theirs).
    held: Vec<NodeId>,
}

impl Script {
    /// Loads a Script's ECMAScript source in a new context of `engine`,
    /// with its fields and the nodes it holds. Its `initialize` is not
    /// called yet.
    pub fn load(
        engine: &Engine,
        scene: &Scene,
        node: NodeId,
        code: &str,
    ) -> Result<Script, Failure> {
        let context = Context::full(&engine.runtime).map_err(|e| failure(&e.to_string()))?;
        let fields: Vec<(String, FieldType, Access)> = scene
            .node(node)
            .user_fields
            .iter()
            .map(|f| (f.name.clone(), f.ty, f.access))
            .collect();
        let (setup, held) = convert::setup(scene, node, MAX_NODES);
        let script = Script {
            name: scene.display_name(node),
            context,
            budget: engine.budget.clone(),
            bake: engine.bake.clone(),
            fields,
            code: code.to_string(),
            held,
        };
        let made = engine.created.clone();
        let span = scene.node(node).span;
        script.run(|ctx| {
            // Nodes made from text: their JSON, or {"error": why}.
            let create = rquickjs::Function::new(ctx.clone(), move |text: String, vrml: bool| {
                match made.borrow_mut().make(&text, vrml, span) {
                    Ok(json) => json,
                    Err(why) => serde_json::json!({ "error": why }).to_string(),
                }
            })?;
            ctx.globals().set("__x3d_create", create)?;
            // A node made gets a DEF name (false: not a node made).
            let made = engine.created.clone();
            let name = rquickjs::Function::new(ctx.clone(), move |id: u32, name: String| {
                made.borrow_mut().name(NodeId(id), name)
            })?;
            ctx.globals().set("__x3d_name", name)?;
            for part in BINDING {
                ctx.eval::<(), _>(part)?;
            }
            let f: rquickjs::Function = ctx.globals().get("__x3d_setup")?;
            f.call::<_, ()>((setup.as_str(),))?;
            let opts = {
                let mut o = rquickjs::context::EvalOptions::default();
                o.global = true;
                o.strict = false;
                o.filename = Some(source::FILE_NAME.into());
                o
            };
            ctx.eval_with_options::<(), _>(code, opts)
        })?;
        Ok(script)
    }

    /// Calls `initialize()`, if the Script has one.
    pub fn initialize(&self, time: f64) -> Result<Vec<Output>, Failure> {
        self.call("initialize", None, time)
    }

    /// Calls `eventsProcessed()`, if the Script has one.
    pub fn events_processed(&self, time: f64) -> Result<Vec<Output>, Failure> {
        self.call("eventsProcessed", None, time)
    }

    /// Delivers an event to the Script's input field `field` (declared
    /// name): sets the field and calls its function.
    pub fn event(&self, field: &str, value: &Value, time: f64) -> Result<Vec<Output>, Failure> {
        self.call(field, Some(value), time)
    }

    /// The nodes the Script holds (through its SFNode and MFNode fields,
    /// and theirs).
    pub fn held(&self) -> &[NodeId] {
        &self.held
    }

    /// Fields of nodes the Script holds as they are now (changed by events
    /// since it last saw them): what it reads of them from now on.
    pub fn renew(&self, values: &[(NodeId, &str, Value)]) -> Result<(), Failure> {
        let list: Vec<serde_json::Value> = values
            .iter()
            .map(|(node, field, value)| serde_json::json!([node.0, field, convert::data(value)]))
            .collect();
        let json = serde_json::Value::Array(list).to_string();
        self.run(|ctx| {
            let f: rquickjs::Function = ctx.globals().get("__x3d_renew")?;
            f.call::<_, ()>((json.as_str(),))
        })
    }

    /// The node's name (its DEF, or `<Script>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The Script's field of a name: its type and access.
    pub fn field(&self, name: &str) -> Option<(FieldType, Access)> {
        self.fields
            .iter()
            .find(|f| f.0 == name)
            .map(|&(_, ty, access)| (ty, access))
    }

    fn call(&self, name: &str, value: Option<&Value>, time: f64) -> Result<Vec<Output>, Failure> {
        let json = value.map(convert::to_json);
        let done: String = self.run(|ctx| {
            let f: rquickjs::Function = ctx.globals().get("__x3d_call")?;
            f.call::<_, ()>((name, json.as_deref(), time))?;
            // What `await` and `then` left to do, within the call's budget.
            while ctx.execute_pending_job() {}
            let done: rquickjs::Function = ctx.globals().get("__x3d_done")?;
            done.call(())
        })?;
        convert::outputs(&done, |field| self.field(field).map(|f| f.0))
            .map_err(|m| failure(&format!("x3dbake could not read what the Script did: {m}")))
    }

    /// Runs `f` in the Script's context with a fresh budget (a call's, or
    /// what is left of the bake's when that is less); an exception becomes
    /// a [`Failure`] with its source line. Once the bake's budget is spent
    /// nothing runs.
    fn run<T>(&self, f: impl FnOnce(&Ctx<'_>) -> rquickjs::Result<T>) -> Result<T, Failure> {
        let left = self.bake.left.get();
        if left == 0 {
            return Err(failure(&self.bake.spent(0)));
        }
        let given = u32::try_from(left).map_or(self.bake.call, |l| l.min(self.bake.call));
        self.budget.set(given);
        let ran = self.context.with(|ctx| match f(&ctx) {
            Ok(v) => Ok(v),
            Err(rquickjs::Error::Exception) => {
                let spent = (self.budget.get() == 0).then(|| self.bake.spent(given));
                let mut f = caught(&ctx, spent);
                if f.message.ends_with("not a function") {
                    f.message += &self.unknown_calls(&ctx, f.line);
                }
                Err(f)
            }
            Err(e) => Err(failure(&e.to_string())),
        });
        // A call stopped by the stack or the memory limit did work its
        // checks do not count (QuickJS counts bytecode, not the frames and
        // allocations of a deep recursion): it takes its whole budget, so
        // that a Script overflowing its stack at every frame is stopped
        // with the rest (121 calls of 16 ms each in a two-second clip).
        if let Err(f) = &ran
            && (f.message.ends_with("Maximum call stack size exceeded")
                || f.message.ends_with("out of memory"))
        {
            self.budget.set(0);
        }
        let used = given - self.budget.get();
        self.bake.left.set(left - u64::from(used));
        ran
    }

    /// What a "not a function" failure at `line` is about: the names the
    /// line calls that nothing in the Script's context defines, as
    /// ` (the line calls `a`, which x3dbake's binding does not have)`.
    fn unknown_calls(&self, ctx: &Ctx<'_>, line: Option<u32>) -> String {
        let Some(text) = line.and_then(|l| self.code.lines().nth(l.checked_sub(1)? as usize))
        else {
            return String::new();
        };
        let names: Vec<String> = ctx
            .globals()
            .get::<_, rquickjs::Function>("__x3d_unknown")
            .and_then(|f| f.call((text,)))
            .unwrap_or_default();
        match names.as_slice() {
            [] => String::new(),
            [one] => format!(" (the line calls `{one}`, which x3dbake's binding does not have)"),
            _ => format!(
                " (the line calls {}, which x3dbake's binding does not have)",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// The exception pending in `ctx`, as a failure with the line of the
/// Script's source it was thrown at (`spent`: the call ran out of its
/// budget, and why).
fn caught(ctx: &Ctx<'_>, spent: Option<String>) -> Failure {
    let value = ctx.catch();
    if let Some(message) = spent {
        return Failure {
            message,
            line: None,
        };
    }
    let Some(e) = value.as_exception() else {
        let text = value
            .as_string()
            .and_then(|s| s.to_string().ok())
            .unwrap_or_else(|| format!("{:?}", value.type_of()));
        return failure(&format!("threw {text}"));
    };
    let name: Option<String> = e.get("name").ok();
    let message = e.message().unwrap_or_default();
    let line = e
        .stack()
        .as_deref()
        .and_then(source::script_line)
        .or_else(|| {
            // A syntax error has no frame of the Script: its line is in the
            // exception's own fields.
            e.get::<_, Option<u32>>("lineNumber").ok().flatten()
        });
    Failure {
        message: match name {
            Some(n) if !n.is_empty() => format!("{n}: {message}"),
            _ => message,
        },
        line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diagnostics;
    use crate::scene::value::Data;
    use crate::source::Sources;

    fn scene(text: &str) -> Scene {
        let mut sources = Sources::new();
        let file = sources.add("t.x3dv", text.to_string());
        let mut diags = Diagnostics::default();
        let scene = crate::syntax::parse(&sources, file, &Limits::default(), &mut diags);
        assert!(!diags.has_errors(), "{:?}", diags.list());
        scene
    }

    fn vec3(x: f32, y: f32, z: f32) -> Value {
        Value {
            ty: FieldType::SFVec3f,
            data: Data::Floats(vec![x, y, z].into()),
        }
    }

    fn loaded(scene: &Scene, engine: &Engine) -> Script {
        let id = scene.def("S").expect("S");
        let ScriptSource::Inline { code, .. } = ScriptSource::of(scene, id) else {
            panic!("inline")
        };
        Script::load(engine, scene, id, &code).expect("loads")
    }

    /// The binding's rotation maths against values worked by hand: a
    /// quarter turn about z takes x to y.
    #[test]
    fn a_rotation_turns_a_vector_as_worked_by_hand() {
        let s = scene(
            r#"#X3D V4.0 utf8
DEF S Script {
  inputOnly SFRotation set_rotation
  outputOnly SFVec3f vector_changed
  initializeOnly SFVec3f vector 1 0 0
  url "ecmascript:
function set_rotation (value, time) { vector_changed = value.multVec(vector); }
"
}"#,
        );
        let engine = Engine::new(&s, &Budget::new(&Limits::default())).expect("engine");
        let script = loaded(&s, &engine);
        let quarter = Value {
            ty: FieldType::SFRotation,
            data: Data::Floats(vec![0.0, 0.0, 1.0, std::f32::consts::FRAC_PI_2].into()),
        };
        let out = script.event("set_rotation", &quarter, 1.0).expect("runs");
        let [Output::Send { field, value }] = out.as_slice() else {
            panic!("{out:?}")
        };
        assert_eq!(field, "vector_changed");
        let v = value.floats();
        assert!((v[0]).abs() < 1e-6 && (v[1] - 1.0).abs() < 1e-6 && v[2].abs() < 1e-6);
    }

    /// Fields keep their values between calls; an inputOutput field set
    /// by an event sends it and calls `set_NAME`; a field changed in place
    /// sends too; directOutput writes name the node and field.
    #[test]
    fn fields_persist_send_and_write_nodes() {
        let s = scene(
            r#"#X3D V4.0 utf8
DEF T TimeSensor { }
DEF S Script {
  directOutput TRUE
  inputOutput SFFloat level 0
  outputOnly SFVec3f moved
  initializeOnly SFNode clock USE T
  initializeOnly SFInt32 calls 0
  url "javascript:
function initialize() { moved = new SFVec3f(1, 2, 3); }
function set_level(v, t) { calls++; moved[1] = v * calls; clock.set_startTime = t; }
"
}"#,
        );
        let engine = Engine::new(&s, &Budget::new(&Limits::default())).expect("engine");
        let script = loaded(&s, &engine);
        let init = script.initialize(0.0).expect("initialize");
        assert_eq!(
            init,
            vec![Output::Send {
                field: "moved".into(),
                value: vec3(1.0, 2.0, 3.0)
            }]
        );
        let level = |x: f32| Value {
            ty: FieldType::SFFloat,
            data: Data::Floats(vec![x].into()),
        };
        script.event("level", &level(5.0), 2.0).expect("first");
        let out = script.event("level", &level(5.0), 3.0).expect("second");
        assert_eq!(
            out,
            vec![
                Output::Send {
                    field: "level".into(),
                    value: level(5.0)
                },
                Output::Write {
                    node: s.def("T").expect("T"),
                    field: "startTime".into(),
                    value: Value {
                        ty: FieldType::SFTime,
                        data: Data::Doubles(vec![3.0])
                    }
                },
                Output::Send {
                    field: "moved".into(),
                    value: vec3(1.0, 10.0, 3.0)
                },
            ]
        );
    }

    /// A Script that throws, loops for ever or recurses without end fails
    /// with its line; the engine goes on.
    #[test]
    fn a_script_that_throws_fails_with_its_line() {
        let s = scene(
            r#"#X3D V4.0 utf8
DEF S Script {
  inputOnly SFTime go
  inputOnly SFTime spin
  inputOnly SFTime deep
  inputOnly SFTime missing
  url "ecmascript:
function go(v) {
  undefinedThing.x = 1;
}
function spin(v) { for (;;) {} }
function deep(v) { return deep(v) + 1; }
function missing(v) { var a = new SFVec3f(1, 0, 0); a.normalize().frobnicate(Math.abs(v)); }
"
}"#,
        );
        let engine = Engine::new(&s, &Budget::new(&Limits::default())).expect("engine");
        let script = loaded(&s, &engine);
        let time = Value {
            ty: FieldType::SFTime,
            data: Data::Doubles(vec![1.0]),
        };
        let e = script.event("go", &time, 1.0).expect_err("throws");
        assert_eq!(e.line, Some(3), "{e:?}");
        assert!(e.message.contains("undefinedThing"), "{e:?}");
        let e = script.event("spin", &time, 1.0).expect_err("stops");
        assert!(e.message.contains("ran longer"), "{e:?}");
        let e = script.event("missing", &time, 1.0).expect_err("throws");
        assert!(
            e.message
                .ends_with("(the line calls `frobnicate`, which x3dbake's binding does not have)"),
            "{e:?}"
        );
        let e = script.event("deep", &time, 1.0).expect_err("overflows");
        assert!(
            e.message.contains("stack") || e.message.contains("recursion"),
            "{e:?}"
        );
        // Still answers.
        assert!(script.initialize(2.0).expect("runs").is_empty());
    }

    /// Vectors keep length() as a method (it was shadowed by a number of
    /// components, so `new SFRotation(from, to)` threw "not a function"),
    /// the rotation from one vector to another turns the first into the
    /// second (x to y is a quarter turn about z), and MF values assign
    /// and compare.
    #[test]
    fn vector_lengths_rotations_between_vectors_and_mf_assign() {
        let s = scene(
            r#"#X3D V4.0 utf8
DEF S Script {
  inputOnly SFTime go
  outputOnly SFRotation turn
  outputOnly SFFloat size
  initializeOnly SFVec3f dir 0 1 0
  url "ecmascript:
function go(v) {
  var list = new MFFloat(1, 2, 3);
  var copy = new MFFloat();
  copy.assign(list);
  size = new SFVec3f(3, 4, 0).length() + (copy.equals(list) ? copy.length : 0);
  turn = new SFRotation(new SFVec3f(1, 0, 0), dir);
}
"
}"#,
        );
        let engine = Engine::new(&s, &Budget::new(&Limits::default())).expect("engine");
        let script = loaded(&s, &engine);
        let time = Value {
            ty: FieldType::SFTime,
            data: Data::Doubles(vec![1.0]),
        };
        let out = script.event("go", &time, 1.0).expect("runs");
        let sent = |name: &str| {
            out.iter()
                .find_map(|o| match o {
                    Output::Send { field, value } if field == name => Some(value.clone()),
                    _ => None,
                })
                .expect(name)
        };
        // 5, and 3 elements assigned equal.
        assert_eq!(sent("size").data, Data::Floats(vec![8.0].into()));
        let Data::Floats(r) = sent("turn").data else {
            panic!("a rotation")
        };
        let want = [0.0, 0.0, 1.0, std::f32::consts::FRAC_PI_2];
        assert!(
            r.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6),
            "{r:?}"
        );
    }
}
