//! Building a [`Scene`] from what a reader finds, with the checks that do not
//! depend on the encoding: node types, field names and values, DEF/USE,
//! containerField, ROUTE ends and types.

use super::deferred::{Deferral, Deferred};
pub use super::value::TextPos;
use super::value::{Data, Encoding, LongFloats, Scalar, bad_value, parse_value};
use super::{
    Access, Dir, FieldDef, IsConnection, NamedList, Node, NodeClass, NodeId, Proto, RawField,
    Route, Scene, SetField, Value, catalogue,
};
use crate::diag::Diagnostics;
use crate::hash::HashMap;
use crate::source::Span;
use std::sync::Arc;
use std::sync::mpsc::Sender;

/// A ROUTE as written, resolved when its DEF namespace is complete.
struct RouteText {
    /// fromNode, fromField, toNode and toField, one after another (one
    /// string: a scene may have many routes), and where each ends in it.
    names: String,
    ends: [usize; 4],
    /// Where each of them is written.
    spans: [Span; 4],
    span: Span,
    /// The nodes fromNode and toNode named where the ROUTE is written, when
    /// they were defined by then: a DEF given again later does not move
    /// the route. A name not yet defined is looked up at the end.
    bound: [Option<NodeId>; 2],
}

impl RouteText {
    /// fromNode, fromField, toNode and toField.
    fn parts(&self) -> [&str; 4] {
        let starts = [0, self.ends[0], self.ends[1], self.ends[2]];
        std::array::from_fn(|k| &self.names[starts[k]..self.ends[k]])
    }
}

/// One DEF namespace: the scene's, or a prototype body's.
#[derive(Default)]
struct Scope {
    defs: HashMap<String, NodeId>,
    routes: Vec<RouteText>,
}

/// Builds a [`Scene`] as a reader finds its parts: nodes, fields, DEF/USE, routes, prototypes, each checked against the catalogue.
pub struct Builder<'d> {
    /// The most nodes the file may hold.
    max_nodes: usize,
    scene: Scene,
    diags: &'d mut Diagnostics,
    scopes: Vec<Scope>,
    /// Prototypes whose bodies are being read, innermost last.
    bodies: Vec<usize>,
    encoding: Encoding,
    /// The last prototype declared with each name.
    proto_names: HashMap<String, usize>,
    /// Where long float values go to be read on another thread, if they do.
    deferral: Option<Deferral>,
}

