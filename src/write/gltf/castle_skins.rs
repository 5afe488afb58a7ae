//! Castle Game Engine's `Skin` node as a glTF skin (docs/interpretations.md,
//! "Skins"): what Castle's glTF importer writes of a glTF skin, written
//! back. The skeleton (its `skeleton` field) is drawn once, under the Skin;
//! the joints are the glTF nodes of the Transforms its `joints` lists (the
//! same nodes when listed by USE: no copies), in that order, with the
//! inverse bind matrices it gives (X3D's by rows with the translation in
//! the last row, which is glTF's column-major order); each of its `shapes`
//! is a skinned mesh at the scene's root whose JOINTS_0 and WEIGHTS_0 are
//! the geometry's skinJoints0 and skinWeights0 (per point), the weights
//! scaled to sum 1.

use super::Writer;
use super::nodes::gltf_name;
use super::skins::Influence;
use crate::scene::{NodeId, NodeType};
use gltf_json as json;
use json::{Index, accessor};

impl Writer<'_> {
    /// The glTF skin of a Castle `Skin` drawn at the glTF node `home`, and
    /// its skinned shapes.
    pub(super) fn castle_skin(&mut self, id: NodeId, home: Index<json::Node>) {
        let scene = self.scene;
        let listed = scene.nodes_in(id, "joints");
        if listed.is_empty() {
            return;
        }
        let mut joints = Vec::with_capacity(listed.len());
        let mut unplaced = Vec::new();
        for &joint in listed {
            match self.tree.transforms.get(&joint).and_then(|v| v.first()) {
                Some(placed) => joints.push(placed.inner),
                None => {
                    // Kept in its place, so that the joint numbers hold.
                    joints.push(home);
                    unplaced.push(scene.display_name(joint));
                }
            }
        }
        if !unplaced.is_empty() {
            self.diags.warning(
                format!(
                    "Skin `{}`: joints not in its skeleton ({}) are bound to the Skin itself",
                    scene.display_name(id),
                    unplaced.join(", ")
                ),
                Some(scene.node(id).span),
            );
        }
        let mut binds = scene.floats(id, "inverseBindMatrices").to_vec();
        if binds.len() != joints.len() * 16 {
            self.diags.warning(
                format!(
                    "Skin `{}`: {} inverseBindMatrices for {} joints: the missing ones are the identity, extra ones left out",
                    scene.display_name(id),
                    binds.len() / 16,
                    joints.len()
                ),
                scene.value_span(id, "inverseBindMatrices"),
            );
            binds.truncate(joints.len() * 16);
            while binds.len() < joints.len() * 16 {
                binds.extend(glam::Mat4::IDENTITY.to_cols_array());
            }
        }
        let ibm = self.accessor(&binds, accessor::Type::Mat4, false);
        let skin = self.root.push(json::Skin {
            extensions: None,
            extras: None,
            inverse_bind_matrices: Some(ibm),
            joints,
            name: gltf_name(scene, id),
            skeleton: Some(home),
        });
        let count = listed.len();
        let mut statics = Vec::new();
        for &shape in scene.nodes_in(id, "shapes") {
            let geometry = scene
                .child(shape, "geometry")
                .filter(|&g| !scene.floats(g, "skinJoints0").is_empty());
            match geometry {
                Some(g) if scene.node_type(shape) == Some(NodeType::Shape) => {
                    let influences = self.castle_influences(g, count);
                    self.skinned_shape(shape, skin, &influences, &[]);
                }
                _ => statics.push(shape),
            }
        }
        self.visit_under(id, home, statics);
    }

    /// Each point's joints and weights from a geometry's skinJoints0 and
    /// skinWeights0: weights scaled to sum 1; a point with no weight, or a
    /// joint number past the `count` joints, bound to joint 0 (named).
    fn castle_influences(&mut self, geometry: NodeId, count: usize) -> Vec<Influence> {
        let scene = self.scene;
        let (js, ws) = (
            scene.floats(geometry, "skinJoints0"),
            scene.floats(geometry, "skinWeights0"),
        );
        let mut bad = 0;
        let out = js
            .chunks_exact(4)
            .enumerate()
            .map(|(i, j)| {
                let w = ws.get(4 * i..4 * i + 4).unwrap_or(&[0.0; 4]);
                let sum: f32 = w.iter().filter(|&&x| x > 0.0).sum();
                let fits = j.iter().all(|&x| x >= 0.0 && (x as usize) < count);
                if sum <= 0.0 || !fits {
                    bad += 1;
                    return ([0; 4], [1.0, 0.0, 0.0, 0.0]);
                }
                (
                    [j[0] as u16, j[1] as u16, j[2] as u16, j[3] as u16],
                    [0, 1, 2, 3].map(|k| w[k].max(0.0) / sum),
                )
            })
            .collect();
        if bad > 0 {
            self.diags.warning(
                format!(
                    "`{}`: {bad} points have no skin weight or name a joint the Skin does not list: bound to its first joint",
                    scene.display_name(geometry)
                ),
                Some(scene.node(geometry).span),
            );
        }
        out
    }
}
