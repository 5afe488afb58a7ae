//! Animations: one per clip, a channel per track, exact keys or samples,
//! node paths or KHR_animation_pointer.

use super::*;

/// How a sampled track is interpolated: its natural way in exact mode,
/// as `--interpolation` says in sample mode (LINEAR on rotations is slerp;
/// a sequencer's always in steps).
pub(super) fn sampled_interpolation(opts: &Options, track: &Track) -> Interpolation {
    match (opts.mode, opts.interpolation) {
        (Mode::Exact, _) => track.sample_interpolation(),
        // A sequencer's value only jumps: its samples are steps whatever
        // the flag (a light's `on` would otherwise dim between keys).
        _ if track.sample_interpolation() == Interpolation::Step => Interpolation::Step,
        (Mode::Sample, SampleInterpolation::Linear) if track.is_rotation() => Interpolation::Slerp,
        (Mode::Sample, SampleInterpolation::Linear) => Interpolation::Linear,
        (Mode::Sample, SampleInterpolation::Step) => Interpolation::Step,
        (Mode::Sample, SampleInterpolation::Cubic) => Interpolation::Cubic,
    }
}

/// Thinned keys at most this many are fitted again (see `keyframes`).
const REFIT_KEYS: usize = 64;

/// How a track no keyframe format holds is fitted in the default mode:
/// its bound and the shapes tried (CUBICSPLINE only where the target takes
/// it, `cubic`); `None` for a track that is exact or sampled.
pub(super) fn default_fit(
    opts: &Options,
    track: &Track,
    cubic: bool,
) -> Option<(f64, &'static [Shape])> {
    let straight = matches!(
        sampled_interpolation(opts, track),
        Interpolation::Linear | Interpolation::Slerp
    );
    if opts.mode != Mode::Exact || !straight || track.exact().is_some() {
        return None;
    }
    let tol = opts
        .tolerance
        .unwrap_or_else(|| fit::default_tolerance(track));
    let shapes = if cubic {
        Shape::EITHER
    } else {
        Shape::STRAIGHT
    };
    Some((tol, shapes))
}

/// One animation's samplers and channels as they are made, and its pointer
/// channels (a placeholder target each, replaced in the JSON).
#[derive(Default)]
pub(super) struct Parts {
    /// The animation's index.
    anim: usize,
    channels: Vec<animation::Channel>,
    samplers: Vec<animation::Sampler>,
    pointers: Vec<(usize, usize, String)>,
}

impl Parts {
    fn sampler(
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

    fn node_channel(
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

    fn pointer_channel(&mut self, sampler: Index<animation::Sampler>, pointer: String) {
        self.pointers
            .push((self.anim, self.channels.len(), pointer));
        self.node_channel(sampler, Index::new(0), animation::Property::Translation);
    }
}

/// A TextureTransform's animated field and where it goes.
pub(super) struct TexTarget {
    materials: Vec<usize>,
    field: TexField,
    fixed: TexFields,
}

/// Where the tracks of a node type's field go in glTF, from the type and
/// field alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// A Transform's (or an H-Anim joint's, a CADPart's) translation,
    /// rotation or scale: node channels.
    Transform,
    /// A viewpoint's position and orientation, a light's location: node
    /// channels of the node that holds it.
    Place,
    /// Viewpoint.fieldOfView: the camera's yfov (KHR_animation_pointer).
    FieldOfView,
    /// A light's color or intensity (KHR_animation_pointer).
    Light,
    /// A material's colour, transparency, emissive colour, shininess,
    /// metallic or roughness (KHR_animation_pointer).
    Material,
    /// A TextureTransform's field: KHR_texture_transform
    /// (KHR_animation_pointer).
    TextureTransform,
    /// Switch.whichChoice: each choice's visibility (KHR_node_visibility).
    Choice,
    /// `visible` (KHR_node_visibility).
    Visible,
    /// Coordinate and TextureCoordinate points, Normal vectors, the fields
    /// a generated geometry is drawn from: morph targets of the meshes that
    /// use them, and their weights.
    Morph,
    /// An HAnimDisplacer's weight: the weight of its morph target in the
    /// humanoid's skinned meshes.
    Displacer,
}

impl Channel {
    /// How the glTF holds it, for the report.
    pub fn describe(self) -> &'static str {
        match self {
            Channel::Transform | Channel::Place => "node channel",
            Channel::FieldOfView
            | Channel::Light
            | Channel::Material
            | Channel::TextureTransform => "KHR_animation_pointer",
            Channel::Choice | Channel::Visible => "KHR_node_visibility",
            Channel::Morph | Channel::Displacer => "morph weights",
        }
    }
}

