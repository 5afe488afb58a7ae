//! glTF 2.0: the node hierarchy of the X3D grouping nodes and one animation
//! per clip, exact where glTF can hold the curve and sampled where not.

use crate::anim::clip::{Clip, Track};
use crate::anim::fit::Shape;
use crate::anim::keyframes::{Interpolation, Keyframes};
use crate::anim::keys::{KeyChooser, sampled_interpolation};
pub use crate::anim::keys::{KeyOptions, Mode, SampleInterpolation};
use crate::diag::Diagnostics;
use crate::hash::HashMap;
use crate::interp::rotation;
use crate::limits::Limits;
use crate::scene::{NodeClass, NodeId, NodeType, Scene};
use glam::{DQuat, DVec3};
use gltf_json as json;
use json::validation::{Checked, USize64};
use json::{Index, accessor, animation, buffer};

mod animations;
mod bin;

pub use bin::{Spill, Spilled};
pub use targets::{Channel, channel};
mod buffers;
mod cameras_lights;
mod castle_skins;
mod materials;
mod meshes;
mod nodes;
mod png;
mod skins;
mod targets;

use buffers::*;
use materials::*;
use meshes::*;
use nodes::*;

/// How nodes are shown and hidden (an animated Switch's choices, an
/// animated `visible`, a moving mesh's cuts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Visibility {
    /// KHR_node_visibility, and its pointer channels.
    #[default]
    Extension,
    /// The node's scale: its own when shown, zero when hidden, animated by
    /// STEP scale channels (for viewers and engines without the
    /// extension).
    Scale,
}

/// How tracks are written.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// How each track's keys are chosen.
    pub keys: KeyOptions,
    /// How many glTF nodes, buffer bytes and animation numbers the document
    /// may hold; a scene that goes past one is an error.
    pub limits: Limits,
    /// Keep a copy of the keyframes written for each track
    /// ([`Document::written`]), for a report.
    pub record: bool,
    /// How nodes are shown and hidden.
    pub visibility: Visibility,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            keys: KeyOptions::default(),
            limits: Limits::default(),
            record: false,
            visibility: Visibility::Extension,
        }
    }
}

/// A glTF document and its binary buffer.
pub struct Document {
    /// The glTF JSON.
    pub root: json::Root,
    /// The binary buffer's first bytes, when they were moved to a file as
    /// it was made (see [`build`]).
    pub spilled: Option<Spilled>,
    /// The binary buffer (after the spilled bytes, if any).
    pub bin: Vec<u8>,
    /// The room left before the buffer for a GLB's header and JSON (see
    /// [`crate::write::glb::head_in`]), decided when the buffer first passed
    /// the size it may have in memory; 0 if it never did or none was asked
    /// for.
    pub room: u64,
    /// KHR_animation_pointer channels: (animation, channel, JSON pointer).
    /// gltf-json knows only node targets, so these are written into the
    /// JSON when it is made.
    pub pointers: Vec<(usize, usize, String)>,
    /// TEXCOORD_0 displacements of morph targets: (mesh, target, accessor),
    /// likewise written into the JSON.
    pub morph_uvs: Vec<(usize, usize, usize)>,
    /// With [`Options::record`]: the keyframes written for each track, by
    /// (clip, track) index, for a report.
    pub written: Vec<(usize, usize, Keyframes<'static>)>,
    /// How the clips' tracks were written, where it is not their kind's way.
    pub tracks: TrackFates,
}

/// Tracks a document wrote otherwise than their kind's way, by (clip,
/// track) index, for the report.
#[derive(Clone, Debug, Default)]
pub struct TrackFates {
    /// The tracks that reached no glTF channel (each named in a warning
    /// where its target has a glTF place).
    pub dropped: Vec<(usize, usize)>,
    /// Tracks of a geometry node drawn again whose samples need several
    /// triangulations, shown one at a time: with how many.
    pub switched: Vec<((usize, usize), usize)>,
}

impl Document {
    /// Names where the buffer lives: a relative URI, a data URI, or none
    /// (the GLB BIN chunk).
    pub fn set_buffer_uri(&mut self, uri: Option<String>) {
        if let Some(b) = self.root.buffers.first_mut() {
            b.uri = uri;
        }
    }

