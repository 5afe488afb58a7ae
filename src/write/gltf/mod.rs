//! glTF 2.0: the node hierarchy of the X3D grouping nodes and one animation
//! per clip, exact where glTF can hold the curve and sampled where not.

use crate::anim::clip::{Clip, Track};
use crate::anim::keyframes::{
    Interpolation, Keyframes, exact_len_bound, keyframe_numbers, sample_len,
};
use crate::anim::reduce;
use crate::diag::Diagnostics;
use crate::hash::HashMap;
use crate::interp::{Exact, rotation};
use crate::limits::Limits;
use crate::scene::{NodeId, Scene};
use glam::{DQuat, DVec3};
use gltf_json as json;
use json::validation::{Checked, USize64};
use json::{Index, accessor, animation, buffer};

/// How tracks are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Exact keys where the curve allows (LINEAR, STEP, CUBICSPLINE), samples
    /// where it does not.
    Exact,
    /// Every track sampled.
    Sample,
}

/// The interpolation of sampled tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleInterpolation {
    Linear,
    Step,
    Cubic,
}

#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub mode: Mode,
    /// Samples per second.
    pub rate: f64,
    pub interpolation: SampleInterpolation,
    /// Fewest keys within this distance of the true curve (scene units;
    /// radians for rotations), measured on a fine grid; constant tracks
    /// collapse to one key.
    pub tolerance: Option<f64>,
    /// With a tolerance: keep tracks that never leave the target's own value.
    pub keep_constant: bool,
    /// How many glTF nodes, buffer bytes and animation numbers the document
    /// may hold; a scene that goes past one is an error.
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::Exact,
            rate: 30.0,
            interpolation: SampleInterpolation::Linear,
            tolerance: None,
            keep_constant: false,
            limits: Limits::default(),
        }
    }
}

/// A glTF document and its binary buffer.
pub struct Document {
    pub root: json::Root,
    pub bin: Vec<u8>,
    /// KHR_animation_pointer channels: (animation, channel, JSON pointer).
    /// gltf-json knows only node targets, so these are written into the
    /// JSON when it is made.
    pub pointers: Vec<(usize, usize, String)>,
    /// TEXCOORD_0 displacements of morph targets: (mesh, target, accessor),
    /// likewise written into the JSON.
    pub morph_uvs: Vec<(usize, usize, usize)>,
}

impl Document {
    /// Names where the buffer lives: a relative URI, a data URI, or none
    /// (the GLB BIN chunk).
    pub fn set_buffer_uri(&mut self, uri: Option<String>) {
        if let Some(b) = self.root.buffers.first_mut() {
            b.uri = uri;
        }
    }

    /// The buffer as a base64 data URI, for a self-contained `.gltf`.
    pub fn data_uri(&self) -> String {
        format!("data:application/octet-stream;base64,{}", base64(&self.bin))
    }

    /// The JSON text (compact; the same input gives the same bytes).
    pub fn json(&self) -> String {
        if self.pointers.is_empty() && self.morph_uvs.is_empty() {
            // Serialising plain data structures cannot fail.
            return self.root.to_string().expect("glTF JSON serialises");
        }
        let mut v = serde_json::to_value(&self.root).expect("glTF JSON serialises");
        for (m, t, a) in &self.morph_uvs {
            v["meshes"][*m]["primitives"][0]["targets"][*t]["TEXCOORD_0"] = (*a).into();
        }
        for (a, c, pointer) in &self.pointers {
            v["animations"][*a]["channels"][*c]["target"] = serde_json::json!({
                "path": "pointer",
                "extensions": { "KHR_animation_pointer": { "pointer": pointer } }
            });
        }
        v.to_string()
    }
}

fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The glTF nodes made for one place of an X3D Transform in the tree.
#[derive(Clone, Copy)]
struct TransformNodes {
    /// Holds translation (plus center) and rotation, and scale when there is
    /// no scaleOrientation.
    main: Index<json::Node>,
    /// Holds scale (the main node when there is no scaleOrientation).
    scale: Index<json::Node>,
    center: DVec3,
}

/// Grouping nodes whose children become glTF node children.
fn children_field(type_name: &str) -> Option<&'static [&'static str]> {
    Some(match type_name {
        "Group" | "StaticGroup" | "Collision" | "Anchor" | "Billboard" | "Transform" => {
            &["children"]
        }
        "CADLayer" | "CADAssembly" | "CADPart" => &["children"],
        "CADFace" => &["shape"],
        // The root nodes of its file (Scene::expansions).
        "Inline" => &[],
        "HAnimJoint" | "HAnimSite" | "HAnimSegment" => &["children"],
        "HAnimHumanoid" => &["skeleton", "children"],
        "Switch" => &["children", "choice"],
        "LOD" => &["children", "level"],
        _ => return None,
    })
}

/// Node types with Transform's fields (translation, rotation, scale,
/// center, scaleOrientation): written as Transforms.
fn is_transform_like(type_name: &str) -> bool {
    matches!(
        type_name,
        "Transform" | "HAnimHumanoid" | "HAnimJoint" | "HAnimSite" | "HAnimSegment" | "CADPart"
    )
}

/// How a sampled track is interpolated: its natural way in exact mode,
/// as `--interpolation` says in sample mode (LINEAR on rotations is slerp).
fn sampled_interpolation(opts: &Options, track: &Track) -> Interpolation {
    match (opts.mode, opts.interpolation) {
        (Mode::Exact, _) => track.sample_interpolation(),
        (Mode::Sample, SampleInterpolation::Linear) if track.is_rotation() => Interpolation::Slerp,
        (Mode::Sample, SampleInterpolation::Linear) => Interpolation::Linear,
        (Mode::Sample, SampleInterpolation::Step) => Interpolation::Step,
        (Mode::Sample, SampleInterpolation::Cubic) => Interpolation::Cubic,
    }
}

/// The MIME type of PNG or JPEG bytes (the image types core glTF takes).
fn image_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else {
        None
    }
}

/// How deep the node hierarchy is followed.
const MAX_DEPTH: usize = 2000;

struct Writer<'a> {
    scene: &'a Scene,
    images: &'a mut Images<'a>,
    diags: &'a mut Diagnostics,
    root: json::Root,
    bin: Vec<u8>,
    transforms: HashMap<NodeId, Vec<TransformNodes>>,
    /// Time accessors already written, by their f32 bits.
    times: HashMap<Vec<u32>, Index<json::Accessor>>,
    /// Meshes already written, by geometry and appearance node.
    meshes: HashMap<(NodeId, Option<NodeId>), Option<Index<json::Mesh>>>,
    /// Materials already written, by appearance, two-sidedness and vertex
    /// colours.
    materials: HashMap<(Option<NodeId>, bool, bool), Index<json::Material>>,
    /// Extensions the document uses.
    extensions: Vec<&'static str>,
    /// The top glTF node of each X3D node (Shapes, grouping nodes,
    /// Viewpoints, lights) at each place it stands.
    placed: HashMap<NodeId, Vec<Index<json::Node>>>,
    /// The glTF materials made from each X3D Material.
    x3d_materials: HashMap<NodeId, Vec<MadeMaterial>>,
    /// The glTF cameras of each Viewpoint and lights of each light.
    cameras: HashMap<NodeId, Vec<usize>>,
    lights: HashMap<NodeId, Vec<usize>>,
    /// Fields some clip animates.
    animated: crate::hash::HashSet<(NodeId, String)>,
    pointers: Vec<(usize, usize, String)>,
    clips: &'a [Clip],
    opts: Options,
    /// Morph targets made for animated Coordinate points, by (clip, track).
    morphs: HashMap<(usize, usize), Morph>,
    /// The glTF nodes that show each mesh.
    mesh_nodes: HashMap<usize, Vec<Index<json::Node>>>,
    /// Each TextureTransform written: its fields, and the glTF materials
    /// whose base colour texture it moves.
    tex_transforms: HashMap<NodeId, (TexFields, Vec<usize>)>,
    /// The glTF texture of each ImageTexture node (`None`: no image could
    /// be read), made once however many appearances USE it.
    textures: HashMap<NodeId, Option<Index<json::Texture>>>,
    /// The names given to glTF materials.
    material_names: crate::hash::HashSet<String>,
    /// The choice nodes of each animated Switch, at each place it stands.
    switches: HashMap<NodeId, Vec<Vec<Index<json::Node>>>>,
    /// Set when the glTF node limit or the buffer limit is reached (and
    /// reported): nothing more is visited.
    full: bool,
    /// Numbers the animations hold so far, against the animation values limit (past it
    /// once the limit is reported: nothing more is made).
    values: usize,
    /// TEXCOORD_0 of morph targets (mesh, target, accessor), which gltf-json
    /// cannot hold: written into the JSON when it is made.
    morph_uvs: Vec<(usize, usize, usize)>,
    /// Tracks written as part of another track's morph targets.
    folded: crate::hash::HashSet<(usize, usize)>,
    /// Animated arrays that are empty in the file: their first animated value.
    rest: crate::mesh::Overrides,
    /// Each clip's tracks by the node they drive.
    track_index: Vec<TrackIndex<'a>>,
    /// Nodes found inside themselves (through USE), warned about once.
    self_containing: crate::hash::HashSet<NodeId>,
    /// The clips that animate each node, in order.
    clips_of: HashMap<NodeId, Vec<usize>>,
}

