//! The node tree: X3D grouping nodes, Transforms (with center and
//! scaleOrientation as exact node chains), Switch choices and visibility.

use super::{MAX_DEPTH, Visibility, Writer};
use crate::anim::check::{is_clock, is_event_utility, is_follower, is_interpolator};
use crate::hash::HashMap;
use crate::interp::rotation;
use crate::scene::{NodeClass, NodeId, NodeType, Scene};
use glam::{DQuat, DVec3};
use gltf_json as json;
use json::Index;

/// The glTF nodes made for the X3D node hierarchy.
#[derive(Default)]
pub(super) struct Tree {
    pub(super) transforms: HashMap<NodeId, Vec<TransformNodes>>,
    /// The top glTF node of each X3D node (Shapes, grouping nodes,
    /// Viewpoints, lights) at each place it stands.
    pub(super) placed: HashMap<NodeId, Vec<Index<json::Node>>>,
    /// The glTF cameras of each Viewpoint and lights of each light.
    pub(super) cameras: HashMap<NodeId, Vec<usize>>,
    pub(super) lights: HashMap<NodeId, Vec<usize>>,
    /// The choice nodes of each animated Switch, at each place it stands.
    pub(super) switches: HashMap<NodeId, Vec<Vec<Index<json::Node>>>>,
    /// With [`Visibility::Scale`], the nodes shown and hidden by their
    /// scale, with their own scale (the one they are shown at).
    pub(super) scaled: HashMap<usize, [f32; 3]>,
    /// Skinned mesh nodes, which stand at the scene's root.
    pub(super) skinned: Vec<Index<json::Node>>,
    /// Nodes found inside themselves (through USE), warned about once.
    pub(super) self_containing: crate::hash::HashSet<NodeId>,
    /// Switch and LOD nodes already warned about for the children they do
    /// not show.
    pub(super) not_shown: crate::hash::HashSet<NodeId>,
    /// Node types met in the tree that glTF cannot hold: how many nodes,
    /// and the first (where the warning points).
    pub(super) unwritten: std::collections::BTreeMap<NodeType, (usize, NodeId)>,
    /// Set when the glTF node limit or the buffer limit is reached (and
    /// reported): nothing more is visited.
    pub(super) full: bool,
}

/// The glTF nodes made for one place of an X3D Transform in the tree.
#[derive(Clone, Copy)]
pub(super) struct TransformNodes {
    /// Holds translation (plus center) and rotation, and scale when there is
    /// no scaleOrientation.
    pub(super) main: Index<json::Node>,
    /// Holds scale (the main node when there is no scaleOrientation).
    pub(super) scale: Index<json::Node>,
    /// The last of the chain: its matrix is the whole Transform's, and it
    /// holds the children.
    pub(super) inner: Index<json::Node>,
    pub(super) center: DVec3,
}

/// Grouping nodes whose children become glTF node children.
pub(super) fn children_field(ty: NodeType) -> Option<&'static [&'static str]> {
    use NodeType::*;
    Some(match ty {
        Group | StaticGroup | Collision | Anchor | Billboard | Transform => &["children"],
        CADLayer | CADAssembly | CADPart => &["children"],
        CADFace | CollidableShape => &["shape"],
        // The root nodes of its file (Scene::expansions).
        Inline => &[],
        // Its root level: rootNode, or its rootUrl's file's root nodes
        // (Scene::expansions) as an Inline's.
        GeoLOD => &["rootNode"],
        HAnimJoint | HAnimSite | HAnimSegment => &["children"],
        HAnimHumanoid => &["skeleton", "children"],
        // Castle's Skin: its skeleton drawn; its shapes are skinned meshes.
        Skin => &["skeleton"],
        Switch => &["children", "choice"],
        LOD => &["children", "level"],
        // Layers, drawn as groups in the order the LayerSet gives.
        LayerSet => &["layers"],
        _ => return None,
    })
}

/// Node types with Transform's fields (translation, rotation, scale,
/// center, scaleOrientation): written as Transforms.
pub(super) fn is_transform_like(ty: NodeType) -> bool {
    use NodeType::*;
    matches!(
        ty,
        Transform
            | HAnimHumanoid
            | HAnimJoint
            | HAnimSite
            | HAnimSegment
            | CADPart
            | CollidableShape
    )
}

pub(super) fn vec3(v: &[f32]) -> DVec3 {
    DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64)
}

pub(super) fn f32s(v: DVec3) -> [f32; 3] {
    v.as_vec3().to_array()
}