    /// The binary buffer's length.
    pub fn buffer_len(&self) -> usize {
        self.spilled.as_ref().map_or(0, |s| s.len as usize) + self.bin.len()
    }

    /// The whole binary buffer (the spilled bytes read back).
    pub fn buffer(&self) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
        use std::io::Read as _;
        let Some(s) = &self.spilled else {
            return Ok((&self.bin[..]).into());
        };
        let mut all = Vec::with_capacity(self.buffer_len());
        s.reader()?.read_to_end(&mut all)?;
        if all.len() as u64 != s.len {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        all.extend_from_slice(&self.bin);
        Ok(all.into())
    }

    /// The document as a GLB written to `out`: the JSON, then the whole
    /// buffer (its spilled bytes streamed back from their file, however
    /// large), as gltf-rs's `Glb::to_writer` does for a buffer in memory.
    pub fn write_glb(&mut self, mut out: impl std::io::Write) -> std::io::Result<()> {
        self.set_buffer_uri(None);
        let len = self.buffer_len();
        out.write_all(&crate::write::glb::head(&self.json(), len)?)?;
        if let Some(s) = &self.spilled
            && std::io::copy(&mut s.reader()?, &mut out)? != s.len
        {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        out.write_all(&self.bin)?;
        out.write_all(crate::write::glb::tail(len))
    }

    /// The buffer as a base64 data URI, for a self-contained `.gltf`.
    pub fn data_uri(&self) -> std::io::Result<String> {
        let data = self.buffer()?;
        Ok(format!(
            "data:application/octet-stream;base64,{}",
            base64(&data)
        ))
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

struct Writer<'a> {
    scene: &'a Scene,
    images: &'a mut Images<'a>,
    diags: &'a mut Diagnostics,
    root: json::Root,
    bin: bin::Bin,
    transforms: HashMap<NodeId, Vec<TransformNodes>>,
    /// Time accessors already written, by their f32 bits.
    times: HashMap<Vec<u32>, Index<json::Accessor>>,
    /// Small accessors already written, by what they hold (see
    /// [`Writer::raw_accessor`]), and the bytes kept for that.
    shared: HashMap<SharedKey, Index<json::Accessor>>,
    shared_bytes: usize,
    /// Meshes already written, by geometry and appearance node.
    meshes: HashMap<(NodeId, Option<NodeId>), Option<Index<json::Mesh>>>,
    /// Materials already written, by appearance, two-sidedness and vertex
    /// colours.
    materials: HashMap<(Option<NodeId>, bool, bool), Index<json::Material>>,
    /// Equal things written once: materials and meshes nothing animates,
    /// by their glTF JSON.
    equal_materials: HashMap<String, Index<json::Material>>,
    equal_meshes: HashMap<String, Index<json::Mesh>>,
    /// For an appearance whose MultiTexture units beyond the first are
    /// written: the unit each texture coordinate set from 1 on holds.
    unit_sets: HashMap<NodeId, Vec<usize>>,
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
    /// A mesh's copies with the other triangulations its reshaped samples
    /// need, by the mesh's index.
    alternates: HashMap<usize, Vec<Index<json::Mesh>>>,
    /// With [`Visibility::Scale`], the nodes shown and hidden by their
    /// scale, with their own scale (the one they are shown at).
    scaled: HashMap<usize, [f32; 3]>,
    /// For a mesh with alternates, at each place it is drawn the nodes of
    /// it and of each alternate, in that order.
    shape_nodes: HashMap<usize, Vec<Vec<Index<json::Node>>>>,
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
    /// The keys of each track, chosen within the animation values limit.
    keys: KeyChooser<'a>,
    /// TEXCOORD_0 of morph targets (mesh, target, accessor), which gltf-json
    /// cannot hold: written into the JSON when it is made.
    morph_uvs: Vec<(usize, usize, usize)>,
    /// Tracks written as part of another track's morph targets.
    folded: crate::hash::HashSet<(usize, usize)>,
    /// The keyframes written, with Options::record.
    written: Vec<(usize, usize, Keyframes<'static>)>,
    tracks: TrackFates,
    /// Animated arrays that are empty in the file: their first animated value.
    rest: crate::mesh::Overrides,
    /// Each clip's tracks by the node they drive.
    track_index: Vec<TrackIndex<'a>>,
    /// Nodes found inside themselves (through USE), warned about once.
    self_containing: crate::hash::HashSet<NodeId>,
    /// Switch and LOD nodes already warned about for the children they do
    /// not show.
    not_shown: crate::hash::HashSet<NodeId>,
    /// Node types met in the tree that glTF cannot hold: how many nodes,
    /// and the first (where the warning points).
    unwritten: std::collections::BTreeMap<NodeType, (usize, NodeId)>,
    /// Skinned mesh nodes, which stand at the scene's root.
    skinned: Vec<Index<json::Node>>,
    /// Each HAnimDisplacer's morph target.
    displacers: HashMap<NodeId, skins::Displaced>,
    /// (clip, mesh node) pairs given a weights channel.
    weight_channels: crate::hash::HashSet<(usize, usize)>,
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

/// Finds the bytes of an image an ImageTexture node names by a URL.
pub type Images<'a> = dyn FnMut(NodeId, &str) -> Result<Vec<u8>, String> + 'a;

/// Builds the glTF document for a scene and its clips. Images of
/// ImageTexture nodes come from `images` and are embedded. Given a
/// [`Spill`], a binary buffer past its size is moved to its file a megabyte
/// at a time as it is made ([`Document::spilled`]), so that a large buffer
/// is never whole in memory.
pub fn build(
    scene: &Scene,
    clips: &[Clip],
    opts: &Options,
    images: &mut Images<'_>,
    diags: &mut Diagnostics,
    spill: Option<Spill>,
) -> Document {
    let mut w = Writer {
        images,
        scene,
        diags,
        root: json::Root::default(),
        bin: bin::Bin::new(spill),
        transforms: HashMap::default(),
        times: HashMap::default(),
        shared: HashMap::default(),
        shared_bytes: 0,
        meshes: HashMap::default(),
        materials: HashMap::default(),
        equal_materials: HashMap::default(),
        equal_meshes: HashMap::default(),
        unit_sets: HashMap::default(),
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
        alternates: HashMap::default(),
        scaled: HashMap::default(),
        shape_nodes: HashMap::default(),
        folded: Default::default(),
        written: Vec::new(),
        tracks: TrackFates::default(),
        morph_uvs: Vec::new(),
        switches: HashMap::default(),
        full: false,
        keys: KeyChooser::new(scene, opts.keys, opts.limits.animation_values),
        tex_transforms: HashMap::default(),
        material_names: Default::default(),
        textures: HashMap::default(),
        rest: rest_values(scene, clips),
        track_index: clips.iter().map(TrackIndex::new).collect(),
        clips_of: HashMap::default(),
        self_containing: Default::default(),
        not_shown: Default::default(),
        unwritten: Default::default(),
        skinned: Vec::new(),
        displacers: HashMap::default(),
        weight_channels: Default::default(),
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
    roots.append(&mut w.skinned);
    if !roots.is_empty() {
        let s = w.root.push(json::Scene {
            extensions: None,
            extras: None,
            name: None,
            nodes: roots,
        });
        w.root.scene = Some(s);
    }
    w.warn_unwritten();
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
    let (spilled, bin, room) = w.bin.finish();
    Document {
        root: w.root,
        spilled,
        bin,
        room,
        pointers: w.pointers,
        morph_uvs: w.morph_uvs,
        written: w.written,
        tracks: w.tracks,
    }
}

/// How deep the node hierarchy is followed.
const MAX_DEPTH: usize = 2000;
