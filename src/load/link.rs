//! Linking a scene with the files it names: Inline files are read and
//! merged under their Inline node (each in its own DEF namespace, IMPORT
//! and EXPORT honoured), and EXTERNPROTO declarations take the prototype
//! from their file. Files come through a [`Fetch`] the caller gives, so the
//! library itself opens nothing.

use crate::diag::{Diagnostic, Diagnostics};
use crate::hash::HashMap;
use crate::limits::Limits;
use crate::scene::value::Data;
use crate::scene::{Dir, NodeClass, NodeId, Route, Scene};
use crate::source::{FileId, Sources};
use std::path::{Path, PathBuf};

/// Gets the bytes of a file named by a URL in another file.
pub trait Fetch {
    /// `from` is the name of the file the URL stands in; the result is the
    /// fetched file's name (for messages) and its bytes.
    fn fetch(&mut self, from: &str, url: &str) -> std::io::Result<(String, Vec<u8>)>;
}

/// Reads files from the file system, relative to the file that names them.
/// Only local names are followed: a URL with another scheme (`http:`,
/// `urn:`) is never fetched. [`FileFetch::within`] confines the reads to
/// one folder. Keeps the path of every file it read, so that a caller can
/// make sure no output is written over one.
#[derive(Debug, Default)]
pub struct FileFetch {
    /// Files outside it (links followed) are not read.
    root: Option<PathBuf>,
    read: Vec<PathBuf>,
}

impl FileFetch {
    /// Reads only files whose real path (every link followed) lies inside
    /// `root`: what a service converting scenes it did not write needs.
    pub fn within(root: &Path) -> std::io::Result<FileFetch> {
        let root = std::fs::canonicalize(root)?;
        if !root.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a folder", root.display()),
            ));
        }
        Ok(FileFetch {
            root: Some(root),
            read: Vec::new(),
        })
    }

    /// The files read so far, in the order they were read.
    pub fn read(&self) -> &[PathBuf] {
        &self.read
    }
}

/// True for a URL with a scheme (`http:`, `urn:`, `data:`), not a path (a
/// drive letter such as `C:` is a path).
fn has_scheme(url: &str) -> bool {
    match url.split_once(':') {
        Some((scheme, _)) => {
            scheme.len() > 1
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

impl Fetch for FileFetch {
    fn fetch(&mut self, from: &str, url: &str) -> std::io::Result<(String, Vec<u8>)> {
        let local = local_name(url)?;
        let base = Path::new(from).parent().unwrap_or(Path::new(""));
        let mut path = base.join(&local);
        if let Some(root) = &self.root {
            // Where it really is, every link followed: read from there, so
            // that no link is followed again between the check and the read.
            let real = std::fs::canonicalize(&path)?;
            if !real.starts_with(root) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    format!("not read: outside --root {}", root.display()),
                ));
            }
            path = real;
        }
        // Only regular files: a pipe or a device named by a scene could
        // block the read or never end.
        let meta = std::fs::metadata(&path)?;
        if !meta.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        let bytes = crate::source::read_sized(&path, &meta)?;
        let name = path.to_string_lossy().into_owned();
        self.read.push(path);
        Ok((name, bytes))
    }
}

/// Reads files from memory, named by their paths (`models/door.x3d`,
/// `textures/wood.png`): what a page that was given files, or a service
/// that holds them, reads from. A URL is taken relative to the file that
/// names it, `.` and `..` resolved; where no file has that path, the one
/// file with its name (and no other of that name) is taken, since a
/// folder dropped into a page may not keep the layout the scene was
/// written in. Only local names are looked up, as with [`FileFetch`].
#[derive(Debug, Default)]
pub struct MemoryFetch {
    files: Vec<(String, Vec<u8>)>,
}

impl MemoryFetch {
    /// The files, each a path and its bytes.
    pub fn new(files: Vec<(String, Vec<u8>)>) -> MemoryFetch {
        MemoryFetch { files }
    }

    /// The bytes of the file at `path`, if it is held.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        let i = self.files.iter().position(|(p, _)| p == path)?;
        Some(&self.files[i].1)
    }
}