/// A clip's tracks by the node they drive, made once a clip: a track's
/// partners (a Material's colour and transparency, a TextureTransform's
/// fields, a mesh's points and normals) found by a scan of the clip took
/// the square of its tracks (60 000 animated Transforms: 6.8 s).
struct TrackIndex<'c> {
    /// The first track of each node and field.
    first: HashMap<(NodeId, &'c str), usize>,
    /// The tracks that produce values, of each node, in clip order.
    producing: HashMap<NodeId, Vec<usize>>,
}

impl<'c> TrackIndex<'c> {
    fn new(clip: &'c Clip) -> TrackIndex<'c> {
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

    fn first(&self, node: NodeId, field: &str) -> Option<usize> {
        self.first.get(&(node, field)).copied()
    }

    fn producing(&self, node: NodeId) -> &[usize] {
        self.producing.get(&node).map_or(&[], |v| v)
    }
}

/// A track of Coordinate points as morph targets of a mesh: its keyframes
/// become targets `first..first + keyframes.len()` of `total`.
struct Morph {
    mesh: usize,
    first: usize,
    total: usize,
    keyframes: Keyframes<'static>,
}

/// A glTF material made from an X3D Material.
#[derive(Clone, Copy)]
struct MadeMaterial {
    index: usize,
    base: [f32; 3],
    alpha: f32,
    /// The base colour is white (vertex colours or a texture give it).
    white: bool,
}

/// The fields of an X3D TextureTransform: center, rotation, scale and
/// translation.
#[derive(Clone, Copy, Debug, PartialEq)]
struct TexFields {
    c: [f64; 2],
    a: f64,
    s: [f64; 2],
    t: [f64; 2],
}

/// A field of a TextureTransform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TexField {
    Center,
    Rotation,
    Scale,
    Translation,
}

/// A property of KHR_texture_transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TexPart {
    Offset,
    Rotation,
    Scale,
}

impl TexFields {
    /// The same fields with one replaced by `v`.
    fn with(mut self, field: TexField, v: &[f64]) -> TexFields {
        let two = |v: &[f64]| [v[0], v.get(1).copied().unwrap_or(0.0)];
        match field {
            TexField::Center => self.c = two(v),
            TexField::Rotation => self.a = v[0],
            TexField::Scale => self.s = two(v),
            TexField::Translation => self.t = two(v),
        }
        self
    }

    /// X3D's Tc' = −C·S·R·C·T·Tc as KHR_texture_transform (offset, rotation,
    /// scale) in glTF's flipped v, where `rotation` r turns uv by −r (the
    /// Khronos GLSL read as written; three.js agrees). Exact when the scale
    /// is even or the rotation zero.
    fn khr(self) -> ([f64; 2], f64, [f64; 2]) {
        let TexFields { c, a, s, t } = self;
        // X3D: Tc' = M·Tc + k with M = S·R(a), k = M·(T + C) − C. With
        // v_gltf = 1 − v the matrix becomes S·R(−a), which is glTF's
        // rotation a, and the offset is (k_u + m01, 1 − m11 − k_v).
        let (sn, cs) = a.sin_cos();
        let m = [[s[0] * cs, -s[0] * sn], [s[1] * sn, s[1] * cs]];
        let (px, py) = (t[0] + c[0], t[1] + c[1]);
        let k = [
            m[0][0] * px + m[0][1] * py - c[0],
            m[1][0] * px + m[1][1] * py - c[1],
        ];
        ([k[0] + m[0][1], 1.0 - m[1][1] - k[1]], a, s)
    }

    fn part(self, part: TexPart) -> Vec<f64> {
        let (offset, rotation, scale) = self.khr();
        match part {
            TexPart::Offset => offset.to_vec(),
            TexPart::Rotation => vec![rotation],
            TexPart::Scale => scale.to_vec(),
        }
    }
}

impl TexPart {
    fn width(self) -> usize {
        match self {
            TexPart::Rotation => 1,
            TexPart::Offset | TexPart::Scale => 2,
        }
    }

    fn property(self) -> &'static str {
        match self {
            TexPart::Offset => "offset",
            TexPart::Rotation => "rotation",
            TexPart::Scale => "scale",
        }
    }
}

impl TexField {
    fn of(name: &str) -> TexField {
        match name {
            "center" => TexField::Center,
            "rotation" => TexField::Rotation,
            "scale" => TexField::Scale,
            _ => TexField::Translation,
        }
    }

    /// The glTF properties an animated field moves, each with whether it
    /// follows the field linearly (so that keys stay exact) or must be
    /// resampled (the offset turns with the rotation).
    fn parts(self) -> &'static [(TexPart, bool)] {
        match self {
            TexField::Center | TexField::Translation => &[(TexPart::Offset, true)],
            TexField::Scale => &[(TexPart::Scale, true), (TexPart::Offset, true)],
            TexField::Rotation => &[(TexPart::Rotation, true), (TexPart::Offset, false)],
        }
    }
}

