//! The accessors packed into a new buffer: one buffer view for each kind
//! of stream (vertex attributes of a stride, triangle indices, line and
//! point indices of a size, other data of an element size), each of at
//! most [`VIEW_BYTES`], accessors of equal bytes sharing them; images
//! keep views of their own. Fewer, longer streams compress better and
//! take less JSON than a view for each accessor.

use super::{Attribute, Elements, element_size};
use crate::hash::HashMap;
use crate::write::gltf::meshopt::Stream;
use gltf_json as json;
use json::buffer::{Stride, Target};
use json::validation::{Checked, USize64};

/// The most bytes a view of packed accessors takes before another is
/// begun (views are encoded on separate threads).
const VIEW_BYTES: usize = 4 << 20;

/// The largest accessor whose bytes are compared with those packed before
/// (larger equal ones are rare: the writer shares equal data already).
const SHARED_MAX: usize = 64 << 10;

/// What an accessor's bytes are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    /// Vertex attributes of one kind (and their displacements), elements
    /// padded to `stride` bytes: each kind its own stream, so that the
    /// codec's deltas run between like numbers.
    Vertices { stride: usize, of: Of },
    /// Triangle indices of `size` bytes.
    Triangles { size: usize },
    /// Line or point indices of `size` bytes.
    Indices { size: usize },
    /// Animation keys and values, skins' matrices: elements of `size`
    /// bytes, tight.
    Data { size: usize },
}

impl Kind {
    /// The meshopt stream of `len` bytes of this kind.
    fn stream(self, len: usize) -> Stream {
        match self {
            Kind::Vertices { stride, .. } => Stream::Attributes {
                count: len / stride,
                stride,
            },
            Kind::Triangles { size } => Stream::Triangles {
                count: len / size,
                size,
            },
            Kind::Indices { size } => Stream::Indices {
                count: len / size,
                size,
            },
            Kind::Data { size } if size.is_multiple_of(4) && size <= 256 => Stream::Attributes {
                count: len / size,
                stride: size,
            },
            Kind::Data { .. } => Stream::Kept,
        }
    }

    fn target(self) -> Option<Target> {
        match self {
            Kind::Vertices { .. } => Some(Target::ArrayBuffer),
            Kind::Triangles { .. } | Kind::Indices { .. } => Some(Target::ElementArrayBuffer),
            Kind::Data { .. } => None,
        }
    }
}

/// The kinds of vertex attribute given streams of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Of {
    Positions,
    Directions,
    Other,
}

impl Of {
    fn attribute(a: Attribute) -> Of {
        match a {
            Attribute::Position => Of::Positions,
            Attribute::Normal | Attribute::Tangent => Of::Directions,
            _ => Of::Other,
        }
    }
}

/// What each accessor is for, from where the document names it.
fn kinds(root: &json::Root) -> Vec<Option<Kind>> {
    let mut out: Vec<Option<Kind>> = vec![None; root.accessors.len()];
    let size = |a: json::Index<json::Accessor>| element_size(&root.accessors[a.value()]);
    let vertex = |a: json::Index<json::Accessor>, of: Of| Kind::Vertices {
        stride: size(a).next_multiple_of(4),
        of,
    };
    for p in root.meshes.iter().flat_map(|m| &m.primitives) {
        for (s, &a) in &p.attributes {
            let of = Attribute::of(s).map_or(Of::Other, Of::attribute);
            out[a.value()] = Some(vertex(a, of));
        }
        for t in p.targets.iter().flatten() {
            let each = [
                (t.positions, Of::Positions),
                (t.normals, Of::Directions),
                (t.tangents, Of::Directions),
            ];
            for (a, of) in each {
                if let Some(a) = a {
                    out[a.value()] = Some(vertex(a, of));
                }
            }
        }
        if let Some(i) = p.indices {
            let size = size(i);
            let triangles = matches!(p.mode, Checked::Valid(json::mesh::Mode::Triangles));
            let count = root.accessors[i.value()].count.0 as usize;
            out[i.value()] = Some(match triangles && count.is_multiple_of(3) && size >= 2 {
                true => Kind::Triangles { size },
                false => Kind::Indices { size },
            });
        }
    }
    for (i, a) in root.accessors.iter().enumerate() {
        if out[i].is_none() && a.buffer_view.is_some() {
            out[i] = Some(Kind::Data {
                size: element_size(a),
            });
        }
    }
    out
}

/// A view being filled.
struct Open {
    view: usize,
    kind: Kind,
    bytes: Vec<u8>,
    /// Offsets of the accessors' bytes already in it.
    at: HashMap<Vec<u8>, usize>,
}

