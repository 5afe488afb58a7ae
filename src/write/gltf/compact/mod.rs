//! `--compress`: the finished document made compact before meshoptimizer
//! encodes it, every channel kept:
//!
//! 1. each mesh's vertices welded (vertices equal in every attribute and
//!    morph target are one) and put in the order its triangles first use
//!    them, the triangles in the order a vertex cache draws best
//!    (`vertices`);
//! 2. attributes quantised (KHR_mesh_quantization), each within a stated
//!    rounding; positions on a grid whose step and origin the mesh's node
//!    (or a skin's inverse bind matrices) undoes; rotation keys where the
//!    fits left room for their rounding (`quantize`);
//! 3. the accessors packed into one buffer view for each kind of stream
//!    (`pack`), and those views encoded by EXT_meshopt_compression
//!    (`meshopt`).
//!
//! A document that does not get smaller is left as it was.

mod pack;
mod quantize;
mod vertices;

pub use quantize::{
    BYTE_ERROR, POSITION_SHARE, ROTATION_ROUNDING, SHORT_ERROR, USHORT_ERROR, rounds_rotations,
};

use super::Document;
use super::meshopt;
use gltf_json as json;
use json::accessor::ComponentType;
use json::mesh::Semantic;
use json::validation::{Checked, USize64};
use std::borrow::Cow;

/// The bytes of each accessor's elements, one after the other (no stride),
/// by accessor index; empty for an accessor that has no buffer view.
/// Borrowed from the document's buffer where they lie there so, until a
/// pass rewrites them.
type Elements<'b> = Vec<Cow<'b, [u8]>>;

/// Where a primitive names a vertex accessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Place {
    /// An attribute.
    Attribute(Attribute),
    /// Morph target `0`'s displacement of an attribute.
    Target(usize, Attribute),
}

/// The attributes this pass knows (others are kept as they are).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Attribute {
    Position,
    Normal,
    Tangent,
    TexCoord(u32),
    Color(u32),
    Joints(u32),
    Weights(u32),
}

impl Attribute {
    fn of(s: &Checked<Semantic>) -> Option<Attribute> {
        Some(match s {
            Checked::Valid(Semantic::Positions) => Attribute::Position,
            Checked::Valid(Semantic::Normals) => Attribute::Normal,
            Checked::Valid(Semantic::Tangents) => Attribute::Tangent,
            Checked::Valid(Semantic::TexCoords(n)) => Attribute::TexCoord(*n),
            Checked::Valid(Semantic::Colors(n)) => Attribute::Color(*n),
            Checked::Valid(Semantic::Joints(n)) => Attribute::Joints(*n),
            Checked::Valid(Semantic::Weights(n)) => Attribute::Weights(*n),
            _ => return None,
        })
    }

    fn semantic(self) -> Checked<Semantic> {
        Checked::Valid(match self {
            Attribute::Position => Semantic::Positions,
            Attribute::Normal => Semantic::Normals,
            Attribute::Tangent => Semantic::Tangents,
            Attribute::TexCoord(n) => Semantic::TexCoords(n),
            Attribute::Color(n) => Semantic::Colors(n),
            Attribute::Joints(n) => Semantic::Joints(n),
            Attribute::Weights(n) => Semantic::Weights(n),
        })
    }
}

/// The document being made compact: its JSON, the elements of each
/// accessor, and the morph targets' texture coordinates gltf-json does not
/// hold.
struct Work<'d, 'b> {
    root: &'d mut json::Root,
    elements: Elements<'b>,
    morph_uvs: &'d mut Vec<(usize, usize, usize)>,
    /// The KHR_animation_pointer channels (animation, channel, pointer).
    pointers: &'d [(usize, usize, String)],
    /// Accessors given new elements whose bounds are to be recomputed
    /// ([`Work::bound`]).
    unbounded: Vec<usize>,
}