/// How a pointer channel's values come from the X3D values.
#[derive(Clone, Copy)]
enum Conv {
    Same,
    /// An RGB colour with a fixed alpha after it.
    AppendAlpha(f32),
    /// A transparency t as the colour's alpha 1 − t, after a fixed RGB.
    AlphaOf([f32; 3]),
    /// 1 − v (shininess as roughness).
    OneMinus,
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
    fn apply(self, v: &[f64], tangent: bool) -> Vec<f64> {
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

/// Where a track's values go in glTF.
enum Target {
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
    /// Morph weights of nodes: one-hot at target `first + key` of `total`.
    Weights {
        nodes: Vec<Index<json::Node>>,
        first: usize,
        total: usize,
    },
}

impl Target {
    /// A value (or, `tangent`, a derivative) as the target takes it: node
    /// values plus their offset, pointer values converted.
    fn convert(&self, v: &[f64], tangent: bool) -> Vec<f64> {
        match self {
            Target::Node { offset, .. } if !tangent => {
                v.iter().zip(offset).map(|(a, b)| a + b).collect()
            }
            Target::Pointer { conv, .. } => conv.apply(v, tangent),
            _ => v.to_vec(),
        }
    }
}

/// Finds the bytes of an image an ImageTexture node names by a URL.
pub type Images<'a> = dyn FnMut(NodeId, &str) -> Option<Vec<u8>> + 'a;

/// Builds the glTF document for a scene and its clips. Images of
/// ImageTexture nodes come from `images` and are embedded.
pub fn build(
    scene: &Scene,
    clips: &[Clip],
    opts: &Options,
    images: &mut Images<'_>,
    diags: &mut Diagnostics,
) -> Document {
    let mut w = Writer {
        images,
        scene,
        diags,
        root: json::Root::default(),
        bin: Vec::new(),
        transforms: HashMap::default(),
        times: HashMap::default(),
        meshes: HashMap::default(),
        materials: HashMap::default(),
        extensions: Vec::new(),
        placed: HashMap::default(),
        x3d_materials: HashMap::default(),
        cameras: HashMap::default(),
        lights: HashMap::default(),
        animated: clips
            .iter()
            .flat_map(|c| &c.tracks)
            .map(|t| (t.target, t.field.clone()))
            .collect(),
        pointers: Vec::new(),
        clips,
        opts: *opts,
        morphs: HashMap::default(),
        mesh_nodes: HashMap::default(),
        folded: Default::default(),
        morph_uvs: Vec::new(),
        switches: HashMap::default(),
        full: false,
        values: 0,
        tex_transforms: HashMap::default(),
        material_names: Default::default(),
        textures: HashMap::default(),
        rest: rest_values(scene, clips),
        track_index: clips.iter().map(TrackIndex::new).collect(),
        clips_of: HashMap::default(),
        self_containing: Default::default(),
    };
    for (ci, index) in w.track_index.iter().enumerate() {
        for &node in index.producing.keys() {
            w.clips_of.entry(node).or_default().push(ci);
        }
    }
    w.root.asset.generator = Some(format!("x3dbake {}", env!("CARGO_PKG_VERSION")));
    let mut roots = Vec::new();
    let mut ancestors = Vec::new();
    for &id in &scene.roots {
        w.visit(id, &mut roots, &mut ancestors);
    }
    if !roots.is_empty() {
        let s = w.root.push(json::Scene {
            extensions: None,
            extras: None,
            name: None,
            nodes: roots,
        });
        w.root.scene = Some(s);
    }
    for (ci, clip) in clips.iter().enumerate() {
        w.animation(ci, clip, opts);
    }
    w.extensions.sort();
    w.extensions.dedup();
    w.root.extensions_used = w.extensions.iter().map(|e| e.to_string()).collect();
    if !w.bin.is_empty() {
        let len = w.bin.len() as u64;
        w.root.push(json::Buffer {
            byte_length: USize64(len),
            name: None,
            uri: None,
            extensions: None,
            extras: None,
        });
    }
    Document {
        root: w.root,
        bin: w.bin,
        pointers: w.pointers,
        morph_uvs: w.morph_uvs,
    }
}

fn gltf_interpolation(i: Interpolation) -> animation::Interpolation {
    match i {
        Interpolation::Linear | Interpolation::Slerp => animation::Interpolation::Linear,
        Interpolation::Step => animation::Interpolation::Step,
        Interpolation::Cubic => animation::Interpolation::CubicSpline,
    }
}

/// The least and greatest of each component of `N`-component items (a
/// size known when compiled lets the loop run in vector registers).
fn bounds<const N: usize>(data: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut lo, mut hi) = ([f32::INFINITY; N], [f32::NEG_INFINITY; N]);
    for item in data.chunks_exact(N) {
        for c in 0..N {
            lo[c] = lo[c].min(item[c]);
            hi[c] = hi[c].max(item[c]);
        }
    }
    (lo.to_vec(), hi.to_vec())
}

/// Element `c` (three numbers) of an animated array, `None` past its end.
fn vec3_at(animated: &[f64], c: u32) -> Option<glam::Vec3> {
    let c = 3 * c as usize;
    let q = animated.get(c..c + 3)?;
    Some(glam::Vec3::new(q[0] as f32, q[1] as f32, q[2] as f32))
}

/// A morph target's displacements: for each vertex, the animated element it
/// came from (`index`) minus the vertex's own value; a missing element
/// leaves the vertex alone. Normals are made unit first.
fn deltas(own: &[glam::Vec3], index: &[u32], animated: &[f64], unit: bool) -> Vec<f32> {
    let mut out = Vec::with_capacity(own.len() * 3);
    for (p, &c) in own.iter().zip(index) {
        let moved = vec3_at(animated, c).map_or(*p, |q| {
            if unit {
                q.try_normalize().unwrap_or(*p)
            } else {
                q
            }
        });
        out.extend_from_slice(&(moved - *p).to_array());
    }
    out
}

/// A morph target's texture-coordinate displacements in glTF's flipped v:
/// for each vertex, the animated point it came from (`index`) minus its own
/// (X3D) uv; a missing point leaves the vertex alone.
fn uv_deltas(own: &[glam::Vec2], index: &[u32], animated: &[f64]) -> Vec<f32> {
    own.iter()
        .zip(index)
        .flat_map(|(p, &c)| {
            let c = c as usize * 2;
            match animated.get(c..c + 2) {
                Some(q) => [q[0] as f32 - p.x, p.y - q[1] as f32],
                None => [0.0; 2],
            }
        })
        .collect()
}

/// The arrays (Coordinate and TextureCoordinate points, Normal vectors) that
/// are empty in the file
/// but animated: they take the value of the first clip that animates them
/// at its start, so that the mesh has a shape at rest (X3D draws nothing
/// until the first event; glTF must draw something).
fn rest_values(scene: &Scene, clips: &[Clip]) -> crate::mesh::Overrides {
    let mut rest = crate::mesh::Overrides::default();
    let mut v = Vec::new();
    for clip in clips {
        for track in &clip.tracks {
            let array = matches!(
                (
                    scene.node(track.target).type_name.as_str(),
                    track.field.as_str()
                ),
                ("Coordinate" | "TextureCoordinate", "point") | ("Normal", "vector")
            );
            if array
                && !rest.contains_key(&track.target)
                && scene.floats(track.target, &track.field).is_empty()
            {
                clip.eval(track, 0.0, &mut v);
                rest.insert(track.target, v.iter().map(|&x| x as f32).collect());
            }
        }
    }
    rest
}

fn vec3(v: &[f32]) -> DVec3 {
    DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64)
}

fn f32s(v: DVec3) -> [f32; 3] {
    v.as_vec3().to_array()
}

/// An SFRotation field as a unit quaternion.
fn rotation_field(scene: &Scene, id: NodeId, field: &str) -> DQuat {
    let r: Vec<f64> = scene.floats(id, field).iter().map(|&x| x as f64).collect();
    rotation::from_axis_angle(&r)
}

fn quat_f32(q: DQuat) -> json::scene::UnitQuaternion {
    json::scene::UnitQuaternion(q.normalize().as_quat().to_array())
}

/// A node's DEF name for its glTF objects, cut to
/// [`crate::scene::MAX_NAME_BYTES`] (each place a node is USE'd is a glTF
/// copy with its own name).
fn gltf_name(scene: &Scene, id: NodeId) -> Option<String> {
    let def = scene.node(id).def.as_deref()?;
    Some(crate::scene::short_name(def).to_string())
}

fn node(name: Option<String>) -> json::Node {
    json::Node {
        camera: None,
        children: None,
        extensions: None,
        extras: None,
        matrix: None,
        mesh: None,
        name,
        rotation: None,
        scale: None,
        translation: None,
        skin: None,
        weights: None,
    }
}

impl<'a> Writer<'a> {
    /// Reports why the visit stops, at a node, and stops it.
    fn stop(&mut self, message: String, at: NodeId) {
        self.full = true;
        self.diags.error(message, Some(self.scene.node(at).span));
    }

    /// Adds the glTF nodes of an X3D node (and its subtree) to `parent`.
    /// A USE'd node is visited at each place it stands: each place is a copy.
    fn visit(
        &mut self,
        id: NodeId,
        parent: &mut Vec<Index<json::Node>>,
        ancestors: &mut Vec<NodeId>,
    ) {
        let scene = self.scene;
        if self.full {
            return;
        }
        if self.root.nodes.len() >= self.opts.limits.gltf_nodes {
            self.stop(
                format!(
                    "the glTF scene would have more than {} nodes (each place a node is \
                     USE'd takes a copy): stopped at `{}`",
                    self.opts.limits.gltf_nodes,
                    scene.display_name(id)
                ),
                id,
            );
            return;
        }
        let Some(def) = scene.known(id) else {
            return;
        };
        match def.name.as_str() {
            "Shape" => return self.shape(id, parent),
            "Viewpoint" => return self.viewpoint(id, parent),
            "DirectionalLight" | "PointLight" | "SpotLight" => {
                return self.light(id, &def.name, parent);
            }
            _ => {}
        }
        let Some(fields) = children_field(&def.name) else {
            return;
        };
        if ancestors.contains(&id) {
            // Once a node, not once a place it is copied to.
            if !self.self_containing.insert(id) {
                return;
            }
            self.diags.warning(
                format!(
                    "`{}` contains itself (through USE): the inner copy is left out",
                    scene.display_name(id)
                ),
                Some(scene.node(id).span),
            );
            return;
        }
        if ancestors.len() >= MAX_DEPTH {
            self.diags.warning(
                format!("the node hierarchy is deeper than {MAX_DEPTH}: what is below is left out"),
                Some(scene.node(id).span),
            );
            return;
        }
        let name = gltf_name(scene, id);
        let (top, inner) = if is_transform_like(&def.name) {
            self.transform_nodes(id, name)
        } else {
            let n = self.root.push(node(name));
            (n, n)
        };
        parent.push(top);
        self.place(id, top);
        let mut children = Vec::new();
        ancestors.push(id);
        if def.name == "Switch" && self.animated.contains(&(id, "whichChoice".to_string())) {
            self.switch_choices(id, fields, &mut children, ancestors);
        } else {
            for &child in &self.chosen_children(id, fields) {
                self.visit(child, &mut children, ancestors);
            }
        }
        ancestors.pop();
        if !children.is_empty() {
            self.root.nodes[inner.value()].children = Some(children);
        }
    }

    /// Every choice of an animated Switch, each under a node of its own
    /// whose KHR_node_visibility shows it when it is the file's choice.
    fn switch_choices(
        &mut self,
        id: NodeId,
        fields: &[&str],
        children: &mut Vec<Index<json::Node>>,
        ancestors: &mut Vec<NodeId>,
    ) {
        let scene = self.scene;
        let which = scene.number(id, "whichChoice");
        let name = gltf_name(scene, id);
        let mut wrappers = Vec::new();
        for (i, child) in self.all_children(id, fields).into_iter().enumerate() {
            let wrapper = node(name.as_ref().map(|n| format!("{n}_choice{i}")));
            let index = self.root.push(wrapper);
            self.set_visibility(index, which == i as f64);
            let mut inner = Vec::new();
            self.visit(child, &mut inner, ancestors);
            if !inner.is_empty() {
                self.root.nodes[index.value()].children = Some(inner);
            }
            children.push(index);
            wrappers.push(index);
        }
        self.switches.entry(id).or_default().push(wrappers);
    }

    /// Records the glTF node an X3D node became at one of its places; one
    /// whose `visible` is animated gets its KHR_node_visibility.
    fn place(&mut self, id: NodeId, node: Index<json::Node>) {
        self.placed.entry(id).or_default().push(node);
        if self.animated.contains(&(id, "visible".to_string())) {
            self.set_visibility(node, self.scene.flag(id, "visible"));
        }
    }