impl<'d> Builder<'d> {
    /// A builder for a file of at most `max_nodes` nodes
    /// ([`Limits::file_nodes`](crate::limits::Limits::file_nodes)).
    pub fn new(diags: &'d mut Diagnostics, encoding: Encoding, max_nodes: usize) -> Builder<'d> {
        Builder {
            max_nodes,
            scene: Scene::default(),
            diags,
            scopes: vec![Scope::default()],
            bodies: Vec::new(),
            encoding,
            proto_names: HashMap::default(),
            deferral: None,
        }
    }

    /// From now on, a float value of at least [`crate::par::SPLIT_BYTES`]
    /// that is a part of `text` (the file's) is read by the thread that
    /// `jobs` go to while the reader goes on; its field holds an empty
    /// placeholder until [`Deferral::resolve`] (see `scene/deferred.rs`).
    pub fn defer_long_values(&mut self, text: &str, jobs: Sender<Arc<LongFloats>>) {
        self.deferral = Some(Deferral::new(text, jobs));
    }

    /// Stops handing values over (the other thread ends once it has read
    /// those it has) and returns what was handed over, to be given to the
    /// fields once read ([`Deferral::resolve`]).
    pub fn stop_deferring(&mut self) -> Option<Deferral> {
        let mut deferral = self.deferral.take()?;
        deferral.close();
        Some(deferral)
    }

    /// Hands a long float value over to be read on the other thread (see
    /// [`Builder::defer_long_values`]): the placeholder its field holds
    /// until then, or `None` where it is read here.
    fn hand_over(
        &mut self,
        id: NodeId,
        name: &str,
        ty: super::FieldType,
        text: &str,
        pos: TextPos,
    ) -> Option<Arc<Vec<f32>>> {
        if ty.scalar() != Scalar::Float {
            return None;
        }
        let deferral = self.deferral.as_mut()?;
        let (text, floats) = deferral.hand_over(text, self.encoding)?;
        let placeholder = Arc::new(Vec::new());
        deferral.fields.push(Deferred {
            id,
            name: name.to_string(),
            ty,
            pos,
            text,
            floats,
            placeholder: Arc::clone(&placeholder),
            diag_at: self.diags.list().len(),
        });
        Some(placeholder)
    }

    /// Whether any node read so far is of an X3D node type.
    pub fn holds_x3d_nodes(&self) -> bool {
        self.scene
            .nodes
            .iter()
            .any(|n| matches!(n.class, NodeClass::Known(_)))
    }

    /// The scene so far.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The file's header (profile, components, units, meta).
    pub fn header_mut(&mut self) -> &mut super::Header {
        &mut self.scene.header
    }

    /// Where the reader's own diagnostics go.
    pub fn diags(&mut self) -> &mut Diagnostics {
        self.diags
    }

    /// Creates a node of a built-in type; an unknown type is a warning.
    pub fn new_node(&mut self, type_name: &str, span: Span) -> NodeId {
        let class = if let Some(def) = catalogue::node_def(type_name) {
            NodeClass::Known(def)
        } else {
            self.diags.warning(
                format!(
                    "`{type_name}` is not an X3D node type: its fields are not read; nodes \
                     under it are written as a group"
                ),
                Some(span),
            );
            NodeClass::Unknown
        };
        self.push_node(type_name, class, span)
    }

    /// The prototype a node type names, if one is declared and its body is
    /// not being read (a prototype cannot contain itself: inside its own
    /// body its name is the built-in node type).
    pub fn proto_named(&self, type_name: &str) -> Option<usize> {
        self.proto_names
            .get(type_name)
            .copied()
            .filter(|p| !self.bodies.contains(p))
    }

    /// Creates an instance of a declared prototype; an undeclared one is a
    /// warning, and the node is kept as an unknown type.
    pub fn new_proto_instance(&mut self, proto_name: &str, span: Span) -> NodeId {
        let class = match self.proto_named(proto_name) {
            Some(p) => NodeClass::Proto(p),
            None => {
                self.diags.warning(
                    format!("ProtoInstance of `{proto_name}`, which is not declared: kept, but not baked"),
                    Some(span),
                );
                NodeClass::Unknown
            }
        };
        self.push_node(proto_name, class, span)
    }

    /// False, with an error at `span`, when the file already holds
    /// `max_nodes` nodes: the reader stops before making another.
    pub fn room_for_node(&mut self, span: Span) -> bool {
        if self.scene.nodes.len() < self.max_nodes {
            return true;
        }
        self.diags.error(
            format!(
                "a file may hold at most {} nodes: reading stops here",
                self.max_nodes
            ),
            Some(span),
        );
        false
    }

    fn push_node(&mut self, type_name: &str, class: NodeClass, span: Span) -> NodeId {
        let id = NodeId(self.scene.nodes.len() as u32);
        self.scene.nodes.push(Node {
            type_name: type_name.to_string(),
            class,
            def: None,
            span,
            user_fields: NamedList::default(),
            values: NamedList::default(),
            raw_fields: Vec::new(),
            in_proto: self.bodies.last().copied(),
        });
        id
    }

    fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.scene.nodes[id.0 as usize]
    }

    fn scope(&mut self) -> &mut Scope {
        // There is always the scene's scope at the bottom of the stack.
        self.scopes.last_mut().expect("scene scope")
    }

