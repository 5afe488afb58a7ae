//! EXT_meshopt_compression: the packed buffer's views encoded by
//! meshoptimizer's codecs: vertex streams by this crate's encoder of the
//! vertex codec (`vertex_codec`: the reference's bytes, faster), indices
//! by the reference encoder (the `meshopt` crate). Lossless:
//! vertex attributes, animation keys and values and skins' matrices as
//! ATTRIBUTES streams, triangle indices as TRIANGLES, other indices as
//! INDICES; images and anything the codec does not take (an element not a
//! multiple of four bytes) are kept as they are. The compressed streams
//! and kept views fill the first buffer; a second, the spec's fallback,
//! has the original layout and no bytes. A long vertex stream is encoded
//! in parts of whole blocks, whichever thread is free taking the next
//! (the parts laid end to end are the stream of the whole: see
//! [`vertex_part`]), and what makes a view's bytes is let go once the view
//! is encoded.

use super::vertex_codec::{self, block_vertices, tail_bytes};
use gltf_json as json;
#[cfg(test)]
use json::accessor;
use json::validation::USize64;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The extension's name.
pub const EXTENSION: &str = "EXT_meshopt_compression";

/// How a buffer view is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stream {
    /// `count` elements of `stride` bytes.
    Attributes { count: usize, stride: usize },
    /// `count` indices of `size` bytes, three a triangle.
    Triangles { count: usize, size: usize },
    /// `count` indices of `size` bytes, of lines or points.
    Indices { count: usize, size: usize },
    /// Not encoded (images; elements the codec does not take; views used
    /// two ways).
    Kept,
}

impl Stream {
    fn mode(self) -> &'static str {
        match self {
            Stream::Attributes { .. } => "ATTRIBUTES",
            Stream::Triangles { .. } => "TRIANGLES",
            Stream::Indices { .. } => "INDICES",
            Stream::Kept => "",
        }
    }
}

/// A vertex stream is encoded in parts of whole blocks of about this many
/// bytes, on as many threads as there are (see [`vertex_part`]).
const PART_BYTES: usize = 256 << 10;

/// What a part of a view is encoded to: a vertex stream's blocks (with
/// the stream's head and tail in the first part), or a whole view's
/// stream; `None` where the codec does not take it.
type Encoded = Option<Vec<u8>>;

/// One part of a view to encode: vertices `from..to` of a vertex stream,
/// or the whole of another stream (`from` 0, `to` its length in bytes).
/// Each view has one part at least.
#[derive(Clone, Copy, Debug)]
struct Part {
    view: usize,
    stream: Stream,
    from: usize,
    to: usize,
}

impl Part {
    /// The parts view `view` (`len` bytes of `stream`) is encoded in.
    fn of(view: usize, stream: Stream, len: usize) -> Vec<Part> {
        let Stream::Attributes { count, stride } = stream else {
            return vec![Part {
                view,
                stream,
                from: 0,
                to: len,
            }];
        };
        let block = block_vertices(stride);
        let vertices = (PART_BYTES / (block * stride)).max(1) * block;
        (0..count.max(1))
            .step_by(vertices)
            .map(|from| Part {
                view,
                stream,
                from,
                to: (from + vertices).min(count),
            })
            .collect()
    }

    /// The bytes it encodes (for weighing the work; none for a view kept).
    fn bytes(&self) -> usize {
        match self.stream {
            Stream::Attributes { stride, .. } => (self.to - self.from) * stride,
            Stream::Kept => 0,
            _ => self.to,
        }
    }

    /// Encodes it (see [`Encoded`]), its view's bytes from an offset
    /// written by `write`.
    fn encode(&self, write: &(impl Fn(usize, usize, &mut [u8]) + Sync)) -> Encoded {
        let whole = |len: usize| {
            let mut bytes = vec![0u8; len];
            write(self.view, 0, &mut bytes);
            bytes
        };
        let index = |bytes: &[u8], size: usize| -> Vec<u32> {
            bytes
                .chunks_exact(size)
                .map(|b| match size {
                    2 => u16::from_le_bytes([b[0], b[1]]) as u32,
                    _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                })
                .collect()
        };
        let vertices = |i: &[u32]| i.iter().max().map_or(0, |&m| m as usize + 1);
        match self.stream {
            Stream::Attributes { stride, .. } => vertex_part(self, stride, write),
            Stream::Triangles { count, size } => {
                let i = index(&whole(count * size), size);
                meshopt::encode_index_buffer(&i, vertices(&i)).ok()
            }
            Stream::Indices { count, size } => {
                let i = index(&whole(count * size), size);
                meshopt::encode_index_sequence(&i, vertices(&i)).ok()
            }
            Stream::Kept => None,
        }
    }
}