impl<'b> Work<'_, 'b> {
    /// The vertex accessors of primitive `p` of mesh `m`, by place, in a
    /// fixed order.
    fn places(&self, m: usize, p: usize) -> Vec<(Place, usize)> {
        let prim = &self.root.meshes[m].primitives[p];
        let mut out: Vec<(Place, usize)> = prim
            .attributes
            .iter()
            .filter_map(|(s, a)| Some((Place::Attribute(Attribute::of(s)?), a.value())))
            .collect();
        for (t, target) in prim.targets.iter().flatten().enumerate() {
            let each = [
                (Attribute::Position, target.positions),
                (Attribute::Normal, target.normals),
                (Attribute::Tangent, target.tangents),
            ];
            for (a, i) in each {
                if let Some(i) = i {
                    out.push((Place::Target(t, a), i.value()));
                }
            }
        }
        if p == 0 {
            for &(mm, t, a) in self.morph_uvs.iter() {
                if mm == m {
                    out.push((Place::Target(t, Attribute::TexCoord(0)), a));
                }
            }
        }
        out.sort();
        out
    }

    /// Names accessor `a` at `place` of primitive `p` of mesh `m`.
    fn set(&mut self, m: usize, p: usize, place: Place, a: usize) {
        let index = json::Index::new(a as u32);
        let prim = &mut self.root.meshes[m].primitives[p];
        match place {
            Place::Attribute(attr) => {
                prim.attributes.insert(attr.semantic(), index);
            }
            Place::Target(t, Attribute::TexCoord(0)) => {
                for entry in self.morph_uvs.iter_mut() {
                    if entry.0 == m && entry.1 == t {
                        entry.2 = a;
                    }
                }
            }
            Place::Target(t, attr) => {
                let target = &mut prim.targets.as_mut().expect("a target named")[t];
                let slot = match attr {
                    Attribute::Position => &mut target.positions,
                    Attribute::Normal => &mut target.normals,
                    _ => &mut target.tangents,
                };
                *slot = Some(index);
            }
        }
    }

    /// A new accessor like `a` (its elements to be given).
    fn copy(&mut self, a: usize) -> usize {
        let copy = self.root.accessors[a].clone();
        self.root.accessors.push(copy);
        self.elements.push(Cow::Borrowed(&[]));
        self.root.accessors.len() - 1
    }

    /// Gives accessor `a` new elements of `component` (normalised or not),
    /// `count` of them, its bounds to be recomputed where it had them
    /// (once, by [`Work::bound`], after the last pass that rewrites it).
    fn rewrite(
        &mut self,
        a: usize,
        bytes: impl Into<Cow<'b, [u8]>>,
        count: usize,
        component: ComponentType,
        normalized: bool,
    ) {
        let acc = &mut self.root.accessors[a];
        acc.count = USize64(count as u64);
        acc.component_type = Checked::Valid(json::accessor::GenericComponentType(component));
        acc.normalized = normalized;
        if acc.min.is_some() {
            self.unbounded.push(a);
        }
        self.elements[a] = bytes.into();
    }

    /// Recomputes the bounds of the accessors given new elements, on this
    /// thread's share of the cores.
    fn bound(&mut self) {
        let mut list = std::mem::take(&mut self.unbounded);
        list.sort_unstable();
        list.dedup();
        let (elements, accessors) = (&self.elements, &self.root.accessors);
        let made = crate::par::map(&list, &|&a| elements[a].len(), &|&a| {
            bounds(&accessors[a], &elements[a])
        });
        for (a, (lo, hi)) in list.into_iter().zip(made) {
            let acc = &mut self.root.accessors[a];
            if acc.min.is_some() {
                acc.min = Some(lo);
                acc.max = Some(hi);
            }
        }
    }
}

/// Components of an accessor: (component type, number of components).
fn layout(a: &json::Accessor) -> (ComponentType, usize) {
    let c = match a.component_type {
        Checked::Valid(c) => c.0,
        Checked::Invalid => ComponentType::F32,
    };
    let n = match a.type_ {
        Checked::Valid(t) => t.multiplicity(),
        Checked::Invalid => 1,
    };
    (c, n)
}

/// The size of an accessor's element, tight.
fn element_size(a: &json::Accessor) -> usize {
    let (c, n) = layout(a);
    c.size() * n
}

/// Items of `N` bytes laid end to end: the buffer made once, at the size
/// the items say, and each written whole into it (pushing them one by one
/// was most of this pass's time).
fn concat<const N: usize>(mut items: impl Iterator<Item = [u8; N]>) -> Vec<u8> {
    let mut out = vec![0u8; items.size_hint().0 * N];
    let mut filled = 0;
    for (to, item) in out.as_chunks_mut::<N>().0.iter_mut().zip(&mut items) {
        *to = item;
        filled += 1;
    }
    out.truncate(filled * N);
    for item in items {
        out.extend_from_slice(&item);
    }
    out
}

