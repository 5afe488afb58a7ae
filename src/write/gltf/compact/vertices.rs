//! Vertices welded and ordered: the primitives that share their vertex
//! accessors (a mesh and its copies with other triangulations) are one
//! vertex set; in each, vertices equal to the byte in every attribute and
//! every morph target are one, the triangles are ordered for a vertex
//! cache (meshoptimizer's), and the vertices in the order the triangles
//! first use them (a vertex no primitive uses is dropped). Lossless: the
//! same triangles are drawn, each from the same corners' values.

use super::{Attribute, Place, Work, element_size};
use gltf_json as json;
use json::accessor::ComponentType;
use json::validation::Checked;
use std::borrow::Cow;

/// Primitives that draw from the same vertex accessors.
pub(super) struct VertexSet {
    /// (mesh, primitive) of each.
    pub(super) primitives: Vec<(usize, usize)>,
    /// Their vertex accessors, by place (after the pass: the set's own).
    pub(super) places: Vec<(Place, usize)>,
}

/// The vertex sets of the document, in the order their first primitive
/// comes.
fn sets(work: &Work<'_, '_>) -> Vec<VertexSet> {
    let mut out: Vec<VertexSet> = Vec::new();
    let mut by_places: crate::hash::HashMap<Vec<(Place, usize)>, usize> = Default::default();
    for (m, mesh) in work.root.meshes.iter().enumerate() {
        for p in 0..mesh.primitives.len() {
            let places = work.places(m, p);
            let positions = places
                .iter()
                .any(|&(place, _)| place == Place::Attribute(Attribute::Position));
            let indexed = mesh.primitives[p].indices.is_some();
            if !positions || !indexed {
                continue;
            }
            match by_places.get(&places) {
                Some(&s) => out[s].primitives.push((m, p)),
                None => {
                    by_places.insert(places.clone(), out.len());
                    out.push(VertexSet {
                        primitives: vec![(m, p)],
                        places,
                    });
                }
            }
        }
    }
    out
}

/// A primitive's indices as u32s.
fn indices(work: &Work<'_, '_>, a: usize) -> Vec<u32> {
    let bytes = &work.elements[a];
    match super::layout(&work.root.accessors[a]).0 {
        ComponentType::U8 => bytes.iter().map(|&b| u32::from(b)).collect(),
        ComponentType::U16 => bytes
            .chunks_exact(2)
            .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
            .collect(),
        _ => bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    }
}

/// Each of `count` vertices as the number of the first vertex equal to it
/// in every column (an accessor's elements, of `size` bytes) among those
/// before, and how many differ. (By sorting: the vertices sorted by the
/// first column's first bytes packed into one integer beside their number,
/// then each run of equal keys by every column; comparing the columns of
/// many morph targets ends at their first difference, where hashing would
/// read them all.)
fn weld(columns: &[(&[u8], usize)], count: usize) -> (Vec<u32>, usize) {
    let cmp = |a: u32, b: u32| {
        let (a, b) = (a as usize, b as usize);
        columns
            .iter()
            .map(|&(c, size)| c[a * size..][..size].cmp(&c[b * size..][..size]))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    };
    // The key: up to KEY_BYTES of the first column, big-endian (so that
    // keys sort as those bytes do), above the vertex's number.
    const KEY_BYTES: usize = 12;
    let key = |v: usize| -> u128 {
        let head = columns
            .first()
            .map_or(&[][..], |&(c, size)| &c[v * size..][..size.min(KEY_BYTES)]);
        let bytes = head.iter().fold(0u128, |k, &b| k << 8 | u128::from(b));
        (bytes << (8 * (KEY_BYTES - head.len())) << 32) | v as u128
    };
    let mut keys: Vec<u128> = (0..count).map(key).collect();
    keys.sort_unstable();
    // Each vertex's first equal: the least number of its class.
    let mut first = vec![0u32; count];
    let mut run: Vec<u32> = Vec::new();
    for same in keys.chunk_by(|a, b| a >> 32 == b >> 32) {
        if let &[only] = same {
            first[only as u32 as usize] = only as u32;
            continue;
        }
        run.clear();
        run.extend(same.iter().map(|&k| k as u32));
        run.sort_unstable_by(|&a, &b| cmp(a, b).then(a.cmp(&b)));
        for class in run.chunk_by(|&a, &b| cmp(a, b).is_eq()) {
            for &v in class {
                first[v as usize] = class[0];
            }
        }
    }
    let mut number = vec![u32::MAX; count];
    let mut next = 0u32;
    let weld = (0..count)
        .map(|v| {
            let f = first[v] as usize;
            if number[f] == u32::MAX {
                number[f] = next;
                next += 1;
            }
            number[f]
        })
        .collect();
    (weld, next as usize)
}