    /// Names a node with DEF in the current namespace.
    pub fn define(&mut self, id: NodeId, name: &str, span: Span) {
        if self.scope().defs.contains_key(name) {
            self.diags.warning(
                format!("DEF `{name}` is defined again; later USE and ROUTE refer to this one"),
                Some(span),
            );
        }
        self.node_mut(id).def = Some(name.to_string());
        self.scope().defs.insert(name.to_string(), id);
    }

    /// The node a USE refers to. An unknown name leaves the node out, with a
    /// warning, in every encoding: X_ITE goes on without it.
    pub fn lookup_use(&mut self, name: &str, span: Span) -> Option<NodeId> {
        let found = self.scope().defs.get(name).copied();
        if found.is_none() {
            self.diags.warning(
                format!("USE `{name}` refers to no DEF before it: the node is left out"),
                Some(span),
            );
        }
        found
    }

    /// Declares a field on a node that declares its own (Script).
    pub fn declare_field(&mut self, id: NodeId, def: FieldDef) {
        self.node_mut(id).user_fields.push(def);
    }

    /// Parses the value of a declared field (a prototype or Script field's
    /// default); a bad value is an error at its place, and `None`.
    pub fn declared_value(
        &mut self,
        name: &str,
        ty: super::FieldType,
        text: &str,
        pos: TextPos,
    ) -> Option<Value> {
        match parse_value(ty, text, self.encoding) {
            Ok(v) => Some(v),
            Err(e) => {
                let msg = format!("bad value for field `{name}` ({ty}): {}", e.message);
                let at = Some(pos.sub(e.at));
                match self.encoding {
                    // (A browser gives the field its type's initial value.)
                    Encoding::Xml => self.diags.warning(
                        format!("{msg}: ignored, the field takes its type's initial value"),
                        at,
                    ),
                    Encoding::Vrml => self.diags.error(msg, at),
                }
                None
            }
        }
    }

    /// Sets a field from its text in the file.
    pub fn set_field_text(&mut self, id: NodeId, name: &str, text: &str, pos: TextPos) {
        let found = self.scene.field_def(id, name).map(|f| (f.ty, f.access));
        let (ty, access) = match found {
            Some(found) => found,
            None => {
                let node = self.scene.node(id);
                if !matches!(node.class, NodeClass::Unknown) {
                    self.diags.warning(
                        format!("`{}` has no field `{name}`: ignored", node.type_name),
                        Some(pos.span()),
                    );
                }
                self.node_mut(id).raw_fields.push(RawField {
                    name: name.to_string(),
                    text: text.to_string(),
                    span: pos.span(),
                });
                return;
            }
        };
        if matches!(access, Access::InputOnly | Access::OutputOnly) {
            let node = &self.scene.node(id).type_name;
            self.diags.warning(
                format!(
                    "`{node}.{name}` is {} and cannot be given a value in the file: ignored",
                    access.name()
                ),
                Some(pos.span()),
            );
            return;
        }
        if ty.scalar() == Scalar::Node {
            if !text.trim().is_empty() && text.trim() != "NULL" {
                self.diags.warning(
                    format!(
                        "`{name}` is {ty}: give its nodes as child elements; the text is ignored"
                    ),
                    Some(pos.span()),
                );
            }
            return;
        }
        if let Some(placeholder) = self.hand_over(id, name, ty, text, pos) {
            let data = Data::Floats(placeholder);
            self.set_value(id, name, Value { ty, data }, pos.span());
            return;
        }
        match parse_value(ty, text, self.encoding) {
            Ok(value) => self.set_value(id, name, value, pos.span()),
            Err(e) => {
                let node = &self.scene.node(id).type_name;
                let d = bad_value(self.encoding, node, name, ty, pos, e);
                self.diags.push(d);
            }
        }
    }

    /// Sets a field to a value already parsed.
    pub fn set_value(&mut self, id: NodeId, name: &str, value: Value, span: Span) {
        self.node_mut(id).values.set(SetField {
            name: name.to_string(),
            value,
            span,
        });
    }

