//! The limits that keep a bake's work and memory in proportion to its input.
//!
//! A few lines of X3D can ask for more than a machine holds: nested
//! prototypes for billions of nodes, Inline files that inline each other
//! eight times over, USE copies of USE copies in glTF's tree of nodes. Each
//! stage checks its share of [`Limits`] before it does the work, and stops
//! with an error that names the limit. The defaults fit files of up to 4 GiB
//! on a machine with tens of GB; a caller can pass smaller ones (the fuzz
//! targets do, so that a fuzzer reaches them quickly).
//!
//! Limits that never need changing (nesting depths, chain lengths) are
//! named constants beside the code that checks them.

/// How deep prototype instances may nest inside prototype bodies.
pub const MAX_PROTO_NESTING: usize = 64;

/// How much one bake may make, stage by stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most nodes PROTO expansion may create (about 330 bytes and 1 µs
    /// each).
    pub expanded_nodes: usize,
    /// The most routes PROTO expansion may create: the copies of prototype
    /// bodies' ROUTEs, and the routes to and from instance fields moved onto
    /// every body node the field is connected to (R routes to a field
    /// connected to C nodes become R·C). About 100 bytes each.
    pub expanded_routes: usize,
    /// The most nodes one file may hold (about 230 bytes each). The text
    /// does not bound them: `<Group/>` is 8 bytes and a node, so 58 KB of
    /// gzip held 5 million (1.1 GB).
    pub file_nodes: usize,
    /// How many Inline and EXTERNPROTO files one scene may read, each read
    /// counted (a file inlined in eight places is read eight times):
    /// nesting alone does not bound the work.
    pub linked_files: usize,
    /// How many nodes the files one scene reads may hold in all (each read
    /// counted; about 230 bytes a node). Bytes alone do not bound memory:
    /// `<Group/>` is 8 bytes of text and a node.
    pub linked_nodes: usize,
    /// The most glTF nodes a document may have. glTF nodes form a tree, so a
    /// node USE'd in several places is copied to each.
    pub gltf_nodes: usize,
    /// The most bytes of mesh data, images and animations the glTF binary
    /// buffer may hold: the GLB limit by default. A mesh is stored once for
    /// each geometry and appearance, so `<Shape><Sphere/></Shape>` (24 bytes)
    /// stores 30 KB.
    pub buffer_bytes: usize,
    /// The most numbers a document's animations may hold: keyframe times and
    /// values (tangents too), morph target data and morph weights (which
    /// grow with the square of the keys). 1 GB as f32.
    pub animation_values: usize,
    /// The most samples one track may take (its duration × `--rate`).
    pub samples_per_track: usize,
    /// The most bytes a CSV output may have (it is built in memory).
    pub csv_bytes: usize,
    /// The most QuickJS interrupt checks (one about every 10 000
    /// instructions) one call of a Script may take: a call past it fails.
    pub script_call_checks: u32,
    /// The most interrupt checks all the Scripts of a bake may take
    /// together, every call counted: past it they are stopped. Without it
    /// a Script that runs to the limit of each call did so at every frame
    /// of world time (an hour at 30 frames a second: 108 000 calls of 0.4 s).
    pub script_checks: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            expanded_nodes: 1_000_000,
            expanded_routes: 1_000_000,
            file_nodes: 10_000_000,
            linked_files: 10_000,
            linked_nodes: 10_000_000,
            gltf_nodes: 500_000,
            buffer_bytes: u32::MAX as usize,
            animation_values: 250_000_000,
            samples_per_track: 50_000_000,
            csv_bytes: 1 << 30,
            // About 2·10⁸ instructions a call, a fraction of a second.
            script_call_checks: 20_000,
            // 250 calls run to the limit (about 100 s); a frame function
            // taking 20 checks (2·10⁵ instructions) for an hour at 60
            // frames a second.
            script_checks: 5_000_000,
        }
    }
}

impl Limits {
    /// Limits a hundred times smaller, where the default allows work a
    /// fuzzer would find slow while it runs the same code (a million
    /// expanded nodes take a second; so do 500 000 glTF nodes).
    pub fn small() -> Limits {
        Limits {
            expanded_nodes: 10_000,
            expanded_routes: 10_000,
            file_nodes: 100_000,
            linked_files: 100,
            linked_nodes: 100_000,
            gltf_nodes: 50_000,
            buffer_bytes: 16 << 20,
            script_call_checks: 2_000,
            script_checks: 50_000,
            ..Limits::default()
        }
    }
}
