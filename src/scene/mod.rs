//! The resolved scene: a node arena with typed field values, DEF names,
//! checked ROUTEs and prototype declarations. Every reader builds it through
//! [`Builder`]; every later stage reads it.

pub mod build;
pub mod catalogue;
pub mod deferred;
pub mod named;
mod number;
pub mod value;

pub use build::Builder;
pub use catalogue::{FieldDef, NodeDef, NodeType, node_def};
pub use named::NamedList;
pub use value::{Access, FieldType, NodeId, Value};

use crate::source::Span;

/// What kind of node a node is.
#[derive(Clone, Copy, Debug)]
pub enum NodeClass {
    /// A node type in the catalogue.
    Known(&'static NodeDef),
    /// An instance of a prototype declared in the scene (index into
    /// [`Scene::protos`]).
    Proto(usize),
    /// A node type x3dbake does not know: its fields are kept as text.
    Unknown,
}

/// A field given a value in the file.
#[derive(Clone, Debug)]
pub struct SetField {
    /// The field's name.
    pub name: String,
    /// Its typed value.
    pub value: Value,
    /// Where the field stands.
    pub span: Span,
}

/// A field x3dbake could not type: on an unknown node type, or not a field
/// of a known one. Kept as written.
#[derive(Clone, Debug)]
pub struct RawField {
    /// The field's name as written.
    pub name: String,
    /// Its value as written.
    pub text: String,
    /// Where the field stands.
    pub span: Span,
}

/// One node of the scene arena.
#[derive(Debug)]
pub struct Node {
    /// The node type as written (`Transform`, a prototype name, ...).
    pub type_name: String,
    /// Known, a prototype instance, or unknown.
    pub class: NodeClass,
    /// The DEF name.
    pub def: Option<String>,
    /// Where the node starts (its element or type name).
    pub span: Span,
    /// Fields declared by the node itself (Script fields).
    pub user_fields: NamedList<FieldDef>,
    /// Fields given a value in the file, each once (the last value given),
    /// in the order first given.
    pub values: NamedList<SetField>,
    /// Fields kept as text (on an unknown node type, or not fields of the type).
    pub raw_fields: Vec<RawField>,
    /// The prototype whose body holds this node (a template, not part of
    /// the scene until an instance is expanded).
    pub in_proto: Option<usize>,
}

impl Node {
    /// A name for messages and CSV columns: `DEF` name if any, else the
    /// type, cut to [`MAX_NAME_BYTES`].
    pub fn display_name(&self) -> String {
        match &self.def {
            Some(d) => short_name(d).to_string(),
            None => format!("<{}>", short_name(&self.type_name)),
        }
    }
}

/// Which way a field is used by a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Read from (a route's source).
    Out,
    /// Written to (a route's destination).
    In,
}

/// A ROUTE whose ends were found and checked.
#[derive(Clone, Debug)]
pub struct Route {
    /// The node sending the event.
    pub from: NodeId,
    /// The field's catalogue name (`translation` for `translation_changed`).
    pub from_field: String,
    /// The node receiving it.
    pub to: NodeId,
    /// The field receiving it, as written.
    pub to_field: String,
    /// The type of the routed value, when both ends are typed.
    pub ty: Option<FieldType>,
    /// Where the ROUTE stands.
    pub span: Span,
}

/// An `IS` connection inside a prototype body.
#[derive(Clone, Debug)]
pub struct IsConnection {
    /// The body node.
    pub node: NodeId,
    /// The body node's field.
    pub node_field: String,
    /// The prototype's interface field it is connected to.
    pub proto_field: String,
    /// Where the connection stands.
    pub span: Span,
}

/// A PROTO or EXTERNPROTO declaration.
#[derive(Debug)]
pub struct Proto {
    /// The prototype's name.
    pub name: String,
    /// Its interface fields with their defaults.
    pub interface: NamedList<FieldDef>,
    /// Root nodes of the body (empty for an EXTERNPROTO).
    pub body: Vec<NodeId>,
    /// ROUTEs inside the body.
    pub routes: Vec<Route>,
    /// IS connections inside the body.
    pub connections: Vec<IsConnection>,
    /// For an EXTERNPROTO, its url list.
    pub extern_url: Option<Vec<String>>,
    /// Where the declaration stands.
    pub span: Span,
}

