//! Generates `NodeType`, an enum of every node type in the node catalogue
//! (`src/scene/catalogue.txt`), so that code names node types as variants the
//! compiler checks instead of strings.

use std::fmt::Write as _;

fn main() {
    let path = "src/scene/catalogue.txt";
    println!("cargo::rerun-if-changed={path}");
    let text = std::fs::read_to_string(path).expect("the node catalogue is readable");
    let mut names: Vec<&str> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with([' ', '#', '@']))
        .map(|l| l.split([':', '[']).next().unwrap_or(l).trim())
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
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("node_type.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
