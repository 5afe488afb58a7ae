//! Meshes from X3D Shapes (their morph targets: `morphs`).

use super::Writer;
use super::morphs::{Morph, Morphs};
use super::nodes::{gltf_name, node};
use super::skins;
use crate::anim::clip::Clip;
use crate::hash::HashMap;
use crate::scene::{NodeId, NodeType, Scene};
use gltf_json as json;
use json::validation::Checked;
use json::{Index, accessor, buffer};

/// The meshes written, their morph targets and the nodes that show them.
#[derive(Default)]
pub(super) struct Meshes {
    /// Meshes already written, by geometry and appearance node.
    pub(super) meshes: HashMap<(NodeId, Option<NodeId>), Option<Index<json::Mesh>>>,
    pub(super) equal_meshes: HashMap<String, Index<json::Mesh>>,
    /// The glTF nodes that show each mesh.
    pub(super) mesh_nodes: HashMap<usize, Vec<Index<json::Node>>>,
    /// A mesh's copies with the other triangulations its reshaped samples
    /// need, by the mesh's index.
    pub(super) alternates: HashMap<usize, Vec<Index<json::Mesh>>>,
    /// For a mesh with alternates, at each place it is drawn the nodes of
    /// it and of each alternate, in that order.
    pub(super) shape_nodes: HashMap<usize, Vec<Vec<Index<json::Node>>>>,
    /// Morph targets made for animated Coordinate points, by (clip, track).
    pub(super) morphs: HashMap<(usize, usize), Morph>,
    /// TEXCOORD_0 of morph targets (mesh, target, accessor), which gltf-json
    /// cannot hold: written into the JSON when it is made.
    pub(super) morph_uvs: Vec<(usize, usize, usize)>,
    /// Each HAnimDisplacer's morph target.
    pub(super) displacers: HashMap<NodeId, skins::Displaced>,
    /// Animated TextureCoordinate nodes of meshes that draw no texture:
    /// neither they nor their animation are written.
    pub(super) unread_uvs: crate::hash::HashSet<NodeId>,
    /// A POSITION accessor of zeros for morph targets that move no point,
    /// by vertex count (its copies share its bytes).
    pub(super) still_positions: HashMap<usize, Index<json::Accessor>>,
}

/// The arrays (Coordinate and TextureCoordinate points, Normal vectors) that
/// are empty in the file
/// but animated: they take the value of the first clip that animates them
/// at its start, so that the mesh has a shape at rest (X3D draws nothing
/// until the first event; glTF must draw something).
pub(super) fn rest_values(scene: &Scene, clips: &[Clip]) -> crate::mesh::Overrides {
    let mut rest = crate::mesh::Overrides::of_scene(scene);
    let mut v = Vec::new();
    for clip in clips {
        for track in &clip.tracks {
            let array = matches!(
                (scene.node_type(track.target), track.field.as_str()),
                (
                    Some(NodeType::Coordinate | NodeType::TextureCoordinate),
                    "point"
                ) | (Some(NodeType::Normal), "vector")
            );
            if array
                && rest.get(track.target, &track.field).is_none()
                && scene.floats(track.target, &track.field).is_empty()
            {
                clip.eval(track, 0.0, &mut v);
                let values = v.iter().map(|&x| x as f32).collect();
                rest.set(track.target, &track.field, values);
            }
        }
    }
    rest
}

impl<'a> Writer<'a> {
    /// A Shape: a glTF node with its mesh (shared when the geometry and
    /// appearance are).
    pub(super) fn shape(&mut self, id: NodeId, parent: &mut Vec<Index<json::Node>>) {
        let scene = self.scene;
        let Some(geometry) = scene.child(id, "geometry") else {
            return;
        };
        let appearance = scene.child(id, "appearance");
        let mesh = match self.geo.meshes.get(&(geometry, appearance)) {
            Some(m) => *m,
            None => {
                let m = self.mesh(id, geometry, appearance);
                self.geo.meshes.insert((geometry, appearance), m);
                let limit = self.opts.limits.buffer_bytes;
                if self.buf.bin.len() > limit {
                    self.stop(
                        format!(
                            "the glTF buffer would hold more than {limit} bytes (a mesh is \
                             stored for each geometry node, and again for each appearance it is \
                             USE'd with): stopped at `{}`",
                            scene.display_name(geometry)
                        ),
                        geometry,
                    );
                    return;
                }
                m
            }
        };
        let Some(mesh) = mesh else {
            return;
        };
        let mut n = node(gltf_name(scene, id));
        let index = match self.geo.alternates.get(&mesh.value()).cloned() {
            None => {
                n.mesh = Some(mesh);
                let index = self.root.push(n);
                self.geo
                    .mesh_nodes
                    .entry(mesh.value())
                    .or_default()
                    .push(index);
                index
            }
            // A mesh with several triangulations: a node for each under
            // the Shape's, the mesh's own shown at rest, the others hidden;
            // all take the morph weights, the clips switch between them.
            Some(copies) => {
                let index = self.root.push(n);
                let mut each = Vec::with_capacity(copies.len() + 1);
                for (j, m) in std::iter::once(mesh).chain(copies).enumerate() {
                    let mut child = node(None);
                    child.mesh = Some(m);
                    let c = self.root.push(child);
                    self.geo.mesh_nodes.entry(mesh.value()).or_default().push(c);
                    self.set_visibility(c, j == 0);
                    each.push(c);
                }
                self.root.nodes[index.value()].children = Some(each.clone());
                self.geo
                    .shape_nodes
                    .entry(mesh.value())
                    .or_default()
                    .push(each);
                index
            }
        };
        self.place(id, index);
        parent.push(index);
    }

