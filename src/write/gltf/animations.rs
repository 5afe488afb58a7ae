//! Animations: one per clip, a channel per track, exact keys or samples,
//! node paths or KHR_animation_pointer.

use super::materials::{TexField, TexPart};
use super::meshes::rest_values;
use super::morphs::Morph;
use super::targets::{Conv, Shapes, Target, TexTarget, base_color_field, gltf_interpolation};
use super::{Options, TrackFates, Writer};
use crate::anim::clip::{Clip, Track};
use crate::anim::fit::Shape;
use crate::anim::keyframes::{Interpolation, Keyframes};
use crate::anim::keys::Mode;
use crate::anim::keys::{KeyChooser, sampled_interpolation};
use crate::hash::HashMap;
use crate::scene::{NodeId, NodeType, Scene};
use gltf_json as json;
use json::validation::Checked;
use json::{Index, accessor, animation};

/// Keys closer than this (0.01 frame at 24 fps) merge in Blender's
/// importer, which keys F-curves on frames (t × 24) and keeps keys at
/// least 0.01 frame apart.
const FRAME_GRID: f64 = 0.01 / 24.0;

/// The clips written and what is known of their tracks.
pub(super) struct Animated<'a> {
    pub(super) clips: &'a [Clip],
    /// Fields some clip animates.
    pub(super) animated: crate::hash::HashSet<(NodeId, String)>,
    /// Animated arrays that are empty in the file: their first animated value.
    pub(super) rest: crate::mesh::Overrides,
    /// Each clip's tracks by the node they drive.
    pub(super) track_index: Vec<TrackIndex<'a>>,
    /// The clips that animate each node, in order.
    pub(super) clips_of: HashMap<NodeId, Vec<usize>>,
    /// The keyframes written, with Options::record.
    pub(super) written: Vec<(usize, usize, Keyframes<'static>)>,
    pub(super) tracks: TrackFates,
    /// The keys of each track, chosen within the animation values limit.
    pub(super) keys: KeyChooser<'a>,
    pub(super) pointers: Vec<(usize, usize, String)>,
    /// Tracks written as part of another track's morph targets.
    pub(super) folded: crate::hash::HashSet<(usize, usize)>,
    /// (clip, mesh node) pairs given a weights channel.
    pub(super) weight_channels: crate::hash::HashSet<(usize, usize)>,
    /// Tracks left out for their pointer channels (`Options::core`).
    pub(super) pointers_left_out: usize,
}

impl<'a> Animated<'a> {
    pub(super) fn new(scene: &'a Scene, clips: &'a [Clip], opts: &Options) -> Self {
        let track_index: Vec<TrackIndex> = clips.iter().map(TrackIndex::new).collect();
        let mut clips_of: HashMap<NodeId, Vec<usize>> = HashMap::default();
        for (ci, index) in track_index.iter().enumerate() {
            for &node in index.producing.keys() {
                clips_of.entry(node).or_default().push(ci);
            }
        }
        Animated {
            clips,
            animated: clips
                .iter()
                .flat_map(|c| &c.tracks)
                .map(|t| (t.target, t.field.clone()))
                .collect(),
            rest: rest_values(scene, clips),
            track_index,
            clips_of,
            written: Vec::new(),
            tracks: TrackFates::default(),
            keys: KeyChooser::new(scene, opts.keys, opts.limits.animation_values),
            pointers: Vec::new(),
            folded: Default::default(),
            weight_channels: Default::default(),
            pointers_left_out: 0,
        }
    }
}

/// A clip's tracks by the node they drive, made once a clip: a track's
/// partners (a Material's colour and transparency, a TextureTransform's
/// fields, a mesh's points and normals) found by a scan of the clip took
/// the square of its tracks (60 000 animated Transforms: 6.8 s).
pub(super) struct TrackIndex<'c> {
    /// The first track of each node and field.
    first: HashMap<(NodeId, &'c str), usize>,
    /// The tracks that produce values, of each node, in clip order.
    producing: HashMap<NodeId, Vec<usize>>,
}

