//! x3dbake: X3D animation to glTF 2.0.
//!
//! A [`Bake`] carries one scene through the pipeline: [`Bake::load`] reads
//! a file (XML, ClassicVRML, VRML97 or JSON, gzipped or not) and the files
//! it links through a [`Fetch`]; [`Bake::animate`] follows its ROUTEs into
//! [`Clip`]s ([`Bake::animate_in`]: in world time, as the event cascade
//! plays it from a [`World`]); [`Bake::gltf`] makes the glTF
//! [`gltf::Document`], which [`gltf::Document::files`] lays out as a GLB or
//! `.gltf` files; [`Bake::write_csv`] streams the [`csv`] table. The library
//! never prints or exits: what it finds is in [`Bake::diags`]
//! ([`Diagnostics`]), errors that stop a step are [`Error`]s.
//!
//! ```
//! use x3dbake::{Bake, Limits};
//!
//! let x3d = br#"<X3D><Scene>
//!   <Transform DEF="Box1"><Shape><Box/></Shape></Transform>
//!   <TimeSensor DEF="Clock" cycleInterval="2" loop="true"/>
//!   <PositionInterpolator DEF="Path" key="0 1" keyValue="0 0 0 0 2 0"/>
//!   <ROUTE fromNode="Clock" fromField="fraction_changed" toNode="Path" toField="set_fraction"/>
//!   <ROUTE fromNode="Path" fromField="value_changed" toNode="Box1" toField="translation"/>
//! </Scene></X3D>"#;
//! let mut bake = Bake::load("box.x3d", x3d.to_vec(), None, None, Limits::default());
//! bake.animate(Default::default());
//! assert!(!bake.diags.has_errors());
//! assert_eq!(bake.clips[0].name, "Clock");
//! let mut doc = bake.gltf(&Default::default(), None).unwrap();
//! let mut glb = Vec::new();
//! doc.write_glb(&mut glb).unwrap();
//! assert_eq!(&glb[..4], b"glTF");
//! ```
//!
//! Inside, one module a stage, each depending only on the ones before it:
//! `syntax` reads a file into a scene; `load` links the files it names and
//! expands its prototypes; `anim` checks its interpolators and follows its
//! ROUTEs into clips (using the pure maths of `interp`), choosing the keys
//! to write; `mesh` turns geometry into triangles; `write` writes glTF,
//! GLB, CSV or the inspect report; `bake` runs them all, once, for every
//! caller.

#![warn(missing_docs)]
#![deny(unsafe_code)]

mod bake;
pub mod convert;
mod messages;

// The inner modules live in `internal` (see there); `crate::anim` and the
// like name them throughout.
use internal::{
    anim, diag, geo, hash, interp, limits, load, math, mesh, par, scene, script, source, syntax,
    sys, write,
};

pub use anim::cascade::{DEFAULT_LOAD_TIME, UserEvent, World};
pub use anim::clip::{Clip, ClipOptions, Track};
pub use bake::{Bake, Error};
pub use convert::{ConvertError, Converted, Settings, convert};
pub use diag::{Diagnostic, Diagnostics, MAX_KEPT, Severity};
pub use interp::TangentRule;
pub use limits::Limits;
pub use load::{Fetch, FileFetch, MemoryFetch, local_name};
pub use scene::{FieldType, NodeClass, NodeId, NodeType, Scene, Value};
pub use source::{Sources, Span};
pub use syntax::Encoding;

/// This version of x3dbake.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// glTF 2.0 output: the options, the document and its files.
pub mod gltf {
    pub use crate::write::gltf::{
        Compression, Document, Files, KeyOptions, Layout, Mode, Options, Part, Parts,
        SampleInterpolation, Spill, Spilled, TrackFates, Visibility, spill_after,
    };
}

/// CSV output: a row for each clip and time, a column for each animated
/// value.
pub mod csv {
    pub use crate::write::csv::{CsvOptions, FileColumn, TooLarge, default_timeline_end};
}

/// Reading an input: whole, capped, or mapped into memory.
pub mod input {
    pub use crate::load::is_gzip;
    pub use crate::source::{Input, MAX_FILE_BYTES, read_capped, read_file};
    pub use crate::sys::mapped::Mapped;
}

/// The library's inner modules, for the project's own integration tests,
/// benches, fuzzers and command line: not part of the API, changed at will.
#[doc(hidden)]
pub mod internal;
