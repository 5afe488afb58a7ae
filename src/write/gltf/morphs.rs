//! Moving geometry as morph targets: a mesh's animated points, normals and
//! texture coordinates as displacements with one-hot weights, and the
//! other triangulations a reshaped sample needs.

use super::Writer;
use super::buffers::{SHARED_MAX, bounds_of};
use crate::anim::keyframes::{Interpolation, Keyframes};
use crate::diag::Diagnostics;
use crate::interp::values::Values;
use crate::scene::NodeId;
use gltf_json as json;
use json::{Index, accessor, buffer};

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
pub(super) fn vec3_at(animated: &Values, c: u32) -> Option<glam::Vec3> {
    let c = 3 * c as usize;
    match animated {
        Values::Wide(v) => {
            let q = v.get(c..c + 3)?;
            Some(glam::Vec3::new(q[0] as f32, q[1] as f32, q[2] as f32))
        }
        Values::Narrow(v) => v.get(c..c + 3).map(glam::Vec3::from_slice),
    }
}

/// The size of a morph target's data from which two are made at once on
/// the thread share (see `morph_targets`): a pair as large as the work
/// [`crate::par::map`] splits. Each pair pays for a thread's start (0.1 to
/// 0.3 ms here), which bigscene's targets of 12 000 vertices (288 KB, 0.15
/// ms each) do not repay: made one by one, its 10 MB bake is 0.96–0.98 ×
/// the time; the bench scene's 480 KB targets take the same time either
/// way, and bigscene's 1.2 MB ones (42 MB) are made in pairs.
const TARGET_SPLIT_BYTES: usize = crate::par::SPLIT_BYTES / 2;

/// Displacements of three numbers a vertex, and their bounds.
type Displacements = (Vec<f32>, (Vec<f32>, Vec<f32>));

/// Displacements with their bounds (an accessor's `min` and `max`).
fn bounded(d: Vec<f32>) -> Displacements {
    let b = bounds_of(&d, accessor::Type::Vec3);
    (d, b)
}

/// A part of a morph target: its data, or, when only the document's size
/// is wanted (`Options::counted`), none.
enum Part<T> {
    Made(T),
    Counted,
}

/// A morph target's displacements, before they are written.
struct TargetData {
    /// The mesh's vertex count.
    vertices: usize,
    positions: Option<Part<Displacements>>,
    normals: Option<Part<Displacements>>,
    uvs: Option<Part<Vec<f32>>>,
}

/// The displacements of key `i` of a mesh's point, normal and texture
/// coordinate keys (each optional): the key's points read once for their
/// displacements and the normals they make; with `counted`, which parts
/// the target has, none made.
fn target_data(
    m: &crate::mesh::Mesh,
    [kp, kn, kt]: &[Option<Keyframes>; 3],
    i: usize,
    counted: bool,
) -> TargetData {
    let made = |d: Vec<f32>| Part::Made(bounded(d));
    let vertices = m.positions.len();
    if counted {
        let remade = kp.is_some() && m.made_normals.is_some();
        return TargetData {
            vertices,
            positions: kp.as_ref().map(|_| Part::Counted),
            normals: (kn.is_some() || remade).then_some(Part::Counted),
            uvs: kt.as_ref().map(|_| Part::Counted),
        };
    }
    // Read where they are, in their own precision (a point is an f32).
    let key = |k: &Keyframes| i * k.width..(i + 1) * k.width;
    let points = kp.as_ref().map(|k| k.values.part(key(k)));
    let positions = points
        .as_ref()
        .map(|p| deltas(&m.positions, &m.coord_index, p, false));
    let normals = match (kn, &points) {
        (Some(k), _) => {
            let normals = k.values.part(key(k));
            Some(deltas(&m.normals, &m.normal_index, &normals, true))
        }
        (None, Some(p)) => Writer::remade_normals(m, p),
        _ => None,
    };
    let uvs = kt
        .as_ref()
        .map(|k| Part::Made(uv_deltas(&m.uvs, &m.tex_index, &k.value(i))));
    TargetData {
        vertices,
        positions: positions.map(made),
        normals: normals.map(made),
        uvs,
    }
}

