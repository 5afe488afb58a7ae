//! Meshes from X3D Shapes, and morph targets for animated points, normals
//! and texture coordinates.
use super::Writer;
use super::nodes::{gltf_name, node};
use super::skins;
use crate::anim::clip::Clip;
use crate::anim::keyframes::{Interpolation, Keyframes};
use crate::diag::Diagnostics;
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
}

/// A geometry node drawn at each sample of a clip: the sample times and
/// each sample's point and normal displacements.
pub(super) struct Reshaped {
    times: Keyframes<'static>,
    deltas: Vec<(Vec<f32>, Option<Vec<f32>>)>,
    /// Triangulations other than the mesh's own that some samples need (a
    /// concave face whose outline turns a triangle of the first over).
    shapes: Vec<Vec<u32>>,
    /// For each sample, the triangulation it is drawn with: 0 the mesh's
    /// own, `j` `shapes[j - 1]`.
    shape_at: Vec<usize>,
}

/// What [`Writer::morph_targets`] makes for a mesh.
#[derive(Default)]
pub(super) struct Morphs {
    pub(super) targets: Option<Vec<json::mesh::MorphTarget>>,
    pub(super) weights: Option<Vec<f32>>,
    /// Triangulations other than the mesh's own (see [`Reshaped`]).
    pub(super) alternates: Vec<Vec<u32>>,
}

/// How many triangulations a geometry node may be drawn with over one
/// clip: each is a copy of its indices and a node shown while it holds.
const MAX_SHAPES: usize = 16;

/// A track of Coordinate points as morph targets of a mesh: its keyframes
/// become targets `first..first + keyframes.len()` of `total`.
pub(super) struct Morph {
    pub(super) mesh: usize,
    pub(super) first: usize,
    pub(super) total: usize,
    pub(super) keyframes: Keyframes<'static>,
    /// For each key, the triangulation of the mesh drawn (0 its own, `j`
    /// its `j`th alternate); empty when it has one.
    pub(super) shapes: Vec<usize>,
}

/// Element `c` (three numbers) of an animated array, `None` past its end.
pub(super) fn vec3_at(animated: &[f64], c: u32) -> Option<glam::Vec3> {
    let c = 3 * c as usize;
    let q = animated.get(c..c + 3)?;
    Some(glam::Vec3::new(q[0] as f32, q[1] as f32, q[2] as f32))
}

/// A morph target's displacements: for each vertex, the animated element it
/// came from (`index`) minus the vertex's own value; a missing element
/// leaves the vertex alone. Normals are made unit first.
pub(super) fn deltas(own: &[glam::Vec3], index: &[u32], animated: &[f64], unit: bool) -> Vec<f32> {
    let mut out = Vec::with_capacity(own.len() * 3);
    for (p, &c) in own.iter().zip(index) {
        let moved = vec3_at(animated, c).map_or(*p, |q| {
            if unit {
                q.try_normalize().unwrap_or(*p)
            } else {
                q
            }
        });
        out.extend_from_slice(&(moved - *p).to_array());
    }
    out
}