    /// Gives a node its KHR_node_visibility.
    fn set_visibility(&mut self, node: Index<json::Node>, visible: bool) {
        let ext = self.root.nodes[node.value()]
            .extensions
            .get_or_insert_default();
        let value = serde_json::json!({ "visible": visible });
        ext.others.insert("KHR_node_visibility".to_string(), value);
        self.extensions.push("KHR_node_visibility");
    }

    /// The nodes in a node's children fields (an Inline's: the root nodes
    /// of its file).
    fn all_children(&self, id: NodeId, fields: &[&str]) -> Vec<NodeId> {
        if let Some(roots) = self.scene.expansions.get(&id)
            && self.scene.node(id).type_name == "Inline"
        {
            return roots.clone();
        }
        fields
            .iter()
            .filter_map(|f| self.scene.value(id, f))
            .flat_map(|v| v.nodes().to_vec())
            .collect()
    }

    /// The children shown: all of them, the chosen one of a Switch, the
    /// first level of a LOD.
    fn chosen_children(&self, id: NodeId, fields: &[&str]) -> Vec<NodeId> {
        let scene = self.scene;
        let all = self.all_children(id, fields);
        match scene.node(id).type_name.as_str() {
            "Switch" => {
                let which = scene
                    .value(id, "whichChoice")
                    .map_or(-1, |v| v.as_f64() as i64);
                usize::try_from(which)
                    .ok()
                    .and_then(|i| all.get(i))
                    .copied()
                    .into_iter()
                    .collect()
            }
            "LOD" => all.into_iter().take(1).collect(),
            _ => all,
        }
    }

    /// The chain of glTF nodes that multiplies out to the X3D Transform
    /// matrix T·C·R·SR·S·SR⁻¹·C⁻¹. Returns the top node and the one that
    /// holds the children.
    fn transform_nodes(
        &mut self,
        id: NodeId,
        name: Option<String>,
    ) -> (Index<json::Node>, Index<json::Node>) {
        let scene = self.scene;
        let field = |f: &str| scene.floats(id, f).to_vec();
        let t = vec3(&field("translation"));
        let c = vec3(&field("center"));
        let s = vec3(&field("scale"));
        let r = rotation_field(scene, id, "rotation");
        let sr = rotation_field(scene, id, "scaleOrientation");
        let has_sr = !rotation::same_rotation(sr, DQuat::IDENTITY, 1e-15);
        let mut main = node(name.clone());
        main.translation = Some(f32s(t + c)).filter(|v| *v != [0.0; 3]);
        main.rotation = Some(quat_f32(r)).filter(|q| q.0 != [0.0, 0.0, 0.0, 1.0]);
        let part = |suffix: &str| name.as_ref().map(|n| format!("{n}{suffix}"));
        let (top, scale_node, inner);
        if has_sr {
            top = self.root.push(main);
            let mut scaled = node(part("_scaleOrientation"));
            scaled.rotation = Some(quat_f32(sr));
            scaled.scale = Some(f32s(s));
            scale_node = self.root.push(scaled);
            let mut undo = node(part("_center"));
            let inv = sr.inverse();
            undo.rotation = Some(quat_f32(inv));
            undo.translation = Some(f32s(-(inv * c))).filter(|v| *v != [0.0; 3]);
            inner = self.root.push(undo);
            self.root.nodes[top.value()].children = Some(vec![scale_node]);
            self.root.nodes[scale_node.value()].children = Some(vec![inner]);
        } else {
            main.scale = Some(f32s(s)).filter(|v| *v != [1.0; 3]);
            top = self.root.push(main);
            scale_node = top;
            if c != DVec3::ZERO {
                let mut undo = node(part("_center"));
                undo.translation = Some(f32s(-c));
                inner = self.root.push(undo);
                self.root.nodes[top.value()].children = Some(vec![inner]);
            } else {
                inner = top;
            }
        }
        self.transforms.entry(id).or_default().push(TransformNodes {
            main: top,
            scale: scale_node,
            center: c,
        });
        (top, inner)
    }

    /// Appends f32 data in its own buffer view and makes an accessor.
    fn accessor(
        &mut self,
        data: &[f32],
        ty: accessor::Type,
        min_max: bool,
    ) -> Index<json::Accessor> {
        self.accessor_for(data, ty, min_max, None)
    }

    /// The same, for vertex data (a buffer view with its target).
    fn accessor_for(
        &mut self,
        data: &[f32],
        ty: accessor::Type,
        min_max: bool,
        target: Option<buffer::Target>,
    ) -> Index<json::Accessor> {
        let n = ty.multiplicity();
        let bounds = min_max.then(|| {
            let (lo, hi) = match n {
                1 => bounds::<1>(data),
                2 => bounds::<2>(data),
                3 => bounds::<3>(data),
                4 => bounds::<4>(data),
                9 => bounds::<9>(data),
                _ => bounds::<16>(data),
            };
            (serde_json::json!(lo), serde_json::json!(hi))
        });
        let component = accessor::ComponentType::F32;
        self.raw_accessor(
            data.iter().map(|x| x.to_le_bytes()),
            data.len() / n,
            component,
            ty,
            bounds,
            target,
        )
    }

