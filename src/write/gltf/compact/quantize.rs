//! Vertex attributes as integers (KHR_mesh_quantization; texture
//! coordinates, colours and weights in [0, 1] as glTF itself allows), each
//! read back within a stated rounding:
//!
//! - positions and their morph displacements: signed 16-bit integers on a
//!   grid of step `s` about the centre `c` of the mesh's box, undone by a
//!   translation `c` and scale `s` on the node that shows the mesh (on a
//!   node of its own under it where the node moves, has a transform or a
//!   name the X3D gave), or for a skinned mesh in its skin's inverse bind
//!   matrices (with `--compress=quantize`, for Blender, skinned meshes keep
//!   f32 positions instead); `s` is the
//!   larger of the box's half-size and the largest displacement over
//!   32 767, so each point is read back within 1/65 534 of that
//!   ([`POSITION_SHARE`]: within 1.6e-5 of the mesh's size in any of its
//!   poses);
//! - normals and tangents (and their displacements where all lie within
//!   ±1): normalised signed 16-bit integers, within [`SHORT_ERROR`];
//! - texture coordinates in [0, 1], colours, joint weights: normalised
//!   unsigned 16-bit integers, within [`USHORT_ERROR`] (a vertex's weights
//!   still sum to 1 exactly: the largest takes what rounding left);
//!   coordinates in ±1 and their displacements: signed, within
//!   [`SHORT_ERROR`].
//!
//! Other attributes, and numbers outside those ranges, stay f32.

use super::vertices::VertexSet;
use super::{Attribute, Place, Work, concat, floats, layout};
use crate::hash::HashMap;
use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::animation::Property;
use json::validation::Checked;
use std::borrow::Cow;

/// KHR_mesh_quantization's name.
pub const EXTENSION: &str = "KHR_mesh_quantization";

/// How far a normalised signed short is read back from the number it was
/// made from: half its step.
pub const SHORT_ERROR: f32 = 0.5 / 32767.0;

/// The same for a normalised signed byte.
pub const BYTE_ERROR: f32 = 0.5 / 127.0;

/// The same for a normalised unsigned short.
pub const USHORT_ERROR: f32 = 0.5 / 65535.0;

/// How far a quantised position is read back from its point, as a share of
/// the larger of its mesh's half-size and largest displacement.
pub const POSITION_SHARE: f64 = 0.5 / GRID_HALF;

/// How far a rotation key written as normalised 16-bit integers is from
/// its rotation, in radians: each component within [`SHORT_ERROR`], the
/// quaternion within 2 × 1.53e-5 = 3.05e-5, the rotation (twice the
/// angle) within 6.1e-5; rounded up.
pub const ROTATION_ROUNDING: f64 = 6.2e-5;

/// Whether rotation keys are rounded under a bound of `tolerance` (the
/// default 1e-4 rad where none): where the bound less the rounding is at
/// least half the rounding, the fits keep to that (1e-4: 3.8e-5) and the
/// rounded keys to the bound.
pub fn rounds_rotations(tolerance: Option<f64>) -> bool {
    let bound = tolerance.unwrap_or(crate::anim::fit::DEFAULT_ANGLE);
    bound - ROTATION_ROUNDING >= ROTATION_ROUNDING / 2.0
}

/// The integers a grid runs to from its centre, either way: 14 bits, so
/// that each position is within [`POSITION_SHARE`] (6.1e-5) of its mesh's
/// reach.
const GRID_HALF: f64 = 8191.0;

/// A mesh's grid: its centre and step.
#[derive(Clone, Copy, PartialEq)]
struct Grid {
    centre: [f32; 3],
    step: f32,
}

/// The integer nearest `v` (halves away from zero), for |v| < 2⁵², as
/// `f64::round` but without a call into libm (x86-64's baseline has no
/// rounding instruction) and without a branch: `v` truncated, one step
/// further from zero where the part cut off is a half or more (both the
/// truncation and that part are exact below 2⁵²).
fn nearest(v: f64) -> i64 {
    let t = v as i64;
    let cut = v - t as f64;
    t + i64::from(cut >= 0.5) - i64::from(cut <= -0.5)
}

