//! Generates `NodeType`, an enum of every node type of the node catalogue
//! (the X3D 4.0 table `src/scene/x3d4-nodes.tsv` and x3dbake's additions in
//! `src/scene/catalogue.txt`), so that code names node types as variants the
//! compiler checks instead of strings; and `STATEMENTS`, the rows of the
//! table that are XML statements, not nodes.

use std::fmt::Write as _;

/// Rows of the X3D table that are statements of the XML encoding (read by
/// the readers themselves), not node types.
const STATEMENTS: &[&str] = &[
    "EXPORT",
    "ExternProtoDeclare",
    "IMPORT",
    "IS",
    "ProtoBody",
    "ProtoDeclare",
    "ProtoInstance",
    "ProtoInterface",
    "ROUTE",
    "Scene",
    "X3D",
    "component",
    "connect",
    "field",
    "fieldValue",
    "head",
    "meta",
    "unit",
];

fn main() {
    let (table, additions) = ("src/scene/x3d4-nodes.tsv", "src/scene/catalogue.txt");
    println!("cargo::rerun-if-changed={table}");
    println!("cargo::rerun-if-changed={additions}");
    let table = std::fs::read_to_string(table).expect("the X3D node table is readable");
    let additions = std::fs::read_to_string(additions).expect("the node catalogue is readable");
    let mut names: Vec<&str> = additions
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with([' ', '#', '@']))
        .map(|l| l.split([':', '[']).next().unwrap_or(l).trim())
        .chain(
            table
                .lines()
                .skip(1)
                .filter_map(|l| l.split('\t').next())
                .filter(|n| !STATEMENTS.contains(n)),
        )
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut out = String::new();
    out.push_str(
        "/// Every node type of the catalogue, by its X3D name.\n\
         #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]\n\
         pub enum NodeType {\n",
    );
    for n in &names {
        let _ = writeln!(out, "    /// `{n}`\n    {n},");
    }
    out.push_str("}\n\nimpl NodeType {\n");
    out.push_str("    /// Every node type, in the order of their names.\n");
    let _ = writeln!(out, "    pub const ALL: [NodeType; {}] = [", names.len());
    for n in &names {
        let _ = writeln!(out, "        NodeType::{n},");
    }
    out.push_str("    ];\n\n    /// The X3D name.\n    pub fn name(self) -> &'static str {\n        match self {\n");
    for n in &names {
        let _ = writeln!(out, "            NodeType::{n} => \"{n}\",");
    }
    out.push_str("        }\n    }\n\n    /// The node type of an X3D name.\n    pub fn from_name(name: &str) -> Option<NodeType> {\n        Some(match name {\n");
    for n in &names {
        let _ = writeln!(out, "            \"{n}\" => NodeType::{n},");
    }
    out.push_str("            _ => return None,\n        })\n    }\n}\n");
    out.push_str(
        "\n/// Rows of the X3D table that are XML statements, not node types.\n\
         pub const STATEMENTS: &[&str] = &[\n",
    );
    for s in STATEMENTS {
        let _ = writeln!(out, "    \"{s}\",");
    }
    out.push_str("];\n");
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("node_type.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
