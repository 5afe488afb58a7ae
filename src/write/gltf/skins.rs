//! H-Anim humanoids as glTF skins (docs/interpretations.md, "Skins").
//!
//! A humanoid's skin Shapes whose geometry is drawn from its `skinCoord`
//! become skinned meshes. Each skin point moves as H-Anim (and X_ITE)
//! skins it, in the humanoid's coordinate system H:
//! p' = p + Σⱼ wⱼ·(Jⱼ·Bⱼ·p − p), Jⱼ the joint's transform from H, Bⱼ its
//! binding matrix (jointBindingPositions, jointBindingRotations,
//! jointBindingScales of the humanoid, in its `joints` order; none: the
//! identity). As a glTF skin: the joints are the glTF nodes of the joints
//! (the node holding each joint's whole transform), their inverse bind
//! matrices the Bⱼ, and one joint more, the humanoid's own node with the
//! identity, takes the weight 1 − Σⱼ wⱼ a point keeps in H. A point with
//! more than four influences keeps the four largest, renormalised; one
//! whose weights sum past 1 is scaled to 1; both are named in a warning.
//! The skinned mesh nodes stand at the scene's root, where glTF wants them
//! (their own transform would be ignored).

use super::Writer;
use super::nodes::{gltf_name, node};
use super::targets::Target;
use crate::anim::clip::Track;
use crate::interp::rotation::from_sf_rotation;
use crate::scene::{NodeId, NodeType};
use glam::{Mat4, Quat, Vec3};
use gltf_json as json;
use json::{Index, accessor, buffer};

/// Influences glTF keeps for a vertex (JOINTS_0, WEIGHTS_0).
const INFLUENCES: usize = 4;

/// A skin point's joints and weights, as JOINTS_0 and WEIGHTS_0 hold them.
pub(super) type Influence = ([u16; 4], [f32; 4]);

/// An HAnimDisplacer's morph target: the skinned mesh nodes that hold it,
/// its index among their targets, and every target's own weight.
#[derive(Clone)]
pub(super) struct Displaced {
    nodes: Vec<Index<json::Node>>,
    index: usize,
    weights: Vec<f32>,
}

/// What was changed in a skin's weights, for one warning each.
#[derive(Default)]
struct Changes {
    /// Points with more than four influences, and the largest weight
    /// dropped.
    over_four: usize,
    largest_dropped: f32,
    /// Points whose weights sum past 1.
    over_one: usize,
    /// skinCoordIndex entries naming no point, and negative weights.
    bad: usize,
}

