//! The encoder of meshoptimizer's vertex codec, version 0 (the one
//! EXT_meshopt_compression defines): the same bytes as the reference's
//! (`meshopt_encodeVertexBufferLevel` with version 0, the `meshopt` crate,
//! which the tests hold it to), made in a fraction of the time.
//!
//! A stream is a header byte, blocks, and a tail. A block holds up to 256
//! vertices (as many as fit in 8 KiB, in groups of 16); each byte of a
//! vertex becomes a plane: the block's vertices' bytes at that place, each
//! less the one before (the block starts from the vertex before it),
//! zigzagged. A plane is written as 2-bit headers, one for each group of
//! 16 bytes, then each group in the fewest bytes of 0, 2, 4 or 8 bits a
//! byte (the reference's choice, ties to the bits of the group before), a
//! byte that does not fit written whole after the group. The tail is zeros
//! up to 32 bytes and the first vertex.
//!
//! The reference reads each plane from the vertices one byte at a time and
//! weighs each group a byte at a time; here (x86-64, whose baseline has
//! SSE2) sixteen vertices' differences are made at once and turned into
//! their planes by a 16 × 16 transpose, and a group is weighed and packed
//! whole (`Sse2`). Elsewhere the same steps run a byte at a time
//! (`Bytes`); the tests hold both to the reference.

/// The header byte of a version-0 stream.
const HEADER: u8 = 0xA0;

/// The bytes of a group: the unit of the 2-bit headers.
const GROUP: usize = 16;

/// The most vertices in a block.
const MAX_BLOCK: usize = 256;

/// The largest vertex the codec takes.
const MAX_STRIDE: usize = 256;

/// The bits a byte of a group takes, by header.
const BITS: [u8; 4] = [0, 2, 4, 8];

/// How many vertices of `stride` bytes the codec puts in a block (as many
/// as fit in 8 KiB, in groups of 16, at most 256; the format fixes it).
pub(super) fn block_vertices(stride: usize) -> usize {
    ((8192 / stride) & !(GROUP - 1)).min(MAX_BLOCK)
}

/// The bytes a stream of `stride`-byte vertices ends in: the first vertex,
/// after zeros up to 32 bytes.
pub(super) fn tail_bytes(stride: usize) -> usize {
    stride.max(32)
}

/// The most bytes a stream of `count` vertices of `stride` bytes takes.
fn bound(count: usize, stride: usize) -> usize {
    1 + blocks_bound(count, stride) + tail_bytes(stride)
}

/// The most bytes the blocks of `count` vertices of `stride` bytes take.
pub(super) fn blocks_bound(count: usize, stride: usize) -> usize {
    let block = block_vertices(stride);
    let plane = (block / GROUP).div_ceil(4) + block;
    count.div_ceil(block) * stride * plane
}

/// The lanes this machine has.
#[cfg(target_arch = "x86_64")]
type Native = Sse2;
#[cfg(not(target_arch = "x86_64"))]
type Native = Bytes;

/// The stream of `vertices` (`stride` bytes each, a multiple of 4 up to
/// [`MAX_STRIDE`]).
pub(super) fn encode(vertices: &[u8], stride: usize) -> Vec<u8> {
    stream::<Native>(vertices, stride)
}

/// The blocks of `vertices` (`stride` bytes each), the first block starting
/// from the vertex `last`, appended to `out`: the part of a stream that
/// holds them when the vertex before them is `last`.
pub(super) fn encode_blocks(vertices: &[u8], stride: usize, last: &[u8], out: &mut Vec<u8>) {
    blocks::<Native>(vertices, stride, last, out);
}

fn stream<L: Lanes>(vertices: &[u8], stride: usize) -> Vec<u8> {
    let count = vertices.len() / stride;
    let mut out = Vec::with_capacity(bound(count, stride));
    out.push(HEADER);
    let first = &vertices[..stride.min(vertices.len())];
    let mut last = [0u8; MAX_STRIDE];
    last[..first.len()].copy_from_slice(first);
    blocks::<L>(vertices, stride, &last[..stride], &mut out);
    out.resize(out.len() + tail_bytes(stride) - stride, 0);
    out.extend_from_slice(&last[..stride]);
    out
}

/// A group weighed: whether any byte is not zero, and how many bytes (and
/// which, as bits) are at least 3 and at least 15 (those that do not fit
/// in 2 and in 4 bits).
struct Weighed {
    any: bool,
    over2: (u32, u32),
    over4: (u32, u32),
}