impl<'c> TrackIndex<'c> {
    pub(super) fn new(clip: &'c Clip) -> TrackIndex<'c> {
        let mut first = HashMap::default();
        let mut producing: HashMap<NodeId, Vec<usize>> = HashMap::default();
        for (i, t) in clip.tracks.iter().enumerate() {
            first.entry((t.target, t.field.as_str())).or_insert(i);
            if t.interpolator().produces() {
                producing.entry(t.target).or_default().push(i);
            }
        }
        TrackIndex { first, producing }
    }

    pub(super) fn first(&self, node: NodeId, field: &str) -> Option<usize> {
        self.first.get(&(node, field)).copied()
    }

    pub(super) fn producing(&self, node: NodeId) -> &[usize] {
        self.producing.get(&node).map_or(&[], |v| v)
    }
}

/// One animation's samplers and channels as they are made, and its pointer
/// channels (a placeholder target each, replaced in the JSON).
#[derive(Default)]
pub(super) struct Parts {
    /// The animation's index.
    pub(super) anim: usize,
    pub(super) channels: Vec<animation::Channel>,
    pub(super) samplers: Vec<animation::Sampler>,
    pub(super) pointers: Vec<(usize, usize, String)>,
}

impl Parts {
    pub(super) fn sampler(
        &mut self,
        input: Index<json::Accessor>,
        output: Index<json::Accessor>,
        interpolation: animation::Interpolation,
    ) -> Index<animation::Sampler> {
        self.samplers.push(animation::Sampler {
            extensions: None,
            extras: None,
            input,
            interpolation: Checked::Valid(interpolation),
            output,
        });
        Index::new(self.samplers.len() as u32 - 1)
    }

    pub(super) fn node_channel(
        &mut self,
        sampler: Index<animation::Sampler>,
        node: Index<json::Node>,
        path: animation::Property,
    ) {
        self.channels.push(animation::Channel {
            sampler,
            target: animation::Target {
                extensions: None,
                extras: None,
                node,
                path: Checked::Valid(path),
            },
            extensions: None,
            extras: None,
        });
    }

    pub(super) fn pointer_channel(&mut self, sampler: Index<animation::Sampler>, pointer: String) {
        self.pointers
            .push((self.anim, self.channels.len(), pointer));
        self.node_channel(sampler, Index::new(0), animation::Property::Translation);
    }
}

impl Writer<'_> {
    /// Key times as f32, strictly increasing: a repeated time (a jump) moves
    /// to the next representable f32 after the one before.
    pub(super) fn times(&mut self, k: &Keyframes) -> Index<json::Accessor> {
        let mut out: Vec<f32> = Vec::with_capacity(k.times.len());
        for &t in &k.times {
            let mut t = t as f32;
            if let Some(&last) = out.last()
                && t <= last
            {
                t = f32::from_bits(last.to_bits() + 1);
            }
            out.push(t);
        }
        let bits: Vec<u32> = out.iter().map(|t| t.to_bits()).collect();
        if let Some(&a) = self.buf.times.get(&bits) {
            return a;
        }
        let a = self.accessor(&out, accessor::Type::Scalar, true);
        self.buf.times.insert(bits, a);
        a
    }