/// Where tracks of `field` of a node of type `ty` go in glTF; `None` where
/// glTF has no place for them.
pub fn channel(ty: Option<NodeType>, field: &str) -> Option<Channel> {
    use NodeType::*;
    if field == "visible" {
        // Any node's, of any type (X3D 4's X3DBoundedObject).
        return Some(Channel::Visible);
    }
    Some(match (ty?, field) {
        (t, "translation" | "rotation" | "scale") if is_transform_like(t) => Channel::Transform,
        (Viewpoint | OrthoViewpoint, "position" | "orientation")
        | (PointLight | SpotLight, "location") => Channel::Place,
        (Viewpoint, "fieldOfView") => Channel::FieldOfView,
        (DirectionalLight | PointLight | SpotLight, "color" | "intensity" | "on") => Channel::Light,
        (Material | TwoSidedMaterial, "diffuseColor" | "transparency" | "emissiveColor")
        | (Material | TwoSidedMaterial, "shininess")
        | (PhysicalMaterial, "baseColor" | "transparency" | "emissiveColor")
        | (PhysicalMaterial, "metallic" | "roughness")
        | (UnlitMaterial, "emissiveColor" | "transparency") => Channel::Material,
        (TextureTransform, "center" | "rotation" | "scale" | "translation") => {
            Channel::TextureTransform
        }
        (Switch, "whichChoice") => Channel::Choice,
        (Coordinate | TextureCoordinate, "point") | (Normal, "vector") => Channel::Morph,
        (HAnimDisplacer, "weight") => Channel::Displacer,
        (t, f) if crate::mesh::reshapes(t, f) => Channel::Morph,
        _ => return None,
    })
}

/// The field of a material node type that is glTF's base colour (with
/// 1 − transparency as its alpha).
fn base_color_field(ty: NodeType) -> Option<&'static str> {
    match ty {
        NodeType::Material | NodeType::TwoSidedMaterial => Some("diffuseColor"),
        NodeType::PhysicalMaterial => Some("baseColor"),
        NodeType::UnlitMaterial => Some("emissiveColor"),
        _ => None,
    }
}

/// How a pointer channel's values come from the X3D values.
#[derive(Clone, Copy)]
pub(super) enum Conv {
    Same,
    /// An RGB colour with a fixed alpha after it.
    AppendAlpha(f32),
    /// A transparency t as the colour's alpha 1 − t, after a fixed RGB.
    AlphaOf([f32; 3]),
    /// 1 − v (shininess as roughness).
    OneMinus,
    /// v × a fixed factor (a light's `on` as its intensity or none).
    Times(f32),
    /// One property of KHR_texture_transform when one field of a
    /// TextureTransform takes the value and the others keep theirs.
    Tex {
        part: TexPart,
        field: TexField,
        fixed: TexFields,
    },
}