/// A number within ±1 as a normalised short (read back as max(q / 32 767,
/// -1)).
fn short(x: f32) -> i16 {
    nearest(f64::from(x) * 32767.0) as i16
}

/// A number within ±1 as a normalised signed byte (read back as max(q /
/// 127, -1)).
fn byte(x: f32) -> i8 {
    nearest(f64::from(x) * 127.0) as i8
}

/// A number in [0, 1] as a normalised unsigned short.
fn ushort(x: f32) -> u16 {
    nearest(f64::from(x) * 65535.0) as u16
}

/// Quantises every vertex set's attributes (see the module's
/// documentation); returns whether any needs KHR_mesh_quantization.
/// With `skins` false, skinned meshes keep f32 positions: Blender's
/// importer guesses the bind pose from the inverse bind matrices, and a grid
/// folded into them moves its bones far away.
pub(super) fn meshes(work: &mut Work<'_, '_>, sets: &[VertexSet], skins: bool) -> bool {
    let mut extension = false;
    let mut grids: HashMap<usize, Grid> = HashMap::default();
    let skinned: crate::hash::HashSet<usize> = work
        .root
        .nodes
        .iter()
        .filter(|n| n.skin.is_some())
        .filter_map(|n| n.mesh.map(|m| m.value()))
        .collect();
    for set in sets {
        let (elements, accessors) = (&work.elements, &work.root.accessors);
        let made = crate::par::map(&set.places, &|&(_, a)| elements[a].len(), &|&(place, a)| {
            attribute(place, &accessors[a], &elements[a])
        });
        for (&(_, a), q) in set.places.iter().zip(made) {
            if let Some(q) = q {
                let count = work.root.accessors[a].count.0 as usize;
                work.rewrite(a, q.bytes, count, q.component, true);
                extension |= q.extension;
            }
        }
        // Positions: only where each mesh of the set is this one primitive
        // (the grid is undone by the mesh's node).
        let single = set.primitives.iter().all(|&(m, _)| {
            work.root.meshes[m].primitives.len() == 1 && (skins || !skinned.contains(&m))
        });
        if single && let Some(grid) = positions(work, set) {
            extension = true;
            for &(m, _) in &set.primitives {
                grids.insert(m, grid);
            }
        }
    }
    undo_grids(work, &grids);
    extension
}

/// An accessor's new elements (normalised integers): their bytes,
/// component type and whether they need the extension.
struct Quantized {
    bytes: Vec<u8>,
    component: ComponentType,
    extension: bool,
}

/// An attribute accessor's elements quantised, where its numbers allow.
fn attribute(place: Place, acc: &json::Accessor, elements: &[u8]) -> Option<Quantized> {
    if layout(acc).0 != ComponentType::F32 {
        return None;
    }
    // (Read where needed, not copied: this runs on every vertex number.)
    let values = || {
        elements
            .as_chunks::<4>()
            .0
            .iter()
            .map(|&b| f32::from_le_bytes(b))
    };
    let within = |lo: f32, hi: f32| values().all(|x| (lo..=hi).contains(&x));
    let made = |bytes, component, extension| {
        Some(Quantized {
            bytes,
            component,
            extension,
        })
    };
    let shorts = || {
        let bytes = concat(values().map(|x| short(x).to_le_bytes()));
        made(bytes, ComponentType::I16, true)
    };
    let bytes = || {
        let bytes = values().map(|x| byte(x) as u8).collect();
        made(bytes, ComponentType::I8, true)
    };
    match place {
        Place::Attribute(Attribute::Normal | Attribute::Tangent) if within(-1.0, 1.0) => bytes(),
        Place::Attribute(Attribute::TexCoord(_) | Attribute::Color(_)) if within(0.0, 1.0) => {
            let bytes = concat(values().map(|x| ushort(x).to_le_bytes()));
            made(bytes, ComponentType::U16, false)
        }
        Place::Attribute(Attribute::TexCoord(_)) if within(-1.0, 1.0) => shorts(),
        Place::Attribute(Attribute::Weights(_))
            if within(0.0, 1.0) && acc.type_ == Checked::Valid(Type::Vec4) =>
        {
            let w: Vec<f32> = values().collect();
            let bytes = concat(w.chunks_exact(4).flat_map(weights).map(u16::to_le_bytes));
            made(bytes, ComponentType::U16, false)
        }
        Place::Target(_, Attribute::Normal | Attribute::Tangent) if within(-1.0, 1.0) => bytes(),
        Place::Target(_, Attribute::TexCoord(_)) if within(-1.0, 1.0) => shorts(),
        _ => None,
    }
}

