//! Nodes Scripts make (`Browser.createX3DFromString`,
//! `createVrmlFromString`, `new SFNode(text)`): parsed from their text as
//! a scene of their own, then numbered after the scene's nodes, in the
//! order made, so that once the load's events are played the scene can
//! take them in and the node numbers Scripts sent stay right.

use super::convert::node_info;
use crate::diag::{Diagnostics, Severity};
use crate::limits::Limits;
use crate::scene::value::Data;
use crate::scene::{FieldDef, Node, NodeClass, NodeId, Scene, Value};
use crate::source::{Sources, Span};
use crate::syntax::Encoding;
use serde_json::{Map, json};

/// The nodes made so far.
#[derive(Debug, Default)]
pub struct Created {
    /// The number of the first node made: the scene's node count.
    base: u32,
    /// The nodes, numbered from `base`, their node values renumbered.
    nodes: Vec<Node>,
    /// Their prototype instances' expansions, renumbered.
    expansions: Vec<(NodeId, Vec<NodeId>)>,
}

impl Created {
    /// None made yet, for `scene`.
    pub fn new(scene: &Scene) -> Created {
        Created {
            base: scene.nodes.len() as u32,
            nodes: Vec::new(),
            expansions: Vec::new(),
        }
    }

    /// Makes the nodes of X3D text (`vrml`: ClassicVRML; else XML, JSON or
    /// ClassicVRML as its first characters tell), standing at `span` (the
    /// Script's): the JSON a Script's context takes them from (`roots`,
    /// their numbers; `nodes`, what it knows of each), or why not.
    pub fn make(&mut self, text: &str, vrml: bool, span: Span) -> Result<String, String> {
        let head = text.trim_start();
        let encoding = match head.chars().next() {
            Some('<') if !vrml => Encoding::Xml,
            Some('{') if !vrml => Encoding::Json,
            _ => Encoding::Vrml,
        };
        let mut sources = Sources::new();
        let file = sources.add("string", text.to_string());
        let mut diags = Diagnostics::default();
        let limits = Limits::default();
        let made = crate::load::load_as(&mut sources, file, encoding, None, &limits, &mut diags);
        if let Some(e) = diags.list().iter().find(|d| d.severity == Severity::Error) {
            return Err(format!("the text is not X3D: {}", e.message));
        }
        if !made.protos.is_empty() {
            return Err("x3dbake does not take prototypes declared in a Script's text".into());
        }
        let offset = self.base + self.nodes.len() as u32;
        let mut infos = Map::new();
        for i in 0..made.nodes.len() as u32 {
            infos.insert(
                (i + offset).to_string(),
                node_info(&made, NodeId(i), offset),
            );
        }
        let shift = |n: &NodeId| NodeId(n.0 + offset);
        let roots: Vec<u32> = made.roots.iter().map(|n| n.0 + offset).collect();
        for (k, v) in &made.expansions {
            self.expansions
                .push((shift(k), v.iter().map(shift).collect()));
        }
        for mut node in made.nodes {
            node.span = span;
            for set in node.values.iter_mut() {
                set.span = span;
                if let Data::Nodes(ids) = &mut set.value.data {
                    ids.iter_mut().for_each(|n| n.0 += offset);
                }
            }
            self.nodes.push(node);
        }
        Ok(json!({ "roots": roots, "nodes": infos }).to_string())
    }

    /// A node made here.
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.0.checked_sub(self.base)? as usize)
    }

    /// Names a node made here (`Browser.currentScene.addNamedNode`):
    /// whether it is one.
    pub fn name(&mut self, id: NodeId, name: String) -> bool {
        let Some(at) = id.0.checked_sub(self.base) else {
            return false;
        };
        match self.nodes.get_mut(at as usize) {
            Some(node) => {
                node.def = Some(name);
                true
            }
            None => false,
        }
    }

    /// The value of a field of a node made here: as set, else its default.
    pub fn value(&self, id: NodeId, name: &str) -> Option<&Value> {
        match self.node(id)?.values.get(name) {
            Some(set) => Some(&set.value),
            None => self.field_def(id, name).map(|f| &f.default),
        }
    }

    /// The declared field of a name of a node made here (`None`: not a
    /// node made here, or no such field of its type).
    pub fn field_def(&self, id: NodeId, name: &str) -> Option<&'static FieldDef> {
        match self.node(id)?.class {
            NodeClass::Known(def) => def.fields.iter().find(|f| f.name == name),
            _ => None,
        }
    }

    /// The scene takes the nodes in (they are not drawn until a field of
    /// the scene holds them). Nothing happens when the scene has changed
    /// size since: the numbers would not hold.
    pub fn graft(self, scene: &mut Scene) {
        if scene.nodes.len() as u32 != self.base {
            return;
        }
        scene.nodes.extend(self.nodes);
        scene.expansions.extend(self.expansions);
    }
}