/// Vertices `from..to` of a vertex stream encoded: the stream's head, its
/// blocks and its tail for the first part; for another, the blocks alone,
/// made from the vertex before them as the codec makes the whole stream's
/// (test: `parts_make_the_stream_of_the_whole`).
fn vertex_part(
    part: &Part,
    stride: usize,
    write: &(impl Fn(usize, usize, &mut [u8]) + Sync),
) -> Encoded {
    if !STRIDES.contains(&stride) {
        return None;
    }
    let mut own = vec![0u8; (part.to - part.from) * stride];
    write(part.view, part.from * stride, &mut own);
    if part.from == 0 {
        return Some(vertex_codec::encode(&own, stride));
    }
    let mut before = vec![0u8; stride];
    write(part.view, (part.from - 1) * stride, &mut before);
    let mut blocks = Vec::new();
    vertex_codec::encode_blocks(&own, stride, &before, &mut blocks);
    Some(blocks)
}

/// Each part (see [`Part`]) encoded on this thread's share of the cores
/// (the parts are independent: the same bytes however many threads), and
/// each of the `views` views' stream length: its parts' lengths added up,
/// `usize::MAX` where one was not encoded. `done` is told of each view,
/// with that length, once its last part is made (on the thread that made
/// it).
fn encode_all(
    parts: &[Part],
    views: usize,
    write: &(impl Fn(usize, usize, &mut [u8]) + Sync),
    done: &(impl Fn(usize, usize) + Sync),
) -> (Vec<Encoded>, Vec<usize>) {
    let left: Vec<AtomicUsize> = (0..views).map(|_| AtomicUsize::new(0)).collect();
    parts
        .iter()
        .for_each(|p| _ = left[p.view].fetch_add(1, Ordering::Relaxed));
    let lengths: Vec<AtomicUsize> = (0..views).map(|_| AtomicUsize::new(0)).collect();
    let encoded = crate::par::map_queued(parts, &Part::bytes, &|part| {
        let encoded = part.encode(write);
        let v = part.view;
        let add = encoded.as_ref().map_or(usize::MAX, Vec::len);
        let _ = lengths[v].fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            Some(n.saturating_add(add))
        });
        // The last part's thread sees every part's length.
        if left[v].fetch_sub(1, Ordering::AcqRel) == 1 {
            done(v, lengths[v].load(Ordering::Acquire));
        }
        encoded
    });
    (
        encoded,
        lengths.into_iter().map(AtomicUsize::into_inner).collect(),
    )
}

/// The vertex sizes whose views are encoded as vertex streams (views of
/// others are kept as they are).
const STRIDES: [usize; 10] = [4, 8, 12, 16, 20, 24, 32, 36, 48, 64];

/// A view's parts, encoded (see [`Part::encode`]).
struct Encodings<'p> {
    stream: Stream,
    parts: &'p [Encoded],
}

impl Encodings<'_> {
    /// Writes the view's stream into `out` (its length): the first part's
    /// head and blocks, the other parts' blocks, the first part's tail.
    fn lay(&self, out: &mut [u8]) {
        let mut parts = self.parts.iter().flatten();
        let first = parts.next().expect("a part");
        let tail = match self.stream {
            Stream::Attributes { stride, .. } if self.parts.len() > 1 => tail_bytes(stride),
            _ => 0,
        };
        let (head, tail) = first.split_at(first.len() - tail);
        let pieces = std::iter::once(head).chain(parts.map(Vec::as_slice));
        let mut at = 0;
        for piece in pieces.chain([tail]) {
            out[at..at + piece.len()].copy_from_slice(piece);
            at += piece.len();
        }
        debug_assert_eq!(at, out.len());
    }
}

/// The bytes of the views to encode, written where they are wanted.
pub(super) trait Views: Sync {
    /// Writes view `v`'s bytes from byte `at` into `to` (both on whole
    /// elements).
    fn write(&self, v: usize, at: usize, to: &mut [u8]);

    /// View `v` is encoded to a stream that is kept: its bytes are not
    /// written again, and what makes them may be freed.
    fn encoded(&self, v: usize);
}