/// The f32 components of elements.
fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// The least and greatest of each component of an accessor's elements, as
/// glTF writes them (integers as integers).
fn bounds(a: &json::Accessor, bytes: &[u8]) -> (serde_json::Value, serde_json::Value) {
    let (c, n) = layout(a);
    let (lo, hi) = match c {
        ComponentType::F32 => extremes(bytes, n, |b: [u8; 4]| f64::from(f32::from_le_bytes(b))),
        ComponentType::I8 => int_extremes(bytes, n, |b: [u8; 1]| b[0] as i8),
        ComponentType::U8 => int_extremes(bytes, n, |b: [u8; 1]| b[0]),
        ComponentType::I16 => int_extremes(bytes, n, i16::from_le_bytes),
        ComponentType::U16 => int_extremes(bytes, n, u16::from_le_bytes),
        ComponentType::U32 => int_extremes(bytes, n, u32::from_le_bytes),
    };
    let json = |v: Vec<f64>| -> serde_json::Value {
        match c {
            ComponentType::F32 => {
                serde_json::json!(v.iter().map(|&x| x as f32).collect::<Vec<_>>())
            }
            _ => serde_json::json!(v.iter().map(|&x| x as i64).collect::<Vec<_>>()),
        }
    };
    (json(lo), json(hi))
}

/// The least and greatest of each of the `n` components of elements whose
/// components are `S` bytes, each read as a number by `read` (a NaN is
/// passed over).
fn extremes<const S: usize>(
    bytes: &[u8],
    n: usize,
    read: impl Fn([u8; S]) -> f64,
) -> (Vec<f64>, Vec<f64>) {
    let (mut lo, mut hi) = (vec![f64::INFINITY; n], vec![f64::NEG_INFINITY; n]);
    for e in bytes.as_chunks::<S>().0.chunks_exact(n) {
        for ((lo, hi), &b) in lo.iter_mut().zip(&mut hi).zip(e) {
            let x = read(b);
            *lo = lo.min(x);
            *hi = hi.max(x);
        }
    }
    (lo, hi)
}

/// [`extremes`] of integers: the same numbers (integers' least and
/// greatest are exact, in any order), found in lanes of sixteen elements
/// that the compiler turns into vector instructions (the bounds of
/// `--compress`'s quantized morph targets took 0.9 ms of CPU one by one).
fn int_extremes<T, const S: usize>(
    bytes: &[u8],
    n: usize,
    read: impl Fn([u8; S]) -> T,
) -> (Vec<f64>, Vec<f64>)
where
    T: Copy + Ord + Into<f64>,
{
    const LANES: usize = 16;
    let items = bytes.as_chunks::<S>().0;
    // Whole elements only, as `extremes` takes them.
    let items = &items[..items.len() / n * n];
    if items.is_empty() {
        return (vec![f64::INFINITY; n], vec![f64::NEG_INFINITY; n]);
    }
    let width = n * LANES;
    // Each lane starts from the first element's component.
    let mut lo: Vec<T> = (0..width).map(|j| read(items[j % n])).collect();
    let mut hi = lo.clone();
    let mut fold = |block: &[[u8; S]]| {
        for ((lo, hi), &b) in lo.iter_mut().zip(hi.iter_mut()).zip(block) {
            let x = read(b);
            *lo = (*lo).min(x);
            *hi = (*hi).max(x);
        }
    };
    let mut blocks = items.chunks_exact(width);
    blocks.by_ref().for_each(&mut fold);
    fold(blocks.remainder());
    // (Lane j holds component j % n.)
    let component = |lanes: &[T], c: usize, pick: fn(T, T) -> T| {
        let each = lanes[c..].iter().step_by(n).copied();
        each.fold(lanes[c], pick).into()
    };
    (
        (0..n).map(|c| component(&lo, c, Ord::min)).collect(),
        (0..n).map(|c| component(&hi, c, Ord::max)).collect(),
    )
}