/// A vertex's joint weights as normalised unsigned shorts that sum to
/// 65 535 where the weights sum to 1: the largest takes what the rounding
/// of the others left.
fn weights(w: &[f32]) -> [u16; 4] {
    let mut q = [ushort(w[0]), ushort(w[1]), ushort(w[2]), ushort(w[3])];
    let sum: f32 = w.iter().sum();
    if (sum - 1.0).abs() <= 1e-3 {
        let largest = (0..4).fold(0, |b, i| if w[i] > w[b] { i } else { b });
        let others: i64 = (0..4)
            .filter(|&i| i != largest)
            .map(|i| i64::from(q[i]))
            .sum();
        q[largest] = (65535 - others).clamp(0, 65535) as u16;
    }
    q
}

/// A set's positions and position displacements on its grid (see the
/// module's documentation); `None` where they are not all f32 triples.
fn positions(work: &mut Work<'_, '_>, set: &VertexSet) -> Option<Grid> {
    let of = |want: fn(Place) -> bool| -> Vec<usize> {
        set.places
            .iter()
            .filter(|&&(p, _)| want(p))
            .map(|&(_, a)| a)
            .collect()
    };
    let base = of(|p| p == Place::Attribute(Attribute::Position));
    let targets = of(|p| matches!(p, Place::Target(_, Attribute::Position)));
    let all_f32 = base.iter().chain(&targets).all(|&a| {
        let acc = &work.root.accessors[a];
        layout(acc) == (ComponentType::F32, 3)
    });
    let &[base] = base.as_slice() else {
        return None;
    };
    if !all_f32 {
        return None;
    }
    let points = floats(&work.elements[base]);
    let (lo, hi) = super::super::buffers::bounds::<3>(&points);
    let centre: [f32; 3] = std::array::from_fn(|k| lo[k] + (hi[k] - lo[k]) / 2.0);
    let half = (0..3)
        .map(|k| f64::from(hi[k] - lo[k]) / 2.0)
        .fold(0.0, f64::max);
    let moved = targets
        .iter()
        .flat_map(|&a| work.elements[a].as_chunks::<4>().0)
        .map(|&b| f32::from_le_bytes(b).abs())
        .fold(0.0f32, f32::max);
    let moved = f64::from(moved);
    let reach = half.max(moved);
    if !reach.is_finite() || points.iter().any(|x| !x.is_finite()) {
        return None;
    }
    // The step, as an f32 no less than reach / 32 767 (so that every
    // integer fits).
    let mut step = (reach / GRID_HALF) as f32;
    if f64::from(step) * GRID_HALF < reach {
        step = f32::from_bits(step.to_bits() + 1);
    }
    if step == 0.0 || !step.is_normal() {
        step = 1.0;
    }
    let grid = Grid { centre, step };
    // (Times the step's inverse: a division per number cost more than the
    // rest of this pass; the quotient moves by an ulp at most.)
    let per = 1.0 / f64::from(step);
    let on_grid = |x: f64| nearest((x * per).clamp(-GRID_HALF, GRID_HALF)) as i16;
    let count = work.root.accessors[base].count.0 as usize;
    let q = concat(points.chunks_exact(3).map(|p| {
        let q: [i16; 3] = std::array::from_fn(|k| on_grid(f64::from(p[k]) - f64::from(centre[k])));
        let b = q.map(i16::to_le_bytes);
        [b[0][0], b[0][1], b[1][0], b[1][1], b[2][0], b[2][1]]
    }));
    work.rewrite(base, q, count, ComponentType::I16, false);
    let elements = &work.elements;
    let made = crate::par::map(&targets, &|&a| elements[a].len(), &|&a| {
        let d = elements[a].as_chunks::<4>().0;
        concat(
            d.iter()
                .map(|&b| on_grid(f64::from(f32::from_le_bytes(b))).to_le_bytes()),
        )
    });
    for (a, q) in targets.into_iter().zip(made) {
        work.rewrite(a, q, count, ComponentType::I16, false);
    }
    Some(grid)
}