/// `path` with `.` dropped and each `..` taking the name before it.
fn normalised(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                parts.pop();
            }
            c => parts.push(c.as_os_str().to_string_lossy().into_owned()),
        }
    }
    parts.join("/")
}

impl Fetch for MemoryFetch {
    fn fetch(&mut self, from: &str, url: &str) -> std::io::Result<(String, Vec<u8>)> {
        let base = Path::new(from).parent().unwrap_or(Path::new(""));
        let path = normalised(&base.join(local_name(url)?));
        let name = path.rsplit('/').next().unwrap_or(&path).to_string();
        let named = |p: &String| p.rsplit('/').next() == Some(name.as_str());
        let found = match self.files.iter().position(|(p, _)| *p == path) {
            Some(i) => Some(i),
            None => match self.files.iter().filter(|(p, _)| named(p)).count() {
                1 => self.files.iter().position(|(p, _)| named(p)),
                _ => None,
            },
        };
        match found {
            Some(i) => Ok(self.files[i].clone()),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{path} is not among the files given"),
            )),
        }
    }
}

/// The local file name a URL gives (`file:` dropped, `%xx` decoded); an
/// error for a URL of another scheme, which is never fetched. The rule
/// [`FileFetch`] and [`MemoryFetch`] read by, for fetches of other hosts
/// (the npm package's reads from disk through JavaScript).
pub fn local_name(url: &str) -> std::io::Result<String> {
    let local = url
        .strip_prefix("file://")
        .or_else(|| url.strip_prefix("file:"))
        .unwrap_or(url);
    if has_scheme(local) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "not fetched: x3dbake reads local files only",
        ));
    }
    Ok(percent_decode(local))
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).and_then(|&c| hex(c)),
                b.get(i + 2).and_then(|&c| hex(c)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// How deep Inline files and EXTERNPROTO files may nest.
pub const MAX_FILE_DEPTH: usize = 16;

/// How many bytes the input and every file it reads may add up to (each
/// read counted, as above): the single-file limit, for the whole scene,
/// since every text read is kept for the messages.
pub const MAX_LINKED_BYTES: usize = crate::source::MAX_FILE_BYTES;

/// Where a merged file's nodes and prototypes went.
struct Merged {
    roots: Vec<NodeId>,
    exports: Vec<(String, NodeId)>,
    proto_offset: usize,
    protos: Vec<String>,
}

/// Reads the Inline and EXTERNPROTO files of `scene` (whose text is
/// `file`), recursively, within [`MAX_FILE_DEPTH`], [`MAX_LINKED_BYTES`]
/// and the `limits` on linked files and nodes.
pub fn link(
    scene: &mut Scene,
    sources: &mut Sources,
    file: FileId,
    fetch: &mut dyn Fetch,
    limits: &Limits,
    diags: &mut Diagnostics,
) {
    let mut reads = Reads {
        stack: Vec::new(),
        files: 0,
        bytes: sources.get(file).text().len(),
        nodes: 0,
        limits: *limits,
        spent: false,
    };
    link_file(scene, sources, file, fetch, diags, &mut reads);
}

/// Reads the Inline files of the Inline nodes that have none yet (copies
/// of an Inline in a PROTO body, made by the expansion); whether any was
/// read (what they bring may hold instances to expand, and Inlines again).
pub fn link_inlines(
    scene: &mut Scene,
    sources: &mut Sources,
    file: FileId,
    fetch: &mut dyn Fetch,
    limits: &Limits,
    diags: &mut Diagnostics,
) -> bool {
    let before = scene.expansions.len();
    let mut reads = Reads {
        stack: vec![sources.get(file).name.clone()],
        files: 0,
        bytes: sources.get(file).text().len(),
        nodes: 0,
        limits: *limits,
        spent: false,
    };
    let from = sources.get(file).name.clone();
    let mut l = Linker {
        sources,
        fetch,
        diags,
        reads: &mut reads,
        from,
    };
    l.inlines(scene);
    scene.expansions.len() > before
}

/// What every file of one scene has read so far.
struct Reads {
    /// The files being read, to refuse a file that includes itself.
    stack: Vec<String>,
    /// Files read (each read counted) and the bytes of the texts read,
    /// the input's included.
    files: usize,
    bytes: usize,
    /// Nodes of the files read (each read counted), and the most allowed.
    nodes: usize,
    /// The limits on files and nodes read.
    limits: Limits,
    /// A limit was passed and reported: nothing more is read.
    spent: bool,
}

fn link_file(
    scene: &mut Scene,
    sources: &mut Sources,
    file: FileId,
    fetch: &mut dyn Fetch,
    diags: &mut Diagnostics,
    reads: &mut Reads,
) {
    let from = sources.get(file).name.clone();
    reads.stack.push(from.clone());
    let mut l = Linker {
        sources,
        fetch,
        diags,
        reads,
        from,
    };
    l.inlines(scene);
    l.extern_protos(scene);
    l.reads.stack.pop();
}

/// What linking one file needs.
struct Linker<'a> {
    sources: &'a mut Sources,
    fetch: &'a mut dyn Fetch,
    diags: &'a mut Diagnostics,
    reads: &'a mut Reads,
    /// The file whose URLs are followed.
    from: String,
}