/// An SFRotation field as a unit quaternion.
pub(super) fn rotation_field(scene: &Scene, id: NodeId, field: &str) -> DQuat {
    rotation::from_sf_rotation(scene.floats(id, field))
}

pub(super) fn quat_f32(q: DQuat) -> json::scene::UnitQuaternion {
    json::scene::UnitQuaternion(q.normalize().as_quat().to_array())
}

/// A node's DEF name for its glTF objects, cut to
/// [`crate::scene::MAX_NAME_BYTES`] (each place a node is USE'd is a glTF
/// copy with its own name).
pub(super) fn gltf_name(scene: &Scene, id: NodeId) -> Option<String> {
    let def = scene.node(id).def.as_deref()?;
    Some(crate::scene::short_name(def).to_string())
}

pub(super) fn node(name: Option<String>) -> json::Node {
    json::Node {
        camera: None,
        children: None,
        extensions: None,
        extras: None,
        matrix: None,
        mesh: None,
        name,
        rotation: None,
        scale: None,
        translation: None,
        skin: None,
        weights: None,
    }
}

impl<'a> Writer<'a> {
    /// Reports why the visit stops, at a node, and stops it.
    pub(super) fn stop(&mut self, message: String, at: NodeId) {
        self.tree.full = true;
        self.diags.error(message, Some(self.scene.node(at).span));
    }

    /// Adds the glTF nodes of an X3D node (and its subtree) to `parent`.
    /// A USE'd node is visited at each place it stands: each place is a copy.
    pub(super) fn visit(
        &mut self,
        id: NodeId,
        parent: &mut Vec<Index<json::Node>>,
        ancestors: &mut Vec<NodeId>,
    ) {
        let scene = self.scene;
        if self.tree.full {
            return;
        }
        if self.root.nodes.len() >= self.opts.limits.gltf_nodes {
            self.stop(
                format!(
                    "the glTF scene would have more than {} nodes (each place a node is \
                     USE'd takes a copy): stopped at `{}`",
                    self.opts.limits.gltf_nodes,
                    scene.display_name(id)
                ),
                id,
            );
            return;
        }
        let ty = scene.node_type(id);
        match ty {
            Some(NodeType::Shape) => return self.shape(id, parent),
            Some(NodeType::Viewpoint | NodeType::OrthoViewpoint | NodeType::GeoViewpoint) => {
                return self.viewpoint(id, parent);
            }
            Some(t @ (NodeType::DirectionalLight | NodeType::PointLight | NodeType::SpotLight)) => {
                return self.light(id, t, parent);
            }
            Some(NodeType::WorldInfo) => return self.world_info(id),
            _ => {}
        }
        // A layer's own part of the window and its layout: no glTF
        // counterpart (its nodes are drawn in the whole view), named with
        // the node types that are not written.
        if matches!(ty, Some(NodeType::Layer | NodeType::LayoutLayer)) {
            for field in ["viewport", "layout"] {
                if let Some(part) = scene.child(id, field)
                    && let Some(t) = scene.node_type(part)
                {
                    self.tree.unwritten.entry(t).or_insert((0, part)).0 += 1;
                }
            }
        }
        let Some(fields) = self.children_fields(id) else {
            if let Some(t) = ty {
                self.tree.unwritten.entry(t).or_insert((0, id)).0 += 1;
            }
            return;
        };
        if ancestors.contains(&id) {
            // Once a node, not once a place it is copied to.
            if !self.tree.self_containing.insert(id) {
                return;
            }
            self.diags.warning(
                format!(
                    "`{}` contains itself (through USE): the inner copy is left out",
                    scene.display_name(id)
                ),
                Some(scene.node(id).span),
            );
            return;
        }
        if ancestors.len() >= MAX_DEPTH {
            self.diags.warning(
                format!("the node hierarchy is deeper than {MAX_DEPTH}: what is below is left out"),
                Some(scene.node(id).span),
            );
            return;
        }
        let name = gltf_name(scene, id);
        let (top, inner) = if ty.is_some_and(is_transform_like) {
            self.transform_nodes(id, name)
        } else if let Some(t @ (NodeType::GeoLocation | NodeType::GeoTransform)) = ty {
            self.geo_nodes(id, t, name)
        } else {
            let n = self.root.push(node(name));
            (n, n)
        };
        parent.push(top);
        self.place(id, top);
        let mut children = Vec::new();
        ancestors.push(id);
        if ty == Some(NodeType::Switch)
            && self
                .anim
                .animated
                .contains(&(id, "whichChoice".to_string()))
        {
            self.switch_choices(id, &fields, &mut children, ancestors);
        } else {
            if ty == Some(NodeType::GeoLOD) {
                self.warn_geo_lod(id);
            }
            let all = self.all_children(id, &fields);
            let total = all.len();
            let chosen = self.chosen_children(id, all);
            if chosen.len() < total {
                self.warn_not_shown(id, total - chosen.len());
            }
            for &child in &chosen {
                self.visit(child, &mut children, ancestors);
            }
        }
        ancestors.pop();
        // A node with nothing under it that nothing names, animates or
        // skins is left out (a Switch showing none of its choices, an
        // Inline whose file was not read): glTF's NODE_EMPTY.
        let skins = matches!(ty, Some(NodeType::HAnimHumanoid | NodeType::Skin));
        let needed = !children.is_empty()
            || skins
            || top != inner
            || self.root.nodes[top.value()].name.is_some()
            || self.root.nodes[top.value()].extensions.is_some()
            || self.anim.clips_of.contains_key(&id);
        if !needed && top.value() + 1 == self.root.nodes.len() {
            self.root.nodes.pop();
            parent.pop();
            if let Some(places) = self.tree.placed.get_mut(&id) {
                places.pop();
            }
            return;
        }
        if !children.is_empty() {
            self.root.nodes[inner.value()].children = Some(children);
        }
        if ty == Some(NodeType::HAnimHumanoid) {
            self.humanoid_skin(id, inner);
        }
        if ty == Some(NodeType::Skin) {
            self.castle_skin(id, inner);
        }
    }