/// A place in the new buffer, to fill (each is filled by one thread).
fn lock<'m, 'p>(place: &'m Mutex<&'p mut [u8]>) -> MutexGuard<'m, &'p mut [u8]> {
    place.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Encodes each view by its stream (see the module's documentation), the
/// views' bytes written by `views` on the threads that encode them, and
/// `views` dropped before the buffer is laid out (what makes them is freed
/// then): the buffer becomes the compressed streams and the views kept; a
/// second, fallback buffer without bytes takes the original layout, `len`
/// bytes. Returns the new buffer, or `views` (and the document as it was)
/// where no view gets smaller.
pub(super) fn encode_views<V: Views>(
    root: &mut json::Root,
    streams: &[Stream],
    len: usize,
    views: V,
) -> Result<Vec<u8>, V> {
    let write = |v: usize, at: usize, to: &mut [u8]| views.write(v, at, to);
    let lengths: Vec<usize> = root
        .buffer_views
        .iter()
        .map(|v| v.byte_length.0 as usize)
        .collect();
    let parts: Vec<Part> = streams
        .iter()
        .enumerate()
        .flat_map(|(v, &stream)| Part::of(v, stream, lengths[v]))
        .collect();
    // A view's stream is kept where it is smaller than the view. A view
    // whose stream is kept is let go as soon as it is made (its elements
    // freed as the next views are encoded).
    let smaller = |v: usize, size: usize| (size < lengths[v]).then_some(size);
    let done = |v: usize, size: usize| {
        if smaller(v, size).is_some() {
            views.encoded(v);
        }
    };
    let (encoded, sizes) = encode_all(&parts, streams.len(), &write, &done);
    // (The parts come view by view, one at least a view.)
    let mut rest = &encoded[..];
    let made: Vec<(Encodings, Option<usize>)> = parts
        .chunk_by(|a, b| a.view == b.view)
        .map(|own| {
            let (v, stream) = (own[0].view, own[0].stream);
            let e = Encodings {
                stream,
                parts: &rest[..own.len()],
            };
            rest = &rest[own.len()..];
            (e, smaller(v, sizes[v]))
        })
        .collect();
    debug_assert_eq!(made.len(), streams.len());
    if made.iter().all(|(_, len)| len.is_none()) {
        return Err(views);
    }
    // Each view's place in the new buffer (on 4 bytes), filled on the
    // thread share: its stream laid, or, kept, its bytes written (then
    // what makes them is freed).
    let size: usize = made
        .iter()
        .zip(&lengths)
        .map(|((_, encoded), &len)| encoded.unwrap_or(len).next_multiple_of(4))
        .sum();
    let mut packed = vec![0u8; size];
    let mut rest = &mut packed[..];
    let (mut offsets, mut places) = (Vec::new(), Vec::new());
    let mut offset = 0;
    for (v, ((_, encoded), &len)) in made.iter().zip(&lengths).enumerate() {
        let len = encoded.unwrap_or(len);
        let (place, after) = rest.split_at_mut(len.next_multiple_of(4));
        offsets.push(offset);
        offset += place.len();
        places.push((v, Mutex::new(&mut place[..len])));
        rest = after;
    }
    let weight = |(_, place): &(usize, Mutex<&mut [u8]>)| lock(place).len();
    crate::par::map(&places, &weight, &|(v, place)| match &made[*v] {
        (encodings, Some(_)) => encodings.lay(&mut lock(place)),
        (_, None) => views.write(*v, 0, &mut lock(place)),
    });
    drop((places, views));
    let fallback = root.buffers.len();
    let each = root.buffer_views.iter_mut().zip(made).zip(offsets);
    for ((view, (encodings, encoded)), offset) in each {
        match encoded {
            Some(encoded) => {
                let (count, stride) = match encodings.stream {
                    Stream::Attributes { count, stride } => (count, stride),
                    Stream::Triangles { count, size } | Stream::Indices { count, size } => {
                        (count, size)
                    }
                    Stream::Kept => unreachable!("kept views are not encoded"),
                };
                view.buffer = json::Index::new(fallback as u32);
                view.extensions = Some(extension(serde_json::json!({
                    "buffer": 0,
                    "byteOffset": offset,
                    "byteLength": encoded,
                    "byteStride": stride,
                    "count": count,
                    "mode": encodings.stream.mode(),
                })));
            }
            None => view.byte_offset = Some(USize64(offset as u64)),
        }
    }
    root.buffers[0].byte_length = USize64(packed.len() as u64);
    root.push(json::Buffer {
        byte_length: USize64(len as u64),
        name: None,
        uri: None,
        extensions: Some(json::extensions::buffer::Buffer {
            others: extension(serde_json::json!({ "fallback": true })).others,
        }),
        extras: None,
    });
    Ok(packed)
}

/// A view's extensions: this one's object.
fn extension(object: serde_json::Value) -> json::extensions::buffer::View {
    json::extensions::buffer::View {
        others: serde_json::Map::from_iter([(EXTENSION.to_string(), object)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stream view 0 (`bytes` of `stream`) is encoded to, as
    /// [`encode_views`] lays it out.
    fn stream(stream: Stream, bytes: &[u8]) -> Option<Vec<u8>> {
        let parts = Part::of(0, stream, bytes.len());
        let write =
            |_: usize, at: usize, to: &mut [u8]| to.copy_from_slice(&bytes[at..][..to.len()]);
        let (encoded, sizes) = encode_all(&parts, 1, &write, &|_, _| {});
        if sizes[0] >= bytes.len() {
            return None;
        }
        let view = Encodings {
            stream,
            parts: &encoded,
        };
        let mut out = vec![0u8; sizes[0]];
        view.lay(&mut out);
        Some(out)
    }

    /// Bytes of a few kinds: runs of a value, slow ramps, noise (a
    /// xorshift generator seeded with `seed`).
    fn mixed(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match (i / 4096) % 3 {
                    0 => (i / 700) as u8,
                    1 => (i / 3) as u8 ^ (x & 3) as u8,
                    _ => x as u8,
                }
            })
            .collect()
    }

    /// Each stream decodes to the bytes it was made from.
    #[test]
    fn streams_decode_to_their_bytes() {
        let floats: Vec<u8> = (0..300)
            .flat_map(|i| ((i as f32 * 0.25).sin()).to_le_bytes())
            .collect();
        let attributes = Stream::Attributes {
            count: 100,
            stride: 12,
        };
        let encoded = stream(attributes, &floats).expect("smaller");
        let decoded: Vec<[u8; 12]> = meshopt::decode_vertex_buffer(&encoded, 100).unwrap();
        assert_eq!(decoded.concat(), floats);
        let tris: Vec<u8> = (0u16..300)
            .map(|i| i / 2 + i % 3)
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let triangles = Stream::Triangles {
            count: 300,
            size: accessor::ComponentType::U16.size(),
        };
        let encoded = stream(triangles, &tris).expect("smaller");
        let decoded: Vec<u16> = meshopt::decode_index_buffer(&encoded, 300).unwrap();
        let bytes: Vec<u8> = decoded.iter().flat_map(|i| i.to_le_bytes()).collect();
        assert_eq!(bytes, tris);
        assert_eq!(stream(Stream::Kept, &tris), None);
        // Noise is not made smaller: kept.
        let noise = mixed(3 * 4096, 7)[2 * 4096..].to_vec();
        let count = noise.len() / 4;
        assert_eq!(
            stream(Stream::Attributes { count, stride: 4 }, &noise),
            None
        );
    }

    /// A vertex stream encoded in parts is, to the byte, the stream the
    /// codec makes of the whole: for each stride it takes, counts about
    /// a block's and a part's ends, bytes of every kind.
    #[test]
    fn parts_make_the_stream_of_the_whole() {
        for stride in STRIDES {
            let block = block_vertices(stride);
            let part = (PART_BYTES / (block * stride)) * block;
            let counts = [
                1,
                block - 1,
                block,
                block + 1,
                part - 1,
                part,
                part + 1,
                2 * part + block / 2,
            ];
            for count in counts {
                let bytes = mixed(count * stride, (stride * 1000 + count) as u64);
                let attributes = Stream::Attributes { count, stride };
                let parts = Part::of(0, attributes, bytes.len());
                assert_eq!(parts.len(), count.div_ceil(part), "{stride} {count}");
                let whole = vertex_codec::encode(&bytes, stride);
                let write = |_: usize, at: usize, to: &mut [u8]| {
                    to.copy_from_slice(&bytes[at..][..to.len()])
                };
                let encoded = encode_all(&parts, 1, &write, &|_, _| {}).0;
                let mut laid = vec![0u8; whole.len()];
                let view = Encodings {
                    stream: attributes,
                    parts: &encoded,
                };
                view.lay(&mut laid);
                assert!(laid == whole, "stride {stride}, {count} vertices");
            }
        }
    }

    /// Views written from memory, each let go once encoded (a write after
    /// that fails the test).
    struct Held {
        views: Vec<Vec<u8>>,
        gone: std::sync::Arc<std::sync::Mutex<Vec<usize>>>,
    }

    impl Views for Held {
        fn write(&self, v: usize, at: usize, to: &mut [u8]) {
            assert!(
                !self.gone.lock().unwrap().contains(&v),
                "view {v} written after"
            );
            to.copy_from_slice(&self.views[v][at..][..to.len()]);
        }

        fn encoded(&self, v: usize) {
            self.gone.lock().unwrap().push(v);
        }
    }

    /// A view encoded smaller is let go once (after its last part), and
    /// never written again; one not smaller, and one kept, are written
    /// into the buffer as they are; the streams decode to their views.
    #[test]
    fn views_encoded_are_let_go_and_the_others_kept() {
        let smooth: Vec<u8> = (0..60_000 * 3)
            .flat_map(|i| ((i as f32) * 1e-4).sin().to_le_bytes())
            .collect();
        let noise = mixed(3 * 4096, 7)[2 * 4096..].to_vec();
        let image = b"not encoded".to_vec();
        let views = vec![smooth, noise, image];
        let streams = [
            Stream::Attributes {
                count: 60_000,
                stride: 12,
            },
            Stream::Attributes {
                count: 4096 / 4,
                stride: 4,
            },
            Stream::Kept,
        ];
        assert!(Part::of(0, streams[0], views[0].len()).len() > 2);
        let mut root = json::Root::default();
        let mut at = 0;
        for v in &views {
            root.push(json::buffer::View {
                buffer: json::Index::new(0),
                byte_length: USize64(v.len() as u64),
                byte_offset: Some(USize64(at as u64)),
                byte_stride: None,
                name: None,
                target: None,
                extensions: None,
                extras: None,
            });
            at = (at + v.len()).next_multiple_of(4);
        }
        root.push(json::Buffer {
            byte_length: USize64(at as u64),
            name: None,
            uri: None,
            extensions: None,
            extras: None,
        });
        let gone = std::sync::Arc::default();
        let held = Held {
            views: views.clone(),
            gone: std::sync::Arc::clone(&gone),
        };
        let packed = crate::par::with_share(2, || encode_views(&mut root, &streams, at, held));
        let Ok(packed) = packed else {
            panic!("one view is smaller");
        };
        let view = &root.buffer_views[0];
        let ext = &view.extensions.as_ref().unwrap().others[EXTENSION];
        let from = ext["byteOffset"].as_u64().unwrap() as usize;
        let len = ext["byteLength"].as_u64().unwrap() as usize;
        let decoded: Vec<[u8; 12]> =
            meshopt::decode_vertex_buffer(&packed[from..][..len], 60_000).unwrap();
        assert_eq!(decoded.concat(), views[0]);
        for v in [1, 2] {
            let view = &root.buffer_views[v];
            assert!(view.extensions.is_none());
            let from = view.byte_offset.unwrap().0 as usize;
            assert_eq!(packed[from..][..views[v].len()], views[v]);
        }
        assert_eq!(*gone.lock().unwrap(), [0]);
    }

    /// Split over threads or not, the same streams (past the size that
    /// splits: 48 views of 48 KiB).
    #[test]
    fn views_encode_the_same_on_any_number_of_threads() {
        let data: Vec<Vec<u8>> = (0..48)
            .map(|v| {
                (0..4096 * 3)
                    .flat_map(|i| ((i * (v + 1)) as f32 * 1e-3).cos().to_le_bytes())
                    .collect()
            })
            .collect();
        let stream = Stream::Attributes {
            count: 4096,
            stride: 12,
        };
        let parts: Vec<Part> = (0..data.len())
            .flat_map(|v| Part::of(v, stream, data[v].len()))
            .collect();
        let write =
            |v: usize, at: usize, to: &mut [u8]| to.copy_from_slice(&data[v][at..][..to.len()]);
        let one =
            crate::par::with_share(1, || encode_all(&parts, data.len(), &write, &|_, _| {}).0);
        assert!(one.iter().all(Option::is_some));
        assert!(
            crate::par::with_share(4, || encode_all(&parts, data.len(), &write, &|_, _| {}).0)
                == one
        );
    }
}