    pub(super) fn animation(&mut self, ci: usize, clip: &Clip, opts: &Options) {
        let mut parts = Parts {
            anim: self.root.animations.len(),
            ..Parts::default()
        };
        let left_out = self.anim.pointers_left_out;
        // The shortest time between two keys of a track (a jump's two keys
        // at one time aside), and the first jump between keys that are not
        // steps.
        let mut closest = f64::INFINITY;
        let mut jump: Option<f64> = None;
        for (ti, track) in clip.tracks.iter().enumerate() {
            if self.anim.keys.over_limit() {
                break; // reported: the document is not written
            }
            let (morphs, folded) = (&self.geo.morphs, &self.anim.folded);
            let skip = |i| morphs.contains_key(&(ci, i)) || folded.contains(&(ci, i));
            self.anim.keys.fit_ahead(ci, ti, clip, skip);
            let Some((target, k)) = self.track_keys(ci, ti, clip, opts) else {
                continue;
            };
            if opts.record {
                self.anim.written.push((ci, ti, k.to_owned_keys()));
            }
            // (Keys within a nanosecond are a jump, as at one time.)
            let gaps = k.times.windows(2).map(|t| (t[0], t[1] - t[0]));
            for (t, d) in gaps {
                match d > 1e-9 {
                    true => closest = closest.min(d),
                    false if k.interpolation != Interpolation::Step => {
                        jump = Some(jump.map_or(t, |j| j.min(t)));
                    }
                    false => {}
                }
            }
            match target {
                Target::Visibility { shown } => self.visibility_channels(&mut parts, &k, shown),
                Target::Texture {
                    materials,
                    field,
                    fixed,
                } => {
                    let tex = TexTarget {
                        materials,
                        field,
                        fixed,
                    };
                    self.texture_channels(&mut parts, ci, clip, track, &k, tex)
                }
                target => self.value_channels(&mut parts, &k, target),
            }
        }
        if closest < FRAME_GRID && !parts.channels.is_empty() {
            self.diags.warning(
                format!(
                    "clip `{}`: keys {:.2e} s apart, {:.1e} frames at 24 fps: Blender's importer \
                     (and other tools that key on a frame grid) merges keys closer than 0.01 \
                     frame, so the clip plays wrong there (three.js and Babylon.js play it right)",
                    clip.name,
                    closest,
                    closest * 24.0
                ),
                Some(self.scene.node(clip.clock_node).span),
            );
        }
        if let Some(t) = jump.filter(|_| !parts.channels.is_empty()) {
            self.diags.warning(
                format!(
                    "clip `{}`: a value jumps at {t} s (two keys at one time): Blender's importer \
                     keeps one of them and ramps into the jump from the key before (three.js \
                     and Babylon.js play it right)",
                    clip.name
                ),
                Some(self.scene.node(clip.clock_node).span),
            );
        }
        if parts.channels.is_empty() {
            if self.anim.pointers_left_out > left_out {
                self.diags.warning(
                    format!(
                        "clip `{}`: no animation written: its channels are \
                         KHR_animation_pointer ones, left out (--core)",
                        clip.name
                    ),
                    Some(self.scene.node(clip.clock_node).span),
                );
            }
            return;
        }
        if !parts.pointers.is_empty() {
            self.extensions.push("KHR_animation_pointer");
        }
        self.anim.pointers.extend(parts.pointers);
        let extras = serde_json::json!({
            "loop": clip.looping(),
            "clock": self.scene.node(clip.clock_node).type_name,
        });
        self.root.push(json::Animation {
            extensions: None,
            extras: serde_json::value::to_raw_value(&extras).ok(),
            channels: parts.channels,
            name: Some(clip.name.clone()),
            samplers: parts.samplers,
        });
    }

