//! The accessors packed into a new buffer: one buffer view for each kind
//! of stream (vertex attributes of a stride, triangle indices, line and
//! point indices of a size, other data of an element size), each of at
//! most [`VIEW_BYTES`], accessors of equal bytes sharing them; images
//! keep views of their own. Fewer, longer streams compress better and
//! take less JSON than a view for each accessor.

use super::{Attribute, Elements, element_size};
use crate::hash::HashMap;
use crate::write::gltf::meshopt::{Stream, Views};
use gltf_json as json;
use json::buffer::{Stride, Target};
use json::validation::{Checked, USize64};
use std::borrow::Cow;
use std::sync::{PoisonError, RwLock};

/// The most bytes a view of packed accessors takes before another is
/// begun. (Chosen when each view was encoded on a thread of its own; a
/// long view is now encoded in parts on every thread, but another size
/// would change the streams' bytes.)
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

/// A view being filled: what it takes, written into the buffer once
/// every view's place is known (so that each byte is written once).
struct Open<'e> {
    view: usize,
    kind: Kind,
    /// The bytes it takes so far.
    len: usize,
    /// Its accessors' elements, in order.
    pieces: Vec<Piece<'e>>,
    /// Offsets of the accessors' bytes already in it (those of at most
    /// [`SHARED_MAX`] bytes, padded as in the view).
    at: HashMap<Vec<u8>, usize>,
}

/// An accessor's elements of `size` bytes, each padded to `stride` bytes
/// in its view.
struct Piece<'e> {
    bytes: Cow<'e, [u8]>,
    size: usize,
    stride: usize,
}

impl Piece<'_> {
    /// The bytes it takes in its view.
    fn len(&self) -> usize {
        self.bytes.len() / self.size * self.stride
    }

    /// Writes its bytes from byte `at` of those it takes, padded, into
    /// `to` (zeros; both on whole elements).
    fn write(&self, at: usize, to: &mut [u8]) {
        debug_assert!(at.is_multiple_of(self.stride) && to.len().is_multiple_of(self.stride));
        let first = at / self.stride * self.size;
        let elements = &self.bytes[first..first + to.len() / self.stride * self.size];
        if self.stride == self.size {
            to.copy_from_slice(elements);
            return;
        }
        for (to, e) in to
            .chunks_exact_mut(self.stride)
            .zip(elements.chunks_exact(self.size))
        {
            to[..self.size].copy_from_slice(e);
        }
    }
}

/// Packs the accessors' `elements` (and the images' views of the old
/// buffer `bin`) into a new buffer; sets every view and accessor; returns
/// the buffer, laid out, and each view's stream. Morph targets' texture
/// coordinates, which gltf-json does not hold, are vertex attributes too
/// (`morph_uvs`: their accessors).
pub(super) fn pack<'e>(
    root: &mut json::Root,
    elements: Elements<'e>,
    bin: &'e [u8],
    morph_uvs: &[usize],
) -> (Packed<'e>, Vec<Stream>) {
    let mut kinds = kinds(root);
    for &a in morph_uvs {
        kinds[a] = Some(Kind::Vertices {
            stride: element_size(&root.accessors[a]).next_multiple_of(4),
            of: Of::Other,
        });
    }
    let old_views = std::mem::take(&mut root.buffer_views);
    let mut layout = Layout::default();
    let mut streams = Vec::new();
    // Images first, each in a view of its own.
    for i in 0..root.images.len() {
        let Some(v) = root.images[i].buffer_view else {
            continue;
        };
        let old = &old_views[v.value()];
        let at = old.byte_offset.map_or(0, |o| o.0 as usize);
        let bytes = &bin[at..at + old.byte_length.0 as usize];
        let kind = Kind::Data { size: 1 };
        let view = root.push(new_view(kind));
        root.images[i].buffer_view = Some(view);
        streams.push(Stream::Kept);
        let piece = Piece {
            bytes: bytes.into(),
            size: 1,
            stride: 1,
        };
        let o = Open {
            view: view.value(),
            kind,
            len: bytes.len(),
            pieces: vec![piece],
            at: HashMap::default(),
        };
        layout.place(root, &mut streams, o);
    }
    let mut open: Vec<Open> = Vec::new();
    for (i, (kind, bytes)) in kinds.into_iter().zip(elements).enumerate() {
        let Some(kind) = kind else { continue };
        let size = element_size(&root.accessors[i]);
        let stride = match kind {
            Kind::Vertices { stride, .. } => stride,
            _ => size,
        };
        let piece = Piece {
            bytes,
            size,
            stride,
        };
        let len = piece.len();
        let slot = match open.iter().position(|o| o.kind == kind) {
            Some(s) if open[s].len + len <= VIEW_BYTES || open[s].len == 0 => s,
            found => {
                // A view for this kind (another when the last is full).
                if let Some(s) = found {
                    let full = open.swap_remove(s);
                    layout.place(root, &mut streams, full);
                }
                let view = root.push(new_view(kind));
                streams.push(Stream::Kept);
                open.push(Open {
                    view: view.value(),
                    kind,
                    len: 0,
                    pieces: Vec::new(),
                    at: HashMap::default(),
                });
                open.len() - 1
            }
        };
        let o = &mut open[slot];
        // (Larger elements are never shared: none is kept to compare.)
        let padded = (len <= SHARED_MAX).then(|| {
            let mut padded = vec![0u8; len];
            piece.write(0, &mut padded);
            padded
        });
        let offset = match padded.as_ref().and_then(|p| o.at.get(p)) {
            Some(&at) => at,
            None => {
                let at = o.len;
                o.len += len;
                if let Some(padded) = padded {
                    o.at.insert(padded, at);
                }
                o.pieces.push(piece);
                at
            }
        };
        let acc = &mut root.accessors[i];
        acc.buffer_view = Some(json::Index::new(o.view as u32));
        acc.byte_offset = (offset > 0).then_some(USize64(offset as u64));
    }
    open.sort_by_key(|o| o.view);
    for o in open {
        layout.place(root, &mut streams, o);
    }
    // (Every view is placed once: by view, they are 0, 1, 2...)
    let Layout { mut placed, end } = layout;
    placed.sort_unstable_by_key(|(_, o)| o.view);
    let views = placed
        .into_iter()
        .map(|(at, o)| (at, RwLock::new(Some(o))))
        .collect();
    (Packed { views, end }, streams)
}