impl Writer<'_> {
    /// The skin of a humanoid whose coordinate system is the glTF node
    /// `home`: its skin Shapes drawn from `skinCoord` become skinned meshes
    /// at the scene's root; its other skin nodes are written under `home`.
    pub(super) fn humanoid_skin(&mut self, id: NodeId, home: Index<json::Node>) {
        let scene = self.scene;
        let skin = scene.nodes_in(id, "skin");
        if skin.is_empty() {
            return;
        }
        let coord = scene.child(id, "skinCoord");
        for field in ["skinBindingCoords", "skinBindingNormals", "skinNormal"] {
            if scene.child(id, field).is_some() {
                self.diags.warning(
                    format!(
                        "`{}`: its {field} is not used (the skin binds at skinCoord, its normals come from its geometry, as X_ITE draws it)",
                        scene.display_name(id)
                    ),
                    scene.value_span(id, field),
                );
            }
        }
        let mut statics = Vec::new();
        let mut skinned = Vec::new();
        for &node in skin {
            self.skin_shapes(node, coord, &mut skinned, &mut statics);
        }
        self.visit_under(id, home, statics);
        let Some(coord) = coord.filter(|_| !skinned.is_empty()) else {
            return;
        };
        let points = scene.floats(coord, "point").len() / 3;
        let Some((skin_index, influences)) = self.skin_of(id, home, points) else {
            return;
        };
        let displacers = self.displacers_of(id, points);
        let mut nodes = Vec::new();
        for shape in skinned {
            nodes.extend(self.skinned_shape(shape, skin_index, &influences, &displacers));
        }
        let weights: Vec<f32> = displacers.iter().map(|d| d.1).collect();
        for (index, (displacer, _, _)) in displacers.into_iter().enumerate() {
            let d = Displaced {
                nodes: nodes.clone(),
                index,
                weights: weights.clone(),
            };
            self.geo.displacers.insert(displacer, d);
        }
    }

    /// A skin's nodes that are not skinned meshes (of a humanoid `id`, or a
    /// Castle Skin), written under its glTF node `home`.
    pub(super) fn visit_under(&mut self, id: NodeId, home: Index<json::Node>, nodes: Vec<NodeId>) {
        if nodes.is_empty() {
            return;
        }
        let mut ancestors = vec![id];
        let mut children = self.root.nodes[home.value()]
            .children
            .take()
            .unwrap_or_default();
        for n in nodes {
            self.visit(n, &mut children, &mut ancestors);
        }
        self.root.nodes[home.value()].children = Some(children);
    }

    /// The humanoid's HAnimDisplacers on its joints (skin points moved by
    /// a weight): each with its weight and every skin point's displacement.
    fn displacers_of(&mut self, id: NodeId, points: usize) -> Vec<(NodeId, f32, Vec<Vec3>)> {
        let scene = self.scene;
        let mut out = Vec::new();
        for &joint in scene.nodes_in(id, "joints") {
            for &d in scene.nodes_in(joint, "displacers") {
                let mut moved = vec![Vec3::ZERO; points];
                let by = scene.floats(d, "displacements");
                let mut bad = 0;
                for (i, &p) in scene.ints(d, "coordIndex").iter().enumerate() {
                    match (
                        usize::try_from(p).ok().filter(|&p| p < points),
                        by.get(3 * i..3 * i + 3),
                    ) {
                        (Some(p), Some(v)) => moved[p] += Vec3::from_slice(v),
                        _ => bad += 1,
                    }
                }
                if bad > 0 {
                    self.diags.warning(
                        format!(
                            "HAnimDisplacer `{}`: {bad} coordIndex entries name no skin point or have no displacement: left out",
                            scene.display_name(d)
                        ),
                        Some(scene.node(d).span),
                    );
                }
                out.push((d, scene.number(d, "weight") as f32, moved));
            }
        }
        out
    }

    /// The Shapes of a skin node (under Groups) drawn from `coord`; other
    /// nodes go to `statics`.
    fn skin_shapes(
        &self,
        node: NodeId,
        coord: Option<NodeId>,
        skinned: &mut Vec<NodeId>,
        statics: &mut Vec<NodeId>,
    ) {
        let scene = self.scene;
        match scene.node_type(node) {
            Some(NodeType::Group | NodeType::StaticGroup) => {
                for &child in scene.nodes_in(node, "children") {
                    self.skin_shapes(child, coord, skinned, statics);
                }
            }
            Some(NodeType::Shape)
                if coord.is_some()
                    && scene
                        .child(node, "geometry")
                        .and_then(|g| scene.child(g, "coord"))
                        == coord =>
            {
                skinned.push(node)
            }
            _ => statics.push(node),
        }
    }

    /// The glTF skin of a humanoid placed at `home` and each skin point's
    /// joints and weights (`None` when it has no joints placed).
    fn skin_of(
        &mut self,
        id: NodeId,
        home: Index<json::Node>,
        points: usize,
    ) -> Option<(Index<json::Skin>, Vec<Influence>)> {
        let scene = self.scene;
        let listed = scene.nodes_in(id, "joints");
        let (positions, rotations, scales) = (
            scene.floats(id, "jointBindingPositions"),
            scene.floats(id, "jointBindingRotations"),
            scene.floats(id, "jointBindingScales"),
        );
        // Joint 0 is the humanoid's own node (what a point keeps in H).
        let mut nodes = vec![home];
        let mut binds: Vec<f32> = Mat4::IDENTITY.to_cols_array().to_vec();
        let mut influences: Vec<Vec<(u16, f32)>> = vec![Vec::new(); points];
        let mut changes = Changes::default();
        for (i, &joint) in listed.iter().enumerate() {
            let Some(placed) = self.tree.transforms.get(&joint).and_then(|v| v.last()) else {
                self.diags.warning(
                    format!(
                        "HAnimJoint `{}` is in the joints of `{}` but not in its skeleton: its skin weights are left out",
                        scene.display_name(joint),
                        scene.display_name(id)
                    ),
                    Some(scene.node(joint).span),
                );
                continue;
            };
            let k = nodes.len() as u16;
            nodes.push(placed.inner);
            let t = nth(positions, i, 3).map_or(Vec3::ZERO, Vec3::from_slice);
            let r = nth(rotations, i, 4).map_or(Quat::IDENTITY, |v| from_sf_rotation(v).as_quat());
            let s = nth(scales, i, 3).map_or(Vec3::ONE, Vec3::from_slice);
            binds.extend(Mat4::from_scale_rotation_translation(s, r, t).to_cols_array());
            let weights = scene.floats(joint, "skinCoordWeight");
            for (m, &index) in scene.ints(joint, "skinCoordIndex").iter().enumerate() {
                let w = weights.get(m).copied().unwrap_or(1.0);
                match usize::try_from(index).ok().filter(|&p| p < points) {
                    Some(p) if w > 0.0 => influences[p].push((k, w)),
                    Some(_) if w == 0.0 => {}
                    _ => changes.bad += 1,
                }
            }
        }
        if nodes.len() == 1 {
            return None;
        }
        let per_point = influences
            .iter()
            .map(|list| four(list, &mut changes))
            .collect();
        self.report_skin(id, &changes);
        let count = nodes.len();
        let ibm = self.accessor(&binds, accessor::Type::Mat4, false);
        debug_assert_eq!(binds.len(), count * 16);
        let skin = self.root.push(json::Skin {
            extensions: None,
            extras: None,
            inverse_bind_matrices: Some(ibm),
            joints: nodes,
            name: gltf_name(scene, id),
            skeleton: Some(home),
        });
        Some((skin, per_point))
    }

    /// The warnings for what a skin's weights lost.
    fn report_skin(&mut self, id: NodeId, c: &Changes) {
        let scene = self.scene;
        let name = scene.display_name(id);
        let span = Some(scene.node(id).span);
        if c.over_four > 0 {
            self.diags.warning(
                format!(
                    "`{name}`: {} skin points are bound to more than {INFLUENCES} joints (glTF keeps {INFLUENCES}): the largest kept and scaled to sum 1; the largest weight dropped is {}",
                    c.over_four, c.largest_dropped
                ),
                span,
            );
        }
        if c.over_one > 0 {
            self.diags.warning(
                format!(
                    "`{name}`: the weights of {} skin points sum past 1: scaled to sum 1",
                    c.over_one
                ),
                span,
            );
        }
        if c.bad > 0 {
            self.diags.warning(
                format!(
                    "`{name}`: {} skinCoordIndex entries name no skin point or have a negative weight: left out",
                    c.bad
                ),
                span,
            );
        }
    }

    /// A skin Shape as a skinned mesh node at the scene's root, with a
    /// morph target for each displacer.
    pub(super) fn skinned_shape(
        &mut self,
        shape: NodeId,
        skin: Index<json::Skin>,
        influences: &[Influence],
        displacers: &[(NodeId, f32, Vec<Vec3>)],
    ) -> Option<Index<json::Node>> {
        let scene = self.scene;
        let geometry = scene.child(shape, "geometry")?;
        let m = crate::mesh::mesh(scene, &self.anim.rest, geometry, self.diags)?;
        let none = ([0u16; 4], [1.0, 0.0, 0.0, 0.0]);
        let per_vertex: Vec<&Influence> = m
            .coord_index
            .iter()
            .map(|&c| influences.get(c as usize).unwrap_or(&none))
            .collect();
        let array = Some(buffer::Target::ArrayBuffer);
        let joints = self.raw_accessor(
            per_vertex.iter().flat_map(|v| v.0).map(u16::to_le_bytes),
            per_vertex.len(),
            accessor::ComponentType::U16,
            accessor::Type::Vec4,
            None,
            array,
        );
        let weights: Vec<f32> = per_vertex.iter().flat_map(|v| v.1).collect();
        let weights = self.accessor_for(&weights, accessor::Type::Vec4, false, array);
        let extra = vec![
            (json::mesh::Semantic::Joints(0), joints),
            (json::mesh::Semantic::Weights(0), weights),
        ];
        let appearance = scene.child(shape, "appearance");
        let mesh = self.mesh_of(&m, geometry, appearance, extra);
        self.displacer_targets(mesh, &m, displacers);
        let mut n = node(gltf_name(scene, shape));
        n.mesh = Some(mesh);
        n.skin = Some(skin);
        let index = self.root.push(n);
        self.geo
            .mesh_nodes
            .entry(mesh.value())
            .or_default()
            .push(index);
        self.place(shape, index);
        self.tree.skinned.push(index);
        Some(index)
    }

    /// The displacers' morph targets on a skinned mesh: each vertex moved
    /// by its skin point's displacement (a mesh with targets of its own,
    /// from animated points, keeps those, with a warning).
    fn displacer_targets(
        &mut self,
        mesh: Index<json::Mesh>,
        m: &crate::mesh::Mesh,
        displacers: &[(NodeId, f32, Vec<Vec3>)],
    ) {
        if displacers.is_empty() {
            return;
        }
        if self.root.meshes[mesh.value()].primitives[0]
            .targets
            .is_some()
        {
            self.diags.warning(
                "a skin's points are animated: its displacers are not written",
                Some(self.scene.node(displacers[0].0).span),
            );
            return;
        }
        let mut targets = Vec::new();
        for (_, _, moved) in displacers {
            let delta: Vec<f32> = m
                .coord_index
                .iter()
                .flat_map(|&c| {
                    moved
                        .get(c as usize)
                        .copied()
                        .unwrap_or(Vec3::ZERO)
                        .to_array()
                })
                .collect();
            let a = self.accessor(&delta, accessor::Type::Vec3, true);
            targets.push(json::mesh::MorphTarget {
                positions: Some(a),
                normals: None,
                tangents: None,
            });
        }
        let weights = displacers.iter().map(|d| d.1).collect();
        let gltf_mesh = &mut self.root.meshes[mesh.value()];
        gltf_mesh.primitives[0].targets = Some(targets);
        gltf_mesh.weights = Some(weights);
    }

    /// Where an HAnimDisplacer's weight track goes: the weight of its
    /// morph target in its humanoid's skinned meshes.
    pub(super) fn displacer_target(&self, track: &Track) -> Option<Target> {
        let d = self.geo.displacers.get(&track.target)?.clone();
        Some(Target::Weight {
            nodes: d.nodes,
            index: d.index,
            fixed: d.weights,
        })
    }
}