impl Linker<'_> {
    /// Fetches, parses and links one file; None (with a warning) when none of
    /// the URLs can be read.
    fn load_one(
        &mut self,
        urls: &[String],
        what: &str,
        span: crate::source::Span,
    ) -> Option<(Scene, String)> {
        let (sources, fetch, diags, reads, from) = (
            &mut *self.sources,
            &mut *self.fetch,
            &mut *self.diags,
            &mut *self.reads,
            self.from.as_str(),
        );
        if reads.spent {
            return None;
        }
        let mut tried = Vec::new();
        for url in urls {
            let (path, fragment) = url.split_once('#').unwrap_or((url, ""));
            if path.is_empty() {
                continue;
            }
            if reads.files >= reads.limits.linked_files {
                reads.spent = true;
                diags.error(
                    format!(
                        "{what} `{url}`: the scene reads more than {} files (each Inline and \
                         EXTERNPROTO file counts each time it is read)",
                        reads.limits.linked_files
                    ),
                    Some(span),
                );
                return None;
            }
            let (name, bytes) = match fetch.fetch(from, path) {
                Ok(read) => read,
                Err(e) => {
                    tried.push(format!("{url} ({e})"));
                    continue;
                }
            };
            if reads.stack.contains(&name) {
                tried.push(format!("{url} (a loop: {name} is already being read)"));
                continue;
            }
            if reads.stack.len() >= MAX_FILE_DEPTH {
                tried.push(format!("{url} (files nest deeper than {MAX_FILE_DEPTH})"));
                continue;
            }
            reads.files += 1;
            // The file's own problems are its own: errors in it leave it
            // out (as a browser does) with a warning here that quotes none
            // of its text; its warnings are kept.
            let mut own = Diagnostics::default();
            // The bytes as fetched, before they are kept; then the text,
            // which gzip data expands to.
            let mut id = None;
            if reads.bytes.saturating_add(bytes.len()) <= MAX_LINKED_BYTES {
                let file = crate::load::add_file(sources, &name, bytes, &mut own);
                sources.mark_referenced(file);
                reads.bytes = reads.bytes.saturating_add(sources.get(file).text().len());
                id = (reads.bytes <= MAX_LINKED_BYTES).then_some(file);
            }
            let Some(id) = id else {
                reads.spent = true;
                diags.error(
                    format!("{what} `{url}`: the scene and the files it reads add up to more than 4 GiB (each file counted each time it is read)"),
                    Some(span),
                );
                return None;
            };
            let mut child = Scene::default();
            if !own.has_errors() {
                child = crate::syntax::parse(sources, id, &reads.limits, &mut own);
                reads.nodes = reads.nodes.saturating_add(child.nodes.len());
                if reads.nodes > reads.limits.linked_nodes {
                    reads.spent = true;
                    diags.error(
                        format!(
                            "{what} `{url}`: the files the scene reads hold more than {} \
                             nodes (each file counted each time it is read)",
                            reads.limits.linked_nodes
                        ),
                        Some(span),
                    );
                    return None;
                }
                link_file(&mut child, sources, id, fetch, &mut own, reads);
            }
            // A limit of the whole scene passed below: it stays an error.
            if reads.spent || !own.has_errors() {
                own.list().iter().for_each(|d| diags.push(d.clone()));
                if reads.spent {
                    return None;
                }
                return Some((child, fragment.to_string()));
            }
            let (errors, _) = own.counts();
            let first = own.errors().next().and_then(|d| d.span).map(|s| {
                let file = sources.get(s.file);
                let (l, c) = file.line_col(s.start as usize);
                format!(", the first at {}:{l}:{c}", file.name)
            });
            let at = first.unwrap_or_default();
            let s = if errors == 1 { "" } else { "s" };
            tried.push(format!(
                "{url} (not loaded: {errors} error{s}{at}; `x3dbake inspect {name}` lists them)"
            ));
        }
        diags.warning(
            format!("{what}: no file could be loaded: {}", tried.join(", ")),
            Some(span),
        );
        None
    }

    fn inlines(&mut self, scene: &mut Scene) {
        // Inlines, and GeoLODs without rootNode whose root level is the
        // file their rootUrl names (read as an Inline's).
        let inline_nodes: Vec<(NodeId, &str, &str)> = (0..scene.nodes.len() as u32)
            .map(NodeId)
            .filter_map(|id| {
                let read = match scene.known(id)?.name.as_str() {
                    "Inline" if scene.flag(id, "load") => ("Inline", "url"),
                    "GeoLOD"
                        if scene
                            .value(id, "rootNode")
                            .is_none_or(|v| v.nodes().is_empty()) =>
                    {
                        ("GeoLOD", "rootUrl")
                    }
                    _ => return None,
                };
                (scene.node(id).in_proto.is_none() && !scene.expansions.contains_key(&id))
                    .then_some((id, read.0, read.1))
            })
            .collect();
        let mut exports: Vec<(NodeId, Vec<(String, NodeId)>)> = Vec::new();
        for (n, (id, kind, field)) in inline_nodes.into_iter().enumerate() {
            let urls = scene
                .value(id, field)
                .map(|v| v.strings().to_vec())
                .unwrap_or_default();
            if urls.is_empty() {
                continue;
            }
            let span = scene.value_span(id, field).unwrap_or(scene.node(id).span);
            let Some((child, _)) = self.load_one(&urls, kind, span) else {
                // (Tried, and named: not tried again.)
                scene.expansions.insert(id, Vec::new());
                continue;
            };
            let prefix = scene
                .node(id)
                .def
                .clone()
                .unwrap_or_else(|| format!("{kind}_{}", n + 1));
            let merged = merge(scene, child, &prefix);
            scene.expansions.insert(id, merged.roots);
            exports.push((id, merged.exports));
        }
        // IMPORT: the stand-in node becomes the exported one (the first
        // EXPORT of the name in the Inline's file).
        let mut exported: HashMap<(NodeId, &str), NodeId> = HashMap::default();
        for (inline, list) in &exports {
            for (name, node) in list {
                exported.entry((*inline, name.as_str())).or_insert(*node);
            }
        }
        // The node each stand-in becomes, and which IMPORT made it; what is
        // reported, by IMPORT and then by route.
        let mut stand_ins: HashMap<NodeId, (usize, NodeId)> = HashMap::default();
        let mut reports = Vec::new();
        for (k, imp) in std::mem::take(&mut scene.imports).into_iter().enumerate() {
            let found = scene
                .def(&imp.inline)
                .and_then(|inline| exported.get(&(inline, imp.exported.as_str())));
            match found {
                Some(&node) => {
                    stand_ins.insert(imp.placeholder, (k, node));
                }
                None => reports.push((
                    (k, 0),
                    Diagnostic::warning(
                        format!(
                            "IMPORT `{}.{}`: no such EXPORT in a loaded Inline",
                            imp.inline, imp.exported
                        ),
                        Some(imp.span),
                    ),
                )),
            }
        }
        if !stand_ins.is_empty() {
            replace_stand_ins(scene, &stand_ins, &mut reports);
        }
        reports.sort_by_key(|&(at, _)| at);
        for (_, d) in reports {
            self.diags.push(d);
        }
    }
}

