//! glTF 2.0: the node hierarchy of the X3D grouping nodes and one animation
//! per clip, exact where glTF can hold the curve and sampled where not.

use crate::anim::clip::Clip;
use crate::anim::keyframes::Keyframes;
pub use crate::anim::keys::{KeyOptions, Mode, SampleInterpolation};
use crate::diag::Diagnostics;
use crate::hash::HashMap;
use crate::limits::Limits;
use crate::scene::{NodeId, Scene};
use gltf_json as json;
use json::validation::USize64;

mod animations;
mod bin;

pub use bin::{Spill, Spilled, spill_after};
pub use compact::{BYTE_ERROR, POSITION_SHARE, ROTATION_ROUNDING, SHORT_ERROR, USHORT_ERROR};
pub use files::{Files, Layout, Part, Parts};
pub use targets::{Channel, channel};
mod buffers;
mod cameras_lights;
mod castle_skins;
mod compact;
mod files;
mod geo;
mod interactive;
mod materials;
mod meshes;
mod meshopt;
mod morphs;
mod nodes;
mod png;
mod skins;
mod sorted;
mod targets;
mod vertex_codec;

use animations::Animated;
use buffers::{Buffers, base64};
use materials::Materials;
use meshes::Meshes;
use nodes::Tree;
use sorted::Step;

/// How nodes are shown and hidden (an animated Switch's choices, an
/// animated `visible`, a moving mesh's cuts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// KHR_node_visibility, and its pointer channels (Babylon.js; always
    /// with [`Options::interactive`], whose graph sets it).
    Extension,
    /// The node's scale: its own when shown, zero when hidden, animated by
    /// STEP scale channels: what every player shows (three.js and Blender
    /// have no KHR_node_visibility).
    #[default]
    Scale,
}