/// A block to encode: `n` vertices of `vertices` (`stride` bytes each)
/// from vertex `first`, after the vertex `last` (zero-padded to a multiple
/// of 16 bytes).
struct Block<'v> {
    vertices: &'v [u8],
    stride: usize,
    first: usize,
    n: usize,
    last: &'v [u8],
}

impl Block<'_> {
    /// Where its vertex `i` starts in `vertices`.
    fn at(&self, i: usize) -> usize {
        (self.first + i) * self.stride
    }
}

/// The steps that read and weigh many bytes at once.
trait Lanes {
    /// Planes `0..stride` of the block: byte `i` of plane `k` is vertex
    /// `first + i`'s byte `k` less the one before, zigzagged; 0 from `n` to
    /// the group's end.
    fn planes(block: &Block<'_>, planes: &mut [[u8; MAX_BLOCK]]);
    /// The group weighed (see [`Weighed`]).
    fn weigh(group: &[u8; GROUP]) -> Weighed;
    /// The group's bytes at most 3 (larger ones as 3), four to a byte, the
    /// first in the top bits.
    fn pack2(group: &[u8; GROUP]) -> [u8; 4];
    /// The same with 4 bits a byte (at most 15).
    fn pack4(group: &[u8; GROUP]) -> [u8; 8];
}

fn blocks<L: Lanes>(vertices: &[u8], stride: usize, last: &[u8], out: &mut Vec<u8>) {
    debug_assert!(stride.is_multiple_of(4) && stride <= MAX_STRIDE && last.len() == stride);
    let count = vertices.len() / stride;
    let block = block_vertices(stride);
    let rows = stride.next_multiple_of(GROUP);
    let mut planes = vec![[0u8; MAX_BLOCK]; rows];
    let mut before = [0u8; MAX_STRIDE + GROUP];
    before[..stride].copy_from_slice(last);
    let mut first = 0;
    while first < count {
        let n = block.min(count - first);
        let b = Block {
            vertices,
            stride,
            first,
            n,
            last: &before[..rows],
        };
        L::planes(&b, &mut planes);
        let aligned = n.next_multiple_of(GROUP);
        // Room for the block at its largest (zeros: the planes' headers
        // start so), what is not used cut off after.
        let mut at = out.len();
        out.resize(
            at + stride * (aligned / GROUP).div_ceil(4) + stride * aligned,
            0,
        );
        for plane in &planes[..stride] {
            at = encode_plane::<L>(&plane[..aligned], out, at);
        }
        out.truncate(at);
        let end = (first + n) * stride;
        before[..stride].copy_from_slice(&vertices[end - stride..end]);
        first += n;
    }
}

/// A plane of whole groups written at `out[at..]` (zeros, room enough):
/// its headers, then each group in the bits the reference chooses; returns
/// where it ends.
fn encode_plane<L: Lanes>(plane: &[u8], out: &mut [u8], at: usize) -> usize {
    let groups = plane.as_chunks::<GROUP>().0;
    let headers = at;
    let mut at = at + groups.len().div_ceil(4);
    let mut last_bits = u8::MAX;
    for (g, group) in groups.iter().enumerate() {
        let w = L::weigh(group);
        // The fewest bytes: 8 bits (16 bytes) unless less; then 0, 2 and 4
        // bits in turn, a tie going to the bits of the group before
        // (never over 8 bits).
        let (mut best, mut size) = (3, 16);
        if !w.any {
            (best, size) = (0, 0);
        }
        for (b, over) in [(1, w.over2.0), (2, w.over4.0)] {
            let s = 2 * BITS[b] as u32 + over;
            if s < size || (s == size && last_bits == BITS[b] && best != 3) {
                (best, size) = (b, s);
            }
        }
        out[headers + g / 4] |= (best as u8) << ((g % 4) * 2);
        at = match best {
            0 => at,
            1 => {
                out[at..at + 4].copy_from_slice(&L::pack2(group));
                put_over(out, at + 4, group, w.over2.1)
            }
            2 => {
                out[at..at + 8].copy_from_slice(&L::pack4(group));
                put_over(out, at + 8, group, w.over4.1)
            }
            _ => {
                out[at..at + GROUP].copy_from_slice(group);
                at + GROUP
            }
        };
        last_bits = BITS[best];
    }
    at
}

/// The group's bytes whose bits are set in `over`, in order, written at
/// `out[at..]`; returns where they end.
fn put_over(out: &mut [u8], mut at: usize, group: &[u8; GROUP], mut over: u32) -> usize {
    while over != 0 {
        out[at] = group[over.trailing_zeros() as usize];
        at += 1;
        over &= over - 1;
    }
    at
}

/// A byte at a time (on x86-64, only to test `Sse2` by).
#[cfg(any(test, not(target_arch = "x86_64")))]
struct Bytes;

#[cfg(any(test, not(target_arch = "x86_64")))]
impl Lanes for Bytes {
    fn planes(b: &Block<'_>, planes: &mut [[u8; MAX_BLOCK]]) {
        // Zigzagged: small differences either way small numbers.
        let zigzag = |d: u8| (((d as i8) >> 7) as u8) ^ (d << 1);
        let own = &b.vertices[b.at(0)..b.at(b.n)];
        for (k, plane) in planes[..b.stride].iter_mut().enumerate() {
            let mut p = b.last[k];
            for (i, v) in own.chunks_exact(b.stride).enumerate() {
                plane[i] = zigzag(v[k].wrapping_sub(p));
                p = v[k];
            }
            plane[b.n..b.n.next_multiple_of(GROUP)].fill(0);
        }
    }

