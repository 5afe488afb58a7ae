//! x3dbake: X3D animation to glTF 2.0.
//!
//! The flow, one module a stage, each depending only on the ones before it:
//! [`syntax`] reads a file into a [`scene::Scene`]; [`load`] links the files
//! it names and expands its prototypes; [`anim`] checks its interpolators
//! and follows its ROUTEs into clips (using the pure maths of [`interp`]);
//! [`mesh`] turns geometry into triangles; [`write`](mod@write) writes glTF, GLB, CSV
//! or the inspect report. [`bake`] runs them all, once, for every caller.
//! The library never prints or exits: it returns values and
//! [`diag`]nostics.

#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod anim;
pub mod bake;
pub mod diag;
pub mod hash;
pub mod interp;
pub mod limits;
pub mod load;
pub mod mesh;
pub mod par;
pub mod scene;
pub mod script;
pub mod source;
pub mod syntax;
#[allow(unsafe_code)]
pub mod sys;
pub mod write;

pub use bake::Bake;
pub use limits::Limits;
pub use syntax::Encoding;