    /// Appends little-endian components (`N` bytes each; padded to four
    /// bytes) in their own buffer view and makes an accessor of `count`
    /// elements. The buffer is grown once and the components written into
    /// it (pushing them one by one was most of the writer's time).
    fn raw_accessor<const N: usize>(
        &mut self,
        components: impl Iterator<Item = [u8; N]>,
        count: usize,
        component: accessor::ComponentType,
        ty: accessor::Type,
        bounds: Option<(serde_json::Value, serde_json::Value)>,
        target: Option<buffer::Target>,
    ) -> Index<json::Accessor> {
        let offset = self.bin.len();
        let size = count * ty.multiplicity() * component.size();
        self.bin.resize(offset + size, 0);
        for (to, c) in self.bin[offset..].chunks_exact_mut(N).zip(components) {
            to.copy_from_slice(&c);
        }
        let view = self.view(offset, size, target);
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
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

    fn view(
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

    /// Vertex indices as u32.
    fn indices(&mut self, data: &[u32]) -> Index<json::Accessor> {
        let (component, ty) = (accessor::ComponentType::U32, accessor::Type::Scalar);
        let target = Some(buffer::Target::ElementArrayBuffer);
        let bytes = data.iter().map(|x| x.to_le_bytes());
        self.raw_accessor(bytes, data.len(), component, ty, None, target)
    }

    /// A Shape: a glTF node with its mesh (shared when the geometry and
    /// appearance are).
    fn shape(&mut self, id: NodeId, parent: &mut Vec<Index<json::Node>>) {
        let scene = self.scene;
        let Some(geometry) = scene.child(id, "geometry") else {
            return;
        };
        let appearance = scene.child(id, "appearance");
        let mesh = match self.meshes.get(&(geometry, appearance)) {
            Some(m) => *m,
            None => {
                let m = self.mesh(geometry, appearance);
                self.meshes.insert((geometry, appearance), m);
                let limit = self.opts.limits.buffer_bytes;
                if self.bin.len() > limit {
                    self.stop(
                        format!(
                            "the glTF buffer would hold more than {limit} bytes (a mesh is \
                             stored for each geometry node, and again for each appearance it is \
                             USE'd with): stopped at `{}`",
                            scene.display_name(geometry)
                        ),
                        geometry,
                    );
                    return;
                }
                m
            }
        };
        let Some(mesh) = mesh else {
            return;
        };
        let mut n = node(gltf_name(scene, id));
        n.mesh = Some(mesh);
        let index = self.root.push(n);
        self.mesh_nodes.entry(mesh.value()).or_default().push(index);
        self.place(id, index);
        parent.push(index);
    }

    fn mesh(&mut self, geometry: NodeId, appearance: Option<NodeId>) -> Option<Index<json::Mesh>> {
        let m = crate::mesh::mesh(self.scene, &self.rest, geometry, self.diags)?;
        let flat = |v: &[glam::Vec3]| v.iter().flat_map(|p| p.to_array()).collect::<Vec<f32>>();
        let mut attributes = std::collections::BTreeMap::new();
        let array = Some(buffer::Target::ArrayBuffer);
        let position = self.accessor_for(&flat(&m.positions), accessor::Type::Vec3, true, array);
        attributes.insert(Checked::Valid(json::mesh::Semantic::Positions), position);
        if !m.normals.is_empty() {
            let a = self.accessor_for(&flat(&m.normals), accessor::Type::Vec3, false, array);
            attributes.insert(Checked::Valid(json::mesh::Semantic::Normals), a);
        }
        if !m.uvs.is_empty() {
            // X3D texture space has v up from the bottom; glTF's runs down.
            let uv: Vec<f32> = m.uvs.iter().flat_map(|t| [t.x, 1.0 - t.y]).collect();
            let a = self.accessor_for(&uv, accessor::Type::Vec2, false, array);
            attributes.insert(Checked::Valid(json::mesh::Semantic::TexCoords(0)), a);
        }
        if !m.colors.is_empty() {
            let c: Vec<f32> = m
                .colors
                .iter()
                .flatten()
                .map(|x| x.clamp(0.0, 1.0))
                .collect();
            let a = self.accessor_for(&c, accessor::Type::Vec4, false, array);
            attributes.insert(Checked::Valid(json::mesh::Semantic::Colors(0)), a);
        }
        let indices = self.indices(&m.indices);
        let material = self.material(appearance, m.double_sided, !m.colors.is_empty());
        let mesh_index = self.root.meshes.len();
        let (targets, weights) = self.morph_targets(&m, mesh_index);
        let mode = match m.primitive() {
            crate::mesh::Primitive::Triangles => json::mesh::Mode::Triangles,
            crate::mesh::Primitive::Lines => json::mesh::Mode::Lines,
            crate::mesh::Primitive::Points => json::mesh::Mode::Points,
        };
        Some(self.root.push(json::Mesh {
            extensions: None,
            extras: None,
            name: gltf_name(self.scene, geometry),
            primitives: vec![json::mesh::Primitive {
                attributes,
                extensions: None,
                extras: None,
                indices: Some(indices),
                material: Some(material),
                mode: Checked::Valid(mode),
                targets,
            }],
            weights,
        }))
    }

    /// Morph targets for every track that animates the mesh's Coordinate
    /// points or Normal vectors: one target per keyframe, the difference of
    /// its points (normals) from the mesh's own. When one clip animates
    /// both, they are sampled at the same times and share the targets.
    /// Returns the targets and the mesh's rest weights.
    #[allow(clippy::type_complexity)]
    fn morph_targets(
        &mut self,
        m: &crate::mesh::Mesh,
        mesh: usize,
    ) -> (Option<Vec<json::mesh::MorphTarget>>, Option<Vec<f32>>) {
        let clips = self.clips;
        let opts = self.opts;
        let mut targets = Vec::new();
        let mut made = Vec::new();
        // Only the clips that animate one of the mesh's arrays (a scan of
        // every clip for every mesh took their product).
        let mut animating: Vec<usize> = [m.coord, m.normal, m.tex_coord]
            .into_iter()
            .flatten()
            .flat_map(|node| self.clips_of.get(&node).into_iter().flatten().copied())
            .collect();
        animating.sort_unstable();
        animating.dedup();
        for ci in animating {
            let clip = &clips[ci];
            let index = &self.track_index[ci];
            let find = |node: Option<NodeId>, field: &str| {
                let node = node?;
                index
                    .producing(node)
                    .iter()
                    .copied()
                    .find(|&i| clip.tracks[i].field == field)
            };
            // Points, normals and texture coordinates animated in this clip.
            let found = [
                find(m.coord, "point"),
                find(m.normal, "vector"),
                find(m.tex_coord, "point"),
            ];
            let Some(&lead) = found.iter().flatten().next() else {
                continue;
            };
            // Several: all sampled at the same times, in one set of targets
            // (glTF allows one weights channel per node and animation).
            let together = found.iter().flatten().count() > 1;
            let [kp, kn, kt] = found.map(|i| {
                let i = i?;
                let track = &clip.tracks[i];
                if together {
                    if i != lead {
                        self.folded.insert((ci, i));
                    }
                    return self.sampled(clip, track, Interpolation::Linear);
                }
                match self.keyframes(clip, track, &opts) {
                    // One-hot weights follow keys linearly or in steps only.
                    Some(k) if k.interpolation == Interpolation::Cubic => {
                        self.sampled(clip, track, Interpolation::Linear)
                    }
                    k => k,
                }
            });
            let Some(len) = [&kp, &kn, &kt]
                .into_iter()
                .flatten()
                .map(Keyframes::len)
                .next()
            else {
                continue;
            };
            let first = targets.len();
            // The targets' data at once, not by doubling (which holds the old
            // and the new buffer together at each step).
            let attributes = usize::from(kp.is_some()) + usize::from(!m.normals.is_empty());
            let uv_numbers = if kt.is_some() { 2 } else { 0 };
            let per_target = m.positions.len() * (3 * attributes + uv_numbers);
            // The targets, and their own part of the one-hot weights (a
            // weight for each of them at each of their keys) before any is
            // made: the rest of the weights are known when all are.
            let numbers = len.saturating_mul(per_target.saturating_add(len));
            if !self.spend(numbers, clip, &clip.tracks[lead]) {
                continue;
            }
            self.bin.reserve(len * per_target * 4);
            for i in 0..len {
                let positions = kp.as_ref().map(|k| {
                    let delta = deltas(&m.positions, &m.coord_index, k.value(i), false);
                    self.accessor_for(
                        &delta,
                        accessor::Type::Vec3,
                        true,
                        Some(buffer::Target::ArrayBuffer),
                    )
                });
                let normals = match (&kn, &kp) {
                    (Some(k), _) => Some(deltas(&m.normals, &m.normal_index, k.value(i), true)),
                    // Normals made from the points follow the points.
                    (None, Some(k)) => Self::remade_normals(m, k.value(i)),
                    _ => None,
                };
                let normals = normals.map(|delta| {
                    self.accessor_for(
                        &delta,
                        accessor::Type::Vec3,
                        true,
                        Some(buffer::Target::ArrayBuffer),
                    )
                });
                if let Some(k) = &kt {
                    let delta = uv_deltas(&m.uvs, &m.tex_index, k.value(i));
                    let target = Some(buffer::Target::ArrayBuffer);
                    let a = self.accessor_for(&delta, accessor::Type::Vec2, false, target);
                    self.morph_uvs.push((mesh, targets.len(), a.value()));
                }
                targets.push(json::mesh::MorphTarget {
                    positions,
                    normals,
                    tangents: None,
                });
            }
            // The weights channel needs only the times: the values are in
            // the targets now.
            let keyframes = kp.or(kn).or(kt).expect("one of them was found");
            let keyframes = keyframes.times_only();
            made.push(((ci, lead), first, keyframes));
        }
        if targets.is_empty() {
            return (None, None);
        }
        let total = targets.len();
        for (key, first, keyframes) in made {
            // The rest of the one-hot weights: the other clips' targets.
            let (clip, track) = (&clips[key.0], &clips[key.0].tracks[key.1]);
            let others = total - keyframes.len();
            if !self.spend(keyframes.len().saturating_mul(others), clip, track) {
                continue;
            }
            self.morphs.insert(
                key,
                Morph {
                    mesh,
                    first,
                    total,
                    keyframes,
                },
            );
        }
        (Some(targets), Some(vec![0.0; total]))
    }

    /// The normals a mesh gets when its Coordinate holds `points`, as
    /// displacements from its own; `None` if the file gives its normals.
    fn remade_normals(m: &crate::mesh::Mesh, points: &[f64]) -> Option<Vec<f32>> {
        let made = m.made_normals.as_ref()?;
        // A point the animation lacks stays where it is (as in deltas).
        let corners: Vec<glam::Vec3> = m
            .coord_index
            .iter()
            .zip(&m.positions)
            .map(|(&c, own)| vec3_at(points, c).unwrap_or(*own))
            .collect();
        let normals = made.normals(&corners, &m.coord_index);
        let delta = normals.iter().zip(&m.normals).map(|(n, own)| *n - *own);
        Some(delta.flat_map(|n| n.to_array()).collect())
    }

    /// The material of an Appearance: Material as metallic-roughness (see
    /// the README for the mapping); none at all is unlit white, as X3D
    /// draws geometry without a Material.
    fn material(
        &mut self,
        appearance: Option<NodeId>,
        double_sided: bool,
        vertex_colors: bool,
    ) -> Index<json::Material> {
        let key = (appearance, double_sided, vertex_colors);
        if let Some(&m) = self.materials.get(&key) {
            return m;
        }
        let scene = self.scene;
        let x3d_material = appearance.and_then(|a| scene.child(a, "material"));
        let mut m = json::Material {
            double_sided,
            ..Default::default()
        };
        match x3d_material {
            Some(mat) => {
                let f = |name: &str| scene.floats(mat, name).to_vec();
                let diffuse = f("diffuseColor");
                let transparency = f("transparency")
                    .first()
                    .copied()
                    .unwrap_or(0.0)
                    .clamp(0.0, 1.0);
                let shininess = f("shininess")
                    .first()
                    .copied()
                    .unwrap_or(0.2)
                    .clamp(0.0, 1.0);
                let base = if vertex_colors || diffuse.len() < 3 {
                    [1.0; 3]
                } else {
                    [diffuse[0], diffuse[1], diffuse[2]].map(|x| x.clamp(0.0, 1.0))
                };
                m.pbr_metallic_roughness.base_color_factor = json::material::PbrBaseColorFactor([
                    base[0],
                    base[1],
                    base[2],
                    1.0 - transparency,
                ]);
                m.pbr_metallic_roughness.metallic_factor = json::material::StrengthFactor(0.0);
                m.pbr_metallic_roughness.roughness_factor =
                    json::material::StrengthFactor(1.0 - shininess);
                let e = f("emissiveColor");
                if e.len() == 3 && e != [0.0; 3] {
                    m.emissive_factor = json::material::EmissiveFactor(
                        [e[0], e[1], e[2]].map(|x| x.clamp(0.0, 1.0)),
                    );
                }
                if transparency > 0.0 || self.animated.contains(&(mat, "transparency".to_string()))
                {
                    m.alpha_mode = Checked::Valid(json::material::AlphaMode::Blend);
                }
                m.name = gltf_name(scene, mat);
                let index = self.root.materials.len();
                let white = vertex_colors;
                let made = MadeMaterial {
                    index,
                    base,
                    alpha: 1.0 - transparency,
                    white,
                };
                self.x3d_materials.entry(mat).or_default().push(made);
                if let Some(texture) = appearance.and_then(|a| self.texture(a)) {
                    // An RGB texture replaces the diffuse colour (X3D lighting).
                    let f = &mut m.pbr_metallic_roughness.base_color_factor.0;
                    f[..3].copy_from_slice(&[1.0; 3]);
                    m.pbr_metallic_roughness.base_color_texture = Some(texture);
                    if let Some(last) = self.x3d_materials.get_mut(&mat).and_then(|v| v.last_mut())
                    {
                        last.white = true;
                    }
                }
            }
            None => {
                m.extensions = Some(json::extensions::material::Material {
                    unlit: Some(json::extensions::material::Unlit {}),
                    ..Default::default()
                });
                self.extensions.push("KHR_materials_unlit");
                m.pbr_metallic_roughness.base_color_texture =
                    appearance.and_then(|a| self.texture(a));
            }
        }
        // Unique names: clients bind animation tracks to materials by name.
        let name = m.name.take().unwrap_or_else(|| "material".to_string());
        let name = if self.material_names.contains(&name) {
            format!("{name}_{}", self.root.materials.len())
        } else {
            name
        };
        self.material_names.insert(name.clone());
        m.name = Some(name);
        let moved = m.pbr_metallic_roughness.base_color_texture.as_ref();
        let moved = moved
            .and_then(|i| i.extensions.as_ref()?.texture_transform.as_ref())
            .is_some();
        let index = self.root.push(m);
        let transform = appearance.and_then(|a| scene.child(a, "textureTransform"));
        if let Some(t) = transform.filter(|_| moved)
            && let Some((_, list)) = self.tex_transforms.get_mut(&t)
        {
            list.push(index.value());
        }
        self.materials.insert(key, index);
        index
    }

    /// The texture of an Appearance's ImageTexture, its image embedded, with
    /// its TextureTransform (KHR_texture_transform).
    fn texture(&mut self, appearance: NodeId) -> Option<json::texture::Info> {
        let tex = self.scene.child(appearance, "texture")?;
        let texture = match self.textures.get(&tex) {
            Some(&t) => t,
            None => {
                let t = self.image_texture(tex);
                self.textures.insert(tex, t);
                t
            }
        }?;
        let extensions = self
            .scene
            .child(appearance, "textureTransform")
            .and_then(|t| self.texture_transform(t));
        Some(json::texture::Info {
            index: texture,
            tex_coord: 0,
            extensions,
            extras: None,
        })
    }

    /// An ImageTexture's image (embedded in the buffer), sampler and glTF
    /// texture.
    fn image_texture(&mut self, tex: NodeId) -> Option<Index<json::Texture>> {
        let scene = self.scene;
        let span = Some(scene.node(tex).span);
        if scene.known(tex).is_none_or(|d| d.name != "ImageTexture") {
            let ty = &scene.node(tex).type_name;
            self.diags
                .warning(format!("`{ty}` textures are not written yet"), span);
            return None;
        }
        let urls = scene
            .value(tex, "url")
            .map(|v| v.strings().to_vec())
            .unwrap_or_default();
        let found = urls
            .iter()
            .find_map(|u| (self.images)(tex, u).and_then(|b| Some((image_mime(&b)?, b))));
        let Some((mime, bytes)) = found else {
            let list = urls.join(", ");
            self.diags.warning(
                format!("ImageTexture: no PNG or JPEG image could be read from {list}"),
                span,
            );
            return None;
        };
        let offset = self.bin.len();
        self.bin.extend_from_slice(&bytes);
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let view = self.view(offset, bytes.len(), None);
        let image = self.root.push(json::Image {
            buffer_view: Some(view),
            mime_type: Some(json::image::MimeType(mime.to_string())),
            name: gltf_name(scene, tex),
            uri: None,
            extensions: None,
            extras: None,
        });
        let wrap = |f: &str| {
            let repeat = scene.value(tex, f).is_none_or(|v| v.as_bool());
            Checked::Valid(if repeat {
                json::texture::WrappingMode::Repeat
            } else {
                json::texture::WrappingMode::ClampToEdge
            })
        };
        let sampler = self.root.push(json::texture::Sampler {
            mag_filter: None,
            min_filter: None,
            name: None,
            wrap_s: wrap("repeatS"),
            wrap_t: wrap("repeatT"),
            extensions: None,
            extras: None,
        });
        Some(self.root.push(json::Texture {
            name: None,
            sampler: Some(sampler),
            source: image,
            extensions: None,
            extras: None,
        }))
    }

    /// The fields of a TextureTransform as written: its rotation is left
    /// out when it also scales unevenly, which glTF's fixed order cannot
    /// hold (with a warning).
    fn tex_fields(&mut self, t: NodeId) -> Option<TexFields> {
        let scene = self.scene;
        let f =
            |name: &str| -> Vec<f64> { scene.floats(t, name).iter().map(|&x| x as f64).collect() };
        let (c, s, tr) = (f("center"), f("scale"), f("translation"));
        if c.len() < 2 || s.len() < 2 || tr.len() < 2 {
            return None;
        }
        let mut a = f("rotation").first().copied().unwrap_or(0.0);
        if a != 0.0 && s[0] != s[1] {
            self.diags.warning(
                "a TextureTransform that rotates and scales unevenly cannot be written exactly: its rotation is left out",
                Some(scene.node(t).span),
            );
            a = 0.0;
        }
        Some(TexFields {
            c: [c[0], c[1]],
            a,
            s: [s[0], s[1]],
            t: [tr[0], tr[1]],
        })
    }

    /// X3D's TextureTransform as KHR_texture_transform (see [`TexFields::khr`]).
    fn texture_transform(&mut self, t: NodeId) -> Option<json::extensions::texture::Info> {
        let fields = self.tex_fields(t)?;
        self.tex_transforms.entry(t).or_insert((fields, Vec::new()));
        let (offset, rotation, scale) = fields.khr();
        let f = |v: [f64; 2]| v.map(|x| x as f32);
        self.extensions.push("KHR_texture_transform");
        Some(json::extensions::texture::Info {
            texture_transform: Some(json::extensions::texture::TextureTransform {
                offset: json::extensions::texture::TextureTransformOffset(f(offset)),
                rotation: json::extensions::texture::TextureTransformRotation(rotation as f32),
                scale: json::extensions::texture::TextureTransformScale(f(scale)),
                // gltf-json writes `null` for None, which is not valid.
                tex_coord: Some(0),
                extras: None,
            }),
            ..Default::default()
        })
    }

    /// A Viewpoint: a node with a perspective camera.
    fn viewpoint(&mut self, id: NodeId, parent: &mut Vec<Index<json::Node>>) {
        let scene = self.scene;
        let f = |name: &str| scene.floats(id, name).to_vec();
        let fov = f("fieldOfView")
            .first()
            .copied()
            .unwrap_or(std::f32::consts::FRAC_PI_4)
            .clamp(0.01, 3.1);
        let near = f("nearDistance")
            .first()
            .copied()
            .filter(|&n| n > 0.0)
            .unwrap_or(0.1);
        let far = f("farDistance").first().copied().filter(|&x| x > near);
        let camera = self.root.push(json::Camera {
            name: gltf_name(scene, id),
            orthographic: None,
            perspective: Some(json::camera::Perspective {
                aspect_ratio: None,
                yfov: fov,
                zfar: far,
                znear: near,
                extensions: None,
                extras: None,
            }),
            type_: Checked::Valid(json::camera::Type::Perspective),
            extensions: None,
            extras: None,
        });
        self.cameras.entry(id).or_default().push(camera.value());
        let mut n = node(gltf_name(scene, id));
        n.camera = Some(camera);
        let p = f("position");
        n.translation = Some([p[0], p[1], p[2]]).filter(|v| *v != [0.0; 3]);
        let o = rotation_field(scene, id, "orientation");
        n.rotation = Some(quat_f32(o)).filter(|q| q.0 != [0.0, 0.0, 0.0, 1.0]);
        let index = self.root.push(n);
        self.place(id, index);
        parent.push(index);
    }

    /// A light: KHR_lights_punctual on a node placed and turned as the
    /// light is. A light that is off is left out.
    fn light(&mut self, id: NodeId, ty: &str, parent: &mut Vec<Index<json::Node>>) {
        use json::extensions::scene::khr_lights_punctual as klp;
        let scene = self.scene;
        if !scene.flag(id, "on") {
            return;
        }
        let f = |name: &str| scene.floats(id, name).to_vec();
        let color = f("color");
        let intensity = f("intensity").first().copied().unwrap_or(1.0).max(0.0);
        let (type_, spot, range) = match ty {
            "DirectionalLight" => (klp::Type::Directional, None, None),
            "PointLight" => (
                klp::Type::Point,
                None,
                f("radius").first().copied().filter(|&r| r > 0.0),
            ),
            _ => {
                let outer = f("cutOffAngle")
                    .first()
                    .copied()
                    .unwrap_or(std::f32::consts::FRAC_PI_2)
                    .clamp(0.001, std::f32::consts::FRAC_PI_2);
                let inner = f("beamWidth")
                    .first()
                    .copied()
                    .unwrap_or(std::f32::consts::FRAC_PI_4)
                    .clamp(0.0, outer * 0.999);
                let spot = klp::Spot {
                    inner_cone_angle: inner,
                    outer_cone_angle: outer,
                };
                (
                    klp::Type::Spot,
                    Some(spot),
                    f("radius").first().copied().filter(|&r| r > 0.0),
                )
            }
        };
        let light = klp::Light {
            color: [color[0], color[1], color[2]],
            extensions: None,
            extras: None,
            intensity,
            name: gltf_name(scene, id),
            range,
            spot,
            type_: Checked::Valid(type_),
        };
        let lights = &mut self
            .root
            .extensions
            .get_or_insert_with(Default::default)
            .khr_lights_punctual;
        let list = &mut lights.get_or_insert_with(Default::default).lights;
        list.push(light);
        let index = Index::new(list.len() as u32 - 1);
        self.lights.entry(id).or_default().push(index.value());
        self.extensions.push("KHR_lights_punctual");
        let mut n = node(gltf_name(scene, id));
        n.extensions = Some(json::extensions::scene::Node {
            khr_lights_punctual: Some(klp::KhrLightsPunctual { light: index }),
            ..Default::default()
        });
        if ty != "DirectionalLight" {
            let l = f("location");
            n.translation = Some([l[0], l[1], l[2]]).filter(|v| *v != [0.0; 3]);
        }
        if ty != "PointLight" {
            // glTF lights shine down −Z: turn −Z onto the X3D direction.
            let d = vec3(&f("direction"));
            if let Some(d) = d.try_normalize() {
                let q = DQuat::from_rotation_arc(-DVec3::Z, d);
                n.rotation = Some(quat_f32(q)).filter(|q| q.0 != [0.0, 0.0, 0.0, 1.0]);
            }
        }
        let index = self.root.push(n);
        self.place(id, index);
        parent.push(index);
    }

    /// Key times as f32, strictly increasing: a repeated time (a jump) moves
    /// to the next representable f32 after the one before.
    fn times(&mut self, k: &Keyframes) -> Index<json::Accessor> {
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

    fn animation(&mut self, ci: usize, clip: &Clip, opts: &Options) {
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        let mut pointers = Vec::new();
        let anim = self.root.animations.len();
        for (ti, track) in clip.tracks.iter().enumerate() {
            if self.values > self.opts.limits.animation_values {
                break; // reported: the document is not written
            }
            if !track.interpolator().produces() || self.folded.contains(&(ci, ti)) {
                continue;
            }
            let index = &self.track_index[ci];
            let partner = |field: &str| index.first(track.target, field).map(|i| &clip.tracks[i]);
            let ty = self
                .scene
                .known(track.target)
                .map_or("", |d| d.name.as_str());
            let is_material = ty == "Material";
            let transparency =
                partner("transparency").filter(|_| is_material && track.field == "diffuseColor");
            if is_material && track.field == "transparency" && partner("diffuseColor").is_some() {
                continue; // written with the diffuseColor, as one baseColorFactor
            }
            if ty == "TextureTransform"
                && index
                    .producing(track.target)
                    .first()
                    .is_some_and(|&i| i < ti)
            {
                continue; // written with the first field of its node
            }
            let morph = self.morphs.remove(&(ci, ti));
            let target = match &morph {
                Some(m) => {
                    let nodes = self.mesh_nodes.get(&m.mesh).cloned().unwrap_or_default();
                    Some(Target::Weights {
                        nodes,
                        first: m.first,
                        total: m.total,
                    })
                }
                None => self.target(track),
            };
            let Some(target) = target else {
                continue;
            };
            let k = match (transparency, morph) {
                (_, Some(m)) => Some(m.keyframes),
                // Colour and transparency in one clip: one RGBA curve, sampled.
                (Some(tr), None) => {
                    let mut a = Vec::new();
                    let interpolation = sampled_interpolation(opts, track);
                    let cubic = interpolation == Interpolation::Cubic;
                    if !self.sampled_with(clip, track, 4, cubic) {
                        continue;
                    }
                    Some(Keyframes::sample(
                        &clip.map,
                        opts.rate,
                        4,
                        interpolation,
                        false,
                        |f, out| {
                            track.eval_fraction(f, out);
                            tr.eval_fraction(f, &mut a);
                            out.push(1.0 - a.first().copied().unwrap_or(0.0));
                        },
                    ))
                }
                (None, None) => self.keyframes(clip, track, opts),
            };
            let Some(k) = k else {
                continue;
            };
            let target = match (transparency, target) {
                (Some(_), Target::Pointer { pointers, .. }) => Target::Pointer {
                    pointers,
                    conv: Conv::Same,
                },
                (_, t) => t,
            };
            let times = self.times(&k);
            let interpolation = gltf_interpolation(k.interpolation);
            let mut sampler = |input, output: Index<json::Accessor>, interpolation| {
                samplers.push(animation::Sampler {
                    extensions: None,
                    extras: None,
                    input,
                    interpolation: Checked::Valid(interpolation),
                    output,
                });
                Index::new(samplers.len() as u32 - 1)
            };
            let channel = |sampler, node: Index<json::Node>, path| animation::Channel {
                sampler,
                target: animation::Target {
                    extensions: None,
                    extras: None,
                    node,
                    path: Checked::Valid(path),
                },
                extensions: None,
                extras: None,
            };
            // A pointer channel: a placeholder target, replaced in the JSON.
            let mut pointer_channel = |sampler, pointer: String| {
                pointers.push((anim, channels.len(), pointer));
                channels.push(channel(
                    sampler,
                    Index::new(0),
                    animation::Property::Translation,
                ));
            };
            match target {
                Target::Visibility { shown } => {
                    // A bool (unsigned byte) STEP curve for each list.
                    for (when, nodes) in shown {
                        let on = |v: &[f64]| match (when, v.first()) {
                            (Some(i), Some(&x)) => x == i as f64,
                            (None, Some(&x)) => x != 0.0,
                            (_, None) => false,
                        };
                        let bytes = (0..k.len()).map(|j| [u8::from(on(k.value(j)))]);
                        let (u8, scalar) = (accessor::ComponentType::U8, accessor::Type::Scalar);
                        let output = self.raw_accessor(bytes, k.len(), u8, scalar, None, None);
                        let s = sampler(times, output, animation::Interpolation::Step);
                        for node in nodes {
                            let pointer = format!(
                                "/nodes/{}/extensions/KHR_node_visibility/visible",
                                node.value()
                            );
                            pointer_channel(s, pointer);
                        }
                    }
                }
                Target::Texture {
                    materials,
                    field,
                    fixed,
                } => {
                    // The other fields of the same TextureTransform in this
                    // clip: the glTF properties depend on them all.
                    let together: Vec<(TexField, &Track)> = self.track_index[ci]
                        .producing(track.target)
                        .iter()
                        .map(|&i| (TexField::of(&clip.tracks[i].field), &clip.tracks[i]))
                        .collect();
                    let mut parts: Vec<(TexPart, bool)> = together
                        .iter()
                        .flat_map(|(f, _)| f.parts().iter().copied())
                        .collect();
                    parts.sort_by_key(|&(p, linear)| (p as u8, !linear));
                    parts.dedup_by_key(|&mut (p, _)| p);
                    for (part, linear) in parts {
                        let (resampled, conv) = if together.len() > 1 {
                            // Several fields: the part sampled from them all.
                            if !self.sampled_with(clip, track, part.width(), false) {
                                continue;
                            }
                            let mut v = Vec::new();
                            let joint = Keyframes::sample(
                                &clip.map,
                                opts.rate,
                                part.width(),
                                Interpolation::Linear,
                                false,
                                |f, out| {
                                    let mut x = fixed;
                                    for (field, t) in &together {
                                        t.eval_fraction(f, &mut v);
                                        x = x.with(*field, &v);
                                    }
                                    out.clear();
                                    out.extend(x.part(part));
                                },
                            );
                            (Some(joint), Conv::Same)
                        } else {
                            let resampled = if !linear && k.interpolation != Interpolation::Step {
                                let Some(r) = self.sampled(clip, track, Interpolation::Linear)
                                else {
                                    continue;
                                };
                                Some(r)
                            } else {
                                None
                            };
                            (resampled, Conv::Tex { part, field, fixed })
                        };
                        let k = resampled.as_ref().unwrap_or(&k);
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
                        let s = sampler(input, output, gltf_interpolation(k.interpolation));
                        pointers.into_iter().for_each(|p| pointer_channel(s, p));
                    }
                }
                target => {
                    let output = match target {
                        Target::Weights { first, total, .. } => self.weights(&k, first, total),
                        _ => self.values(&k, |v, tangent| target.convert(v, tangent)),
                    };
                    let s = sampler(times, output, interpolation);
                    match target {
                        Target::Node { path, nodes, .. } => {
                            channels.extend(nodes.into_iter().map(|n| channel(s, n, path)))
                        }
                        Target::Weights { nodes, .. } => {
                            let weights = animation::Property::MorphTargetWeights;
                            channels.extend(nodes.into_iter().map(|n| channel(s, n, weights)))
                        }
                        Target::Pointer { pointers: list, .. } => {
                            list.into_iter().for_each(|p| pointer_channel(s, p))
                        }
                        Target::Visibility { .. } | Target::Texture { .. } => {
                            unreachable!("handled above")
                        }
                    }
                }
            }
        }
        if channels.is_empty() {
            return;
        }
        if !pointers.is_empty() {
            self.extensions.push("KHR_animation_pointer");
        }
        self.pointers.extend(pointers);
        let extras = serde_json::json!({
            "loop": clip.looping(),
            "clock": self.scene.node(clip.clock_node).type_name,
        });
        self.root.push(json::Animation {
            extensions: None,
            extras: serde_json::value::to_raw_value(&extras).ok(),
            channels,
            name: Some(clip.name.clone()),
            samplers,
        });
    }

    /// Where a track goes in glTF, or a warning when it has no place yet.
    fn target(&mut self, track: &Track) -> Option<Target> {
        use animation::Property::{Rotation, Scale, Translation};
        let scene = self.scene;
        let ty = scene.known(track.target).map_or("", |d| d.name.as_str());
        let field = track.field.as_str();
        let node_target = |path, nodes: Vec<Index<json::Node>>, offset: Vec<f64>| {
            Some(Target::Node {
                path,
                nodes,
                offset,
            })
        };
        let found = match (ty, field) {
            (t, "translation" | "rotation" | "scale") if is_transform_like(t) => {
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
            ("Viewpoint", "position") | ("PointLight" | "SpotLight", "location") => node_target(
                Translation,
                self.placed.get(&track.target).cloned().unwrap_or_default(),
                vec![0.0; 3],
            ),
            ("Viewpoint", "orientation") => node_target(
                Rotation,
                self.placed.get(&track.target).cloned().unwrap_or_default(),
                vec![0.0; 4],
            ),
            ("Viewpoint", "fieldOfView") => self.pointer_list(
                &self.cameras,
                track,
                "/cameras/{}/perspective/yfov",
                Conv::Same,
            ),
            ("DirectionalLight" | "PointLight" | "SpotLight", "color" | "intensity") => {
                let path = format!("/extensions/KHR_lights_punctual/lights/{{}}/{field}");
                self.pointer_list(&self.lights, track, &path, Conv::Same)
            }
            ("Material", _) => self.material_target(track),
            ("TextureTransform", _) => {
                let field = TexField::of(field);
                let (fixed, materials) = self.tex_transforms.get(&track.target)?.clone();
                Some(Target::Texture {
                    materials,
                    field,
                    fixed,
                })
            }
            ("Switch", "whichChoice") => {
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
            (_, "visible") => Some(Target::Visibility {
                shown: vec![(
                    None,
                    self.placed.get(&track.target).cloned().unwrap_or_default(),
                )],
            }),
            _ => None,
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
        found.filter(|t| match t {
            Target::Node { nodes, .. } | Target::Weights { nodes, .. } => !nodes.is_empty(),
            Target::Pointer { pointers, .. } => !pointers.is_empty(),
            Target::Visibility { shown } => shown.iter().any(|(_, n)| !n.is_empty()),
            Target::Texture { materials, .. } => !materials.is_empty(),
        })
    }

    /// Pointer targets with `{}` replaced by each glTF index of the node.
    fn pointer_list(
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
    fn material_target(&mut self, track: &Track) -> Option<Target> {
        let list = self.x3d_materials.get(&track.target)?.clone();
        let (property, conv) = match track.field.as_str() {
            // With vertex colours or a texture the base colour is white.
            "diffuseColor" if list.iter().all(|m| !m.white) => (
                "pbrMetallicRoughness/baseColorFactor",
                Conv::AppendAlpha(list[0].alpha),
            ),
            "transparency" => (
                "pbrMetallicRoughness/baseColorFactor",
                Conv::AlphaOf(list[0].base),
            ),
            "emissiveColor" => ("emissiveFactor", Conv::Same),
            "shininess" => ("pbrMetallicRoughness/roughnessFactor", Conv::OneMinus),
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
    fn weights(&mut self, k: &Keyframes, first: usize, total: usize) -> Index<json::Accessor> {
        let mut out = vec![0.0f32; k.len() * total];
        for i in 0..k.len() {
            out[i * total + first + i] = 1.0;
        }
        self.accessor(&out, accessor::Type::Scalar, false)
    }

    /// Output values as glTF wants them, each value (and, `true`, tangent)
    /// through `convert`; cubic keys as (in-tangent, value, out-tangent).
    fn values(
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
            let value = convert(k.value(i), false);
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
}

impl Writer<'_> {
    /// Takes `n` numbers for `track` from the animation values limit; false, with the
    /// error reported once, when that passes it.
    fn spend(&mut self, n: usize, clip: &Clip, track: &Track) -> bool {
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
    fn sampled(
        &mut self,
        clip: &Clip,
        track: &Track,
        interpolation: Interpolation,
    ) -> Option<Keyframes<'static>> {
        let cubic = interpolation == Interpolation::Cubic;
        self.sampled_with(clip, track, track.interpolator().width(), cubic)
            .then(|| clip.sampled_as(track, self.opts.rate, interpolation))
    }

    /// Whether keyframes of `width` numbers sampled at --rate on the clip
    /// fit in the animation values limit (taken from it if so).
    fn sampled_with(&mut self, clip: &Clip, track: &Track, width: usize, cubic: bool) -> bool {
        let n =
            sample_len(&clip.map, self.opts.rate).saturating_mul(keyframe_numbers(width, cubic));
        self.spend(n, clip, track)
    }

    /// The keyframes written for a track; `None` for a track dropped under a
    /// tolerance because it never leaves the target's own value, or past
    /// the animation values limit (reported).
    fn keyframes<'t>(
        &mut self,
        clip: &Clip,
        track: &'t Track,
        opts: &Options,
    ) -> Option<Keyframes<'t>> {
        let exact = match (opts.mode == Mode::Exact).then(|| track.exact()).flatten() {
            Some(e) => {
                let per = keyframe_numbers(e.width(), matches!(e, Exact::Hermite { .. }));
                let bound = exact_len_bound(&e, &clip.map).saturating_mul(per);
                if !self.spend(bound, clip, track) {
                    return None;
                }
                Some(Keyframes::exact(e, &clip.map))
            }
            None => None,
        };
        let interpolation = exact
            .as_ref()
            .map_or_else(|| sampled_interpolation(opts, track), |k| k.interpolation);
        let Some(tol) = opts.tolerance else {
            return match exact {
                Some(k) => Some(k),
                None => self.sampled(clip, track, interpolation),
            };
        };
        let (rotation, per) = (track.is_rotation(), track.per_element());
        let mut k = match exact {
            // Exact cubic and step curves are kept: their error is zero.
            Some(k) if matches!(k.interpolation, Interpolation::Cubic | Interpolation::Step) => k,
            Some(k) => match reduce::thin(k, tol, per) {
                Ok(k) => k,
                Err(_) => reduce::reduce(clip, track, tol, per),
            },
            _ if matches!(interpolation, Interpolation::Linear | Interpolation::Slerp) => {
                reduce::reduce(clip, track, tol, per)
            }
            _ => self.sampled(clip, track, interpolation)?,
        };
        reduce::collapse_constant(&mut k, tol, rotation, per);
        let mut own = Vec::new();
        track.initial_value(self.scene, &mut own);
        if !opts.keep_constant && reduce::constant_at(&k, &own, tol, rotation, per) {
            return None;
        }
        Some(k)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_rfc4648() {
        assert_eq!(super::base64(b""), "");
        assert_eq!(super::base64(b"f"), "Zg==");
        assert_eq!(super::base64(b"fo"), "Zm8=");
        assert_eq!(super::base64(b"foo"), "Zm9v");
        assert_eq!(super::base64(b"foobar"), "Zm9vYmFy");
    }
}