    /// Adds `child` to the SFNode or MFNode field `field` of `parent`.
    pub fn add_child(&mut self, parent: NodeId, field: &str, child: NodeId, span: Span) {
        let ty = self.scene.field_def(parent, field).map(|f| f.ty);
        let ty = match ty {
            Some(t) if t.scalar() == Scalar::Node => t,
            Some(t) => {
                let p = &self.scene.node(parent).type_name;
                self.diags.warning(
                    format!("`{p}.{field}` is {t}, not a node field: the child node is ignored"),
                    Some(span),
                );
                return;
            }
            None => {
                let node = self.scene.node(parent);
                let unknown_child = matches!(self.scene.node(child).class, NodeClass::Unknown);
                // An unknown child type was warned about already; its
                // containerField is not known, so it is kept where it stands.
                if !matches!(node.class, NodeClass::Unknown) && !unknown_child {
                    let (p, c) = (&node.type_name, &self.scene.node(child).type_name);
                    self.diags.warning(
                        format!("`{p}` has no field `{field}` to hold a `{c}`: ignored"),
                        Some(span),
                    );
                    return;
                }
                super::FieldType::MFNode
            }
        };
        let node = self.node_mut(parent);
        match node.values.get_mut(field) {
            Some(set) if ty.is_mf() => {
                if let Data::Nodes(list) = &mut set.value.data {
                    list.push(child);
                }
            }
            Some(set) => {
                set.value.data = Data::Nodes(vec![child]);
                let p = node.type_name.clone();
                self.diags.warning(
                    format!("`{p}.{field}` holds one node: this one replaces the one before"),
                    Some(span),
                );
            }
            None => node.values.push(SetField {
                name: field.to_string(),
                value: Value {
                    ty,
                    data: Data::Nodes(vec![child]),
                },
                span,
            }),
        }
    }

    /// Adds a node at the top of the scene (or of the prototype body being read).
    pub fn add_root(&mut self, id: NodeId) {
        self.scene.roots.push(id);
    }

    /// Records a ROUTE, checked when its namespace is complete.
    /// `parts` are fromNode, fromField, toNode and toField, each with its span.
    pub fn add_route(&mut self, parts: [(&str, Span); 4], span: Span) {
        let scope = self.scope();
        let bound = [parts[0].0, parts[2].0].map(|name| scope.defs.get(name).copied());
        let mut names = String::with_capacity(parts.iter().map(|(p, _)| p.len()).sum());
        let ends = parts.map(|(p, _)| {
            names.push_str(p);
            names.len()
        });
        scope.routes.push(RouteText {
            names,
            ends,
            spans: parts.map(|(_, s)| s),
            span,
            bound,
        });
    }

    /// Declares a prototype; its body is read between [`Builder::begin_proto_body`]
    /// and [`Builder::end_proto_body`].
    pub fn declare_proto(
        &mut self,
        name: &str,
        extern_url: Option<Vec<String>>,
        span: Span,
    ) -> usize {
        self.scene.protos.push(Proto {
            name: name.to_string(),
            interface: NamedList::default(),
            body: Vec::new(),
            routes: Vec::new(),
            connections: Vec::new(),
            extern_url,
            span,
        });
        let p = self.scene.protos.len() - 1;
        self.proto_names.insert(name.to_string(), p);
        p
    }

    /// The url list of an EXTERNPROTO, read after its interface.
    pub fn set_extern_url(&mut self, proto: usize, urls: Vec<String>) {
        self.scene.protos[proto].extern_url = Some(urls);
    }

    /// Adds a field to a prototype's interface.
    pub fn add_proto_field(&mut self, proto: usize, def: FieldDef) {
        self.scene.protos[proto].interface.push(def);
    }

    /// A node given as the default value of a prototype's node field.
    pub fn add_proto_field_node(&mut self, proto: usize, field: usize, id: NodeId) {
        let Some(def) = self.scene.protos[proto].interface.iter_mut().nth(field) else {
            return;
        };
        if let Data::Nodes(list) = &mut def.default.data {
            if !def.ty.is_mf() {
                list.clear();
            }
            list.push(id);
        }
    }