/// The X3D header: profile, components, units, meta.
#[derive(Debug, Default)]
pub struct Header {
    /// The X3D profile.
    pub profile: Option<String>,
    /// The X3D version.
    pub version: Option<String>,
    /// COMPONENT statements: name and level.
    pub components: Vec<(String, i32)>,
    /// UNIT statements: category, name, conversion factor.
    pub units: Vec<(String, String, f64)>,
    /// META statements: name and content.
    pub meta: Vec<(String, String)>,
}

/// A scene: every node in one arena, its roots, routes and prototypes.
#[derive(Debug, Default)]
pub struct Scene {
    /// The file's header.
    pub header: Header,
    /// Every node, indexed by [`NodeId`].
    pub nodes: Vec<Node>,
    /// The top-level nodes, in order.
    pub roots: Vec<NodeId>,
    /// DEF names of the scene's own namespace (the last node of a name
    /// given twice).
    pub defs: crate::hash::HashMap<String, NodeId>,
    /// Every ROUTE (and ROUTEs made from Links and IS connections).
    pub routes: Vec<Route>,
    /// The prototypes declared (PROTO and EXTERNPROTO).
    pub protos: Vec<Proto>,
    /// The nodes each prototype instance expanded to (its body's root
    /// nodes, copied; the first one is what the instance is in the tree),
    /// and the root nodes each Inline loaded.
    pub expansions: crate::hash::HashMap<NodeId, Vec<NodeId>>,
    /// IMPORT statements, resolved when Inline files are read.
    pub imports: Vec<Import>,
    /// EXPORT statements: the name other files import, and the node.
    pub exports: Vec<(String, NodeId)>,
}

/// `IMPORT inline.exported AS local`: the local name stands for a node of
/// the Inline's file.
#[derive(Clone, Debug)]
pub struct Import {
    /// The node that stands for the imported one until it is resolved.
    pub placeholder: NodeId,
    /// The Inline's DEF name.
    pub inline: String,
    /// The name exported by the Inline's file.
    pub exported: String,
    /// Where the IMPORT stands.
    pub span: Span,
}

/// The most bytes of a name that messages, CSV columns and glTF objects
/// take. A name can be copied many times (a warning at each place a node
/// is USE'd, a glTF node for each): a 1 MB DEF name in 166 000 warnings
/// took 47 s to format, and in 500 000 glTF copies 16 GB for 100 KB.
pub const MAX_NAME_BYTES: usize = 256;