impl Conv {
    /// Converts a value (`tangent`: the derivative of one, without offsets).
    pub(super) fn apply(self, v: &[f64], tangent: bool) -> Vec<f64> {
        let zero = if tangent { 0.0 } else { 1.0 };
        match self {
            Conv::Same => v.to_vec(),
            Conv::AppendAlpha(a) => v
                .iter()
                .copied()
                .chain([if tangent { 0.0 } else { a as f64 }])
                .collect(),
            Conv::AlphaOf(c) => {
                let rgb = c.map(|x| if tangent { 0.0 } else { x as f64 });
                rgb.into_iter().chain([zero - v[0]]).collect()
            }
            Conv::OneMinus => vec![zero - v[0]],
            Conv::Times(k) => vec![v[0] * k as f64],
            Conv::Tex { part, field, fixed } => {
                let out = fixed.with(field, v).part(part);
                if !tangent {
                    return out;
                }
                // The parts written with tangents are affine in the field:
                // the derivative is the linear part.
                let zero = fixed.with(field, &[0.0, 0.0]).part(part);
                out.iter().zip(zero).map(|(a, b)| a - b).collect()
            }
        }
    }
}

/// Which of a mesh's triangulations is drawn at each morph key: its value
/// the triangulation's number, and the nodes that draw each.
pub(super) struct Shapes {
    at: Keyframes<'static>,
    shown: Vec<(Option<usize>, Vec<Index<json::Node>>)>,
}

/// Where a track's values go in glTF.
pub(super) enum Target {
    /// A TRS property of nodes; `offset` is added to the values.
    Node {
        path: animation::Property,
        nodes: Vec<Index<json::Node>>,
        offset: Vec<f64>,
    },
    /// KHR_animation_pointer: JSON pointers and the value conversion.
    Pointer { pointers: Vec<String>, conv: Conv },
    /// Nodes shown by KHR_node_visibility: each list is shown while the
    /// value is its number (a Switch's choices), or `None`: is not zero (an
    /// SFBool `visible`).
    Visibility {
        shown: Vec<(Option<usize>, Vec<Index<json::Node>>)>,
    },
    /// A TextureTransform field, as the KHR_texture_transform properties it
    /// moves in these materials' base colour textures.
    Texture {
        materials: Vec<usize>,
        field: TexField,
        fixed: TexFields,
    },
    /// Morph weights of nodes: one-hot at target `first + key` of `total`;
    /// with `shapes`, the triangulation drawn at each key.
    Weights {
        nodes: Vec<Index<json::Node>>,
        first: usize,
        total: usize,
        shapes: Option<Shapes>,
    },
    /// One morph weight of nodes, `index` of the weights `fixed` (the
    /// others keep theirs): an HAnimDisplacer's.
    Weight {
        nodes: Vec<Index<json::Node>>,
        index: usize,
        fixed: Vec<f32>,
    },
}

impl Target {
    /// A value (or, `tangent`, a derivative) as the target takes it: node
    /// values plus their offset, pointer values converted.
    pub(super) fn convert(&self, v: &[f64], tangent: bool) -> Vec<f64> {
        match self {
            Target::Node { offset, .. } if !tangent => {
                v.iter().zip(offset).map(|(a, b)| a + b).collect()
            }
            Target::Pointer { conv, .. } => conv.apply(v, tangent),
            _ => v.to_vec(),
        }
    }
}