    /// Adds a node at the top of a prototype's body.
    pub fn add_proto_body_root(&mut self, proto: usize, id: NodeId) {
        self.scene.protos[proto].body.push(id);
    }

    /// Starts reading a prototype's body (its own DEF namespace).
    pub fn begin_proto_body(&mut self, proto: usize) {
        self.scopes.push(Scope::default());
        self.bodies.push(proto);
    }

    /// Ends reading a prototype's body: its ROUTEs and IS connections are resolved.
    pub fn end_proto_body(&mut self, proto: usize) {
        // begin_proto_body pushed this scope.
        let scope = self.scopes.pop().expect("proto scope");
        self.bodies.pop();
        let routes = self.resolve_routes(&scope);
        self.scene.protos[proto].routes = routes;
    }

    /// An `IS` connection of a node field inside a prototype body to a field
    /// of the prototype's interface.
    pub fn connect(
        &mut self,
        proto: usize,
        node: NodeId,
        node_field: &str,
        proto_field: &str,
        span: Span,
    ) {
        let p = &self.scene.protos[proto];
        let pf = p.interface.get(proto_field).map(|f| f.ty);
        let nf = self.scene.field_def(node, node_field).map(|f| f.ty);
        let known = !matches!(self.scene.node(node).class, NodeClass::Unknown);
        match (pf, nf) {
            (None, _) => self.diags.error(
                format!(
                    "IS names `{proto_field}`, which is not a field of prototype `{}`",
                    p.name
                ),
                Some(span),
            ),
            (_, None) if known => self.diags.error(
                format!(
                    "IS connects `{node_field}`, which is not a field of `{}`",
                    self.scene.node(node).type_name
                ),
                Some(span),
            ),
            (Some(a), Some(b)) if a != b => self.diags.error(
                format!(
                    "IS connects `{node_field}` ({b}) to `{proto_field}` ({a}): the types differ"
                ),
                Some(span),
            ),
            _ => self.scene.protos[proto].connections.push(IsConnection {
                node,
                node_field: node_field.to_string(),
                proto_field: proto_field.to_string(),
                span,
            }),
        }
    }

    fn resolve_routes(&mut self, scope: &Scope) -> Vec<Route> {
        let n = scope.routes.len();
        let mut out: Vec<Route> = Vec::with_capacity(n);
        // The routes kept between each pair of nodes whose fields' names
        // hash alike, chained through `out` by index (the last kept first):
        // the redundant are found without copying their fields' names, and
        // a route is compared with those of its fields only (by the pair
        // alone, 60 000 routes between two nodes took 11 s).
        let mut last: HashMap<(NodeId, NodeId, u64), usize> =
            HashMap::with_capacity_and_hasher(n, Default::default());
        let mut before: Vec<Option<usize>> = Vec::with_capacity(n);
        for r in &scope.routes {
            let [from_node, from_field, to_node, to_field] = r.parts();
            let [fn_span, ff_span, tn_span, tf_span] = &r.spans;
            let [from, to] = [(from_node, r.bound[0]), (to_node, r.bound[1])]
                .map(|(name, bound)| bound.or_else(|| scope.defs.get(name).copied()));
            for (name, found, span) in [(from_node, from, fn_span), (to_node, to, tn_span)] {
                if found.is_none() {
                    self.diags.warning(
                        format!(
                            "ROUTE names node `{name}`, which has no DEF: the ROUTE is dropped"
                        ),
                        Some(*span),
                    );
                }
            }
            let (Some(from), Some(to)) = (from, to) else {
                continue;
            };
            let out_ty = self.route_end(from, from_field, Dir::Out, *ff_span);
            let in_ty = self.route_end(to, to_field, Dir::In, *tf_span);
            let (Some((from_field_name, out_ty)), Some((to_field_name, in_ty))) = (out_ty, in_ty)
            else {
                continue;
            };
            if let (Some(a), Some(b)) = (out_ty, in_ty)
                && a != b
            {
                self.diags.warning(
                    format!(
                        "ROUTE from `{from_node}.{from_field}` ({a}) to `{to_node}.{to_field}` ({b}): the types differ: the ROUTE is dropped"
                    ),
                    Some(r.span),
                );
                continue;
            }
            let route = Route {
                from,
                from_field: from_field_name,
                to,
                to_field: to_field_name,
                ty: out_ty.or(in_ty),
                span: r.span,
            };
            // "Redundant routing is ignored" (VRML97, 4.10.2).
            let same = |kept: &Route| {
                kept.from_field == route.from_field && kept.to_field == route.to_field
            };
            let fields = std::hash::BuildHasher::hash_one(
                last.hasher(),
                (&route.from_field, &route.to_field),
            );
            let key = (from, to, fields);
            let mut at = last.get(&key).copied();
            while let Some(i) = at {
                if same(&out[i]) {
                    break;
                }
                at = before[i];
            }
            if at.is_none() {
                before.push(last.insert(key, out.len()));
                out.push(route);
            }
        }
        out
    }