/// The packed buffer, laid out but not yet written: each view's bytes are
/// made where they are wanted, a range at a time (as [`Views`], on the
/// threads that encode them, each view's elements freed once it is
/// encoded), or the whole buffer's ([`Packed::bytes`]).
pub(super) struct Packed<'e> {
    /// Each view's offset and what it holds, by view (until it is
    /// encoded).
    views: Vec<(usize, RwLock<Option<Open<'e>>>)>,
    /// The buffer's length.
    end: usize,
}

impl Packed<'_> {
    /// The buffer's length.
    pub(super) fn len(&self) -> usize {
        self.end
    }

    /// The whole buffer.
    pub(super) fn bytes(self) -> Vec<u8> {
        let mut buffer = vec![0u8; self.end];
        for (at, o) in self.views {
            let o = o.into_inner().unwrap_or_else(PoisonError::into_inner);
            let o = o.expect("no view encoded");
            o.write(0, &mut buffer[at..at + o.len]);
        }
        buffer
    }
}

impl Views for Packed<'_> {
    fn write(&self, v: usize, at: usize, to: &mut [u8]) {
        let o = self.views[v]
            .1
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        o.as_ref()
            .expect("a view encoded is not written")
            .write(at, to);
    }

    fn encoded(&self, v: usize) {
        let o = self.views[v]
            .1
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        // (Its elements freed here, not under the lock.)
        drop(o);
    }
}

impl Open<'_> {
    /// Writes the view's bytes from byte `at` into `to` (zeros; both on
    /// whole elements).
    fn write(&self, mut at: usize, mut to: &mut [u8]) {
        for piece in &self.pieces {
            if to.is_empty() {
                break;
            }
            let len = piece.len();
            if at >= len {
                at -= len;
                continue;
            }
            let (this, rest) = to.split_at_mut((len - at).min(to.len()));
            piece.write(at, this);
            (at, to) = (0, rest);
        }
    }
}

/// The views in the order they lie in the buffer, each with its offset.
#[derive(Default)]
struct Layout<'e> {
    placed: Vec<(usize, Open<'e>)>,
    /// Where the next begins.
    end: usize,
}

impl<'e> Layout<'e> {
    /// Places a filled view at the end of the buffer (on 4 bytes).
    fn place(&mut self, root: &mut json::Root, streams: &mut [Stream], o: Open<'e>) {
        let view = &mut root.buffer_views[o.view];
        view.byte_offset = Some(USize64(self.end as u64));
        view.byte_length = USize64(o.len as u64);
        streams[o.view] = o.kind.stream(o.len);
        // (What it shared is no longer compared.)
        let o = Open {
            at: HashMap::default(),
            ..o
        };
        let end = self.end + o.len;
        self.placed.push((self.end, o));
        self.end = end.next_multiple_of(4);
    }
}

/// A new view of a kind, to be placed.
fn new_view(kind: Kind) -> json::buffer::View {
    json::buffer::View {
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
    }
}