/// Packs the accessors' `elements` (and the images' views of the old
/// buffer `bin`) into a new buffer; sets every view and accessor; returns
/// the buffer and each view's stream. Morph targets' texture coordinates,
/// which gltf-json does not hold, are vertex attributes too
/// (`morph_uvs`: their accessors).
pub(super) fn pack(
    root: &mut json::Root,
    elements: Elements,
    bin: &[u8],
    morph_uvs: &[usize],
) -> (Vec<u8>, Vec<Stream>) {
    let mut kinds = kinds(root);
    for &a in morph_uvs {
        kinds[a] = Some(Kind::Vertices {
            stride: element_size(&root.accessors[a]).next_multiple_of(4),
            of: Of::Other,
        });
    }
    let old_views = std::mem::take(&mut root.buffer_views);
    let mut buffer: Vec<u8> = Vec::with_capacity(bin.len() / 2);
    let mut streams = Vec::new();
    // Images first, each in a view of its own.
    for i in 0..root.images.len() {
        let Some(v) = root.images[i].buffer_view else {
            continue;
        };
        let old = &old_views[v.value()];
        let at = old.byte_offset.map_or(0, |o| o.0 as usize);
        let bytes = &bin[at..at + old.byte_length.0 as usize];
        root.images[i].buffer_view = Some(push_view(root, &mut buffer, bytes));
        streams.push(Stream::Kept);
    }
    let mut open: Vec<Open> = Vec::new();
    for (i, (kind, bytes)) in kinds.into_iter().zip(elements).enumerate() {
        let Some(kind) = kind else { continue };
        let acc = &root.accessors[i];
        let size = element_size(acc);
        let bytes = match kind {
            Kind::Vertices { stride, .. } if stride != size => {
                let mut padded = vec![0u8; bytes.len() / size * stride];
                for (to, e) in padded
                    .chunks_exact_mut(stride)
                    .zip(bytes.chunks_exact(size))
                {
                    to[..size].copy_from_slice(e);
                }
                padded.into()
            }
            _ => bytes,
        };
        let slot = match open.iter().position(|o| o.kind == kind) {
            Some(s)
                if open[s].bytes.len() + bytes.len() <= VIEW_BYTES || open[s].bytes.is_empty() =>
            {
                s
            }
            found => {
                // A view for this kind (another when the last is full).
                if let Some(s) = found {
                    let full = open.swap_remove(s);
                    close(root, &mut buffer, &mut streams, full);
                }
                root.buffer_views.push(json::buffer::View {
                    buffer: json::Index::new(0),
                    byte_length: USize64(0),
                    byte_offset: None,
                    byte_stride: match kind {
                        Kind::Vertices { stride, .. } => Some(Stride(stride)),
                        _ => None,
                    },
                    name: None,
                    target: kind.target().map(Checked::Valid),
                    extensions: None,
                    extras: None,
                });
                streams.push(Stream::Kept);
                open.push(Open {
                    view: root.buffer_views.len() - 1,
                    kind,
                    bytes: Vec::new(),
                    at: HashMap::default(),
                });
                open.len() - 1
            }
        };
        let o = &mut open[slot];
        let offset = match o.at.get(&bytes[..]) {
            Some(&at) => at,
            None => {
                let at = o.bytes.len();
                o.bytes.extend_from_slice(&bytes);
                if bytes.len() <= SHARED_MAX {
                    o.at.insert(bytes.into_owned(), at);
                }
                at
            }
        };
        let acc = &mut root.accessors[i];
        acc.buffer_view = Some(json::Index::new(o.view as u32));
        acc.byte_offset = (offset > 0).then_some(USize64(offset as u64));
    }
    open.sort_by_key(|o| o.view);
    for o in open {
        close(root, &mut buffer, &mut streams, o);
    }
    (buffer, streams)
}

/// Writes a filled view's bytes at the end of the buffer.
fn close(root: &mut json::Root, buffer: &mut Vec<u8>, streams: &mut [Stream], o: Open) {
    let at = buffer.len();
    buffer.extend_from_slice(&o.bytes);
    buffer.resize(buffer.len().next_multiple_of(4), 0);
    let view = &mut root.buffer_views[o.view];
    view.byte_offset = Some(USize64(at as u64));
    view.byte_length = USize64(o.bytes.len() as u64);
    streams[o.view] = o.kind.stream(o.bytes.len());
}

/// A view of `bytes` of its own at the end of the buffer.
fn push_view(
    root: &mut json::Root,
    buffer: &mut Vec<u8>,
    bytes: &[u8],
) -> json::Index<json::buffer::View> {
    let at = buffer.len();
    buffer.extend_from_slice(bytes);
    buffer.resize(buffer.len().next_multiple_of(4), 0);
    root.push(json::buffer::View {
        buffer: json::Index::new(0),
        byte_length: USize64(bytes.len() as u64),
        byte_offset: Some(USize64(at as u64)),
        byte_stride: None,
        name: None,
        target: None,
        extensions: None,
        extras: None,
    })
}