/// A morph target's texture-coordinate displacements in glTF's flipped v:
/// for each vertex, the animated point it came from (`index`) minus its own
/// (X3D) uv; a missing point leaves the vertex alone.
pub(super) fn uv_deltas(own: &[glam::Vec2], index: &[u32], animated: &[f64]) -> Vec<f32> {
    own.iter()
        .zip(index)
        .flat_map(|(p, &c)| {
            let c = c as usize * 2;
            match animated.get(c..c + 2) {
                Some(q) => [q[0] as f32 - p.x, p.y - q[1] as f32],
                None => [0.0; 2],
            }
        })
        .collect()
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
        // Texture coordinates only where a texture reads them (or their
        // animation is written): others would be an unused attribute.
        let read = uses_tex_coords(&self.root.materials[material.value()])
            || m.tex_coord
                .is_some_and(|t| self.anim.clips_of.contains_key(&t));
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

    /// The geometry node drawn again at each sample of clip `ci`, where the
    /// clip animates the fields it is drawn from (an Extrusion's spine, an
    /// ElevationGrid's heights, a Rectangle2D's size: see
    /// [`crate::mesh::reshapes`]): the first such track, the sample times,
    /// and each sample's displacements of the mesh's points and normals.
    /// A sample whose triangles differ from the mesh's is drawn with the
    /// mesh's where those still hold (no triangle turned over), else with
    /// a triangulation of its own (one of [`MAX_SHAPES`]).
    /// `None` where the clip animates none, where a sample would change the
    /// mesh's vertices or needs too many triangulations (warned), or past
    /// the animation limit.
    fn reshaped(
        &mut self,
        m: &crate::mesh::Mesh,
        geometry: NodeId,
        ci: usize,
    ) -> Option<(usize, Reshaped)> {
        let scene = self.scene;
        let clip = &self.anim.clips[ci];
        let ty = scene.node_type(geometry)?;
        let tracks: Vec<usize> = self.anim.track_index[ci]
            .producing(geometry)
            .iter()
            .copied()
            .filter(|&i| crate::mesh::reshapes(ty, &clip.tracks[i].field))
            .collect();
        let &lead = tracks.first()?;
        let per_target = m.positions.len() * if m.normals.is_empty() { 3 } else { 6 };
        // All sampled at the same times, in one set of targets.
        let keys: Vec<Keyframes<'static>> = tracks
            .iter()
            .map(|&i| {
                self.anim
                    .keys
                    .sampled(clip, &clip.tracks[i], Interpolation::Linear, self.diags)
            })
            .collect::<Option<_>>()?;
        let len = keys[0].len();
        let numbers = len.saturating_mul(per_target.saturating_add(len));
        if !self
            .anim
            .keys
            .spend(numbers, clip, &clip.tracks[lead], self.diags)
        {
            return None;
        }
        for &i in &tracks[1..] {
            self.anim.folded.insert((ci, i));
        }
        let mut state = self.anim.rest.clone();
        let mut quiet = Diagnostics::default();
        let mut deltas = Vec::with_capacity(len);
        let mut shapes: Vec<Vec<u32>> = Vec::new();
        let mut shape_at = Vec::with_capacity(len);
        let delta = |now: &[glam::Vec3], rest: &[glam::Vec3]| -> Vec<f32> {
            now.iter()
                .zip(rest)
                .flat_map(|(a, b)| (*a - *b).to_array())
                .collect()
        };
        for k in 0..len {
            for (key, &i) in keys.iter().zip(&tracks) {
                let values = key.value(k).iter().map(|&x| x as f32).collect();
                state.set(geometry, &clip.tracks[i].field, values);
            }
            let drawn = crate::mesh::mesh(scene, &state, geometry, &mut quiet);
            let same = drawn.as_ref().is_some_and(|d| {
                d.positions.len() == m.positions.len() && d.normals.len() == m.normals.len()
            });
            let shape = drawn.as_ref().filter(|_| same).and_then(|d| {
                let test = d.triangulation_test();
                let holds = |own: &[u32]| d.indices == own || test(own);
                if holds(&m.indices) {
                    return Some(0);
                }
                if let Some(j) = shapes.iter().position(|s| holds(s)) {
                    return Some(j + 1);
                }
                (shapes.len() < MAX_SHAPES).then(|| {
                    shapes.push(d.indices.clone());
                    shapes.len()
                })
            });
            let (Some(drawn), Some(shape)) = (drawn.filter(|_| same), shape) else {
                let what = if same {
                    format!("needs more than {MAX_SHAPES} triangulations")
                } else {
                    "changes the vertices".to_string()
                };
                self.diags.warning(
                    format!(
                        "`{}.{}` in clip `{}` {what} of `{}`: morph targets cannot follow, \
                         not written",
                        scene.display_name(geometry),
                        clip.tracks[lead].field,
                        clip.name,
                        scene.display_name(geometry)
                    ),
                    Some(clip.tracks[lead].span),
                );
                return None;
            };
            shape_at.push(shape);
            let normals = (!m.normals.is_empty()).then(|| delta(&drawn.normals, &m.normals));
            deltas.push((delta(&drawn.positions, &m.positions), normals));
        }
        let indices: usize = shapes.iter().map(Vec::len).sum();
        if !self
            .anim
            .keys
            .spend(indices, clip, &clip.tracks[lead], self.diags)
        {
            return None;
        }
        let times = keys.into_iter().next()?;
        let reshaped = Reshaped {
            times,
            deltas,
            shapes,
            shape_at,
        };
        Some((lead, reshaped))
    }

    /// The keyframes of the tracks of clip `ci` that animate the mesh's
    /// points, normals and texture coordinates (all sampled at the same
    /// times when there are several, the others folded into the first),
    /// with the first track's index; `None` when the clip animates none.
    fn morph_keys(
        &mut self,
        m: &crate::mesh::Mesh,
        ci: usize,
    ) -> Option<(usize, [Option<Keyframes<'a>>; 3])> {
        let clip = &self.anim.clips[ci];
        let index = &self.anim.track_index[ci];
        let find = |node: Option<NodeId>, field: &str| {
            let node = node?;
            index
                .producing(node)
                .iter()
                .copied()
                .find(|&i| clip.tracks[i].field == field)
        };
        let found = [
            find(m.coord, "point"),
            find(m.normal, "vector"),
            find(m.tex_coord, "point"),
        ];
        let &lead = found.iter().flatten().next()?;
        // Several: all sampled at the same times, in one set of targets
        // (glTF allows one weights channel per node and animation).
        let together = found.iter().flatten().count() > 1;
        let keys = found.map(|i| {
            let i = i?;
            let track = &clip.tracks[i];
            if together {
                if i != lead {
                    self.anim.folded.insert((ci, i));
                }
                return self
                    .anim
                    .keys
                    .sampled(clip, track, Interpolation::Linear, self.diags);
            }
            match self.anim.keys.keyframes(clip, track, false, self.diags) {
                // One-hot weights follow keys linearly or in steps only.
                Some(k) if k.interpolation == Interpolation::Cubic => {
                    self.anim
                        .keys
                        .sampled(clip, track, Interpolation::Linear, self.diags)
                }
                k => k,
            }
        });
        Some((lead, keys))
    }

    /// The morph target of key `i`: the displacements of the points,
    /// normals and texture coordinates whose keyframes are given (normals
    /// made from the points follow the points).
    fn morph_target(
        &mut self,
        m: &crate::mesh::Mesh,
        mesh: usize,
        target: usize,
        [kp, kn, kt]: &[Option<Keyframes>; 3],
        i: usize,
    ) -> json::mesh::MorphTarget {
        // The key's points, read once for their displacements and normals.
        let points = kp.as_ref().map(|k| k.value(i));
        let positions = points
            .as_ref()
            .map(|p| deltas(&m.positions, &m.coord_index, p, false));
        let normals = match (kn, &points) {
            (Some(k), _) => Some(deltas(&m.normals, &m.normal_index, &k.value(i), true)),
            (None, Some(p)) => Self::remade_normals(m, p),
            _ => None,
        };
        let made = self.displacements(positions.as_deref(), normals.as_deref());
        if let Some(k) = kt {
            let delta = uv_deltas(&m.uvs, &m.tex_index, &k.value(i));
            let vertex = Some(buffer::Target::ArrayBuffer);
            let a = self.accessor_for(&delta, accessor::Type::Vec2, false, vertex);
            self.geo.morph_uvs.push((mesh, target, a.value()));
        }
        made
    }

    /// A morph target of point and normal displacements (three numbers a
    /// vertex each), their accessors made in that order.
    fn displacements(
        &mut self,
        positions: Option<&[f32]>,
        normals: Option<&[f32]>,
    ) -> json::mesh::MorphTarget {
        let vertex = Some(buffer::Target::ArrayBuffer);
        let positions = positions.map(|d| self.accessor_for(d, accessor::Type::Vec3, true, vertex));
        let normals = normals.map(|d| self.accessor_for(d, accessor::Type::Vec3, true, vertex));
        json::mesh::MorphTarget {
            positions,
            normals,
            tangents: None,
        }
    }

    /// Morph targets for every track that animates the mesh's Coordinate
    /// points or Normal vectors: one target per keyframe, the difference of
    /// its points (normals) from the mesh's own. When one clip animates
    /// both, they are sampled at the same times and share the targets.
    /// Returns the targets, the mesh's rest weights and the triangulations
    /// other than its own that a reshaped sample is drawn with.
    pub(super) fn morph_targets(
        &mut self,
        m: &crate::mesh::Mesh,
        geometry: NodeId,
        mesh: usize,
    ) -> Morphs {
        let clips = self.anim.clips;
        let mut targets = Vec::new();
        let mut made = Vec::new();
        let mut alternates: Vec<Vec<u32>> = Vec::new();
        // Only the clips that animate one of the mesh's arrays or the
        // geometry node itself (a scan of every clip for every mesh took
        // their product).
        let mut animating: Vec<usize> = [m.coord, m.normal, m.tex_coord, Some(geometry)]
            .into_iter()
            .flatten()
            .flat_map(|node| self.anim.clips_of.get(&node).into_iter().flatten().copied())
            .collect();
        animating.sort_unstable();
        animating.dedup();
        for ci in animating {
            let clip = &clips[ci];
            if let Some((lead, reshaped)) = self.reshaped(m, geometry, ci) {
                let first = targets.len();
                let keyframes = reshaped.times.times_only();
                for (positions, normals) in reshaped.deltas {
                    targets.push(self.displacements(Some(&positions), normals.as_deref()));
                }
                // This clip's triangulations among the mesh's.
                let mut global = vec![0];
                for s in reshaped.shapes {
                    let j = match alternates.iter().position(|a| *a == s) {
                        Some(j) => j,
                        None => {
                            alternates.push(s);
                            alternates.len() - 1
                        }
                    };
                    global.push(j + 1);
                }
                let shapes = if global.len() > 1 {
                    reshaped.shape_at.iter().map(|&j| global[j]).collect()
                } else {
                    Vec::new()
                };
                made.push(((ci, lead), first, keyframes, shapes));
                continue;
            }
            let Some((lead, [kp, kn, kt])) = self.morph_keys(m, ci) else {
                continue;
            };
            let Some(len) = [&kp, &kn, &kt]
                .into_iter()
                .flatten()
                .map(Keyframes::len)
                .next()
            else {
                continue;
            };
            let first = targets.len();
            // The targets' data at once, not by doubling (which holds the old
            // and the new buffer together at each step).
            let attributes = usize::from(kp.is_some()) + usize::from(!m.normals.is_empty());
            let uv_numbers = if kt.is_some() { 2 } else { 0 };
            let per_target = m.positions.len() * (3 * attributes + uv_numbers);
            // The targets, and their own part of the one-hot weights (a
            // weight for each of them at each of their keys) before any is
            // made: the rest of the weights are known when all are.
            let numbers = len.saturating_mul(per_target.saturating_add(len));
            if !self
                .anim
                .keys
                .spend(numbers, clip, &clip.tracks[lead], self.diags)
            {
                continue;
            }
            self.buf.bin.reserve(len * per_target * 4);
            let keys = [kp, kn, kt];
            for i in 0..len {
                let target = self.morph_target(m, mesh, targets.len(), &keys, i);
                targets.push(target);
            }
            let [kp, kn, kt] = keys;
            // The weights channel needs only the times: the values are in
            // the targets now.
            let keyframes = kp.or(kn).or(kt).expect("one of them was found");
            let keyframes = keyframes.times_only();
            made.push(((ci, lead), first, keyframes, Vec::new()));
        }
        if targets.is_empty() {
            return Morphs::default();
        }
        let total = targets.len();
        for (key, first, keyframes, shapes) in made {
            // The rest of the one-hot weights: the other clips' targets.
            let (clip, track) = (&clips[key.0], &clips[key.0].tracks[key.1]);
            let others = total - keyframes.len();
            if !self.anim.keys.spend(
                keyframes.len().saturating_mul(others),
                clip,
                track,
                self.diags,
            ) {
                continue;
            }
            self.geo.morphs.insert(
                key,
                Morph {
                    mesh,
                    first,
                    total,
                    keyframes,
                    shapes,
                },
            );
        }
        Morphs {
            targets: Some(targets),
            weights: Some(vec![0.0; total]),
            alternates,
        }
    }

    /// The normals a mesh gets when its Coordinate holds `points`, as
    /// displacements from its own; `None` if the file gives its normals.
    pub(super) fn remade_normals(m: &crate::mesh::Mesh, points: &[f64]) -> Option<Vec<f32>> {
        let made = m.made_normals.as_ref()?;
        // A point the animation lacks stays where it is (as in deltas).
        let corners: Vec<glam::Vec3> = m
            .coord_index
            .iter()
            .zip(&m.positions)
            .map(|(&c, own)| vec3_at(points, c).unwrap_or(*own))
            .collect();
        let normals = made.normals(&corners, &m.coord_index);
        let delta = normals.iter().zip(&m.normals).map(|(n, own)| *n - *own);
        Some(delta.flat_map(|n| n.to_array()).collect())
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