pub(super) fn gltf_interpolation(i: Interpolation) -> animation::Interpolation {
    match i {
        Interpolation::Linear | Interpolation::Slerp => animation::Interpolation::Linear,
        Interpolation::Step => animation::Interpolation::Step,
        Interpolation::Cubic => animation::Interpolation::CubicSpline,
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
        if let Some(&a) = self.times.get(&bits) {
            return a;
        }
        let a = self.accessor(&out, accessor::Type::Scalar, true);
        self.times.insert(bits, a);
        a
    }

    pub(super) fn animation(&mut self, ci: usize, clip: &Clip, opts: &Options) {
        let mut parts = Parts {
            anim: self.root.animations.len(),
            ..Parts::default()
        };
        for (ti, track) in clip.tracks.iter().enumerate() {
            if self.values > self.opts.limits.animation_values {
                break; // reported: the document is not written
            }
            self.fit_ahead(ci, ti, clip, opts);
            let Some((target, k)) = self.track_keys(ci, ti, clip, opts) else {
                continue;
            };
            if opts.record {
                self.written.push((ci, ti, k.to_owned_keys()));
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
        if parts.channels.is_empty() {
            return;
        }
        if !parts.pointers.is_empty() {
            self.extensions.push("KHR_animation_pointer");
        }
        self.pointers.extend(parts.pointers);
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
    fn track_keys<'c>(
        &mut self,
        ci: usize,
        ti: usize,
        clip: &'c Clip,
        opts: &Options,
    ) -> Option<(Target, Keyframes<'c>)> {
        let track = &clip.tracks[ti];
        if !track.interpolator().produces() || self.folded.contains(&(ci, ti)) {
            return None;
        }
        let index = &self.track_index[ci];
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
        let morph = self.morphs.remove(&(ci, ti));
        let target = match &morph {
            Some(m) => {
                let nodes = self.mesh_nodes.get(&m.mesh).cloned().unwrap_or_default();
                let shapes = self.shapes(m);
                if let Some(s) = &shapes {
                    self.tracks.switched.push(((ci, ti), s.shown.len()));
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
                    self.tracks.dropped.push((ci, ti)); // warned where its target has a place
                    return None;
                };
                target
            }
        };
        // One weights channel a mesh node in an animation.
        if let Target::Weight { nodes, .. } = &target
            && nodes
                .iter()
                .any(|n| !self.weight_channels.insert((ci, n.value())))
        {
            self.diags.warning(
                format!(
                    "`{}.weight` (HAnimDisplacer): another displacer of its skin is animated in clip `{}`, and glTF holds one weights channel a mesh: not written",
                    self.scene.display_name(track.target),
                    clip.name
                ),
                Some(track.span),
            );
            self.tracks.dropped.push((ci, ti));
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
                let interpolation = sampled_interpolation(opts, track);
                if opts.mode == Mode::Sample {
                    let cubic = interpolation == Interpolation::Cubic;
                    if !self.sampled_with(clip, track, 4, cubic) {
                        return None;
                    }
                    Keyframes::sample(&clip.map, opts.rate, 4, interpolation, false, rgba)
                } else {
                    self.joint(clip, &[track, tr], 4, Shape::EITHER, &mut rgba)?
                }
            }
            (None, None) => self.keyframes(clip, track, opts, true)?,
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

    /// KHR_node_visibility: a bool (unsigned byte) STEP curve for each list
    /// of nodes shown together.
    fn visibility_channels(
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
    fn texture_channels(
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
        let together: Vec<(TexField, &Track)> = self.track_index[ci]
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
                let joint = if self.opts.mode == Mode::Sample {
                    if !self.sampled_with(clip, track, part.width(), false) {
                        continue;
                    }
                    let (rate, width) = (self.opts.rate, part.width());
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
                    let Some(k) = self.joint(clip, &tracks, width, Shape::EITHER, &mut value_at)
                    else {
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
            let output = self.values(k, |v, tangent| conv.apply(v, tangent));
            let input = self.times(k);
            let s = parts.sampler(input, output, gltf_interpolation(k.interpolation));
            pointers
                .into_iter()
                .for_each(|p| parts.pointer_channel(s, p));
        }
    }

    /// The triangulation drawn at each key of a morph whose mesh has
    /// several, as a STEP curve and the nodes it shows; `None` for one.
    fn shapes(&self, m: &Morph) -> Option<Shapes> {
        if m.shapes.is_empty() {
            return None;
        }
        let places = self.shape_nodes.get(&m.mesh)?;
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
    fn value_channels(&mut self, parts: &mut Parts, k: &Keyframes, target: Target) {
        let times = self.times(k);
        let output = match target {
            Target::Weights { first, total, .. } => self.weights(k, first, total),
            Target::Weight {
                index, ref fixed, ..
            } => self.one_weight(k, index, fixed),
            _ => self.values(k, |v, tangent| target.convert(v, tangent)),
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

    /// Where a track goes in glTF, or a warning when it has no place yet.
    pub(super) fn target(&mut self, track: &Track) -> Option<Target> {
        use animation::Property::{Rotation, Scale, Translation};
        let scene = self.scene;
        let ty = scene.node_type(track.target);
        let field = track.field.as_str();
        let node_target = |path, nodes: Vec<Index<json::Node>>, offset: Vec<f64>| {
            Some(Target::Node {
                path,
                nodes,
                offset,
            })
        };
        let found = match channel(ty, field) {
            Some(Channel::Transform) => {
                let places = self
                    .transforms
                    .get(&track.target)
                    .cloned()
                    .unwrap_or_default();
                let path = match field {
                    "translation" => Translation,
                    "rotation" => Rotation,
                    _ => Scale,
                };
                let nodes = places
                    .iter()
                    .map(|p| if path == Scale { p.scale } else { p.main })
                    .collect();
                let offset = match (path, places.first()) {
                    (Translation, Some(p)) => p.center.to_array().to_vec(),
                    _ => vec![0.0; 4],
                };
                node_target(path, nodes, offset)
            }
            Some(Channel::Place) => node_target(
                if field == "orientation" {
                    Rotation
                } else {
                    Translation
                },
                self.placed.get(&track.target).cloned().unwrap_or_default(),
                vec![0.0; if field == "orientation" { 4 } else { 3 }],
            ),
            Some(Channel::FieldOfView) => self.pointer_list(
                &self.cameras,
                track,
                "/cameras/{}/perspective/yfov",
                Conv::Same,
            ),
            // A light's `on` is its intensity or none, unless its intensity
            // is animated too (the product has no pointer: not written).
            Some(Channel::Light) if field == "on" => {
                let intensity = (track.target, "intensity".to_string());
                let path = "/extensions/KHR_lights_punctual/lights/{}/intensity";
                let conv = Conv::Times(cameras_lights::light_intensity(scene, track.target));
                (!self.animated.contains(&intensity))
                    .then(|| self.pointer_list(&self.lights, track, path, conv))
                    .flatten()
            }
            Some(Channel::Light) => {
                let path = format!("/extensions/KHR_lights_punctual/lights/{{}}/{field}");
                self.pointer_list(&self.lights, track, &path, Conv::Same)
            }
            Some(Channel::Material) => self.material_target(track),
            Some(Channel::TextureTransform) => {
                match self.tex_transforms.get(&track.target).cloned() {
                    Some((fixed, materials)) => Some(Target::Texture {
                        materials,
                        field: TexField::of(field),
                        fixed,
                    }),
                    // No material uses it (its shapes are not drawn): a
                    // target with no place, reported below.
                    None => Some(Target::Pointer {
                        pointers: Vec::new(),
                        conv: Conv::Same,
                    }),
                }
            }
            Some(Channel::Choice) => {
                let places = self
                    .switches
                    .get(&track.target)
                    .cloned()
                    .unwrap_or_default();
                let choices = places.iter().map(Vec::len).max().unwrap_or(0);
                let shown = (0..choices)
                    .map(|i| {
                        (
                            Some(i),
                            places.iter().filter_map(|p| p.get(i).copied()).collect(),
                        )
                    })
                    .collect();
                Some(Target::Visibility { shown })
            }
            Some(Channel::Visible) => Some(Target::Visibility {
                shown: vec![(
                    None,
                    self.placed.get(&track.target).cloned().unwrap_or_default(),
                )],
            }),
            Some(Channel::Displacer) => self.displacer_target(track),
            // Morph targets are made with their mesh (none uses these).
            Some(Channel::Morph) | None => None,
        };
        if found.is_none() {
            self.diags.warning(
                format!(
                    "`{}.{}` ({}) has no glTF animation target yet: not written",
                    scene.display_name(track.target),
                    track.field,
                    scene.node(track.target).type_name
                ),
                Some(track.span),
            );
        }
        // A node not in the shown hierarchy has no glTF node to animate.
        let placed = found.is_some();
        let shown = found.filter(|t| match t {
            Target::Node { nodes, .. }
            | Target::Weights { nodes, .. }
            | Target::Weight { nodes, .. } => !nodes.is_empty(),
            Target::Pointer { pointers, .. } => !pointers.is_empty(),
            Target::Visibility { shown } => shown.iter().any(|(_, n)| !n.is_empty()),
            Target::Texture { materials, .. } => !materials.is_empty(),
        });
        if placed && shown.is_none() {
            self.diags.warning(
                format!(
                    "`{}.{}` ({}) is not in the drawn scene (a Switch choice or LOD level \
                     not shown, or outside the scene's tree): not written",
                    scene.display_name(track.target),
                    track.field,
                    scene.node(track.target).type_name
                ),
                Some(track.span),
            );
        }
        shown
    }

    /// Pointer targets with `{}` replaced by each glTF index of the node.
    pub(super) fn pointer_list(
        &self,
        map: &HashMap<NodeId, Vec<usize>>,
        track: &Track,
        path: &str,
        conv: Conv,
    ) -> Option<Target> {
        let indices = map.get(&track.target)?;
        let pointers = indices
            .iter()
            .map(|i| path.replace("{}", &i.to_string()))
            .collect();
        Some(Target::Pointer { pointers, conv })
    }

    /// A Material field as a pointer into every glTF material made from it.
    pub(super) fn material_target(&mut self, track: &Track) -> Option<Target> {
        let list = self.x3d_materials.get(&track.target)?.clone();
        let ty = self.scene.node_type(track.target)?;
        let field = track.field.as_str();
        let (property, conv) = match (ty, field) {
            // With vertex colours or a texture the base colour is white.
            _ if Some(field) == base_color_field(ty) => {
                if list.iter().any(|m| m.white) {
                    return None;
                }
                (
                    "pbrMetallicRoughness/baseColorFactor",
                    Conv::AppendAlpha(list[0].alpha),
                )
            }
            (_, "transparency") => (
                "pbrMetallicRoughness/baseColorFactor",
                Conv::AlphaOf(list[0].base),
            ),
            (NodeType::UnlitMaterial, _) => return None,
            (_, "emissiveColor") => ("emissiveFactor", Conv::Same),
            (NodeType::PhysicalMaterial, "metallic") => {
                ("pbrMetallicRoughness/metallicFactor", Conv::Same)
            }
            (NodeType::PhysicalMaterial, "roughness") => {
                ("pbrMetallicRoughness/roughnessFactor", Conv::Same)
            }
            (NodeType::Material | NodeType::TwoSidedMaterial, "shininess") => {
                ("pbrMetallicRoughness/roughnessFactor", Conv::OneMinus)
            }
            _ => return None,
        };
        let pointers = list
            .iter()
            .map(|m| format!("/materials/{}/{property}", m.index))
            .collect();
        Some(Target::Pointer { pointers, conv })
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
    fn one_weight(&mut self, k: &Keyframes, index: usize, fixed: &[f32]) -> Index<json::Accessor> {
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
    /// through `convert`; cubic keys as (in-tangent, value, out-tangent).
    pub(super) fn values(
        &mut self,
        k: &Keyframes,
        convert: impl Fn(&[f64], bool) -> Vec<f64>,
    ) -> Index<json::Accessor> {
        let w = k.width;
        // Cubic keys hold three values each (a converted value may differ in
        // width: this is only a first guess).
        let cubic = k.interpolation == Interpolation::Cubic;
        let mut out: Vec<f32> = Vec::with_capacity(k.values.len() * if cubic { 3 } else { 1 });
        let mut width = w;
        for i in 0..k.len() {
            let value = convert(&k.value(i), false);
            width = value.len();
            if cubic {
                out.extend(
                    convert(&k.in_tangents[i * w..(i + 1) * w], true)
                        .iter()
                        .map(|&x| x as f32),
                );
                out.extend(value.iter().map(|&x| x as f32));
                out.extend(
                    convert(&k.out_tangents[i * w..(i + 1) * w], true)
                        .iter()
                        .map(|&x| x as f32),
                );
            } else {
                out.extend(value.iter().map(|&x| x as f32));
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
    /// Takes `n` numbers for `track` from the animation values limit; false, with the
    /// error reported once, when that passes it.
    pub(super) fn spend(&mut self, n: usize, clip: &Clip, track: &Track) -> bool {
        let reported = self.values > self.opts.limits.animation_values;
        self.values = self.values.saturating_add(n);
        if self.values <= self.opts.limits.animation_values {
            return true;
        }
        if !reported {
            self.diags.error(
                format!(
                    "the animations would hold more than {} numbers (keys, morph targets \
                     and weights): stopped at `{}.{}` in clip `{}` ({} s, --rate {}); fewer keys \
                     come from a lower --rate, fewer --cycles, or --tolerance",
                    self.opts.limits.animation_values,
                    self.scene.display_name(track.target),
                    track.field,
                    clip.name,
                    clip.duration(),
                    self.opts.rate
                ),
                Some(track.span),
            );
        }
        false
    }

    /// A track sampled at --rate, when the samples fit in the animation values limit.
    pub(super) fn sampled(
        &mut self,
        clip: &Clip,
        track: &Track,
        interpolation: Interpolation,
    ) -> Option<Keyframes<'static>> {
        let cubic = interpolation == Interpolation::Cubic;
        self.sampled_with(clip, track, track.width(), cubic)
            .then(|| clip.sampled_as(track, self.opts.rate, interpolation))
    }

    /// Whether keyframes of `width` numbers sampled at --rate on the clip
    /// fit in the animation values limit (taken from it if so).
    pub(super) fn sampled_with(
        &mut self,
        clip: &Clip,
        track: &Track,
        width: usize,
        cubic: bool,
    ) -> bool {
        let n =
            sample_len(&clip.map, self.opts.rate).saturating_mul(keyframe_numbers(width, cubic));
        self.spend(n, clip, track)
    }

    /// The keyframes written for a track; `None` for a track dropped under a
    /// tolerance because it never leaves the target's own value, or past
    /// the animation values limit (reported). Exact where a keyframe format
    /// holds the curve; otherwise, unless sampling is asked for, the fewest
    /// keys within the tolerance (or the default bound) of the true curve:
    /// CUBICSPLINE where `cubic` allows it and needs fewer keys.
    pub(super) fn keyframes<'t>(
        &mut self,
        clip: &Clip,
        track: &'t Track,
        opts: &Options,
        cubic: bool,
    ) -> Option<Keyframes<'t>> {
        // The animation values the exact keys took from the limit.
        let mut charged = 0;
        let exact = match (opts.mode == Mode::Exact).then(|| track.exact()).flatten() {
            Some(e) => {
                let per = keyframe_numbers(e.width(), matches!(e, Exact::Hermite { .. }));
                charged = exact_len_bound(&e, &clip.map).saturating_mul(per);
                if !self.spend(charged, clip, track) {
                    return None;
                }
                Some(Keyframes::exact(e, &clip.map))
            }
            None => None,
        };
        let (rotation, per) = (track.is_rotation(), track.per_element());
        // The keyframes, and how far their curve is from the true one.
        let (mut k, error) = match (exact, opts.tolerance) {
            (Some(k), None) => (k, 0.0),
            // Step curves are kept: their error is zero.
            (Some(k), Some(_)) if k.interpolation == Interpolation::Step => (k, 0.0),
            // Linear and slerp keys are thinned (at their own keys); a fit
            // within the tolerance, free to put keys anywhere, replaces
            // them when it needs fewer: always for cubic keys, and where
            // thinning left few keys (a fit costs microseconds a key).
            (Some(k), Some(tol)) => {
                let (k, error, refit) = match reduce::thin(k, tol, per) {
                    Ok((k, error)) => {
                        let few = k.len() <= REFIT_KEYS;
                        (k, error, few)
                    }
                    Err(k) => (k, 0.0, true),
                };
                let shapes = match k.interpolation {
                    Interpolation::Cubic => Shape::EITHER,
                    _ => Shape::STRAIGHT,
                };
                let room = k.len().saturating_sub(1);
                match refit.then(|| clip.fitted(track, tol, shapes, room)) {
                    Some(Ok(fewer)) => {
                        self.values -= charged;
                        self.spent(clip, track, Ok(fewer))?
                    }
                    _ => (k, error),
                }
            }
            (None, tol) => {
                let interpolation = sampled_interpolation(opts, track);
                let straight =
                    matches!(interpolation, Interpolation::Linear | Interpolation::Slerp);
                match (default_fit(opts, track, cubic), tol) {
                    (Some((tol, shapes)), _) => self.fitted(clip, track, tol, shapes)?,
                    (None, Some(tol)) if straight && opts.mode == Mode::Sample => {
                        self.fitted(clip, track, tol, Shape::STRAIGHT)?
                    }
                    // Samples: no bound.
                    _ => (self.sampled(clip, track, interpolation)?, 0.0),
                }
            }
        };
        let Some(tol) = opts.tolerance else {
            return Some(k);
        };
        // Constant when the keys' curve is within what the fit left of the
        // tolerance: then the true curve is within the tolerance.
        let room = (tol - error).max(0.0);
        reduce::collapse_constant(&mut k, room, rotation, per);
        let mut own = Vec::new();
        track.initial_value(self.scene, &mut own);
        if !opts.keep_constant && reduce::constant_at(&k, &own, room, rotation, per) {
            return None;
        }
        Some(k)
    }

    /// A track's fewest keys of one of `shapes` within `tol` of its curve,
    /// when they fit in the animation values limit (taken from it if so).
    fn fitted(
        &mut self,
        clip: &Clip,
        track: &Track,
        tol: f64,
        shapes: &[Shape],
    ) -> Option<(Keyframes<'static>, f64)> {
        let fitted = match self.made_ahead(track, tol, shapes) {
            Some(made) => made,
            None => {
                let width = track.width();
                let room = self.room(width, shapes.contains(&Shape::Cubic));
                clip.fitted(track, tol, shapes, room)
            }
        };
        self.spent(clip, track, fitted)
    }

    /// A curve made from several tracks (`value_at`, `width` numbers a
    /// fraction) fitted within --tolerance or the default relative bound,
    /// with the corners of them all; `None` past the animation values limit.
    fn joint(
        &mut self,
        clip: &Clip,
        tracks: &[&Track],
        width: usize,
        shapes: &[Shape],
        value_at: &mut dyn FnMut(f64, &mut Vec<f64>),
    ) -> Option<Keyframes<'static>> {
        let room = self.room(width, shapes.contains(&Shape::Cubic));
        let mut corners: Vec<f64> = tracks
            .iter()
            .flat_map(|t| t.corners(t.corner_room(room)))
            .collect();
        corners.sort_by(f64::total_cmp);
        let bound = fit::Bound {
            tol: self.opts.tolerance.unwrap_or(fit::DEFAULT_RELATIVE),
            rotation: false,
            per: width,
        };
        let fitted = fit::fewest(&clip.map, &corners, width, shapes, bound, room, value_at);
        let first = tracks.first()?;
        self.spent(clip, first, fitted).map(|(k, _)| k)
    }

    /// How many keys of `width` numbers are left in the animation values
    /// limit.
    pub(super) fn room(&self, width: usize, cubic: bool) -> usize {
        self.opts
            .limits
            .animation_values
            .saturating_sub(self.values)
            / keyframe_numbers(width, cubic)
    }

    /// Fitted keyframes (and their error) taken from the animation values
    /// limit.
    pub(super) fn spent(
        &mut self,
        clip: &Clip,
        track: &Track,
        fitted: Result<Fitted, TooMany>,
    ) -> Option<(Keyframes<'static>, f64)> {
        let n = match &fitted {
            Ok(f) => f.keys.len().saturating_mul(keyframe_numbers(
                f.keys.width,
                f.keys.interpolation == Interpolation::Cubic,
            )),
            Err(TooMany) => usize::MAX,
        };
        let taken = self.spend(n, clip, track);
        fitted.ok().filter(|_| taken).map(|f| (f.keys, f.error))
    }
}