/// The output of each rotation channel (LINEAR or STEP, a node's, used by
/// no other channel) as normalised 16-bit integers, within
/// [`ROTATION_ROUNDING`].
pub(super) fn rotations(work: &mut Work<'_, '_>) {
    let root = &*work.root;
    // Outputs by how many channels read them, and how many of those are
    // rotations that may be rounded.
    let mut uses: HashMap<usize, (usize, usize)> = HashMap::default();
    let pointers: crate::hash::HashSet<(usize, usize)> =
        work.pointers.iter().map(|&(a, c, _)| (a, c)).collect();
    for (ai, a) in root.animations.iter().enumerate() {
        for (ci, c) in a.channels.iter().enumerate() {
            let s = &a.samplers[c.sampler.value()];
            let pointer = pointers.contains(&(ai, ci));
            let straight = matches!(
                s.interpolation,
                Checked::Valid(
                    json::animation::Interpolation::Linear | json::animation::Interpolation::Step
                )
            );
            let rotation = !pointer && c.target.path == Checked::Valid(Property::Rotation);
            let u = uses.entry(s.output.value()).or_default();
            u.0 += 1;
            u.1 += usize::from(rotation && straight);
        }
    }
    let mut outputs: Vec<usize> = uses
        .into_iter()
        .filter(|&(_, (all, rounded))| all == rounded)
        .map(|(a, _)| a)
        .collect();
    outputs.sort_unstable();
    for a in outputs {
        if layout(&work.root.accessors[a]) != (ComponentType::F32, 4) {
            continue;
        }
        let q = work.elements[a].as_chunks::<4>().0;
        let values = q.iter().map(|&b| f32::from_le_bytes(b));
        // (A unit quaternion's component may be 1 + an f32 step.)
        if !values.clone().all(|x| x.abs() <= 1.0 + 1e-6) {
            continue;
        }
        let bytes = concat(values.map(|x| short(x.clamp(-1.0, 1.0)).to_le_bytes()));
        let count = work.root.accessors[a].count.0 as usize;
        work.rewrite(a, bytes, count, ComponentType::I16, true);
    }
}