/// Routes that name a stand-in now name the real node (their fields are
/// checked now that its type is known), in one pass over the routes: the
/// ends of a route in the order of their IMPORTs. A route whose field the
/// real node lacks is an error, keyed by its IMPORT and its place.
fn replace_stand_ins(
    scene: &mut Scene,
    stand_ins: &HashMap<NodeId, (usize, NodeId)>,
    reports: &mut Vec<((usize, usize), Diagnostic)>,
) {
    let mut routes = std::mem::take(&mut scene.routes);
    let mut at = 0;
    routes.retain_mut(|r| {
        at += 1;
        let mut ends = [
            (&mut r.from, &mut r.from_field, Dir::Out),
            (&mut r.to, &mut r.to_field, Dir::In),
        ]
        .map(|(node, field, dir)| (stand_ins.get(node).copied(), node, field, dir));
        ends.sort_by_key(|(s, ..)| s.map(|(k, _)| k));
        for (stand_in, node, field, dir) in ends {
            let Some((k, to)) = stand_in else {
                continue;
            };
            *node = to;
            match scene.find_field(to, field, dir) {
                Some(f) => *field = f.name.clone(),
                None if matches!(scene.node(to).class, NodeClass::Unknown) => {}
                None => {
                    let message = format!(
                        "ROUTE names `{}.{field}`, but `{}` has no such field: the ROUTE is \
                         dropped",
                        scene.display_name(to),
                        scene.node(to).type_name
                    );
                    reports.push(((k, at), Diagnostic::warning(message, Some(r.span))));
                    return false;
                }
            }
        }
        true
    });
    // The types of both ends are known now.
    for r in &mut routes {
        if r.ty.is_none() {
            r.ty = scene
                .find_field(r.from, &r.from_field, Dir::Out)
                .map(|f| f.ty);
        }
    }
    scene.routes = routes;
}

