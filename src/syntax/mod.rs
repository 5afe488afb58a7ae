//! Readers, one per encoding. Each streams its input into a
//! [`crate::scene::Builder`].

pub mod json;
pub mod vrml;
pub mod xml;

use crate::diag::Diagnostics;
use crate::limits::Limits;
use crate::source::{FileId, Sources};

/// The encodings x3dbake reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// X3D XML (.x3d).
    Xml,
    /// ClassicVRML (.x3dv) and VRML97 (.wrl).
    Vrml,
    /// X3D JSON (.x3dj, .json).
    Json,
}

impl Encoding {
    /// The encoding of a file: by its first characters (`<`, `#VRML`,
    /// `#X3D`), else by its name's extension; XML when nothing tells.
    pub fn detect(name: &str, text: &str) -> Encoding {
        let head = text.trim_start_matches('\u{feff}').trim_start();
        if head.starts_with('<') {
            return Encoding::Xml;
        }
        if head.starts_with('{') {
            return Encoding::Json;
        }
        if head.starts_with("#VRML") || head.starts_with("#X3D") {
            return Encoding::Vrml;
        }
        let lower = name.to_ascii_lowercase();
        let lower = lower.strip_suffix(".gz").unwrap_or(&lower);
        if lower.ends_with(".x3dv")
            || lower.ends_with(".wrl")
            || lower.ends_with(".x3dvz")
            || lower.ends_with(".wrz")
        {
            Encoding::Vrml
        } else if lower.ends_with(".x3dj") || lower.ends_with(".json") {
            Encoding::Json
        } else {
            Encoding::Xml
        }
    }
}

/// Parses one source file (already added to `sources`) into a scene, as it
/// is written: prototypes not expanded, Inline files not read.
///
/// The readers recurse once a level of nesting, up to their limit of 500
/// levels, where the JSON reader uses about 1 MiB of stack in a release
/// build and over 2 MiB in a debug one: call this (and [`crate::load::load`]) on a
/// thread with the 8 MiB a main thread has, as the CLI's batch workers are.
pub fn parse(
    sources: &Sources,
    file: FileId,
    limits: &Limits,
    diags: &mut Diagnostics,
) -> crate::scene::Scene {
    parse_as(sources, file, detected(sources, file), limits, diags)
}

/// The same, in the given encoding whatever the file's name and first
/// characters say.
pub fn parse_as(
    sources: &Sources,
    file: FileId,
    encoding: Encoding,
    limits: &Limits,
    diags: &mut Diagnostics,
) -> crate::scene::Scene {
    let source = sources.get(file);
    match encoding {
        Encoding::Xml => xml::read(source, file, limits, diags),
        Encoding::Vrml => vrml::read(source, file, limits, diags),
        Encoding::Json => json::read(source, file, limits, diags),
    }
}

pub(crate) fn detected(sources: &Sources, file: FileId) -> Encoding {
    let source = sources.get(file);
    Encoding::detect(&source.name, source.text())
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::limits::Limits;

    const MAX_FILE_NODES: usize = 1_000;
    use crate::diag::Diagnostics;
    use crate::source::Sources;

    /// Each reader stops at the node past the limit, with one error there.
    #[test]
    fn readers_stop_at_the_file_node_limit() {
        let n = MAX_FILE_NODES + 5;
        let xml = format!("<X3D><Scene>\n{}</Scene></X3D>", "<Group/>\n".repeat(n));
        let vrml = format!("#X3D V3.3 utf8\n{}", "Group {}\n".repeat(n));
        let json = format!(
            "{{\"X3D\": {{\"Scene\": {{\"-children\": [\n{}\n]}}}}}}",
            vec!["{\"Group\": {}}"; n].join(",\n")
        );
        for (name, text, column) in [("f.x3d", xml, 2), ("f.x3dv", vrml, 1), ("f.x3dj", json, 11)] {
            let mut sources = Sources::new();
            let mut diags = Diagnostics::default();
            let file = sources.add(name, text);
            let limits = Limits {
                file_nodes: MAX_FILE_NODES,
                ..Limits::default()
            };
            let scene = parse(&sources, file, &limits, &mut diags);
            assert_eq!(scene.nodes.len(), MAX_FILE_NODES, "{name}");
            let messages: Vec<String> = diags.list().iter().map(|d| d.headline(&sources)).collect();
            // The first node is on line 2: the one past the limit on the
            // line after the last kept.
            let line = MAX_FILE_NODES + 2;
            assert_eq!(
                messages,
                [format!(
                    "{name}:{line}:{column}: error: a file may hold at most {MAX_FILE_NODES} \
                     nodes: reading stops here"
                )],
                "{name}"
            );
        }
    }
}