/// Undoes each mesh's grid where it is drawn: by the node that shows it,
/// by a node of its own under that one, or by its skin.
fn undo_grids(work: &mut Work<'_, '_>, grids: &HashMap<usize, Grid>) {
    let root = &mut *work.root;
    // Nodes whose transform a channel moves.
    // (A KHR_animation_pointer channel's node target is a stand-in.)
    let mut moving = vec![false; root.nodes.len()];
    for (ai, a) in root.animations.iter().enumerate() {
        for (ci, c) in a.channels.iter().enumerate() {
            let pointer = work
                .pointers
                .iter()
                .any(|&(pa, pc, _)| (pa, pc) == (ai, ci));
            let weights = c.target.path == Checked::Valid(Property::MorphTargetWeights);
            if !pointer && !weights {
                moving[c.target.node.value()] = true;
            }
        }
    }
    // Skins, by the grid their matrices were given.
    let mut skins: HashMap<usize, Vec<(Grid, usize)>> = HashMap::default();
    for (n, &moves) in moving.iter().enumerate() {
        let Some(&grid) = root.nodes[n].mesh.and_then(|m| grids.get(&m.value())) else {
            continue;
        };
        if let Some(skin) = root.nodes[n].skin {
            let made = skins.entry(skin.value()).or_default();
            let own = match made.iter().find(|(g, _)| *g == grid) {
                Some(&(_, s)) => s,
                None => {
                    let s = match made.is_empty() {
                        true => skin.value(),
                        false => {
                            let copy = root.skins[skin.value()].clone();
                            root.skins.push(copy);
                            root.skins.len() - 1
                        }
                    };
                    made.push((grid, s));
                    s
                }
            };
            root.nodes[n].skin = Some(json::Index::new(own as u32));
            continue;
        }
        let node = &root.nodes[n];
        // The grid's scale may go on the node itself only where it scales
        // nothing else: no transform, no channel, no children, no camera
        // and no light.
        let light = node
            .extensions
            .as_ref()
            .is_some_and(|e| e.khr_lights_punctual.is_some());
        // Nor where the X3D named the node: its transform is what the X3D
        // said.
        let bare = node.name.is_none()
            && node.translation.is_none()
            && node.rotation.is_none()
            && node.scale.is_none()
            && node.matrix.is_none()
            && node.children.as_ref().is_none_or(Vec::is_empty)
            && node.camera.is_none()
            && !light
            && !moves;
        let held = match bare {
            true => n,
            false => {
                // The mesh (and its weights) on a node of its own.
                let mut child = super::super::nodes::node(None);
                child.mesh = root.nodes[n].mesh.take();
                child.weights = root.nodes[n].weights.take();
                let c = root.push(child);
                root.nodes[n].children.get_or_insert_default().push(c);
                for ch in root.animations.iter_mut().flat_map(|a| &mut a.channels) {
                    if ch.target.node.value() == n
                        && ch.target.path == Checked::Valid(Property::MorphTargetWeights)
                    {
                        ch.target.node = c;
                    }
                }
                c.value()
            }
        };
        root.nodes[held].translation = Some(grid.centre);
        root.nodes[held].scale = Some([grid.step; 3]);
    }
    let skins: Vec<(Grid, usize)> = skins.into_values().flatten().collect();
    let mut skins = skins;
    skins.sort_by_key(|&(_, s)| s);
    for (grid, s) in skins {
        bind_on_grid(work, s, grid);
    }
}