/// `name` cut to [`MAX_NAME_BYTES`], at a character boundary.
pub fn short_name(name: &str) -> &str {
    let mut end = name.len().min(MAX_NAME_BYTES);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// A grouping node's children after an addChildren (`add`) or
/// removeChildren event of `nodes`: those not there yet join at the end,
/// or every place of each leaves.
pub fn regrouped(children: &[NodeId], nodes: &[NodeId], add: bool) -> Value {
    let mut list = children.to_vec();
    if add {
        list.extend(nodes.iter().filter(|n| !children.contains(n)));
    } else {
        list.retain(|n| !nodes.contains(n));
    }
    Value {
        ty: FieldType::MFNode,
        data: value::Data::Nodes(list),
    }
}

impl Scene {
    /// Whether `id` is one of the scene's nodes (the nodes Scripts make
    /// are numbered after them, see `script::Created`).
    pub fn holds(&self, id: NodeId) -> bool {
        (id.0 as usize) < self.nodes.len()
    }

    /// The node of an id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The node of a DEF name in the scene's namespace.
    pub fn def(&self, name: &str) -> Option<NodeId> {
        self.defs.get(name).copied()
    }

    /// A name for messages and CSV columns: `DEF` name if any, else the
    /// type, cut to [`MAX_NAME_BYTES`].
    pub fn display_name(&self, id: NodeId) -> String {
        self.node(id).display_name()
    }

    /// The declared field of a name, catalogue and node-declared alike
    /// (the first, if it is declared twice).
    pub fn field_def(&self, id: NodeId, name: &str) -> Option<&FieldDef> {
        let node = self.node(id);
        match node.class {
            NodeClass::Known(def) => def.fields.iter().find(|f| f.name == name),
            NodeClass::Proto(p) => self.protos[p].interface.get(name),
            NodeClass::Unknown => None,
        }
        .or_else(|| node.user_fields.get(name))
    }

    /// The field a name refers to, for reading or writing: `set_foo` and
    /// `foo_changed` name the inputOutput field `foo`.
    pub fn find_field(&self, id: NodeId, name: &str, dir: Dir) -> Option<&FieldDef> {
        let exact = self.field_def(id, name);
        if exact.is_some() {
            return exact;
        }
        let base = match dir {
            Dir::Out => name.strip_suffix("_changed"),
            Dir::In => name.strip_prefix("set_"),
        }?;
        self.field_def(id, base)
            .filter(|f| f.access == Access::InputOutput)
    }

    /// The field an event into `def` sets: itself, or for an inputOnly
    /// `set_X` beside a field X of its type that takes no events (a
    /// geometry's set_coordIndex, set_index, set_height, set_spine...),
    /// X, as browsers keep it.
    pub fn field_set_by<'a>(&'a self, id: NodeId, def: &'a FieldDef) -> &'a FieldDef {
        let stored = def
            .name
            .strip_prefix("set_")
            .filter(|_| def.access == Access::InputOnly)
            .and_then(|base| self.field_def(id, base))
            .filter(|f| f.ty == def.ty && f.access == Access::InitializeOnly);
        stored.unwrap_or(def)
    }

    /// The value of a field: as set in the file, else its default. `None`
    /// for a name that is not a field of the node.
    pub fn value(&self, id: NodeId, name: &str) -> Option<&Value> {
        match self.node(id).values.get(name) {
            Some(set) => Some(&set.value),
            None => self.field_def(id, name).map(|f| &f.default),
        }
    }

    /// A field's single-precision numbers (empty when the node has no such
    /// field, or it holds other values).
    pub fn floats(&self, id: NodeId, name: &str) -> &[f32] {
        self.value(id, name).map_or(&[], |v| v.floats())
    }

    /// A field's integers (empty as for [`Scene::floats`]).
    pub fn ints(&self, id: NodeId, name: &str) -> &[i32] {
        self.value(id, name).map_or(&[], |v| v.ints())
    }

    /// An SFBool field; false when the node has no such field.
    pub fn flag(&self, id: NodeId, name: &str) -> bool {
        self.value(id, name).is_some_and(|v| v.as_bool())
    }

    /// The first number of a field as f64; 0 when the node has no such field.
    pub fn number(&self, id: NodeId, name: &str) -> f64 {
        self.value(id, name).map_or(0.0, |v| v.as_f64())
    }

    /// The nodes in an SFNode or MFNode field as listed (none when the node
    /// has no such field).
    pub fn nodes_in(&self, id: NodeId, name: &str) -> &[NodeId] {
        self.value(id, name).map_or(&[], |v| v.nodes())
    }

    /// The node in an SFNode field (the first of an MFNode field); a
    /// prototype instance there is its stand-in (see [`Scene::stand_in`]).
    pub fn child(&self, id: NodeId, name: &str) -> Option<NodeId> {
        self.value(id, name)
            .and_then(|v| v.nodes().first().copied())
            .map(|n| self.stand_in(n))
    }

    /// The node that stands for a node in the scene: itself, or for an
    /// expanded prototype instance the first node of its body (X3D: "the
    /// first node determines the instance's type"), followed through
    /// instances inside instances.
    pub fn stand_in(&self, mut id: NodeId) -> NodeId {
        // Nesting is limited by expansion (MAX_NESTING); the bound only
        // guards a malformed scene.
        for _ in 0..=crate::limits::MAX_PROTO_NESTING {
            match self.expansions.get(&id) {
                Some(roots) if matches!(self.node(id).class, NodeClass::Proto(_)) => {
                    match roots.first() {
                        Some(&first) => id = first,
                        None => break,
                    }
                }
                _ => break,
            }
        }
        id
    }

    /// Where a field was set in the file, if it was.
    pub fn value_span(&self, id: NodeId, name: &str) -> Option<Span> {
        self.node(id).values.get(name).map(|f| f.span)
    }

    /// The node's type, if it is a known type.
    pub fn node_type(&self, id: NodeId) -> Option<NodeType> {
        self.known(id).map(|d| d.ty)
    }

    /// The node type's catalogue entry, if it is a known type.
    pub fn known(&self, id: NodeId) -> Option<&'static NodeDef> {
        match self.node(id).class {
            NodeClass::Known(def) => Some(def),
            _ => None,
        }
    }
}