    fn weigh(group: &[u8; GROUP]) -> Weighed {
        let over = |at_least: u8| {
            let bits = (0..GROUP).filter(|&i| group[i] >= at_least);
            let mask = bits.fold(0u32, |m, i| m | 1 << i);
            (mask.count_ones(), mask)
        };
        Weighed {
            any: group.iter().any(|&b| b != 0),
            over2: over(3),
            over4: over(15),
        }
    }

    fn pack2(group: &[u8; GROUP]) -> [u8; 4] {
        let c = |b: u8| b.min(3);
        std::array::from_fn(|j| {
            let q = &group[4 * j..4 * j + 4];
            c(q[0]) << 6 | c(q[1]) << 4 | c(q[2]) << 2 | c(q[3])
        })
    }

    fn pack4(group: &[u8; GROUP]) -> [u8; 8] {
        std::array::from_fn(|j| group[2 * j].min(15) << 4 | group[2 * j + 1].min(15))
    }
}

/// Sixteen bytes at once, with SSE2 (in x86-64's baseline).
#[cfg(target_arch = "x86_64")]
struct Sse2;

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::{Block, GROUP, Lanes, MAX_BLOCK, Sse2, Weighed};
    use safe_arch::*;

    /// 16 bytes of `bytes` from `at` (zeros past its end).
    fn load(bytes: &[u8], at: usize) -> m128i {
        match bytes.get(at..at + GROUP) {
            Some(b) => m128i::from(<[u8; GROUP]>::try_from(b).expect("16 bytes")),
            None => {
                let mut b = [0u8; GROUP];
                let rest = &bytes[at.min(bytes.len())..];
                b[..rest.len()].copy_from_slice(rest);
                m128i::from(b)
            }
        }
    }

    /// Rows `r` (16 bytes each) as columns: byte `j` of row `i` becomes
    /// byte `i` of row `j`.
    fn transpose(r: &mut [m128i; 16]) {
        let mut t = [zeroed_m128i(); 16];
        for i in 0..8 {
            t[i] = unpack_low_i8_m128i(r[2 * i], r[2 * i + 1]);
            t[i + 8] = unpack_high_i8_m128i(r[2 * i], r[2 * i + 1]);
        }
        for i in 0..4 {
            r[i] = unpack_low_i16_m128i(t[2 * i], t[2 * i + 1]);
            r[i + 4] = unpack_high_i16_m128i(t[2 * i], t[2 * i + 1]);
            r[i + 8] = unpack_low_i16_m128i(t[8 + 2 * i], t[9 + 2 * i]);
            r[i + 12] = unpack_high_i16_m128i(t[8 + 2 * i], t[9 + 2 * i]);
        }
        for q in 0..4 {
            for i in 0..2 {
                let (a, b) = (r[q * 4 + 2 * i], r[q * 4 + 2 * i + 1]);
                t[q * 4 + i] = unpack_low_i32_m128i(a, b);
                t[q * 4 + i + 2] = unpack_high_i32_m128i(a, b);
            }
        }
        for q in 0..8 {
            r[2 * q] = unpack_low_i64_m128i(t[2 * q], t[2 * q + 1]);
            r[2 * q + 1] = unpack_high_i64_m128i(t[2 * q], t[2 * q + 1]);
        }
    }