/// Skin `s`'s inverse bind matrices followed by the grid's dequantisation
/// (IBMⱼ · T(c) · S(s)), in an accessor of their own.
fn bind_on_grid(work: &mut Work<'_, '_>, s: usize, grid: Grid) {
    let joints = work.root.skins[s].joints.len();
    let matrices: Vec<glam::Mat4> = match work.root.skins[s].inverse_bind_matrices {
        Some(a) => floats(&work.elements[a.value()])
            .chunks_exact(16)
            .map(glam::Mat4::from_cols_slice)
            .collect(),
        None => vec![glam::Mat4::IDENTITY; joints],
    };
    let undo = glam::Mat4::from_scale_rotation_translation(
        glam::Vec3::splat(grid.step),
        glam::Quat::IDENTITY,
        glam::Vec3::from(grid.centre),
    );
    let bytes: Vec<u8> = matrices
        .iter()
        .flat_map(|m| (*m * undo).to_cols_array())
        .flat_map(f32::to_le_bytes)
        .collect();
    let a = match work.root.skins[s].inverse_bind_matrices {
        Some(a) => work.copy(a.value()),
        None => {
            work.root.accessors.push(json::Accessor {
                buffer_view: None,
                byte_offset: None,
                count: json::validation::USize64(joints as u64),
                component_type: Checked::Valid(json::accessor::GenericComponentType(
                    ComponentType::F32,
                )),
                extensions: None,
                extras: None,
                type_: Checked::Valid(Type::Mat4),
                min: None,
                max: None,
                name: None,
                normalized: false,
                sparse: None,
            });
            work.elements.push(Cow::Borrowed(&[]));
            work.root.accessors.len() - 1
        }
    };
    work.rewrite(a, bytes, joints, ComponentType::F32, false);
    work.root.skins[s].inverse_bind_matrices = Some(json::Index::new(a as u32));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grid goes on a node that holds the mesh only where it scales
    /// nothing else: a node with children, a camera or a transform gives
    /// its mesh a node of its own under it (with the grid), and keeps its
    /// own place.
    #[test]
    fn the_grid_scales_nothing_but_its_mesh() {
        let mut root = json::Root::default();
        let node = crate::write::gltf::nodes::node;
        let mut bare = node(None);
        bare.mesh = Some(json::Index::new(0));
        let mut parent = node(None);
        parent.mesh = Some(json::Index::new(0));
        parent.children = Some(vec![json::Index::new(0)]);
        let mut placed = node(None);
        placed.mesh = Some(json::Index::new(0));
        placed.translation = Some([1.0, 2.0, 3.0]);
        let mut camera = node(None);
        camera.mesh = Some(json::Index::new(0));
        camera.camera = Some(json::Index::new(0));
        for n in [bare, parent, placed, camera] {
            root.push(n);
        }
        let (mut morph_uvs, pointers) = (Vec::new(), Vec::new());
        let mut work = Work {
            root: &mut root,
            elements: Vec::new(),
            morph_uvs: &mut morph_uvs,
            pointers: &pointers,
            unbounded: Vec::new(),
        };
        let grid = Grid {
            centre: [0.5, 0.0, -0.5],
            step: 0.25,
        };
        let grids: HashMap<usize, Grid> = [(0, grid)].into_iter().collect();
        undo_grids(&mut work, &grids);
        let nodes = &root.nodes;
        assert_eq!(nodes.len(), 7, "a node of its own for three of them");
        assert_eq!(nodes[0].scale, Some([0.25; 3]));
        assert_eq!(nodes[0].translation, Some([0.5, 0.0, -0.5]));
        for (n, own) in [(1usize, 4usize), (2, 5), (3, 6)] {
            assert_eq!(nodes[n].mesh, None, "node {n}");
            assert_eq!(nodes[n].scale, None, "node {n}");
            assert!(
                nodes[n]
                    .children
                    .as_ref()
                    .unwrap()
                    .contains(&json::Index::new(own as u32))
            );
            assert_eq!(nodes[own].mesh, Some(json::Index::new(0)));
            assert_eq!(nodes[own].scale, Some([0.25; 3]));
        }
        assert_eq!(nodes[2].translation, Some([1.0, 2.0, 3.0]));
    }

    /// `nearest` is `round` wherever this pass rounds: f32s times the
    /// largest scale, and quotients up to the grid's half.
    #[test]
    fn nearest_rounds_as_round() {
        let mut x = 0x1234_5678_u32;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let f = f32::from_bits(x % 0x3f80_0000) * if x & 1 == 0 { 1.0 } else { -1.0 };
            let v = f64::from(f) * 65535.0;
            assert_eq!(nearest(v), v.round() as i64, "{f}");
            let q = f64::from(f) * GRID_HALF;
            assert_eq!(nearest(q), q.round() as i64, "{f}");
        }
        let below_half = 0.49999999999999994;
        let largest = 4503599627370495.5; // 2⁵² - ½
        for v in [
            0.5,
            -0.5,
            1.5,
            -2.5,
            below_half,
            -below_half,
            8190.5,
            largest,
            -largest,
        ] {
            assert_eq!(nearest(v), v.round() as i64, "{v}");
        }
    }

    /// A vertex's weights still sum to one exactly; each within the
    /// rounding but the largest, which takes the rest.
    #[test]
    fn weights_sum_to_one_after_rounding() {
        for w in [
            [0.3333333, 0.3333333, 0.3333334, 0.0],
            [0.1, 0.2, 0.3, 0.4],
            [1.0, 0.0, 0.0, 0.0],
        ] {
            let q = weights(&w);
            assert_eq!(q.iter().map(|&x| u32::from(x)).sum::<u32>(), 65535, "{w:?}");
            for k in 0..4 {
                let back = f32::from(q[k]) / 65535.0;
                assert!((back - w[k]).abs() <= 4.0 * USHORT_ERROR, "{w:?}: {q:?}");
            }
        }
    }
}
