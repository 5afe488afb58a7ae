//! The Geospatial component's grouping nodes and viewpoint as glTF nodes:
//! GeoLocation, GeoTransform, GeoViewpoint (their frames: [`crate::geo`]).

use super::Writer;
use super::nodes::{f32s, node, quat_f32};
use crate::geo::{Frame, doubles3};
use crate::scene::{NodeId, NodeType};
use glam::{DAffine3, DQuat, DVec3};
use gltf_json as json;
use json::Index;

/// A rigid frame (a location: a turn and a translation) as a glTF node's
/// translation and rotation.
fn placed(name: Option<String>, frame: DAffine3) -> json::Node {
    let (t, r) = rigid(frame);
    let mut n = node(name);
    n.translation = Some(f32s(t)).filter(|v| *v != [0.0; 3]);
    n.rotation = Some(quat_f32(r)).filter(|q| q.0 != [0.0, 0.0, 0.0, 1.0]);
    n
}

/// A location's translation and turn.
fn rigid(frame: DAffine3) -> (DVec3, DQuat) {
    (frame.translation, DQuat::from_mat3(&frame.matrix3))
}

/// Where a GeoViewpoint stands and how it is turned: its position in the
/// scene's frame, its orientation relative to the frame there (+Y up).
pub(super) fn geo_view(scene: &crate::scene::Scene, id: NodeId) -> (DVec3, DQuat) {
    let (t, r) = rigid(crate::geo::view_location(scene, id));
    let o = super::nodes::rotation_field(scene, id, "orientation");
    (t, r * o)
}

impl Writer<'_> {
    /// The glTF nodes of a GeoLocation (one, at geoCoords, +Y up there) or
    /// a GeoTransform (its Transform fields in the frame at geoCenter: the
    /// location L, the Transform's chain, L⁻¹). Returns the top node and
    /// the one that holds the children.
    pub(super) fn geo_nodes(
        &mut self,
        id: NodeId,
        ty: NodeType,
        name: Option<String>,
    ) -> (Index<json::Node>, Index<json::Node>) {
        let scene = self.scene;
        let frame = Frame::of(scene, id);
        if ty == NodeType::GeoLocation {
            let at = frame.location(doubles3(scene, id, "geoCoords"));
            let n = self.root.push(placed(name, at));
            return (n, n);
        }
        let at = frame.location(doubles3(scene, id, "geoCenter"));
        let part = |suffix: &str| name.as_ref().map(|n| format!("{n}{suffix}"));
        let top = self.root.push(placed(part("_geoCenter"), at));
        let (chain, inner) = self.transform_nodes(id, name.clone());
        let back = self
            .root
            .push(placed(part("_geoCenterInverse"), at.inverse()));
        self.root.nodes[top.value()].children = Some(vec![chain]);
        self.root.nodes[inner.value()].children = Some(vec![back]);
        (top, back)
    }

    /// One warning for each GeoLOD: it is written at its root level (what
    /// a viewer far from it sees, rootNode or its rootUrl's file); the
    /// files a viewer within `range` of its `center` would see instead
    /// (child1Url..child4Url) and the switching are not written.
    pub(super) fn warn_geo_lod(&mut self, id: NodeId) {
        if !self.tree.not_shown.insert(id) {
            return;
        }
        let scene = self.scene;
        let children: Vec<String> = ["child1Url", "child2Url", "child3Url", "child4Url"]
            .into_iter()
            .filter_map(|f| {
                let urls = scene.value(id, f)?.strings();
                let first = urls.first()?;
                Some(format!("{f} `{first}`"))
            })
            .collect();
        let children = if children.is_empty() {
            "no child files".to_string()
        } else {
            children.join(", ")
        };
        let range = scene.floats(id, "range").first().copied().unwrap_or(10.0);
        let message = format!(
            "`{}` (GeoLOD) is written at its root level, as a viewer farther than its range ({range} \
             m) from its center sees it: the level within range ({children}) and the switching \
             are not written",
            scene.display_name(id)
        );
        self.diags.warning(message, Some(scene.node(id).span));
    }
}