/// How far `--compress` goes, for the readers a file is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// Quantised (KHR_mesh_quantization) and packed: what Blender's importer
    /// reads as well as three.js and Babylon.js.
    Quantize,
    /// Quantised, packed and compressed (EXT_meshopt_compression): the
    /// smallest, for three.js (with its meshopt decoder) and Babylon.js.
    Meshopt,
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
    /// A compact document: vertices welded and quantised within stated
    /// roundings (KHR_mesh_quantization), buffer views packed and, as it
    /// says, compressed (EXT_meshopt_compression).
    pub compress: Option<Compression>,
    /// What the routes do when the user acts, as a KHR_interactivity
    /// behaviour graph (see `interactive`).
    pub interactive: bool,
    /// Only what a core glTF 2.0 loader reads: no channel without a node
    /// (KHR_animation_pointer: materials, lights, cameras, texture
    /// transforms), each track left out named in a warning. The `gltf`
    /// crate (Bevy's loader) refuses a whole file holding one.
    pub core: bool,
    /// Only the document's diagnostics and track fates are wanted, not its
    /// file (`inspect`): the binary buffer's bytes are counted, not made
    /// (small accessors, which equal ones share, are still compared), and
    /// large morph targets' displacements are not computed. Every accessor
    /// and its place are a bake's; the buffer is empty.
    pub counted: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            keys: KeyOptions::default(),
            limits: Limits::default(),
            record: false,
            visibility: Visibility::Scale,
            compress: None,
            interactive: false,
            core: false,
            counted: false,
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
    /// The binary buffer (after the spilled bytes, if any), in pieces laid
    /// end to end: one as it was made, or the streams of a compressed
    /// buffer as they were encoded (never copied into one).
    pub bin: Vec<Vec<u8>>,
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
    /// Whether the document holds JSON gltf-json does not know
    /// (EXT_meshopt_compression's views, KHR_interactivity's graph, in its
    /// extensions' `others`); such a document's JSON is written with every
    /// object's keys in order, as are those with [`Document::pointers`]
    /// or [`Document::morph_uvs`].
    extended: bool,
    /// The JSON text `compress` made to weigh the document, kept for
    /// [`Document::json`] while the buffer's URI stays as it was (the
    /// document is not changed after `build` otherwise).
    text: Option<String>,
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
        if let Some(b) = self.root.buffers.first_mut()
            && b.uri != uri
        {
            b.uri = uri;
            self.text = None;
        }
    }

    /// The binary buffer's length.
    pub fn buffer_len(&self) -> usize {
        let pieces: usize = self.bin.iter().map(Vec::len).sum();
        self.spilled.as_ref().map_or(0, |s| s.len as usize) + pieces
    }

    /// The whole binary buffer (the spilled bytes read back).
    pub fn buffer(&self) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
        use std::io::Read as _;
        if let (None, [one]) = (&self.spilled, &self.bin[..]) {
            return Ok((&one[..]).into());
        }
        let mut all = Vec::with_capacity(self.buffer_len());
        if let Some(s) = &self.spilled {
            s.reader()?.read_to_end(&mut all)?;
            if all.len() as u64 != s.len {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
        }
        self.bin
            .iter()
            .for_each(|piece| all.extend_from_slice(piece));
        Ok(all.into())
    }

    /// The document as a GLB written to `out`: the JSON, then the whole
    /// buffer (its spilled bytes streamed back from their file, however
    /// large), as gltf-rs's `Glb::to_writer` does for a buffer in memory;
    /// the JSON no longer than it is (the room its buffer's file left
    /// before it is of no use here).
    pub fn write_glb(&mut self, mut out: impl std::io::Write) -> std::io::Result<()> {
        for part in self.glb_parts(0)? {
            part.write_all(&mut out)?;
        }
        Ok(())
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
        if let Some(text) = &self.text {
            return text.clone();
        }
        // Serialising plain data structures cannot fail.
        let text = self.root.to_string().expect("glTF JSON serialises");
        if !self.extended && self.pointers.is_empty() && self.morph_uvs.is_empty() {
            return text;
        }
        // What gltf-json cannot hold, set as the text is copied (with its
        // keys in order, as the JSON of such a document has them).
        let uvs: HashMap<(usize, usize), usize> = self
            .morph_uvs
            .iter()
            .map(|&(m, t, a)| ((m, t), a))
            .collect();
        let pointers: HashMap<(usize, usize), &str> = self
            .pointers
            .iter()
            .map(|(a, c, pointer)| ((*a, *c), pointer.as_str()))
            .collect();
        let set = |path: &[Step]| -> sorted::Members {
            match *path {
                [
                    Step::Key("meshes"),
                    Step::Index(m),
                    Step::Key("primitives"),
                    Step::Index(0),
                    Step::Key("targets"),
                    Step::Index(t),
                ] => uvs
                    .get(&(m, t))
                    .map(|a| vec![("TEXCOORD_0", a.to_string())])
                    .unwrap_or_default(),
                [
                    Step::Key("animations"),
                    Step::Index(a),
                    Step::Key("channels"),
                    Step::Index(c),
                ] => pointers
                    .get(&(a, c))
                    .map(|pointer| {
                        let target = serde_json::json!({
                            "path": "pointer",
                            "extensions": { "KHR_animation_pointer": { "pointer": pointer } }
                        });
                        vec![("target", target.to_string())]
                    })
                    .unwrap_or_default(),
                _ => Vec::new(),
            }
        };
        sorted::keys_in_order(&text, &set)
    }
}

struct Writer<'a> {
    scene: &'a Scene,
    images: &'a mut Images<'a>,
    diags: &'a mut Diagnostics,
    root: json::Root,
    /// Extensions the document uses.
    extensions: Vec<&'static str>,
    opts: Options,
    /// The binary buffer and the accessors written into it, shared where equal.
    buf: Buffers,
    /// The materials, textures and texture transforms written.
    mat: Materials,
    /// The meshes written, their morph targets and the nodes that show them.
    geo: Meshes,
    /// The glTF nodes made for the X3D node hierarchy.
    tree: Tree,
    /// The clips written and what is known of their tracks.
    anim: Animated<'a>,
}

/// Finds the bytes of an image an ImageTexture node names by a URL.
pub type Images<'a> = dyn FnMut(NodeId, &str) -> Result<Vec<u8>, String> + 'a;