/// The elements (of `size` bytes) of `bytes` at `from`, in that order.
fn gather(bytes: &[u8], size: usize, from: &[usize]) -> Vec<u8> {
    fn of<const N: usize>(bytes: &[u8], from: &[usize]) -> Vec<u8> {
        let (elements, _) = bytes.as_chunks::<N>();
        let mut out = Vec::with_capacity(from.len() * N);
        for &v in from {
            out.extend_from_slice(&elements[v]);
        }
        out
    }
    match size {
        4 => of::<4>(bytes, from),
        8 => of::<8>(bytes, from),
        12 => of::<12>(bytes, from),
        16 => of::<16>(bytes, from),
        _ => {
            let mut out = Vec::with_capacity(from.len() * size);
            for &v in from {
                out.extend_from_slice(&bytes[v * size..][..size]);
            }
            out
        }
    }
}

/// Welds and orders every vertex set (see the module's documentation);
/// returns the sets, each with accessors of its own.
/// (The accessors of the file are read, never changed: new ones take
/// their place.)
pub(super) fn weld_and_order(work: &mut Work<'_, '_>) -> Vec<VertexSet> {
    let mut sets = sets(work);
    // Each set's accessors are new ones (an accessor may serve several
    // sets, or several places of one); the old are dropped after.
    for set in &mut sets {
        let count = work.root.accessors[set.places[0].1].count.0 as usize;
        let lists: Vec<(usize, Vec<u32>)> = set
            .primitives
            .iter()
            .map(|&(m, p)| {
                let a = work.root.meshes[m].primitives[p]
                    .indices
                    .expect("indexed")
                    .value();
                (a, indices(work, a))
            })
            .collect();
        if lists
            .iter()
            .flat_map(|(_, l)| l)
            .any(|&i| i as usize >= count)
        {
            continue;
        }
        // Vertices equal in every accessor of the set are one.
        let columns: Vec<(&[u8], usize)> = set
            .places
            .iter()
            .map(|&(_, a)| (&work.elements[a][..], element_size(&work.root.accessors[a])))
            .collect();
        let (weld, welded) = weld(&columns, count);
        // Triangles in a vertex cache's order; vertices in the order the
        // triangles use them.
        let mut order = vec![u32::MAX; welded];
        let mut next = 0u32;
        let lists: Vec<(usize, Vec<u32>)> = lists
            .into_iter()
            .zip(&set.primitives)
            .map(|((a, list), &(m, p))| {
                let list: Vec<u32> = list.iter().map(|&i| weld[i as usize]).collect();
                let triangles = matches!(
                    work.root.meshes[m].primitives[p].mode,
                    Checked::Valid(json::mesh::Mode::Triangles)
                );
                let list = match triangles && list.len().is_multiple_of(3) {
                    true => meshopt::optimize_vertex_cache(&list, welded),
                    false => list,
                };
                for &i in &list {
                    if order[i as usize] == u32::MAX {
                        order[i as usize] = next;
                        next += 1;
                    }
                }
                (a, list)
            })
            .collect();
        // A new vertex's source: the first old vertex that became it.
        let used = next as usize;
        let mut source = vec![0usize; used];
        for v in (0..count).rev() {
            let o = order[weld[v] as usize];
            if o != u32::MAX {
                source[o as usize] = v;
            }
        }
        // Vertices already in that order (no two equal, the triangles'
        // order kept) keep their elements as they are, uncopied.
        let (elements, accessors) = (&work.elements, &work.root.accessors);
        let kept = used == count && source.iter().enumerate().all(|(i, &v)| i == v);
        let gathered: Vec<Cow<'_, [u8]>> = match kept {
            true => set
                .places
                .iter()
                .map(|&(_, a)| elements[a].clone())
                .collect(),
            false => crate::par::map(&set.places, &|&(_, a)| elements[a].len(), &|&(_, a)| {
                gather(&elements[a], element_size(&accessors[a]), &source).into()
            }),
        };
        for ((place, a), bytes) in set.places.iter_mut().zip(gathered) {
            let own = work.copy(*a);
            // Only positions need their bounds.
            if !matches!(
                place,
                Place::Attribute(Attribute::Position) | Place::Target(_, Attribute::Position)
            ) {
                work.root.accessors[own].min = None;
                work.root.accessors[own].max = None;
            }
            let (component, _) = super::layout(&work.root.accessors[own]);
            let normalized = work.root.accessors[own].normalized;
            work.rewrite(own, bytes, used, component, normalized);
            for &(m, p) in &set.primitives {
                work.set(m, p, *place, own);
            }
            *a = own;
        }
        for ((a, list), &(m, p)) in lists.into_iter().zip(&set.primitives) {
            let list: Vec<u32> = list.iter().map(|&i| order[i as usize]).collect();
            let own = work.copy(a);
            let (component, bytes) = match used <= usize::from(u16::MAX) {
                true => (
                    ComponentType::U16,
                    super::concat(list.iter().map(|&i| (i as u16).to_le_bytes())),
                ),
                false => (
                    ComponentType::U32,
                    super::concat(list.iter().map(|&i| i.to_le_bytes())),
                ),
            };
            work.rewrite(own, bytes, list.len(), component, false);
            work.root.meshes[m].primitives[p].indices = Some(json::Index::new(own as u32));
        }
    }
    sets
}