    /// The glTF mesh of a Shape's geometry, named after the geometry's DEF,
    /// else the Shape's.
    pub(super) fn mesh(
        &mut self,
        shape: NodeId,
        geometry: NodeId,
        appearance: Option<NodeId>,
    ) -> Option<Index<json::Mesh>> {
        let m = crate::mesh::mesh(self.scene, &self.anim.rest, geometry, self.diags)?;
        let mesh = self.mesh_of(&m, geometry, appearance, Vec::new());
        let named = &mut self.root.meshes[mesh.value()].name;
        if named.is_none() {
            *named = gltf_name(self.scene, shape);
        }
        Some(mesh)
    }

    /// Whether the textures of an appearance are images Castle Game Engine
    /// reads upside down (ImageTexture `flipVertically TRUE`): their
    /// texture coordinates are then glTF's already. Textures of both kinds
    /// in one appearance are named (the first decides).
    fn upside_down(&mut self, appearance: Option<NodeId>) -> bool {
        let scene = self.scene;
        let Some(a) = appearance else { return false };
        let mut textures: Vec<NodeId> = Vec::new();
        if let Some(t) = scene.child(a, "texture") {
            match scene.node_type(t) {
                Some(NodeType::MultiTexture) => textures.extend(scene.nodes_in(t, "texture")),
                _ => textures.push(t),
            }
        }
        if let Some(mat) = scene.child(a, "material") {
            for f in [
                "baseTexture",
                "diffuseTexture",
                "emissiveTexture",
                "metallicRoughnessTexture",
                "normalTexture",
                "occlusionTexture",
                "specularTexture",
                "shininessTexture",
                "ambientTexture",
            ] {
                textures.extend(scene.child(mat, f));
            }
        }
        let flips: Vec<bool> = textures
            .iter()
            .map(|&t| scene.flag(t, "flipVertically"))
            .collect();
        let Some(&first) = flips.first() else {
            return false;
        };
        if flips.iter().any(|&f| f != first) {
            self.diags.warning(
                format!(
                    "`{}`: some of its textures are read upside down (flipVertically) and some not; one set of texture coordinates serves them all, as the first wants",
                    scene.display_name(a)
                ),
                Some(scene.node(a).span),
            );
        }
        first
    }