    /// Which bytes are at least `n`: all ones where they are.
    fn at_least(x: m128i, n: u8) -> m128i {
        cmp_eq_mask_i8_m128i(max_u8_m128i(x, set_splat_i8_m128i(n as i8)), x)
    }

    impl Lanes for Sse2 {
        fn planes(b: &Block<'_>, planes: &mut [[u8; MAX_BLOCK]]) {
            let zero = zeroed_m128i();
            for c in 0..b.stride.div_ceil(GROUP) {
                let mut p = load(b.last, c * GROUP);
                for i0 in (0..b.n).step_by(GROUP) {
                    let mut rows = [zero; 16];
                    for (r, row) in rows.iter_mut().enumerate().take(b.n - i0) {
                        let x = load(b.vertices, b.at(i0 + r) + c * GROUP);
                        let d = sub_i8_m128i(x, p);
                        // Zigzag: doubled, all bits flipped where negative.
                        *row = bitxor_m128i(add_i8_m128i(d, d), cmp_gt_mask_i8_m128i(zero, d));
                        p = x;
                    }
                    transpose(&mut rows);
                    let planes = planes[c * GROUP..].iter_mut();
                    for (plane, row) in planes.zip(rows) {
                        plane[i0..i0 + GROUP].copy_from_slice(&<[u8; GROUP]>::from(row));
                    }
                }
            }
        }

        fn weigh(group: &[u8; GROUP]) -> Weighed {
            let zero = zeroed_m128i();
            let x = m128i::from(*group);
            let (over2, over4) = (at_least(x, 3), at_least(x, 15));
            // Counted by adding up bytes of 1 (psadbw): eight bytes' sum in
            // each half, the second count 16 bits up.
            let ones = |m: m128i| sum_of_u8_abs_diff_m128i(sub_i8_m128i(zero, m), zero);
            let both = add_i64_m128i(ones(over2), shl_imm_u64_m128i::<16>(ones(over4)));
            let both = add_i64_m128i(both, unpack_high_i64_m128i(both, both));
            let counts = get_i32_from_m128i_s(both) as u32;
            let mask = |m: m128i| move_mask_i8_m128i(m) as u32;
            Weighed {
                any: mask(cmp_eq_mask_i8_m128i(x, zero)) != 0xFFFF,
                over2: (counts & 0xFFFF, mask(over2)),
                over4: (counts >> 16, mask(over4)),
            }
        }

        fn pack2(group: &[u8; GROUP]) -> [u8; 4] {
            // Two bytes a lane, then two such a lane, then each lane's low
            // byte.
            let y = paired::<2>(capped(group, 3));
            let low = set_splat_i32_m128i(0xFFFF);
            let z = bitor_m128i(
                shl_imm_u32_m128i::<4>(bitand_m128i(y, low)),
                shr_imm_u32_m128i::<16>(y),
            );
            let p = pack_i32_to_i16_m128i(z, z);
            (get_i32_from_m128i_s(pack_i16_to_u8_m128i(p, p)) as u32).to_le_bytes()
        }

        fn pack4(group: &[u8; GROUP]) -> [u8; 8] {
            let y = paired::<4>(capped(group, 15));
            (get_i64_from_m128i_s(pack_i16_to_u8_m128i(y, y)) as u64).to_le_bytes()
        }
    }

    /// The group's bytes, those over `n` as `n`.
    fn capped(group: &[u8; GROUP], n: u8) -> m128i {
        min_u8_m128i(m128i::from(*group), set_splat_i8_m128i(n as i8))
    }