    /// Checks one end of a route: the field exists and can be read (source)
    /// or written (destination). Returns its catalogue name and type (no type
    /// for nodes of unknown type, whose fields cannot be checked).
    #[allow(clippy::type_complexity)]
    fn route_end(
        &mut self,
        id: NodeId,
        field: &str,
        dir: Dir,
        span: Span,
    ) -> Option<(String, Option<super::FieldType>)> {
        let node = self.scene.node(id);
        // The fields of an unknown node type cannot be checked, nor the
        // events of a node type whose events the catalogue does not list.
        let unchecked = match node.class {
            NodeClass::Unknown => true,
            NodeClass::Known(def) => !def.events_listed,
            NodeClass::Proto(_) => false,
        };
        // (The node's name is made only for a warning.)
        let name = |scene: &Scene| scene.display_name(id);
        let Some(def) = self.scene.find_field(id, field, dir) else {
            if unchecked {
                return Some((field.to_string(), None));
            }
            self.diags.warning(
                format!(
                    "ROUTE names `{}.{field}`, but `{}` has no such field: the ROUTE is dropped",
                    name(&self.scene),
                    node.type_name
                ),
                Some(span),
            );
            return None;
        };
        let ok = match dir {
            Dir::Out => def.access.readable(),
            Dir::In => def.access.writable(),
        };
        if !ok {
            let verb = if dir == Dir::Out { "from" } else { "to" };
            self.diags.warning(
                format!(
                    "ROUTE {verb} `{}.{field}`, which is {}: the ROUTE is dropped",
                    name(&self.scene),
                    def.access.name()
                ),
                Some(span),
            );
            return None;
        }
        Some((def.name.clone(), Some(def.ty)))
    }

    /// Ends the build: resolves the scene's routes and returns the scene.
    pub fn finish(mut self) -> Scene {
        while self.scopes.len() > 1 {
            // A reader that stopped inside a prototype body (after an error).
            self.scopes.pop();
        }
        let scope = self.scopes.pop().expect("scene scope");
        let routes = self.resolve_routes(&scope);
        self.scene.routes = routes;
        self.scene.defs = scope.defs;
        self.scene
    }

    /// `IMPORT inline.exported AS local`: a stand-in node named `local`,
    /// replaced by the real one when the Inline's file is read.
    pub fn import(&mut self, inline: &str, exported: &str, local: &str, span: Span) {
        let id = self.push_node("IMPORT", NodeClass::Unknown, span);
        self.define(id, local, span);
        self.scene.imports.push(super::Import {
            placeholder: id,
            inline: inline.to_string(),
            exported: exported.to_string(),
            span,
        });
    }

    /// `EXPORT local AS name`.
    pub fn export(&mut self, local: &str, name: &str, span: Span) {
        if let Some(id) = self.lookup_use(local, span) {
            self.scene.exports.push((name.to_string(), id));
        }
    }
}