/// Builds the glTF document for a scene and its clips. Images of
/// ImageTexture nodes come from `images` and are embedded. Given a
/// [`Spill`], a binary buffer past its size is moved to its file a megabyte
/// at a time as it is made ([`Document::spilled`]), so that a large buffer
/// is never whole in memory (but with [`Options::compress`], which remakes
/// the buffer whole).
pub fn build(
    scene: &Scene,
    clips: &[Clip],
    opts: &Options,
    images: &mut Images<'_>,
    diags: &mut Diagnostics,
    spill: Option<Spill>,
) -> Document {
    // With --compress, rotation keys are written as 16-bit integers where
    // the bound leaves room for their rounding: the fits make it.
    let mut opts = *opts;
    let round_rotations = opts.compress.is_some() && compact::rounds_rotations(opts.keys.tolerance);
    if round_rotations {
        opts.keys.rotation_rounding = compact::ROTATION_ROUNDING;
    }
    if opts.interactive {
        // The behaviour graph shows and hides nodes by KHR_node_visibility.
        opts.visibility = Visibility::Extension;
    } else if opts.core {
        // Its channels are pointers.
        opts.visibility = Visibility::Scale;
    }
    let opts = &opts;
    let mut w = Writer {
        images,
        scene,
        diags,
        root: json::Root::default(),
        extensions: Vec::new(),
        opts: *opts,
        buf: Buffers {
            // A buffer to be compressed is remade whole in memory: never
            // moved to a file first.
            bin: match opts.counted {
                true => bin::Bin::counting(),
                false => bin::Bin::new(spill.filter(|_| opts.compress.is_none())),
            },
            times: HashMap::default(),
            shared: HashMap::default(),
            shared_bytes: 0,
        },
        mat: Materials::default(),
        geo: Meshes::default(),
        tree: Tree::default(),
        anim: Animated::new(scene, clips, opts),
    };
    if opts.interactive {
        let fields = interactive::event_fields(scene);
        w.anim.animated.extend(fields);
    }
    w.root.asset.generator = Some(format!("x3dbake {}", env!("CARGO_PKG_VERSION")));
    let mut roots = Vec::new();
    let mut ancestors = Vec::new();
    for &id in &scene.roots {
        w.visit(id, &mut roots, &mut ancestors);
    }
    roots.append(&mut w.tree.skinned);
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
    let mut clip_refs = HashMap::default();
    for (ci, clip) in clips.iter().enumerate() {
        let animation = w.root.animations.len();
        w.animation(ci, clip, opts);
        if w.root.animations.len() > animation {
            let clip_ref = interactive::ClipRef {
                animation,
                duration: clip.duration(),
                looping: clip.looping(),
            };
            clip_refs.insert(clip.clock_node, clip_ref);
        }
    }
    let graph = opts
        .interactive
        .then(|| w.behaviour_graph(&clip_refs))
        .flatten();
    let extended = graph.is_some();
    if let Some(graph) = graph {
        w.extensions.push(interactive::EXTENSION);
        w.extensions.push(interactive::SELECTABILITY);
        let extensions = w.root.extensions.get_or_insert_default();
        extensions
            .others
            .insert(interactive::EXTENSION.to_string(), graph);
    }
    w.extensions.sort();
    w.extensions.dedup();
    w.root.extensions_used = w.extensions.iter().map(|e| e.to_string()).collect();
    if !w.buf.bin.is_empty() {
        let len = w.buf.bin.len() as u64;
        w.root.push(json::Buffer {
            byte_length: USize64(len),
            name: None,
            uri: None,
            extensions: None,
            extras: None,
        });
    }
    let (spilled, bin, room) = w.buf.bin.finish();
    let mut doc = Document {
        root: w.root,
        spilled,
        bin: vec![bin],
        room,
        pointers: w.anim.pointers,
        morph_uvs: w.geo.morph_uvs,
        written: w.anim.written,
        tracks: w.anim.tracks,
        extended,
        text: None,
    };
    if let Some(how) = opts.compress
        && !w.diags.has_errors()
    {
        doc.compress(round_rotations, how == Compression::Meshopt);
    }
    doc
}

/// How deep the node hierarchy is followed.
const MAX_DEPTH: usize = 2000;