    /// Each 16-bit lane's first byte shifted `BITS` up over its second.
    fn paired<const BITS: i32>(x: m128i) -> m128i {
        let low = set_splat_i16_m128i(0xFF);
        bitor_m128i(
            shl_imm_u16_m128i::<BITS>(bitand_m128i(x, low)),
            shr_imm_u16_m128i::<8>(x),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference encoder's stream (version 0).
    fn reference(vertices: &[u8], stride: usize) -> Vec<u8> {
        fn of<const N: usize>(bytes: &[u8]) -> Vec<u8> {
            meshopt::encode_vertex_buffer_level(bytes.as_chunks::<N>().0, 2, Some(0))
                .expect("encoded")
        }
        match stride {
            4 => of::<4>(vertices),
            8 => of::<8>(vertices),
            12 => of::<12>(vertices),
            16 => of::<16>(vertices),
            20 => of::<20>(vertices),
            24 => of::<24>(vertices),
            28 => of::<28>(vertices),
            32 => of::<32>(vertices),
            36 => of::<36>(vertices),
            48 => of::<48>(vertices),
            64 => of::<64>(vertices),
            252 => of::<252>(vertices),
            256 => of::<256>(vertices),
            _ => unreachable!("a stride the tests use"),
        }
    }

    /// Vertices of every kind a plane meets: runs of equal ones (zero
    /// groups), small steps either way (2 and 4 bits, with a few bytes
    /// that do not fit), noise (8 bits), and mixes that tie two choices.
    fn vertices(count: usize, stride: usize, seed: u64) -> Vec<u8> {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        let mut v = vec![0u8; count * stride];
        let mut value = vec![0u8; stride];
        for (i, vertex) in v.chunks_exact_mut(stride).enumerate() {
            let kind = (i / 37) % 5;
            for (k, b) in value.iter_mut().enumerate() {
                let r = next();
                *b = match (kind + k) % 5 {
                    0 => *b,
                    1 => b.wrapping_add((r % 3) as u8).wrapping_sub(1),
                    2 if r % 11 == 0 => r as u8,
                    2 => b.wrapping_add((r % 15) as u8).wrapping_sub(7),
                    3 => r as u8,
                    _ => b.wrapping_add((r % 5) as u8).wrapping_sub(2),
                };
            }
            vertex.copy_from_slice(&value);
        }
        v
    }

    /// Both lanes give the reference's stream for every stride the tests
    /// take (4 to 256 bytes), at counts about a block's ends, with bytes
    /// of every kind. (A stream's blocks made from a vertex on are held to
    /// the whole stream's by `meshopt`'s `parts_make_the_stream_of_the_whole`.)
    #[test]
    fn streams_are_the_reference_encoders() {
        for stride in [4, 8, 12, 16, 20, 24, 28, 32, 36, 48, 64, 252, 256] {
            let block = block_vertices(stride);
            let counts = [
                0,
                1,
                2,
                15,
                16,
                17,
                block - 1,
                block,
                block + 1,
                3 * block + 5,
            ];
            for (c, count) in counts.into_iter().enumerate() {
                let v = vertices(count, stride, (stride * 31 + c) as u64);
                let want = reference(&v, stride);
                assert_eq!(
                    stream::<Bytes>(&v, stride),
                    want,
                    "bytes, stride {stride}, {count}"
                );
                #[cfg(target_arch = "x86_64")]
                assert_eq!(
                    stream::<Sse2>(&v, stride),
                    want,
                    "sse2, stride {stride}, {count}"
                );
                assert_eq!(encode(&v, stride), want, "stride {stride}, {count}");
                assert!(want.len() <= bound(count, stride));
            }
        }
    }

    /// Groups weighed and packed alike in both lanes, for bytes about
    /// each limit (2, 3, 14, 15, 16) and all others.
    #[test]
    fn both_lanes_weigh_and_pack_alike() {
        let near = [0u8, 1, 2, 3, 4, 14, 15, 16, 127, 128, 200, 255];
        for a in 0..256usize {
            let group: [u8; GROUP] = std::array::from_fn(|i| match i % 3 {
                0 => a as u8,
                1 => near[(a + i) % near.len()],
                _ => near[(a * 7 + i) % near.len()],
            });
            let w = Bytes::weigh(&group);
            #[cfg(target_arch = "x86_64")]
            {
                let s = Sse2::weigh(&group);
                assert_eq!((s.any, s.over2, s.over4), (w.any, w.over2, w.over4));
                assert_eq!(Sse2::pack2(&group), Bytes::pack2(&group));
                assert_eq!(Sse2::pack4(&group), Bytes::pack4(&group));
            }
            assert_eq!(w.over2.0, group.iter().filter(|&&b| b >= 3).count() as u32);
        }
        // By hand: 1, 2, 3 and 0 in 2 bits; 15 and 1 in 4.
        let mut group = [0u8; GROUP];
        group[..4].copy_from_slice(&[1, 2, 3, 0]);
        assert_eq!(Bytes::pack2(&group)[0], 0b01_10_11_00);
        group[..2].copy_from_slice(&[15, 1]);
        assert_eq!(Bytes::pack4(&group)[0], 0xF1);
    }
}