impl Linker<'_> {
    fn extern_protos(&mut self, scene: &mut Scene) {
        for p in 0..scene.protos.len() {
            let Some(urls) = scene.protos[p].extern_url.clone() else {
                continue;
            };
            if urls.is_empty() {
                continue;
            }
            let name = scene.protos[p].name.clone();
            let span = scene.protos[p].span;
            let Some((child, fragment)) =
                self.load_one(&urls, &format!("EXTERNPROTO `{name}`"), span)
            else {
                continue;
            };
            let wanted = if fragment.is_empty() {
                None
            } else {
                Some(fragment)
            };
            // Only the library's prototypes are wanted: not its routes, and its
            // body nodes are named by each instance when it is expanded.
            let child = Scene {
                routes: Vec::new(),
                roots: Vec::new(),
                ..child
            };
            let merged = merge(scene, child, "");
            let q = match &wanted {
                Some(w) => merged.protos.iter().position(|n| n == w),
                None => merged.protos.iter().position(|_| true),
            };
            let Some(q) = q
                .map(|i| i + merged.proto_offset)
                .filter(|&q| scene.protos[q].extern_url.is_none())
            else {
                self.diags.warning(
                    format!(
                        "EXTERNPROTO `{name}`: the file has no PROTO `{}`",
                        wanted.unwrap_or_default()
                    ),
                    Some(span),
                );
                continue;
            };
            // The declaration takes the prototype: its body nodes become ours.
            for node in &mut scene.nodes {
                if node.in_proto == Some(q) {
                    node.in_proto = Some(p);
                }
            }
            let loaded = &scene.protos[q];
            let (body, routes, connections, interface) = (
                loaded.body.clone(),
                loaded.routes.clone(),
                loaded.connections.clone(),
                loaded.interface.clone(),
            );
            let proto = &mut scene.protos[p];
            proto.body = body;
            proto.routes = routes;
            proto.connections = connections;
            // Defaults come from the PROTO; the EXTERNPROTO only names fields.
            for f in proto.interface.iter_mut() {
                if let Some(d) = interface.get(&f.name).filter(|d| d.ty == f.ty) {
                    f.default = d.default.clone();
                }
            }
            proto.extern_url = None;
        }
    }
}

