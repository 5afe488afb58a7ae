//! EXT_meshopt_compression: the packed buffer's views encoded by
//! meshoptimizer's reference encoder (the `meshopt` crate). Lossless:
//! vertex attributes, animation keys and values and skins' matrices as
//! ATTRIBUTES streams, triangle indices as TRIANGLES, other indices as
//! INDICES; images and anything the codec does not take (an element not a
//! multiple of four bytes) are kept as they are. The compressed streams
//! and kept views fill the first buffer; a second, the spec's fallback,
//! has the original layout and no bytes.

use gltf_json as json;
#[cfg(test)]
use json::accessor;
use json::validation::USize64;

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

/// The encoded bytes of a view, or `None` where encoding does not make it
/// smaller (it is kept as it is then).
fn encode(stream: Stream, bytes: &[u8]) -> Option<Vec<u8>> {
    let index = |size: usize, count: usize| -> Vec<u32> {
        bytes[..count * size]
            .chunks_exact(size)
            .map(|b| match size {
                2 => u16::from_le_bytes([b[0], b[1]]) as u32,
                _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            })
            .collect()
    };
    let vertices = |i: &[u32]| i.iter().max().map_or(0, |&m| m as usize + 1);
    let encoded = match stream {
        Stream::Attributes { count, stride } => vertex_stream(&bytes[..count * stride], stride),
        Stream::Triangles { count, size } => {
            let i = index(size, count);
            meshopt::encode_index_buffer(&i, vertices(&i)).ok()
        }
        Stream::Indices { count, size } => {
            let i = index(size, count);
            meshopt::encode_index_sequence(&i, vertices(&i)).ok()
        }
        Stream::Kept => None,
    }?;
    (encoded.len() < bytes.len()).then_some(encoded)
}

/// Each view (by index, stream and length) made by `view` and encoded
/// (see [`encode`]) on the same thread, in order, on this thread's share
/// of the cores (the streams are independent: the same bytes however
/// many): its encoded bytes, or its own where encoding does not make them
/// smaller.
fn encode_all(
    jobs: &[(usize, Stream, usize)],
    view: &(impl Fn(usize) -> Vec<u8> + Sync),
) -> Vec<Result<Vec<u8>, Vec<u8>>> {
    crate::par::map(jobs, &|&(_, _, len)| len, &|&(v, stream, _)| {
        let bytes = view(v);
        encode(stream, &bytes).ok_or(bytes)
    })
}

/// A vertex stream of `stride`-byte elements, in the codec's version 0
/// (the one EXT_meshopt_compression defines).
fn vertex_stream(bytes: &[u8], stride: usize) -> Option<Vec<u8>> {
    fn of<const N: usize>(bytes: &[u8]) -> Option<Vec<u8>> {
        let (elements, rest) = bytes.as_chunks::<N>();
        debug_assert!(rest.is_empty());
        meshopt::encode_vertex_buffer_level(elements, 2, Some(0)).ok()
    }
    match stride {
        4 => of::<4>(bytes),
        8 => of::<8>(bytes),
        12 => of::<12>(bytes),
        16 => of::<16>(bytes),
        20 => of::<20>(bytes),
        24 => of::<24>(bytes),
        32 => of::<32>(bytes),
        36 => of::<36>(bytes),
        48 => of::<48>(bytes),
        64 => of::<64>(bytes),
        _ => None,
    }
}

/// Encodes each view by its stream (see the module's documentation), the
/// view's bytes made by `view` (from its index) on the thread that encodes
/// them: the buffer becomes the compressed streams and the views kept; a
/// second, fallback buffer without bytes takes the original layout, `len`
/// bytes. Returns the new buffer and whether any view was encoded (where
/// none gets smaller, the views' bytes at their places, `len` bytes).
pub(super) fn encode_views(
    root: &mut json::Root,
    streams: &[Stream],
    len: usize,
    view: &(impl Fn(usize) -> Vec<u8> + Sync),
) -> (Vec<u8>, bool) {
    let jobs: Vec<(usize, Stream, usize)> = root
        .buffer_views
        .iter()
        .zip(streams)
        .enumerate()
        .map(|(v, (view, &stream))| (v, stream, view.byte_length.0 as usize))
        .collect();
    let made = encode_all(&jobs, view);
    if made.iter().all(Result::is_err) {
        // (The views packed anew: the buffer is as long as they made it.)
        let mut bin = vec![0u8; len];
        for (view, bytes) in root.buffer_views.iter().zip(made) {
            let at = view.byte_offset.map_or(0, |o| o.0 as usize);
            let bytes = bytes.expect_err("none encoded");
            bin[at..at + bytes.len()].copy_from_slice(&bytes);
        }
        root.buffers[0].byte_length = USize64(len as u64);
        return (bin, false);
    }
    let mut packed: Vec<u8> = Vec::with_capacity(len / 2);
    let fallback = root.buffers.len();
    let each = root.buffer_views.iter_mut().zip(jobs).zip(made);
    for ((view, (_, stream, _)), made) in each {
        let offset = packed.len();
        match made {
            Ok(encoded) => {
                packed.extend_from_slice(&encoded);
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
                    "byteLength": encoded.len(),
                    "byteStride": stride,
                    "count": count,
                    "mode": stream.mode(),
                })));
            }
            Err(bytes) => {
                packed.extend_from_slice(&bytes);
                view.byte_offset = Some(USize64(offset as u64));
            }
        }
        packed.resize(packed.len().next_multiple_of(4), 0);
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
    (packed, true)
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

    /// Each stream decodes to the bytes it was made from.
    #[test]
    fn streams_decode_to_their_bytes() {
        let floats: Vec<u8> = (0..300)
            .flat_map(|i| ((i as f32 * 0.25).sin()).to_le_bytes())
            .collect();
        let encoded = encode(
            Stream::Attributes {
                count: 100,
                stride: 12,
            },
            &floats,
        )
        .expect("smaller");
        let decoded: Vec<[u8; 12]> = meshopt::decode_vertex_buffer(&encoded, 100).unwrap();
        assert_eq!(decoded.concat(), floats);
        let tris: Vec<u8> = (0u16..300)
            .map(|i| i / 2 + i % 3)
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let encoded = encode(
            Stream::Triangles {
                count: 300,
                size: accessor::ComponentType::U16.size(),
            },
            &tris,
        )
        .expect("smaller");
        let decoded: Vec<u16> = meshopt::decode_index_buffer(&encoded, 300).unwrap();
        let bytes: Vec<u8> = decoded.iter().flat_map(|i| i.to_le_bytes()).collect();
        assert_eq!(bytes, tris);
        assert_eq!(encode(Stream::Kept, &tris), None);
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
        let jobs: Vec<(usize, Stream, usize)> = data
            .iter()
            .enumerate()
            .map(|(v, d)| (v, stream, d.len()))
            .collect();
        let view = |v: usize| data[v].clone();
        let one = crate::par::with_share(1, || encode_all(&jobs, &view));
        assert!(one.iter().all(Result::is_ok));
        assert!(crate::par::with_share(4, || encode_all(&jobs, &view)) == one);
    }
}