    /// A WorldInfo: its title and info as the glTF asset's extras
    /// (`{"title": …, "info": […]}`, what is given). Only the first met
    /// that gives any is written; a later one is named in a warning.
    pub(super) fn world_info(&mut self, id: NodeId) {
        let scene = self.scene;
        let strings = |field| scene.value(id, field).map_or(&[][..], |v| v.strings());
        let (title, info) = (strings("title"), strings("info"));
        let title = title.first().filter(|t| !t.is_empty());
        if title.is_none() && info.is_empty() {
            return;
        }
        if self.root.asset.extras.is_some() {
            self.diags.warning(
                format!(
                    "`{}` (WorldInfo): only the scene's first WorldInfo is written (as the \
                     asset's extras); this one is not",
                    scene.display_name(id)
                ),
                Some(scene.node(id).span),
            );
            return;
        }
        let mut extras = serde_json::Map::new();
        if let Some(title) = title {
            extras.insert("title".into(), title.as_str().into());
        }
        if !info.is_empty() {
            extras.insert("info".into(), info.into());
        }
        self.root.asset.extras = serde_json::value::to_raw_value(&extras).ok();
    }

    /// Every choice of an animated Switch, each under a node of its own
    /// whose KHR_node_visibility shows it when it is the file's choice.
    pub(super) fn switch_choices(
        &mut self,
        id: NodeId,
        fields: &[&str],
        children: &mut Vec<Index<json::Node>>,
        ancestors: &mut Vec<NodeId>,
    ) {
        let scene = self.scene;
        let which = scene.number(id, "whichChoice");
        let name = gltf_name(scene, id);
        let mut wrappers = Vec::new();
        for (i, child) in self.all_children(id, fields).into_iter().enumerate() {
            let wrapper = node(name.as_ref().map(|n| format!("{n}_choice{i}")));
            let index = self.root.push(wrapper);
            self.set_visibility(index, which == i as f64);
            let mut inner = Vec::new();
            self.visit(child, &mut inner, ancestors);
            if !inner.is_empty() {
                self.root.nodes[index.value()].children = Some(inner);
            }
            children.push(index);
            wrappers.push(index);
        }
        self.tree.switches.entry(id).or_default().push(wrappers);
    }

    /// Records the glTF node an X3D node became at one of its places; one
    /// whose `visible` is animated gets its KHR_node_visibility.
    pub(super) fn place(&mut self, id: NodeId, node: Index<json::Node>) {
        self.tree.placed.entry(id).or_default().push(node);
        if self.anim.animated.contains(&(id, "visible".to_string())) {
            let visible = self.scene.flag(id, "visible");
            // A node whose own scale moves cannot show it by its scale.
            if self.opts.visibility == Visibility::Scale
                && self.anim.animated.contains(&(id, "scale".to_string()))
            {
                self.diags.warning(
                    format!(
                        "`{}.visible`: its scale is animated too, so --visibility scale cannot \
                         show it: written as KHR_node_visibility",
                        self.scene.display_name(id)
                    ),
                    Some(self.scene.node(id).span),
                );
                return self.extension_visibility(node, visible);
            }
            self.set_visibility(node, visible);
        }
    }

