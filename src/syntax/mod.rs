//! Readers, one per encoding. Each streams its input into a
//! [`crate::scene::Builder`].

pub mod json;
pub mod vrml;
pub mod xml;