/// Each accessor's elements read from the buffer (a stride undone).
fn read<'b>(root: &json::Root, bin: &'b [u8]) -> Elements<'b> {
    root.accessors
        .iter()
        .map(|a| {
            let Some(view) = a.buffer_view else {
                return Cow::Borrowed(&[][..]);
            };
            let v = &root.buffer_views[view.value()];
            let size = element_size(a);
            let stride = v.byte_stride.map_or(size, |s| s.0);
            let start = v.byte_offset.map_or(0, |o| o.0 as usize)
                + a.byte_offset.map_or(0, |o| o.0 as usize);
            let count = a.count.0 as usize;
            if stride == size {
                return Cow::Borrowed(&bin[start..start + count * size]);
            }
            let mut out = Vec::with_capacity(count * size);
            for e in 0..count {
                out.extend_from_slice(&bin[start + e * stride..][..size]);
            }
            Cow::Owned(out)
        })
        .collect()
}

/// Names each accessor the document names by `to` of it.
fn renumber(
    root: &mut json::Root,
    morph_uvs: &mut [(usize, usize, usize)],
    mut to: impl FnMut(usize) -> usize,
) {
    let mut to = |i: &mut json::Index<json::Accessor>| *i = json::Index::new(to(i.value()) as u32);
    for p in root.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
        p.attributes.values_mut().for_each(&mut to);
        p.indices.iter_mut().for_each(&mut to);
        for t in p.targets.iter_mut().flatten() {
            [&mut t.positions, &mut t.normals, &mut t.tangents]
                .into_iter()
                .flatten()
                .for_each(&mut to);
        }
    }
    for s in root.animations.iter_mut().flat_map(|a| &mut a.samplers) {
        to(&mut s.input);
        to(&mut s.output);
    }
    root.skins
        .iter_mut()
        .filter_map(|s| s.inverse_bind_matrices.as_mut())
        .for_each(&mut to);
    for entry in morph_uvs.iter_mut() {
        let mut i = json::Index::new(entry.2 as u32);
        to(&mut i);
        entry.2 = i.value();
    }
}

/// Drops the accessors nothing names (and their elements, if given) and
/// numbers the rest again, in their order.
fn prune(
    root: &mut json::Root,
    morph_uvs: &mut [(usize, usize, usize)],
    elements: Option<&mut Elements>,
) {
    let mut used = vec![false; root.accessors.len()];
    renumber(root, morph_uvs, |i| {
        used[i] = true;
        i
    });
    let mut new = vec![0usize; used.len()];
    let mut next = 0;
    for (i, &u) in used.iter().enumerate() {
        new[i] = next;
        next += usize::from(u);
    }
    renumber(root, morph_uvs, |i| new[i]);
    let mut keep = used.iter();
    root.accessors
        .retain(|_| *keep.next().expect("one flag an accessor"));
    if let Some(elements) = elements {
        let mut keep = used.iter();
        elements.retain(|_| *keep.next().expect("one flag an accessor"));
    }
}

/// Accessors the same in every field (packed onto the same bytes) made
/// one.
fn merge_equal(root: &mut json::Root, morph_uvs: &mut [(usize, usize, usize)]) {
    let mut first: crate::hash::HashMap<String, usize> = Default::default();
    let same: Vec<usize> = root
        .accessors
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let text = serde_json::to_string(a).expect("an accessor serialises");
            *first.entry(text).or_insert(i)
        })
        .collect();
    renumber(root, morph_uvs, |i| same[i]);
    prune(root, morph_uvs, None);
}