    /// Shows or hides a node at rest, as the options say: its
    /// KHR_node_visibility, or its scale (zero when hidden).
    pub(super) fn set_visibility(&mut self, node: Index<json::Node>, visible: bool) {
        if self.opts.visibility == Visibility::Extension {
            return self.extension_visibility(node, visible);
        }
        let n = &mut self.root.nodes[node.value()];
        let own = n.scale.unwrap_or([1.0; 3]);
        self.tree.scaled.insert(node.value(), own);
        if !visible {
            n.scale = Some([0.0; 3]);
        }
    }

    /// Gives a node its KHR_node_visibility.
    fn extension_visibility(&mut self, node: Index<json::Node>, visible: bool) {
        let ext = self.root.nodes[node.value()]
            .extensions
            .get_or_insert_default();
        let value = serde_json::json!({ "visible": visible });
        ext.others.insert("KHR_node_visibility".to_string(), value);
        self.extensions.push("KHR_node_visibility");
    }

    /// One warning for each node type met in the tree that glTF cannot
    /// hold, at its first node, with how many there are. The Interpolation
    /// component's nodes, the clocks, Scripts and followers are left out:
    /// their work is in the animations, and what of it is not is named
    /// with the routes it leaves unbaked.
    pub(super) fn warn_unwritten(&mut self) {
        for (&ty, &(count, first)) in &self.tree.unwritten {
            let name = ty.name();
            let baked = is_interpolator(name)
                || is_clock(name)
                || ty == NodeType::Link
                || ty == NodeType::Script
                || is_follower(name)
                // Draws nothing itself: its surfaces are drawn (at its
                // tessellationScale) by the Shapes that use them.
                || ty == NodeType::NurbsSet
                // In the behaviour graph.
                || self.opts.interactive && (ty == NodeType::TouchSensor || is_event_utility(ty));
            if baked {
                continue;
            }
            let nodes = if count == 1 {
                "1 node".to_string()
            } else {
                format!("{count} nodes")
            };
            self.diags.warning(
                format!("`{name}` has no glTF counterpart: {nodes} of this type not written"),
                Some(self.scene.node(first).span),
            );
        }
    }

