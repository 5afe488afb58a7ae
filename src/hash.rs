//! The hash maps and sets x3dbake uses, with one hasher for the crate.
//!
//! Normal builds hash with foldhash's `RandomState` (the `foldhash` crate,
//! hashbrown's own default): the keys include DEF names and field names
//! from files nobody checked, and randomly seeded keys keep a crafted file
//! from putting them all in one bucket; std's SipHash did that too, at 6.6
//! % of a bake of 5 000 animated nodes (docs/performance.md). Fuzz builds
//! (`--cfg fuzzing`, set by cargo-fuzz) hash with a fixed seed instead:
//! with random ones, the probe sequence of a table lookup differs from
//! process to process, and a coverage-guided fuzzer counts those branches
//! as new paths found, so its coverage never stops growing (the same corpus
//! read four times gave 2 288 to 2 302 edges). Where the order of a map's
//! entries could reach the output, they are sorted first (the nested
//! prototype instances an expansion makes, for one: test
//! `nested_instances_are_expanded_in_their_order`).

#[cfg(not(fuzzing))]
type State = foldhash::fast::RandomState;
#[cfg(fuzzing)]
type State = foldhash::fast::FixedState;

/// `std::collections::HashMap` with x3dbake's hasher; make one with
/// `HashMap::default()`. Clippy refuses std's own in this crate
/// (`clippy.toml`).
#[allow(clippy::disallowed_types)]
pub type HashMap<K, V> = std::collections::HashMap<K, V, State>;
/// `std::collections::HashSet` with x3dbake's hasher.
#[allow(clippy::disallowed_types)]
pub type HashSet<T> = std::collections::HashSet<T, State>;
