//! The binary buffer: accessors, buffer views, and the base64 of an
//! embedded buffer.
use super::Writer;
use super::bin;
use crate::hash::HashMap;
use gltf_json as json;
use json::validation::{Checked, USize64};
use json::{Index, accessor, buffer};

/// The binary buffer and the accessors written into it, shared where equal.
pub(super) struct Buffers {
    pub(super) bin: bin::Bin,
    /// Time accessors already written, by their f32 bits.
    pub(super) times: HashMap<Vec<u32>, Index<json::Accessor>>,
    /// Small accessors already written, by what they hold (see
    /// [`Writer::raw_accessor`]), and the bytes kept for that.
    pub(super) shared: HashMap<SharedKey, Index<json::Accessor>>,
    pub(super) shared_bytes: usize,
}

/// `data` in standard base64 with padding (RFC 4648), for a data URI.
pub(super) fn base64(data: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// The least and greatest of each component of `N`-component items, NaN
/// left out: what `f32::min` and `max` make a component at a time in the
/// items' order. Eight items at a time, each of their numbers compared
/// with its own lane's (a size known when compiled: the comparisons run
/// in vector registers, where one chain a component waited on each), the
/// lanes then folded. Only a zero could come out of that with another
/// sign than the chain's (`-0 < 0` is false): a component whose bound is
/// zero is done again as the chain does it.
pub(super) fn bounds<const N: usize>(data: &[f32]) -> (Vec<f32>, Vec<f32>) {
    const LANES: usize = 8;
    let mut lanes_lo = [[f32::INFINITY; N]; LANES];
    let mut lanes_hi = [[f32::NEG_INFINITY; N]; LANES];
    let mut blocks = data.chunks_exact(LANES * N);
    for block in &mut blocks {
        for (i, item) in block.chunks_exact(N).enumerate() {
            for c in 0..N {
                let x = item[c];
                lanes_lo[i][c] = if x < lanes_lo[i][c] {
                    x
                } else {
                    lanes_lo[i][c]
                };
                lanes_hi[i][c] = if x > lanes_hi[i][c] {
                    x
                } else {
                    lanes_hi[i][c]
                };
            }
        }
    }
    let rest: Vec<&[f32]> = blocks.remainder().chunks_exact(N).collect();
    let mut lo = [f32::INFINITY; N];
    let mut hi = [f32::NEG_INFINITY; N];
    for c in 0..N {
        let lanes = lanes_lo.iter().zip(&lanes_hi).map(|(l, h)| (l[c], h[c]));
        for (l, h) in lanes.chain(rest.iter().map(|item| (item[c], item[c]))) {
            lo[c] = if l < lo[c] { l } else { lo[c] };
            hi[c] = if h > hi[c] { h } else { hi[c] };
        }
        let component = || data.chunks_exact(N).map(|item| item[c]);
        if lo[c] == 0.0 {
            lo[c] = component().fold(f32::INFINITY, f32::min);
        }
        if hi[c] == 0.0 {
            hi[c] = component().fold(f32::NEG_INFINITY, f32::max);
        }
    }
    (lo.to_vec(), hi.to_vec())
}

/// The least and greatest of each component of `data`, elements of type
/// `ty`: an accessor's `min` and `max`.
pub(super) fn bounds_of(data: &[f32], ty: accessor::Type) -> (Vec<f32>, Vec<f32>) {
    match ty.multiplicity() {
        1 => bounds::<1>(data),
        2 => bounds::<2>(data),
        3 => bounds::<3>(data),
        4 => bounds::<4>(data),
        9 => bounds::<9>(data),
        _ => bounds::<16>(data),
    }
}

/// The JSON an animation track adds, about: its channel and sampler
/// (about 110 bytes), its keys' accessor and view (about 75; times are
/// often shared). A scene whose tracks take more has its buffer copied.
const TRACK_JSON: u64 = 192;

/// The room left for a GLB's header and JSON before a buffer moved to a
/// file as it is made, decided when the buffer first passes the size it
/// may have in memory: the JSON so far, three times more (at most 1 MiB
/// more, so that a large JSON is not followed by megabytes of padding),
/// [`TRACK_JSON`] for each of the clips' `tracks` (written later, most
/// of the JSON of a scene of many animated nodes) and 64 KiB, in whole 4
/// KiB pages (so the buffer starts on a page). A JSON that outgrows it is
/// written unpadded and the buffer copied after it (a tenth of a bake's
/// time when the buffer is large); one that fits is padded with spaces to
/// fill it (src/cli/output.rs).
pub(super) fn head_room(root: &json::Root, tracks: usize) -> u64 {
    /// Counts the bytes written to it.
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len() as u64;
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut json = Count(0);
    // Counting cannot fail; a JSON that could not be written counts as
    // none.
    let _ = serde_json::to_writer(&mut json, root);
    let more = (3 * json.0).min(1 << 20);
    let animations = TRACK_JSON.saturating_mul(tracks as u64);
    (json.0 + more + animations + (64 << 10)).next_multiple_of(4 << 10)
}

/// The largest accessor whose bytes are compared with those written before.
pub(super) const SHARED_MAX: usize = 64 << 10;
/// The most bytes kept for that comparison in one document.
pub(super) const SHARED_TOTAL: usize = 16 << 20;

/// How an accessor's bytes are read: elements, their components, and what
/// the buffer view is for.
#[derive(Clone, Copy)]
pub(super) struct Layout {
    count: usize,
    component: accessor::ComponentType,
    ty: accessor::Type,
    target: Option<buffer::Target>,
}

impl Layout {
    /// The bytes the accessor's elements take.
    fn size(&self) -> usize {
        self.count * self.ty.multiplicity() * self.component.size()
    }
}

/// What makes two accessors the same: their bytes, layout and use.
#[derive(PartialEq, Eq, Hash)]
pub(super) struct SharedKey {
    bytes: Vec<u8>,
    component: u32,
    ty: u32,
    bounds: bool,
    target: Option<u32>,
}

impl Writer<'_> {
    /// Appends `size` bytes written by `fill` to the buffer (see
    /// [`bin::Bin::append`]); returns where they start.
    pub(super) fn append(&mut self, size: usize, fill: impl FnOnce(&mut [u8])) -> usize {
        let (root, clips) = (&self.root, self.anim.clips);
        // Counted only when the room is decided (once a document).
        let tracks = || clips.iter().map(|c| c.tracks.len()).sum();
        self.buf
            .bin
            .append(size, fill, || head_room(root, tracks()))
    }

    /// Appends f32 data in its own buffer view and makes an accessor.
    pub(super) fn accessor(
        &mut self,
        data: &[f32],
        ty: accessor::Type,
        min_max: bool,
    ) -> Index<json::Accessor> {
        self.accessor_for(data, ty, min_max, None)
    }

    /// The same, for vertex data (a buffer view with its target).
    pub(super) fn accessor_for(
        &mut self,
        data: &[f32],
        ty: accessor::Type,
        min_max: bool,
        target: Option<buffer::Target>,
    ) -> Index<json::Accessor> {
        let bounds = min_max.then(|| bounds_of(data, ty));
        self.bounded_accessor(data, ty, bounds, target)
    }

    /// The same, its bounds ([`bounds_of`] its data) given.
    pub(super) fn bounded_accessor(
        &mut self,
        data: &[f32],
        ty: accessor::Type,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
        target: Option<buffer::Target>,
    ) -> Index<json::Accessor> {
        let bounds = bounds.map(|(lo, hi)| (serde_json::json!(lo), serde_json::json!(hi)));
        let component = accessor::ComponentType::F32;
        self.raw_accessor(
            data.iter().map(|x| x.to_le_bytes()),
            data.len() / ty.multiplicity(),
            component,
            ty,
            bounds,
            target,
        )
    }

    /// An accessor of `count` f32 elements placed in a buffer that only
    /// counts its bytes (see `bin::Bin::counting`), for data larger than
    /// [`SHARED_MAX`] (a bake would append it, not share it): none made.
    pub(super) fn counted_accessor(
        &mut self,
        count: usize,
        ty: accessor::Type,
        target: Option<buffer::Target>,
    ) -> Index<json::Accessor> {
        let layout = Layout {
            count,
            component: accessor::ComponentType::F32,
            ty,
            target,
        };
        let size = layout.size();
        debug_assert!(self.buf.bin.is_counting() && size > SHARED_MAX);
        let offset = self.append(size, |_| {});
        self.accessor_at(offset, size, layout, None)
    }

    /// Appends little-endian components (`N` bytes each; padded to four
    /// bytes) in their own buffer view and makes an accessor of `count`
    /// elements. The buffer is grown once and the components written into
    /// it (pushing them one by one was most of the writer's time). Data
    /// written before, to the byte, with the same layout and use, is not
    /// written again: its accessor is shared (three default Spheres are one
    /// set of accessors), for accessors of up to [`SHARED_MAX`] bytes while
    /// the bytes kept to compare stay within [`SHARED_TOTAL`].
    pub(super) fn raw_accessor<const N: usize>(
        &mut self,
        components: impl Iterator<Item = [u8; N]>,
        count: usize,
        component: accessor::ComponentType,
        ty: accessor::Type,
        bounds: Option<(serde_json::Value, serde_json::Value)>,
        target: Option<buffer::Target>,
    ) -> Index<json::Accessor> {
        let layout = Layout {
            count,
            component,
            ty,
            target,
        };
        self.layout_accessor(components, layout, bounds)
    }

    /// [`Writer::raw_accessor`] of any layout: `items` of `N` bytes (each a
    /// component, or a whole element with its padding).
    fn layout_accessor<const N: usize>(
        &mut self,
        items: impl Iterator<Item = [u8; N]>,
        layout: Layout,
        bounds: Option<(serde_json::Value, serde_json::Value)>,
    ) -> Index<json::Accessor> {
        let size = layout.size();
        if size > SHARED_MAX || self.buf.shared_bytes + size > SHARED_TOTAL {
            let offset = self.append(size, |bytes| {
                for (to, c) in bytes.chunks_exact_mut(N).zip(items) {
                    to.copy_from_slice(&c);
                }
            });
            return self.accessor_at(offset, size, layout, bounds);
        }
        let key = SharedKey {
            bytes: items.flatten().collect(),
            component: layout.component as u32,
            ty: layout.ty as u32,
            bounds: bounds.is_some(),
            target: layout.target.map(|t| t as u32),
        };
        if let Some(&a) = self.buf.shared.get(&key) {
            return a;
        }
        let offset = self.append(size, |to| to.copy_from_slice(&key.bytes));
        let a = self.accessor_at(offset, size, layout, bounds);
        self.buf.shared_bytes += size;
        self.buf.shared.insert(key, a);
        a
    }

    /// An accessor of `layout.count` elements over `size` bytes at
    /// `offset`, in a buffer view of its own.
    fn accessor_at(
        &mut self,
        offset: usize,
        size: usize,
        layout: Layout,
        bounds: Option<(serde_json::Value, serde_json::Value)>,
    ) -> Index<json::Accessor> {
        let Layout {
            count,
            component,
            ty,
            target,
        } = layout;
        let view = self.view(offset, size, target);
        let (min, max) = bounds.unzip();
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64(count as u64),
            component_type: Checked::Valid(accessor::GenericComponentType(component)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(ty),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    pub(super) fn view(
        &mut self,
        offset: usize,
        len: usize,
        target: Option<buffer::Target>,
    ) -> Index<buffer::View> {
        self.root.push(buffer::View {
            buffer: Index::new(0),
            byte_length: USize64(len as u64),
            byte_offset: Some(USize64(offset as u64)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: None,
        })
    }

    /// Vertex indices in the smallest type that holds them: u16 below
    /// 65 535 (kept free: WebGL's primitive restart), else u32.
    pub(super) fn indices(&mut self, data: &[u32]) -> Index<json::Accessor> {
        let ty = accessor::Type::Scalar;
        let target = Some(buffer::Target::ElementArrayBuffer);
        if data.iter().all(|&i| i < u32::from(u16::MAX)) {
            let bytes = data.iter().map(|&x| (x as u16).to_le_bytes());
            let component = accessor::ComponentType::U16;
            return self.raw_accessor(bytes, data.len(), component, ty, None, target);
        }
        let bytes = data.iter().map(|x| x.to_le_bytes());
        let component = accessor::ComponentType::U32;
        self.raw_accessor(bytes, data.len(), component, ty, None, target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::gltf::nodes::node;

    /// Numbers as their bits (so that 0 and -0 differ, and NaN equals
    /// itself).
    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// Each component's bounds as one chain of `f32::min` and `max` in the
    /// items' order makes them, as bits.
    fn chain<const N: usize>(data: &[f32]) -> (Vec<u32>, Vec<u32>) {
        let (mut lo, mut hi) = ([f32::INFINITY; N], [f32::NEG_INFINITY; N]);
        for item in data.chunks_exact(N) {
            for c in 0..N {
                lo[c] = lo[c].min(item[c]);
                hi[c] = hi[c].max(item[c]);
            }
        }
        (bits(&lo), bits(&hi))
    }

    /// The lanes' bounds, as bits.
    fn lanes<const N: usize>(data: &[f32]) -> (Vec<u32>, Vec<u32>) {
        let (lo, hi) = bounds::<N>(data);
        (bits(&lo), bits(&hi))
    }

    /// The lanes' bounds are the chain's to the bit, for every item size,
    /// at counts about a block of eight, with NaN, infinities and zeros of
    /// both signs (a bound of zero with either sign first) among numbers
    /// of every size.
    #[test]
    fn bounds_are_the_chain_of_minima_and_maxima() {
        fn check<const N: usize>(seed: u32) {
            let mut x = seed;
            let specials = [f32::NAN, -0.0, 0.0, f32::INFINITY, -1e-40, 0.0, -0.0];
            for items in 0..40 {
                let data: Vec<f32> = (0..items * N)
                    .map(|i| {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        match x % 5 {
                            0 => specials[i % specials.len()],
                            1 => (x % 3) as f32 - 1.0,
                            _ => f32::from_bits(x),
                        }
                    })
                    .collect();
                assert_eq!(lanes::<N>(&data), chain::<N>(&data), "{N} x {items}");
            }
        }
        // The chain keeps the first of two zeros; the first lane, folded
        // first, would hold the later -0 (item 8) over item 1's 0.
        let mut least = [2.0f32; 16];
        (least[0], least[1], least[8]) = (1.0, 0.0, -0.0);
        let greatest = least.map(|x| -x);
        for data in [least, greatest] {
            assert_eq!(lanes::<1>(&data), chain::<1>(&data), "{data:?}");
        }
        assert_eq!(lanes::<1>(&least).0, bits(&[0.0]));
        assert_eq!(lanes::<1>(&greatest).1, bits(&[-0.0]));
        check::<1>(1);
        check::<2>(2);
        check::<3>(3);
        check::<4>(4);
        check::<9>(9);
        check::<16>(16);
    }

    /// The room for a GLB's head: four times a small JSON and 64 KiB; a
    /// large JSON and at most 1 MiB more; room for each track to come;
    /// whole pages either way.
    #[test]
    fn the_head_room_grows_with_the_json_and_is_capped() {
        let mut root = json::Root::default();
        let len = |root: &json::Root| serde_json::to_vec(root).unwrap().len() as u64;
        let small = len(&root);
        assert_eq!(
            head_room(&root, 0),
            (4 * small + (64 << 10)).next_multiple_of(4096)
        );
        assert_eq!(
            head_room(&root, 1000),
            (4 * small + 1000 * TRACK_JSON + (64 << 10)).next_multiple_of(4096)
        );
        for i in 0..40_000 {
            root.push(node(Some(format!("node_{i:05}"))));
        }
        let large = len(&root);
        let room = head_room(&root, 0);
        assert!(
            large > 500_000 && room.is_multiple_of(4096),
            "{large} {room}"
        );
        assert!(room >= large + (1 << 20) + (64 << 10), "{large} {room}");
        assert!(room < large + (1 << 20) + (68 << 10), "{large} {room}");
    }

    #[test]
    pub(super) fn base64_matches_rfc4648() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