    /// The fields whose nodes are written as a node's glTF children: those
    /// of a grouping node, or of any X3D node type with a `children` field;
    /// an expanded prototype instance holds its body (no field); a node of
    /// a type x3dbake does not know holds every node given to it, so that
    /// nothing under it is lost. `None` for a node that is not a group.
    pub(super) fn children_fields(&self, id: NodeId) -> Option<Vec<&'a str>> {
        let scene = self.scene;
        match scene.node(id).class {
            NodeClass::Known(def) => children_field(def.ty)
                .map(<[&str]>::to_vec)
                .or_else(|| def.field("children").map(|_| vec!["children"])),
            NodeClass::Proto(_) => scene.expansions.contains_key(&id).then(Vec::new),
            NodeClass::Unknown => {
                let fields: Vec<&str> = scene
                    .node(id)
                    .values
                    .iter()
                    .filter(|f| f.name != "metadata" && !f.value.nodes().is_empty())
                    .map(|f| f.name.as_str())
                    .collect();
                (!fields.is_empty()).then_some(fields)
            }
        }
    }

    /// The nodes in a node's children fields (an Inline's: the root nodes
    /// of its file).
    pub(super) fn all_children(&self, id: NodeId, fields: &[&str]) -> Vec<NodeId> {
        if let Some(roots) = self.scene.expansions.get(&id) {
            return match self.scene.node(id).class {
                // An instance is its body's first node.
                NodeClass::Proto(_) => roots.iter().take(1).copied().collect(),
                _ => roots.clone(),
            };
        }
        fields
            .iter()
            .filter_map(|f| self.scene.value(id, f))
            .flat_map(|v| v.nodes().to_vec())
            .collect()
    }

    /// One warning for each Switch and LOD whose children are not all
    /// written: a Switch whose whichChoice is not animated shows its choice
    /// alone, a LOD its first level.
    fn warn_not_shown(&mut self, id: NodeId, hidden: usize) {
        if !self.tree.not_shown.insert(id) {
            return;
        }
        let scene = self.scene;
        let name = scene.display_name(id);
        let s = if hidden == 1 { "" } else { "s" };
        let message = if scene.node_type(id) == Some(NodeType::LayerSet) {
            format!(
                "`{name}` (LayerSet) draws the layers its order lists: {hidden} other layer{s} \
                 not written"
            )
        } else if scene.node_type(id) == Some(NodeType::LOD) {
            format!(
                "`{name}` (LOD) is written at its first level: {hidden} other level{s} not written"
            )
        } else {
            format!(
                "`{name}` (Switch) shows its whichChoice alone (not animated): {hidden} other \
                 choice{s} not written"
            )
        };
        self.diags.warning(message, Some(scene.node(id).span));
    }

    /// The children shown of those a node holds (`all`): all of them, the
    /// chosen one of a Switch, the first level of a LOD.
    pub(super) fn chosen_children(&self, id: NodeId, all: Vec<NodeId>) -> Vec<NodeId> {
        let scene = self.scene;
        match scene.node_type(id) {
            Some(NodeType::Switch) => {
                let which = scene
                    .value(id, "whichChoice")
                    .map_or(-1, |v| v.as_f64() as i64);
                usize::try_from(which)
                    .ok()
                    .and_then(|i| all.get(i))
                    .copied()
                    .into_iter()
                    .collect()
            }
            Some(NodeType::LOD) => all.into_iter().take(1).collect(),
            // `order` lists the layers drawn, first to last: 0 is the
            // scene's own root nodes (written as the scene), k the k-th
            // layer (19775-1, 35.4.2).
            Some(NodeType::LayerSet) => {
                let mut chosen = Vec::new();
                for &k in scene.ints(id, "order") {
                    let layer = usize::try_from(k)
                        .ok()
                        .and_then(|k| k.checked_sub(1))
                        .and_then(|i| all.get(i));
                    if let Some(&layer) = layer
                        && !chosen.contains(&layer)
                    {
                        chosen.push(layer);
                    }
                }
                chosen
            }
            _ => all,
        }
    }

    /// The chain of glTF nodes that multiplies out to the X3D Transform
    /// matrix T·C·R·SR·S·SR⁻¹·C⁻¹. Returns the top node and the one that
    /// holds the children.
    pub(super) fn transform_nodes(
        &mut self,
        id: NodeId,
        name: Option<String>,
    ) -> (Index<json::Node>, Index<json::Node>) {
        let scene = self.scene;
        // (A node type with only some of Transform's fields, as a
        // CollidableShape's translation and rotation: the others at their
        // defaults.)
        let field = |f: &str, default: [f32; 3]| {
            let v = scene.floats(id, f);
            if v.len() >= 3 {
                v.to_vec()
            } else {
                default.to_vec()
            }
        };
        let t = vec3(&field("translation", [0.0; 3]));
        let c = vec3(&field("center", [0.0; 3]));
        let s = vec3(&field("scale", [1.0; 3]));
        let r = rotation_field(scene, id, "rotation");
        let sr = rotation_field(scene, id, "scaleOrientation");
        let has_sr = !rotation::same_rotation(sr, DQuat::IDENTITY, 1e-15);
        let mut main = node(name.clone());
        main.translation = Some(f32s(t + c)).filter(|v| *v != [0.0; 3]);
        main.rotation = Some(quat_f32(r)).filter(|q| q.0 != [0.0, 0.0, 0.0, 1.0]);
        let part = |suffix: &str| name.as_ref().map(|n| format!("{n}{suffix}"));
        let (top, scale_node, inner);
        if has_sr {
            top = self.root.push(main);
            let mut scaled = node(part("_scaleOrientation"));
            scaled.rotation = Some(quat_f32(sr));
            scaled.scale = Some(f32s(s));
            scale_node = self.root.push(scaled);
            let mut undo = node(part("_center"));
            let inv = sr.inverse();
            undo.rotation = Some(quat_f32(inv));
            undo.translation = Some(f32s(-(inv * c))).filter(|v| *v != [0.0; 3]);
            inner = self.root.push(undo);
            self.root.nodes[top.value()].children = Some(vec![scale_node]);
            self.root.nodes[scale_node.value()].children = Some(vec![inner]);
        } else {
            main.scale = Some(f32s(s)).filter(|v| *v != [1.0; 3]);
            top = self.root.push(main);
            scale_node = top;
            if c != DVec3::ZERO {
                let mut undo = node(part("_center"));
                undo.translation = Some(f32s(-c));
                inner = self.root.push(undo);
                self.root.nodes[top.value()].children = Some(vec![inner]);
            } else {
                inner = top;
            }
        }
        self.tree
            .transforms
            .entry(id)
            .or_default()
            .push(TransformNodes {
                main: top,
                scale: scale_node,
                inner,
                center: c,
            });
        (top, inner)
    }
}