#[cfg(test)]
mod tests {
    use super::super::Work;
    use super::{Cow, weld, weld_and_order};
    use gltf_json as json;

    /// One triangle list over `positions` (f32 triplets) drawn with
    /// `indices`, welded and ordered: the elements and count of its new
    /// position accessor and its indices.
    fn welded(positions: &[[f32; 3]], indices: &[u16]) -> (Cow<'static, [u8]>, u64, Vec<u8>) {
        let text = format!(
            r#"{{"asset":{{"version":"2.0"}},
            "accessors":[
              {{"componentType":5126,"count":{},"type":"VEC3","min":[0,0,0],"max":[1,1,1]}},
              {{"componentType":5123,"count":{},"type":"SCALAR"}}],
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}]}}"#,
            positions.len(),
            indices.len()
        );
        let mut root: json::Root = serde_json::from_str(&text).expect("a document");
        let bytes: Vec<u8> = positions
            .iter()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let list: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        let (mut morph_uvs, pointers) = (Vec::new(), Vec::new());
        let mut work = Work {
            root: &mut root,
            elements: vec![Cow::Owned(bytes), Cow::Owned(list)],
            morph_uvs: &mut morph_uvs,
            pointers: &pointers,
            unbounded: Vec::new(),
        };
        // The document's own elements, as `read` lends them.
        let lent: &'static [u8] = work.elements[0].to_vec().leak();
        work.elements[0] = Cow::Borrowed(lent);
        let sets = weld_and_order(&mut work);
        let position = sets[0].places[0].1;
        let prim = &work.root.meshes[0].primitives[0];
        let index = prim.indices.expect("indexed").value();
        assert_eq!(prim.attributes.values().next().unwrap().value(), position);
        let count = work.root.accessors[position].count.0;
        let mut elements = std::mem::take(&mut work.elements);
        let indices = elements[index].to_vec();
        (elements.swap_remove(position), count, indices)
    }

    /// Vertices already in the order the triangles use them, none equal,
    /// are kept as the document holds them, lent, not copied; a vertex no
    /// triangle uses, or two equal, make new elements.
    #[test]
    fn vertices_already_in_order_are_lent_as_they_are() {
        let corners = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let (kept, count, indices) = welded(&corners, &[0, 1, 2]);
        assert!(matches!(kept, Cow::Borrowed(_)), "lent");
        assert_eq!(count, 3);
        assert_eq!(indices, [0, 0, 1, 0, 2, 0]);
        let bytes: Vec<u8> = corners
            .iter()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        assert_eq!(&kept[..], &bytes[..]);
        // A fourth vertex, unused: dropped.
        let mut four = corners.to_vec();
        four.push([1.0, 1.0, 1.0]);
        let (made, count, _) = welded(&four, &[0, 1, 2]);
        assert!(matches!(made, Cow::Owned(_)), "made anew");
        assert_eq!((count, &made[..]), (3, &bytes[..]));
        // The first vertex twice: one.
        let mut twice = corners.to_vec();
        twice.push(corners[0]);
        let (made, count, indices) = welded(&twice, &[3, 1, 2]);
        assert_eq!((count, &made[..]), (3, &bytes[..]));
        assert_eq!(indices, [0, 0, 1, 0, 2, 0]);
    }

    /// The welding of the obvious way: each vertex's class is the first
    /// vertex equal to it in every column, numbered as first met.
    fn weld_by_pairs(columns: &[(&[u8], usize)], count: usize) -> (Vec<u32>, usize) {
        let equal = |a: usize, b: usize| {
            columns
                .iter()
                .all(|&(c, s)| c[a * s..][..s] == c[b * s..][..s])
        };
        let mut number: Vec<u32> = Vec::new();
        let mut next = 0;
        for v in 0..count {
            match (0..v).find(|&u| equal(u, v)) {
                Some(u) => number.push(number[u]),
                None => {
                    number.push(next);
                    next += 1;
                }
            }
        }
        (number, next as usize)
    }

    /// Columns of 3 to 16 bytes (a key of 12 bytes, one longer, one
    /// shorter) with many equal vertices, some equal only in the first
    /// column or in its first 12 bytes: the same classes as comparing
    /// every pair.
    #[test]
    fn welding_finds_the_classes_comparing_every_pair_finds() {
        let mut state = 7u64;
        let mut small = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % n) as u8
        };
        let count = 400;
        for sizes in [[12, 4], [16, 12], [4, 16], [3, 8]] {
            let data: Vec<Vec<u8>> = sizes
                .iter()
                .map(|&s| {
                    // Each element one of three: zeros, or a one in its
                    // last byte or in its first.
                    let mut column = vec![0u8; count * s];
                    for e in column.chunks_exact_mut(s) {
                        match small(3) {
                            0 => {}
                            1 => e[s - 1] = 1,
                            _ => e[0] = 1,
                        }
                    }
                    column
                })
                .collect();
            let columns: Vec<(&[u8], usize)> =
                data.iter().zip(sizes).map(|(d, s)| (&d[..], s)).collect();
            let want = weld_by_pairs(&columns, count);
            assert_eq!(want.1, 9, "three kinds of element in each of two columns");
            assert_eq!(weld(&columns, count), want, "columns of {sizes:?} bytes");
            assert_eq!(
                weld(&columns[..1], count),
                weld_by_pairs(&columns[..1], count)
            );
        }
        assert_eq!(weld(&[], 3), (vec![0, 0, 0], 1));
    }
}