impl Document {
    /// Makes the document compact (see the module's documentation); one
    /// that does not get smaller is left as it was. (The buffer is all in
    /// memory: `build` never spills one to compress.)
    /// With `rotations`, rotation keys too (as normalised 16-bit
    /// integers: the fits left room for it, see [`rounds_rotations`]).
    pub(super) fn compress(&mut self, rotations: bool, meshopt: bool) {
        debug_assert!(self.spilled.is_none());
        if self.root.buffer_views.is_empty() {
            return;
        }
        let before = self.json().len() + self.buffer_len();
        let (root, morph_uvs, extended) =
            (self.root.clone(), self.morph_uvs.clone(), self.extended);
        // (A document just made holds its buffer in one piece: moved.)
        let bin = match std::mem::take(&mut self.bin) {
            mut one if one.len() == 1 => one.pop().expect("one piece"),
            pieces => pieces.concat(),
        };
        let mut work = Work {
            elements: read(&self.root, &bin),
            root: &mut self.root,
            morph_uvs: &mut self.morph_uvs,
            pointers: &self.pointers,
            unbounded: Vec::new(),
        };
        let meshes = vertices::weld_and_order(&mut work);
        let quantized = quantize::meshes(&mut work, &meshes, meshopt);
        if rotations {
            // (glTF itself takes normalised integers for rotations.)
            quantize::rotations(&mut work);
        }
        work.bound();
        prune(work.root, work.morph_uvs, Some(&mut work.elements));
        let elements = std::mem::take(&mut work.elements);
        let uvs: Vec<usize> = self.morph_uvs.iter().map(|&(_, _, a)| a).collect();
        let (packed, streams) = pack::pack(&mut self.root, elements, &bin, &uvs);
        merge_equal(&mut self.root, &mut self.morph_uvs);
        let len = packed.len();
        let encoded = match meshopt {
            true => meshopt::encode_views(&mut self.root, &streams, len, packed),
            false => Err(packed),
        };
        let compressed = encoded.is_ok();
        self.bin = encoded.unwrap_or_else(|packed| {
            let bytes = packed.bytes();
            self.root.buffers[0].byte_length = json::validation::USize64(bytes.len() as u64);
            vec![bytes]
        });
        self.extended |= compressed;
        let mut required = Vec::new();
        if compressed {
            required.push(meshopt::EXTENSION);
        }
        if quantized {
            required.push(quantize::EXTENSION);
        }
        for name in required {
            for list in [
                &mut self.root.extensions_used,
                &mut self.root.extensions_required,
            ] {
                if !list.iter().any(|e| e == name) {
                    list.push(name.to_string());
                    list.sort();
                }
            }
        }
        let text = self.json();
        if text.len() + self.buffer_len() < before {
            self.text = Some(text);
            // (What the document was is freed beside the writing.)
            crate::par::drop_aside((bin, root, morph_uvs));
        } else {
            // Nothing smaller: the document as it was.
            self.root = root;
            self.morph_uvs = morph_uvs;
            self.bin = vec![bin];
            self.extended = extended;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{extremes, int_extremes};

    /// Integers' bounds in lanes are the ones read one by one as f64: for
    /// every integer component type, 1 to 5 components, counts about the
    /// lanes' block (none, one, a block, a block and one...), the types'
    /// extremes among the values, and a last element cut short (left out).
    #[test]
    fn integer_bounds_in_lanes_are_those_read_one_by_one() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for n in 1..=5 {
            for count in [
                0,
                1,
                2,
                15,
                16,
                17,
                16 * n - 1,
                16 * n,
                16 * n + 1,
                100 * n + 3,
            ] {
                let mut bytes: Vec<u8> = (0..count * n * 4).map(|_| next() as u8).collect();
                if count > 2 {
                    // The extremes of each type, somewhere.
                    bytes[4..8].copy_from_slice(&[0x80, 0x00, 0x80, 0x00]);
                    bytes[..4].copy_from_slice(&[0x7f, 0xff, 0x7f, 0xff]);
                }
                let one_by_one = |s: usize, b: &[u8]| match s {
                    1 => (
                        extremes(b, n, |x: [u8; 1]| f64::from(x[0] as i8)),
                        extremes(b, n, |x: [u8; 1]| f64::from(x[0])),
                    ),
                    _ => (
                        extremes(b, n, |x| f64::from(i16::from_le_bytes(x))),
                        extremes(b, n, |x| f64::from(u16::from_le_bytes(x))),
                    ),
                };
                for cut in [0, 1] {
                    let b = &bytes[..bytes.len().saturating_sub(cut)];
                    assert_eq!(
                        (
                            int_extremes(b, n, |x: [u8; 1]| x[0] as i8),
                            int_extremes(b, n, |x: [u8; 1]| x[0])
                        ),
                        one_by_one(1, b),
                    );
                    assert_eq!(
                        (
                            int_extremes(b, n, i16::from_le_bytes),
                            int_extremes(b, n, u16::from_le_bytes)
                        ),
                        one_by_one(2, b),
                    );
                    assert_eq!(
                        int_extremes(b, n, u32::from_le_bytes),
                        extremes(b, n, |x| f64::from(u32::from_le_bytes(x))),
                    );
                }
            }
        }
    }
}