/// A morph target's displacements: for each vertex, the animated element it
/// came from (`index`) minus the vertex's own value; a missing element
/// leaves the vertex alone. Normals are made unit first.
pub(super) fn deltas(own: &[glam::Vec3], index: &[u32], animated: &Values, unit: bool) -> Vec<f32> {
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

impl<'a> Writer<'a> {
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
            find(
                m.tex_coord.filter(|t| !self.geo.unread_uvs.contains(t)),
                "point",
            ),
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

    /// A morph target's accessors, from its displacements (see
    /// [`target_data`]).
    fn morph_target(
        &mut self,
        mesh: usize,
        target: usize,
        data: TargetData,
    ) -> json::mesh::MorphTarget {
        let vertices = data.vertices;
        let mut made = self.displacements(data.positions, data.normals, vertices);
        if made.positions.is_none() {
            made.positions = Some(self.still_positions(vertices));
        }
        if let Some(delta) = data.uvs {
            let vertex = Some(buffer::Target::ArrayBuffer);
            let a = match delta {
                Part::Made(delta) => self.accessor_for(&delta, accessor::Type::Vec2, false, vertex),
                Part::Counted => self.counted_accessor(vertices, accessor::Type::Vec2, vertex),
            };
            self.geo.morph_uvs.push((mesh, target, a.value()));
        }
        made
    }

    /// POSITION displacements of zeros for `count` vertices, for a morph
    /// target that moves no point: Blender's importer makes a shape key
    /// only from POSITION (and fails on a weights channel without one),
    /// Bevy's loader asks for it too. One accessor's bytes for every such
    /// target of that many vertices, each target an accessor of its own
    /// (`--compress` rewrites each accessor where it is used).
    fn still_positions(&mut self, count: usize) -> Index<json::Accessor> {
        if let Some(&a) = self.geo.still_positions.get(&count) {
            let copy = self.root.accessors[a.value()].clone();
            // A view several vertex accessors use states its stride.
            if let Some(view) = copy.buffer_view {
                self.root.buffer_views[view.value()].byte_stride = Some(json::buffer::Stride(12));
            }
            return self.root.push(copy);
        }
        let vertex = Some(buffer::Target::ArrayBuffer);
        let a = self.accessor_for(&vec![0.0; count * 3], accessor::Type::Vec3, true, vertex);
        self.geo.still_positions.insert(count, a);
        a
    }

    /// A morph target of point and normal displacements (three numbers a
    /// vertex each), their accessors made in that order.
    fn displacements(
        &mut self,
        positions: Option<Part<Displacements>>,
        normals: Option<Part<Displacements>>,
        vertices: usize,
    ) -> json::mesh::MorphTarget {
        let vertex = Some(buffer::Target::ArrayBuffer);
        let vec3 = accessor::Type::Vec3;
        let mut accessor = |d: Option<Part<Displacements>>| {
            d.map(|d| match d {
                Part::Made((d, b)) => self.bounded_accessor(&d, vec3, Some(b), vertex),
                Part::Counted => self.counted_accessor(vertices, vec3, vertex),
            })
        };
        let positions = accessor(positions);
        let normals = accessor(normals);
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
        let uvs = m.tex_coord.filter(|t| !self.geo.unread_uvs.contains(t));
        let mut animating: Vec<usize> = [m.coord, m.normal, uvs, Some(geometry)]
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
                let vertices = m.positions.len();
                for (positions, normals) in reshaped.deltas {
                    let made = |d| Part::Made(bounded(d));
                    let target =
                        self.displacements(Some(made(positions)), normals.map(made), vertices);
                    targets.push(target);
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
            // The displacements of two keys at a time are made on the
            // thread share (when large enough to be worth a thread), then
            // written in key order: the peak grows by two targets' data.
            let pairs = per_target * 4 >= TARGET_SPLIT_BYTES;
            // Only counted: when every accessor of a target is too large to
            // share one with equal bytes (Vec2 texture coordinates the
            // smallest), its bytes are not needed to place it.
            let counted = self.buf.bin.is_counting() && m.positions.len() * 8 > SHARED_MAX;
            let mut i = 0;
            while i < len {
                let made = if pairs && !counted && i + 1 < len {
                    let (a, b) = crate::par::join(
                        || target_data(m, &keys, i, false),
                        || target_data(m, &keys, i + 1, false),
                    );
                    vec![a, b]
                } else {
                    vec![target_data(m, &keys, i, counted)]
                };
                i += made.len();
                for data in made {
                    let target = self.morph_target(mesh, targets.len(), data);
                    targets.push(target);
                }
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
    pub(super) fn remade_normals(m: &crate::mesh::Mesh, points: &Values) -> Option<Vec<f32>> {
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