/// Appends another file's scene to `scene`: its nodes, prototypes and
/// routes, its node names prefixed with `prefix.`.
fn merge(scene: &mut Scene, child: Scene, prefix: &str) -> Merged {
    let node_offset = scene.nodes.len() as u32;
    let proto_offset = scene.protos.len();
    let shift = |id: NodeId| NodeId(id.0 + node_offset);
    for mut node in child.nodes {
        if !prefix.is_empty() {
            node.def = node.def.map(|d| format!("{prefix}.{d}"));
        }
        node.in_proto = node.in_proto.map(|p| p + proto_offset);
        if let NodeClass::Proto(p) = node.class {
            node.class = NodeClass::Proto(p + proto_offset);
        }
        for f in node.values.iter_mut() {
            if let Data::Nodes(list) = &mut f.value.data {
                list.iter_mut().for_each(|n| *n = shift(*n));
            }
        }
        scene.nodes.push(node);
    }
    let shift_route = |r: Route| Route {
        from: shift(r.from),
        to: shift(r.to),
        ..r
    };
    let mut names = Vec::new();
    for mut p in child.protos {
        names.push(p.name.clone());
        p.body.iter_mut().for_each(|n| *n = shift(*n));
        p.routes = p.routes.into_iter().map(shift_route).collect();
        p.connections
            .iter_mut()
            .for_each(|c| c.node = shift(c.node));
        for f in p.interface.iter_mut() {
            if let Data::Nodes(list) = &mut f.default.data {
                list.iter_mut().for_each(|n| *n = shift(*n));
            }
        }
        scene.protos.push(p);
    }
    scene
        .routes
        .extend(child.routes.into_iter().map(shift_route));
    for (k, v) in child.expansions {
        scene
            .expansions
            .insert(shift(k), v.into_iter().map(shift).collect());
    }
    Merged {
        roots: child.roots.into_iter().map(shift).collect(),
        exports: child
            .exports
            .into_iter()
            .map(|(n, id)| (n, shift(id)))
            .collect(),
        proto_offset,
        protos: names,
    }
}

#[cfg(test)]
mod tests {
    use super::{Fetch, MemoryFetch};

    fn held() -> MemoryFetch {
        let f = |p: &str| (p.to_string(), p.as_bytes().to_vec());
        MemoryFetch::new(vec![
            f("world/main.x3d"),
            f("world/parts/door.x3d"),
            f("textures/wood.png"),
            f("a/same.png"),
            f("b/same.png"),
        ])
    }

    #[test]
    fn memory_files_are_found_as_the_file_system_would_find_them() {
        let mut m = held();
        let got = |m: &mut MemoryFetch, from: &str, url: &str| m.fetch(from, url).map(|(n, _)| n);
        assert_eq!(
            got(&mut m, "world/main.x3d", "parts/door.x3d").unwrap(),
            "world/parts/door.x3d"
        );
        assert_eq!(
            got(&mut m, "world/main.x3d", "./parts/../parts/door.x3d").unwrap(),
            "world/parts/door.x3d"
        );
        assert_eq!(
            got(&mut m, "world/parts/door.x3d", "../../textures/wood.png").unwrap(),
            "textures/wood.png"
        );
        assert_eq!(
            got(&mut m, "world/main.x3d", "file:parts/door%2Ex3d").unwrap(),
            "world/parts/door.x3d"
        );
        // Not where the scene says: the one file of that name.
        assert_eq!(
            got(&mut m, "world/main.x3d", "maps/wood.png").unwrap(),
            "textures/wood.png"
        );
        // Two of that name, or none, or another scheme: not found.
        assert!(got(&mut m, "world/main.x3d", "same.png").is_err());
        assert!(got(&mut m, "world/main.x3d", "nothing.png").is_err());
        assert!(got(&mut m, "world/main.x3d", "https://example.com/wood.png").is_err());
        assert_eq!(m.get("textures/wood.png"), Some(&b"textures/wood.png"[..]));
    }
}
