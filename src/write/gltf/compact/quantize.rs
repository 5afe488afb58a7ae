//! Vertex attributes as integers (KHR_mesh_quantization; texture
//! coordinates, colours and weights in [0, 1] as glTF itself allows), each
//! read back within a stated rounding:
//!
//! - positions and their morph displacements: signed 16-bit integers on a
//!   grid of step `s` about the centre `c` of the mesh's box, undone by a
//!   translation `c` and scale `s` on the node that shows the mesh (on a
//!   node of its own under it where the node moves or has a transform), or
//!   for a skinned mesh in its skin's inverse bind matrices; `s` is the
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
use super::{Attribute, Place, Work, floats, layout};
use crate::hash::HashMap;
use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::animation::Property;
use json::validation::Checked;

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

/// A number within ±1 as a normalised short (read back as max(q / 32 767,
/// -1)).
fn short(x: f32) -> i16 {
    (x * 32767.0).round() as i16
}

/// A number within ±1 as a normalised signed byte (read back as max(q /
/// 127, -1)).
fn byte(x: f32) -> i8 {
    (x * 127.0).round() as i8
}

/// A number in [0, 1] as a normalised unsigned short.
fn ushort(x: f32) -> u16 {
    (x * 65535.0).round() as u16
}

/// Quantises every vertex set's attributes (see the module's
/// documentation); returns whether any needs KHR_mesh_quantization.
pub(super) fn meshes(work: &mut Work<'_>, sets: &[VertexSet]) -> bool {
    let mut extension = false;
    let mut grids: HashMap<usize, Grid> = HashMap::default();
    for set in sets {
        for &(place, a) in &set.places {
            extension |= attribute(work, place, a);
        }
        // Positions: only where each mesh of the set is this one primitive
        // (the grid is undone by the mesh's node).
        let single = set
            .primitives
            .iter()
            .all(|&(m, _)| work.root.meshes[m].primitives.len() == 1);
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

/// Quantises one attribute accessor where its numbers allow; whether it
/// needs the extension.
fn attribute(work: &mut Work<'_>, place: Place, a: usize) -> bool {
    let acc = &work.root.accessors[a];
    if layout(acc).0 != ComponentType::F32 {
        return false;
    }
    let ty = acc.type_;
    let values = floats(&work.elements[a]);
    let count = acc.count.0 as usize;
    let within = |lo: f32, hi: f32| values.iter().all(|x| (lo..=hi).contains(x));
    let shorts = |work: &mut Work<'_>| {
        let bytes = values
            .iter()
            .flat_map(|&x| short(x).to_le_bytes())
            .collect();
        work.rewrite(a, bytes, count, ComponentType::I16, true);
        true
    };
    let bytes = |work: &mut Work<'_>| {
        let bytes = values.iter().map(|&x| byte(x) as u8).collect();
        work.rewrite(a, bytes, count, ComponentType::I8, true);
        true
    };
    let ushorts = |work: &mut Work<'_>, values: &[u16]| {
        let bytes = values.iter().flat_map(|x| x.to_le_bytes()).collect();
        work.rewrite(a, bytes, count, ComponentType::U16, true);
        false
    };
    match place {
        Place::Attribute(Attribute::Normal | Attribute::Tangent) if within(-1.0, 1.0) => {
            bytes(work)
        }
        Place::Attribute(Attribute::TexCoord(_) | Attribute::Color(_)) if within(0.0, 1.0) => {
            let q: Vec<u16> = values.iter().map(|&x| ushort(x)).collect();
            ushorts(work, &q)
        }
        Place::Attribute(Attribute::TexCoord(_)) if within(-1.0, 1.0) => shorts(work),
        Place::Attribute(Attribute::Weights(_))
            if within(0.0, 1.0) && ty == Checked::Valid(Type::Vec4) =>
        {
            let q: Vec<u16> = values.chunks_exact(4).flat_map(weights).collect();
            ushorts(work, &q)
        }
        Place::Target(_, Attribute::Normal | Attribute::Tangent) if within(-1.0, 1.0) => {
            bytes(work)
        }
        Place::Target(_, Attribute::TexCoord(_)) if within(-1.0, 1.0) => shorts(work),
        _ => false,
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
fn positions(work: &mut Work<'_>, set: &VertexSet) -> Option<Grid> {
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
        .flat_map(|&a| floats(&work.elements[a]))
        .map(|x| f64::from(x.abs()))
        .fold(0.0, f64::max);
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
    let s = f64::from(step);
    let on_grid = |x: f64| (x / s).round().clamp(-GRID_HALF, GRID_HALF) as i16;
    let count = work.root.accessors[base].count.0 as usize;
    let q: Vec<u8> = points
        .chunks_exact(3)
        .flat_map(|p| {
            (0..3).flat_map(move |k| on_grid(f64::from(p[k]) - f64::from(centre[k])).to_le_bytes())
        })
        .collect();
    work.rewrite(base, q, count, ComponentType::I16, false);
    for a in targets {
        let d = floats(&work.elements[a]);
        let q = d
            .iter()
            .flat_map(|&x| on_grid(f64::from(x)).to_le_bytes())
            .collect();
        work.rewrite(a, q, count, ComponentType::I16, false);
    }
    Some(grid)
}

/// Undoes each mesh's grid where it is drawn: by the node that shows it,
/// by a node of its own under that one, or by its skin.
fn undo_grids(work: &mut Work<'_>, grids: &HashMap<usize, Grid>) {
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
        let bare = node.translation.is_none()
            && node.rotation.is_none()
            && node.scale.is_none()
            && node.matrix.is_none()
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
fn bind_on_grid(work: &mut Work<'_>, s: usize, grid: Grid) {
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
            work.elements.push(Vec::new());
            work.root.accessors.len() - 1
        }
    };
    work.rewrite(a, bytes, joints, ComponentType::F32, false);
    work.root.skins[s].inverse_bind_matrices = Some(json::Index::new(a as u32));
}

#[cfg(test)]
mod tests {
    use super::*;

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