    /// The glTF mesh of a mesh made from `geometry`, with `extra`
    /// attributes (a skin's joints and weights).
    pub(super) fn mesh_of(
        &mut self,
        m: &crate::mesh::Mesh,
        geometry: NodeId,
        appearance: Option<NodeId>,
        extra: Vec<(json::mesh::Semantic, Index<json::Accessor>)>,
    ) -> Index<json::Mesh> {
        let flat = |v: &[glam::Vec3]| v.iter().flat_map(|p| p.to_array()).collect::<Vec<f32>>();
        let mut attributes = std::collections::BTreeMap::new();
        let array = Some(buffer::Target::ArrayBuffer);
        let position = self.accessor_for(&flat(&m.positions), accessor::Type::Vec3, true, array);
        attributes.insert(Checked::Valid(json::mesh::Semantic::Positions), position);
        if !m.normals.is_empty() {
            let a = self.accessor_for(&flat(&m.normals), accessor::Type::Vec3, false, array);
            attributes.insert(Checked::Valid(json::mesh::Semantic::Normals), a);
        }
        let material = self.material(appearance, m.double_sided, !m.colors.is_empty());
        // Texture coordinates only where a texture reads them: others
        // would be an unused attribute, and so would their animation.
        let read = uses_tex_coords(&self.root.materials[material.value()]);
        if let Some(t) = m
            .tex_coord
            .filter(|t| !read && self.anim.clips_of.contains_key(t))
            && self.geo.unread_uvs.insert(t)
        {
            self.diags.warning(
                format!(
                    "`{}.point`: texture coordinates animated, but no texture of theirs is \
                     drawn (no image): the animation is not written",
                    self.scene.display_name(t)
                ),
                Some(self.scene.node(t).span),
            );
        }
        if !m.uvs.is_empty() && read {
            // X3D texture space has v up from the bottom; glTF's runs down
            // (but for images Castle reads upside down).
            let flip = !self.upside_down(appearance);
            let gltf_uvs = |uvs: &[glam::Vec2]| -> Vec<f32> {
                let v = |t: &glam::Vec2| if flip { 1.0 - t.y } else { t.y };
                uvs.iter().flat_map(|t| [t.x, v(t)]).collect()
            };
            let a = self.accessor_for(&gltf_uvs(&m.uvs), accessor::Type::Vec2, false, array);
            attributes.insert(Checked::Valid(json::mesh::Semantic::TexCoords(0)), a);
            // The coordinates of the other units the material reads
            // (a MultiTexture's), each unit's own, else the last given.
            let sets = tex_coord_sets(&self.root.materials[material.value()]);
            let units = appearance
                .and_then(|a| self.mat.unit_sets.get(&a))
                .cloned()
                .unwrap_or_default();
            for n in 1..sets {
                let unit = units.get(n - 1).copied().unwrap_or(n);
                let own = m
                    .unit_uvs
                    .get(unit - 1)
                    .or(m.unit_uvs.last())
                    .unwrap_or(&m.uvs);
                let a = self.accessor_for(&gltf_uvs(own), accessor::Type::Vec2, false, array);
                attributes.insert(Checked::Valid(json::mesh::Semantic::TexCoords(n as u32)), a);
            }
        }
        if !m.colors.is_empty() {
            let c: Vec<f32> = m
                .colors
                .iter()
                .flatten()
                .map(|x| x.clamp(0.0, 1.0))
                .collect();
            let a = self.accessor_for(&c, accessor::Type::Vec4, false, array);
            attributes.insert(Checked::Valid(json::mesh::Semantic::Colors(0)), a);
        }
        let indices = self.indices(&m.indices);
        let mesh_index = self.root.meshes.len();
        let Morphs {
            targets,
            weights,
            alternates,
        } = self.morph_targets(m, geometry, mesh_index);
        for (semantic, a) in extra {
            attributes.insert(Checked::Valid(semantic), a);
        }
        let mode = match m.primitive() {
            crate::mesh::Primitive::Triangles => json::mesh::Mode::Triangles,
            crate::mesh::Primitive::Lines => json::mesh::Mode::Lines,
            crate::mesh::Primitive::Points => json::mesh::Mode::Points,
        };
        let mesh = json::Mesh {
            extensions: None,
            extras: None,
            name: gltf_name(self.scene, geometry),
            primitives: vec![json::mesh::Primitive {
                attributes,
                extensions: None,
                extras: None,
                indices: Some(indices),
                material: Some(material),
                mode: Checked::Valid(mode),
                targets,
            }],
            weights,
        };
        // Equal meshes with no morph targets are one (three default
        // Spheres of one material).
        let key = mesh.primitives[0]
            .targets
            .is_none()
            .then(|| serde_json::to_string(&mesh).ok())
            .flatten();
        if let Some(&same) = key.as_ref().and_then(|k| self.geo.equal_meshes.get(k)) {
            return same;
        }
        let index = self.root.push(mesh);
        if let Some(k) = key {
            self.geo.equal_meshes.insert(k, index);
        }
        // The same mesh drawn with each other triangulation a reshaped
        // sample needs: one shown at a time (see `shape`).
        let copies = alternates
            .iter()
            .map(|a| {
                let mut copy = self.root.meshes[index.value()].clone();
                copy.primitives[0].indices = Some(self.indices(a));
                self.root.push(copy)
            })
            .collect::<Vec<_>>();
        if !copies.is_empty() {
            self.geo.alternates.insert(index.value(), copies);
        }
        index
    }
}

/// Whether a material reads texture coordinates: it has a texture.
/// How many texture coordinate sets a material reads: one past the
/// largest `texCoord` of its textures.
fn tex_coord_sets(material: &json::Material) -> usize {
    let pbr = &material.pbr_metallic_roughness;
    [
        pbr.base_color_texture.as_ref().map(|i| i.tex_coord),
        pbr.metallic_roughness_texture.as_ref().map(|i| i.tex_coord),
        material.normal_texture.as_ref().map(|i| i.tex_coord),
        material.occlusion_texture.as_ref().map(|i| i.tex_coord),
        material.emissive_texture.as_ref().map(|i| i.tex_coord),
    ]
    .into_iter()
    .flatten()
    .map(|n| n as usize + 1)
    .max()
    .unwrap_or(0)
}

fn uses_tex_coords(material: &json::Material) -> bool {
    let pbr = &material.pbr_metallic_roughness;
    pbr.base_color_texture.is_some()
        || pbr.metallic_roughness_texture.is_some()
        || material.normal_texture.is_some()
        || material.occlusion_texture.is_some()
        || material.emissive_texture.is_some()
}