    /// Where track `ti` of clip `ci` goes and its keyframes; `None` for a
    /// track written with another (transparency with its diffuseColor, the
    /// fields of a TextureTransform with its first), one with no glTF
    /// target (warned), and one past a limit (reported).
    pub(super) fn track_keys<'c>(
        &mut self,
        ci: usize,
        ti: usize,
        clip: &'c Clip,
        opts: &Options,
    ) -> Option<(Target, Keyframes<'c>)> {
        let track = &clip.tracks[ti];
        if !track.interpolator().produces() || self.anim.folded.contains(&(ci, ti)) {
            return None;
        }
        let index = &self.anim.track_index[ci];
        let partner = |field: &str| index.first(track.target, field).map(|i| &clip.tracks[i]);
        let ty = self.scene.node_type(track.target);
        // A material's colour and transparency are one baseColorFactor.
        let color = ty.and_then(base_color_field);
        let transparency = partner("transparency").filter(|_| color == Some(&*track.field));
        if track.field == "transparency" && color.and_then(partner).is_some() {
            return None; // written with the colour, as one baseColorFactor
        }
        if ty == Some(NodeType::TextureTransform)
            && index
                .producing(track.target)
                .first()
                .is_some_and(|&i| i < ti)
        {
            return None; // written with the first field of its node
        }
        let morph = self.geo.morphs.remove(&(ci, ti));
        let target = match &morph {
            Some(m) => {
                let nodes = self
                    .geo
                    .mesh_nodes
                    .get(&m.mesh)
                    .cloned()
                    .unwrap_or_default();
                let shapes = self.shapes(m);
                if let Some(s) = &shapes {
                    self.anim.tracks.switched.push(((ci, ti), s.shown.len()));
                }
                Target::Weights {
                    nodes,
                    first: m.first,
                    total: m.total,
                    shapes,
                }
            }
            None => {
                let Some(target) = self.target(track) else {
                    self.anim.tracks.dropped.push((ci, ti)); // warned where its target has a place
                    return None;
                };
                target
            }
        };
        if opts.core && self.is_pointer(&target) {
            self.diags.warning(
                format!(
                    "`{}.{}` in clip `{}`: its glTF channel is a KHR_animation_pointer, which \
                     core glTF loaders (the `gltf` crate, Bevy) do not read: left out (--core)",
                    self.scene.display_name(track.target),
                    track.field,
                    clip.name
                ),
                Some(track.span),
            );
            self.anim.tracks.dropped.push((ci, ti));
            self.anim.pointers_left_out += 1;
            return None;
        }
        // One weights channel a mesh node in an animation.
        if let Target::Weight { nodes, .. } = &target
            && nodes
                .iter()
                .any(|n| !self.anim.weight_channels.insert((ci, n.value())))
        {
            self.diags.warning(
                format!(
                    "`{}.weight` (HAnimDisplacer): another displacer of its skin is animated in clip `{}`, and glTF holds one weights channel a mesh: not written",
                    self.scene.display_name(track.target),
                    clip.name
                ),
                Some(track.span),
            );
            self.anim.tracks.dropped.push((ci, ti));
            return None;
        }
        let k = match (transparency, morph) {
            (_, Some(m)) => m.keyframes,
            // Colour and transparency in one clip: one RGBA curve, fitted
            // (or sampled, when asked for).
            (Some(tr), None) => {
                let mut a = Vec::new();
                let mut rgba = |f: f64, out: &mut Vec<f64>| {
                    track.eval_fraction(f, out);
                    tr.eval_fraction(f, &mut a);
                    out.push(1.0 - a.first().copied().unwrap_or(0.0));
                };
                let interpolation = sampled_interpolation(&opts.keys, track);
                if opts.keys.mode == Mode::Sample {
                    let cubic = interpolation == Interpolation::Cubic;
                    if !self
                        .anim
                        .keys
                        .sampled_with(clip, track, 4, cubic, self.diags)
                    {
                        return None;
                    }
                    Keyframes::sample(&clip.map, opts.keys.rate, 4, interpolation, false, rgba)
                } else {
                    self.anim.keys.joint(
                        clip,
                        &[track, tr],
                        4,
                        Shape::EITHER,
                        &mut rgba,
                        self.diags,
                    )?
                }
            }
            (None, None) => self.anim.keys.keyframes(clip, track, true, self.diags)?,
        };
        let target = match (transparency, target) {
            (Some(_), Target::Pointer { pointers, .. }) => Target::Pointer {
                pointers,
                conv: Conv::Same,
            },
            (_, t) => t,
        };
        Some((target, k))
    }

    /// Whether a target's channels are KHR_animation_pointer ones (no node).
    fn is_pointer(&self, target: &Target) -> bool {
        match target {
            Target::Pointer { .. } | Target::Texture { .. } => true,
            Target::Visibility { shown } => shown
                .iter()
                .flat_map(|(_, nodes)| nodes)
                .any(|n| !self.tree.scaled.contains_key(&n.value())),
            _ => false,
        }
    }

    /// KHR_node_visibility: a bool (unsigned byte) STEP curve for each list
    /// of nodes shown together.
    pub(super) fn visibility_channels(
        &mut self,
        parts: &mut Parts,
        k: &Keyframes,
        shown: Vec<(Option<usize>, Vec<Index<json::Node>>)>,
    ) {
        let times = self.times(k);
        for (when, nodes) in shown {
            let on = |v: &[f64]| match (when, v.first()) {
                (Some(i), Some(&x)) => x == i as f64,
                (None, Some(&x)) => x != 0.0,
                (_, None) => false,
            };
            // Shown by their scale: a STEP scale curve a node (its own
            // scale when shown, zero when hidden).
            let (scaled, nodes): (Vec<_>, Vec<_>) = nodes
                .into_iter()
                .partition(|n| self.tree.scaled.contains_key(&n.value()));
            for node in scaled {
                let own = self.tree.scaled[&node.value()];
                let values: Vec<f32> = (0..k.len())
                    .flat_map(|j| if on(&k.value(j)) { own } else { [0.0; 3] })
                    .collect();
                let output = self.accessor(&values, accessor::Type::Vec3, false);
                let s = parts.sampler(times, output, animation::Interpolation::Step);
                parts.node_channel(s, node, animation::Property::Scale);
            }
            if nodes.is_empty() {
                continue;
            }
            let bytes = (0..k.len()).map(|j| [u8::from(on(&k.value(j)))]);
            let (u8, scalar) = (accessor::ComponentType::U8, accessor::Type::Scalar);
            let output = self.raw_accessor(bytes, k.len(), u8, scalar, None, None);
            let s = parts.sampler(times, output, animation::Interpolation::Step);
            for node in nodes {
                let pointer = format!(
                    "/nodes/{}/extensions/KHR_node_visibility/visible",
                    node.value()
                );
                parts.pointer_channel(s, pointer);
            }
        }
    }

    /// KHR_texture_transform's offset, rotation and scale, each a pointer
    /// channel on every material using the texture.
    pub(super) fn texture_channels(
        &mut self,
        parts: &mut Parts,
        ci: usize,
        clip: &Clip,
        track: &Track,
        k: &Keyframes,
        tex: TexTarget,
    ) {
        // The times accessor is made first, as for every other track.
        self.times(k);
        let TexTarget {
            materials,
            field,
            fixed,
        } = tex;
        // The other fields of the same TextureTransform in this clip: the
        // glTF properties depend on them all.
        let together: Vec<(TexField, &Track)> = self.anim.track_index[ci]
            .producing(track.target)
            .iter()
            .map(|&i| (TexField::of(&clip.tracks[i].field), &clip.tracks[i]))
            .collect();
        let mut tex_parts: Vec<(TexPart, bool)> = together
            .iter()
            .flat_map(|(f, _)| f.parts().iter().copied())
            .collect();
        tex_parts.sort_by_key(|&(p, linear)| (p as u8, !linear));
        tex_parts.dedup_by_key(|&mut (p, _)| p);
        for (part, linear) in tex_parts {
            let (resampled, conv) = if together.len() > 1
                || (!linear && k.interpolation != Interpolation::Step)
            {
                // The part from all the fields (or a part not linear in its
                // field): fitted within the bound, or sampled when asked.
                let mut v = Vec::new();
                let mut value_at = |f: f64, out: &mut Vec<f64>| {
                    let mut x = fixed;
                    for (field, t) in &together {
                        t.eval_fraction(f, &mut v);
                        x = x.with(*field, &v);
                    }
                    out.clear();
                    out.extend(x.part(part));
                };
                let joint = if self.opts.keys.mode == Mode::Sample {
                    if !self
                        .anim
                        .keys
                        .sampled_with(clip, track, part.width(), false, self.diags)
                    {
                        continue;
                    }
                    let (rate, width) = (self.opts.keys.rate, part.width());
                    Keyframes::sample(
                        &clip.map,
                        rate,
                        width,
                        Interpolation::Linear,
                        false,
                        value_at,
                    )
                } else {
                    let tracks: Vec<&Track> = together.iter().map(|(_, t)| *t).collect();
                    let width = part.width();
                    let Some(k) = self.anim.keys.joint(
                        clip,
                        &tracks,
                        width,
                        Shape::EITHER,
                        &mut value_at,
                        self.diags,
                    ) else {
                        continue;
                    };
                    k
                };
                (Some(joint), Conv::Same)
            } else {
                (None, Conv::Tex { part, field, fixed })
            };
            let k = resampled.as_ref().unwrap_or(k);
            let pointers: Vec<String> = materials
                .iter()
                .map(|m| {
                    format!(
                        "/materials/{m}/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/{}",
                        part.property()
                    )
                })
                .collect();
            let output = self.values(k, |v, tangent, out| conv.append(v, tangent, out));
            let input = self.times(k);
            let s = parts.sampler(input, output, gltf_interpolation(k.interpolation));
            pointers
                .into_iter()
                .for_each(|p| parts.pointer_channel(s, p));
        }
    }

    /// The triangulation drawn at each key of a morph whose mesh has
    /// several, as a STEP curve and the nodes it shows; `None` for one.
    pub(super) fn shapes(&self, m: &Morph) -> Option<Shapes> {
        if m.shapes.is_empty() {
            return None;
        }
        let places = self.geo.shape_nodes.get(&m.mesh)?;
        let count = places.first()?.len();
        let shown = (0..count)
            .map(|j| (Some(j), places.iter().map(|p| p[j]).collect()))
            .collect();
        let at = Keyframes {
            interpolation: Interpolation::Step,
            width: 1,
            quaternions: false,
            times: m.keyframes.times.clone(),
            values: m
                .shapes
                .iter()
                .map(|&j| j as f64)
                .collect::<Vec<_>>()
                .into(),
            in_tangents: Vec::new(),
            out_tangents: Vec::new(),
        };
        Some(Shapes { at, shown })
    }

    /// A node path, morph weights or pointers: one sampler, a channel for
    /// each place.
    pub(super) fn value_channels(&mut self, parts: &mut Parts, k: &Keyframes, target: Target) {
        let times = self.times(k);
        let output = match target {
            Target::Weights { first, total, .. } => self.weights(k, first, total),
            Target::Weight {
                index, ref fixed, ..
            } => self.one_weight(k, index, fixed),
            _ => self.values(k, |v, tangent, out| target.convert(v, tangent, out)),
        };
        let s = parts.sampler(times, output, gltf_interpolation(k.interpolation));
        match target {
            Target::Node { path, nodes, .. } => {
                for n in nodes {
                    parts.node_channel(s, n, path);
                }
            }
            Target::Weights { nodes, shapes, .. } => {
                for n in nodes {
                    parts.node_channel(s, n, animation::Property::MorphTargetWeights);
                }
                if let Some(Shapes { at, shown }) = shapes {
                    self.visibility_channels(parts, &at, shown);
                }
            }
            Target::Weight { nodes, .. } => {
                for n in nodes {
                    parts.node_channel(s, n, animation::Property::MorphTargetWeights);
                }
            }
            Target::Pointer { pointers: list, .. } => {
                list.into_iter().for_each(|p| parts.pointer_channel(s, p))
            }
            Target::Visibility { .. } | Target::Texture { .. } => {
                unreachable!("written by their own functions")
            }
        }
    }

    /// One-hot morph weights: key i has weight 1 on target `first + i` of
    /// `total`, 0 on the others.
    pub(super) fn weights(
        &mut self,
        k: &Keyframes,
        first: usize,
        total: usize,
    ) -> Index<json::Accessor> {
        let mut out = vec![0.0f32; k.len() * total];
        for i in 0..k.len() {
            out[i * total + first + i] = 1.0;
        }
        self.accessor(&out, accessor::Type::Scalar, false)
    }

    /// The weights of a mesh's targets at each key, target `index` taking
    /// the keys' values and the others `fixed` (cubic: their tangents 0).
    pub(super) fn one_weight(
        &mut self,
        k: &Keyframes,
        index: usize,
        fixed: &[f32],
    ) -> Index<json::Accessor> {
        let cubic = k.interpolation == Interpolation::Cubic;
        let mut out = Vec::with_capacity(k.len() * fixed.len() * if cubic { 3 } else { 1 });
        let with = |value: f64, rest: &[f32], out: &mut Vec<f32>| {
            let start = out.len();
            out.extend_from_slice(rest);
            out[start + index] = value as f32;
        };
        let zeros = vec![0.0; fixed.len()];
        for i in 0..k.len() {
            if cubic {
                with(k.in_tangents[i], &zeros, &mut out);
                with(k.value(i)[0], fixed, &mut out);
                with(k.out_tangents[i], &zeros, &mut out);
            } else {
                with(k.value(i)[0], fixed, &mut out);
            }
        }
        self.accessor(&out, accessor::Type::Scalar, false)
    }

    /// Output values as glTF wants them, each value (and, `true`, tangent)
    /// through `convert`, which appends it to the output; cubic keys as
    /// (in-tangent, value, out-tangent).
    pub(super) fn values(
        &mut self,
        k: &Keyframes,
        convert: impl Fn(&[f64], bool, &mut Vec<f32>),
    ) -> Index<json::Accessor> {
        let w = k.width;
        // Cubic keys hold three values each (a converted value may differ in
        // width: this is only a first guess).
        let cubic = k.interpolation == Interpolation::Cubic;
        let mut out: Vec<f32> = Vec::with_capacity(k.values.len() * if cubic { 3 } else { 1 });
        let mut width = w;
        // (A key's value as f64 in one list, not one made for each.)
        let mut scratch = Vec::with_capacity(w);
        for i in 0..k.len() {
            let key = i * w..(i + 1) * w;
            if cubic {
                convert(&k.in_tangents[key.clone()], true, &mut out);
            }
            let start = out.len();
            let value = k.values.slice_in(key.clone(), &mut scratch);
            convert(value, false, &mut out);
            width = out.len() - start;
            if cubic {
                convert(&k.out_tangents[key], true, &mut out);
            }
        }
        let ty = match width {
            1 => accessor::Type::Scalar,
            2 => accessor::Type::Vec2,
            4 => accessor::Type::Vec4,
            _ => accessor::Type::Vec3,
        };
        self.accessor(&out, ty, false)
    }
}
