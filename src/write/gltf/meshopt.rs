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
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

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
    // The vertices are written into a buffer the thread keeps for its next
    // part: a new one for each (256 KiB, zeroed) was fresh pages each time.
    thread_local! {
        static OWN: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    OWN.with_borrow_mut(|own| {
        own.clear();
        own.resize((part.to - part.from) * stride, 0);
        write(part.view, part.from * stride, own);
        if part.from == 0 {
            return Some(vertex_codec::encode(own, stride));
        }
        let mut before = vec![0u8; stride];
        write(part.view, (part.from - 1) * stride, &mut before);
        let mut blocks =
            Vec::with_capacity(vertex_codec::blocks_bound(part.to - part.from, stride));
        vertex_codec::encode_blocks(own, stride, &before, &mut blocks);
        Some(blocks)
    })
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

/// A view's stream as the pieces its parts were encoded to, laid end to
/// end (none copied): the first part's head and blocks, the other parts'
/// blocks, the first part's tail (cut off it); then zeros to a multiple of
/// four bytes, on the last piece.
fn laid(stream: Stream, mut parts: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    if let Stream::Attributes { stride, .. } = stream
        && parts.len() > 1
    {
        let first = &mut parts[0];
        let tail = first.split_off(first.len() - tail_bytes(stride));
        parts.push(tail);
    }
    let len: usize = parts.iter().map(Vec::len).sum();
    let last = parts.last_mut().expect("a part");
    last.resize(last.len() + len.next_multiple_of(4) - len, 0);
    parts
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

/// Encodes each view by its stream (see the module's documentation), the
/// views' bytes written by `views` on the threads that encode them, and
/// `views` dropped once the views kept are written (what makes them is
/// freed then): the buffer becomes the compressed streams and the views
/// kept, as pieces laid end to end (each view's on 4 bytes); a second,
/// fallback buffer without bytes takes the original layout, `len` bytes.
/// Returns the new buffer's pieces, or `views` (and the document as it
/// was) where no view gets smaller.
pub(super) fn encode_views<V: Views>(
    root: &mut json::Root,
    streams: &[Stream],
    len: usize,
    views: V,
) -> Result<Vec<Vec<u8>>, V> {
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
    let made: Vec<Option<usize>> = (0..streams.len()).map(|v| smaller(v, sizes[v])).collect();
    if made.iter().all(Option::is_none) {
        return Err(views);
    }
    // The views kept written on the thread share (then what makes them is
    // freed), each on 4 bytes.
    let kept: Vec<usize> = (0..streams.len()).filter(|&v| made[v].is_none()).collect();
    let mut kept = crate::par::map(&kept, &|&v| lengths[v], &|&v| {
        let mut bytes = vec![0u8; lengths[v].next_multiple_of(4)];
        views.write(v, 0, &mut bytes[..lengths[v]]);
        bytes
    })
    .into_iter();
    drop(views);
    // (The parts come view by view, one at least a view.)
    let mut encoded = encoded.into_iter();
    let mut pieces = Vec::new();
    let mut offsets = Vec::new();
    let mut offset = 0;
    for own in parts.chunk_by(|a, b| a.view == b.view) {
        let own_parts: Vec<Vec<u8>> = encoded.by_ref().take(own.len()).flatten().collect();
        let (v, stream) = (own[0].view, own[0].stream);
        offsets.push(offset);
        let first = pieces.len();
        match made[v] {
            Some(_) => pieces.extend(laid(stream, own_parts)),
            None => pieces.extend(kept.next()),
        }
        // (Where the next view lies: after the bytes this one was given.)
        offset += pieces[first..].iter().map(Vec::len).sum::<usize>();
    }
    debug_assert_eq!(offsets.len(), streams.len());
    let fallback = root.buffers.len();
    let each = root.buffer_views.iter_mut().zip(streams).zip(made);
    for (((view, &stream), encoded), offset) in each.zip(offsets) {
        match encoded {
            Some(encoded) => {
                let (count, stride) = match stream {
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
                    "mode": stream.mode(),
                })));
            }
            None => view.byte_offset = Some(USize64(offset as u64)),
        }
    }
    root.buffers[0].byte_length = USize64(offset as u64);
    root.push(json::Buffer {
        byte_length: USize64(len as u64),
        name: None,
        uri: None,
        extensions: Some(json::extensions::buffer::Buffer {
            others: extension(serde_json::json!({ "fallback": true })).others,
        }),
        extras: None,
    });
    Ok(pieces)
}

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
        let mut out = laid(stream, encoded.into_iter().flatten().collect()).concat();
        out.truncate(sizes[0]);
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
                let laid = laid(attributes, encoded.into_iter().flatten().collect()).concat();
                let (stream, padding) = laid.split_at(whole.len());
                assert!(stream == whole, "stride {stride}, {count} vertices");
                assert_eq!(
                    padding,
                    &[0; 3][..whole.len().next_multiple_of(4) - whole.len()]
                );
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
    /// into the buffer as they are; the streams decode to their views,
    /// each where its view says (the kept view first, of a length not on
    /// 4 bytes).
    #[test]
    fn views_encoded_are_let_go_and_the_others_kept() {
        let smooth: Vec<u8> = (0..60_000 * 3)
            .flat_map(|i| ((i as f32) * 1e-4).sin().to_le_bytes())
            .collect();
        let noise = mixed(3 * 4096, 7)[2 * 4096..].to_vec();
        let image = b"not encoded".to_vec();
        let views = vec![image, smooth, noise];
        let streams = [
            Stream::Kept,
            Stream::Attributes {
                count: 60_000,
                stride: 12,
            },
            Stream::Attributes {
                count: 4096 / 4,
                stride: 4,
            },
        ];
        assert!(Part::of(1, streams[1], views[1].len()).len() > 2);
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
        let Ok(pieces) = packed else {
            panic!("one view is smaller");
        };
        let packed = pieces.concat();
        let view = &root.buffer_views[1];
        let ext = &view.extensions.as_ref().unwrap().others[EXTENSION];
        let from = ext["byteOffset"].as_u64().unwrap() as usize;
        let len = ext["byteLength"].as_u64().unwrap() as usize;
        let decoded: Vec<[u8; 12]> =
            meshopt::decode_vertex_buffer(&packed[from..][..len], 60_000).unwrap();
        assert_eq!(decoded.concat(), views[1]);
        assert_eq!(root.buffers[0].byte_length.0 as usize, packed.len());
        for v in [0, 2] {
            let view = &root.buffer_views[v];
            assert!(view.extensions.is_none());
            let from = view.byte_offset.unwrap().0 as usize;
            assert_eq!(packed[from..][..views[v].len()], views[v]);
        }
        assert_eq!(*gone.lock().unwrap(), [1]);
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