/// Element `i` of `n` numbers each, if the list has it.
fn nth(list: &[f32], i: usize, n: usize) -> Option<&[f32]> {
    list.get(i * n..i * n + n)
}

/// A point's influences as glTF holds them: the weight it keeps in the
/// humanoid's space on joint 0, at most four, summing to 1.
fn four(list: &[(u16, f32)], changes: &mut Changes) -> Influence {
    let mut all: Vec<(u16, f32)> = list.to_vec();
    let sum: f32 = all.iter().map(|x| x.1).sum();
    if sum > 1.0 + 1e-6 {
        changes.over_one += 1;
    } else if sum < 1.0 - 1e-6 {
        all.push((0, 1.0 - sum));
    }
    // Largest first; equal weights in joint order (the same bytes each
    // time).
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    if all.len() > INFLUENCES {
        changes.over_four += 1;
        changes.largest_dropped = changes.largest_dropped.max(all[INFLUENCES].1);
        all.truncate(INFLUENCES);
    }
    let total: f32 = all.iter().map(|x| x.1).sum();
    let (mut joints, mut weights) = ([0u16; 4], [0f32; 4]);
    for (i, (j, w)) in all.into_iter().enumerate() {
        joints[i] = j;
        weights[i] = w / total;
    }
    (joints, weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Weights worked by hand: a point keeping 0.4 in the humanoid's space
    /// gets it on joint 0; five influences keep the four largest scaled to
    /// sum 1; a sum of 2 is halved.
    #[test]
    fn weights_are_four_summing_to_one() {
        let mut c = Changes::default();
        let (j, w) = four(&[(3, 0.6)], &mut c);
        assert_eq!(j, [3, 0, 0, 0]);
        assert!((w[0] - 0.6).abs() < 1e-6 && (w[1] - 0.4).abs() < 1e-6 && w[2] == 0.0);
        let five = [(1, 0.3), (2, 0.25), (3, 0.2), (4, 0.15), (5, 0.1)];
        let (j, w) = four(&five, &mut c);
        assert_eq!(j, [1, 2, 3, 4]);
        let want = [0.3 / 0.9, 0.25 / 0.9, 0.2 / 0.9, 0.15 / 0.9];
        for (a, b) in w.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{w:?}");
        }
        assert_eq!((c.over_four, c.largest_dropped), (1, 0.1));
        assert_eq!(
            four(&[(1, 1.0), (2, 1.0)], &mut c),
            ([1, 2, 0, 0], [0.5, 0.5, 0.0, 0.0])
        );
        assert_eq!(c.over_one, 1);
    }
}
