//! The hash maps and sets x3dbake uses, with one hasher for the crate.
//!
//! Normal builds hash with std's `RandomState`: the keys include DEF names
//! and field names from files nobody checked, and random keys keep a crafted
//! file from putting them all in one bucket. Fuzz builds (`--cfg fuzzing`,
//! set by cargo-fuzz) hash with fixed keys instead: with random ones, the
//! probe sequence of a table lookup differs from process to process, and a
//! coverage-guided fuzzer counts those branches as new paths found, so its
//! coverage never stops growing (the same corpus read four times gave 2 288
//! to 2 302 edges). No code iterates over these maps where the order could
//! reach the output.

#[cfg(not(fuzzing))]
type State = std::hash::RandomState;
#[cfg(fuzzing)]
type State = std::hash::BuildHasherDefault<std::hash::DefaultHasher>;

/// `std::collections::HashMap` with x3dbake's hasher; make one with
/// `HashMap::default()`. Clippy refuses std's own in this crate
/// (`clippy.toml`).
#[allow(clippy::disallowed_types)]
pub type HashMap<K, V> = std::collections::HashMap<K, V, State>;
/// `std::collections::HashSet` with x3dbake's hasher.
#[allow(clippy::disallowed_types)]
pub type HashSet<T> = std::collections::HashSet<T, State>;
