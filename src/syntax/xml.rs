//! The X3D XML encoding, read with quick-xml as a stream of events: no DOM
//! is built; each element goes straight into the scene builder.

use crate::diag::Diagnostics;
use crate::hash::HashSet;
use crate::limits::Limits;
use crate::par;
use crate::scene::build::TextPos;
use crate::scene::value::{Data, Encoding, LongFloats, parse_value};
use crate::scene::{Access, Builder, FieldDef, FieldType, NodeClass, NodeId, Scene, Value};
use crate::source::{FileId, SourceFile, Span};
use quick_xml::XmlVersion;
use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::QName;
use std::borrow::Cow;
use std::sync::Arc;

/// How deep elements may nest before the reader gives up.
pub const MAX_DEPTH: usize = 500;

/// What an open element is, for the elements inside it.
#[derive(Debug)]
enum Frame {
    X3d,
    Head,
    Scene,
    /// Content is skipped (meta, Script source text, unknown envelope parts).
    Ignore,
    Node(NodeId),
    /// A node element with USE: its content is ignored.
    Use,
    /// Node children go into a field of a node (`fieldValue`, Script `field`).
    FieldOf(NodeId, String),
    ProtoDeclare(usize),
    ProtoInterface(usize),
    ProtoBody(usize),
    /// A `field` of a prototype interface: node children are its default.
    ProtoField(usize, usize),
    ExternProto(usize),
    Is(NodeId),
}

struct Attr<'a> {
    key: &'a str,
    value: Cow<'a, str>,
    pos: TextPos,
}

struct Reader<'s, 'd> {
    file: FileId,
    source: &'s SourceFile,
    text: &'s str,
    b: Builder<'d>,
    frames: Vec<(Frame, String, Span)>,
    /// Prototypes whose bodies are open, innermost last.
    protos: Vec<usize>,
    /// The envelope element X3D was seen.
    saw_x3d: bool,
    /// The document's root element was a node, read as the scene.
    root_node: bool,
}

/// Reads an X3D XML file into a scene. Problems go to `diags`; the scene is
/// only meaningful when no error was reported.
///
/// With a share of two threads or more, a long float value (a large
/// interpolator's keyValue) is read on another thread while this one goes
/// on through the rest of the file, and this one helps read what is left
/// of it at the end (`scene/deferred.rs`): the same scene, the 10 MB
/// bigscene (a 9.5 MB keyValue, then 500 animated boxes) baked in 0.94 ×
/// the time.
pub fn read(source: &SourceFile, file: FileId, limits: &Limits, diags: &mut Diagnostics) -> Scene {
    let text = source.text();
    // (A file shorter than a long value does without the other thread.)
    let share = par::budget(0);
    if share < 2 || text.len() < par::SPLIT_BYTES {
        return Reader::new(source, file, limits, diags).read();
    }
    std::thread::scope(|s| {
        let (jobs, to_read) = std::sync::mpsc::channel::<Arc<LongFloats>>();
        // Each value from its start, in turn, as the reader hands it over.
        let from_start = move || {
            let fronts = to_read.into_iter().map(|floats| floats.read_front(text));
            fronts.collect::<Vec<_>>()
        };
        let thread = std::thread::Builder::new().spawn_scoped(s, || par::with_share(1, from_start));
        let Ok(thread) = thread else {
            return Reader::new(source, file, limits, diags).read();
        };
        let mut r = Reader::new(source, file, limits, diags);
        r.b.defer_long_values(text, jobs);
        // (The other thread has one of the share.)
        par::with_share(share - 1, || r.run());
        let handed = r.b.stop_deferring();
        // The routes resolved while the other thread goes on reading (they
        // need no values), then this one helps it.
        let mut scene = r.b.finish();
        let Some(handed) = handed else {
            return scene;
        };
        let backs: Vec<_> = handed.values().map(|v| v.read_back(text)).collect();
        let fronts = thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let read = fronts.into_iter().zip(backs);
        let read = read.map(|(front, back)| LongFloats::join(front, back));
        handed.resolve(text, &mut scene, diags, Encoding::Xml, read.collect());
        scene
    })
}

impl<'s, 'd> Reader<'s, 'd> {
    fn new(
        source: &'s SourceFile,
        file: FileId,
        limits: &Limits,
        diags: &'d mut Diagnostics,
    ) -> Reader<'s, 'd> {
        Reader {
            file,
            source,
            text: source.text(),
            b: Builder::new(diags, Encoding::Xml, limits.file_nodes),
            frames: Vec::new(),
            protos: Vec::new(),
            saw_x3d: false,
            root_node: false,
        }
    }

    /// The whole file, on this thread.
    fn read(mut self) -> Scene {
        self.run();
        self.b.finish()
    }

    fn span(&self, range: std::ops::Range<usize>) -> Span {
        Span::new(self.file, range)
    }

    /// Byte offset of a slice borrowed from the source text.
    fn offset_of(&self, s: &str) -> Option<usize> {
        let base = self.text.as_ptr() as usize;
        let p = s.as_ptr() as usize;
        (p >= base && p + s.len() <= base + self.text.len()).then(|| p - base)
    }

    fn span_of(&self, s: &str, fallback: usize) -> Span {
        match self.offset_of(s) {
            Some(o) => self.span(o..o + s.len()),
            None => self.span(fallback..fallback + 1),
        }
    }

    fn run(&mut self) {
        // A byte order mark is not part of the document.
        let body = self.text.strip_prefix('\u{feff}').unwrap_or(self.text);
        let mut reader = quick_xml::Reader::from_str(body);
        let bom = self.text.len() - body.len();
        loop {
            let event = match reader.read_event() {
                Ok(e) => e,
                Err(e) => {
                    let at = bom + reader.error_position() as usize;
                    let span = self.span(at..at + 1);
                    self.b
                        .diags()
                        .error(format!("malformed XML: {e}"), Some(span));
                    return;
                }
            };
            match event {
                Event::Start(_) if self.frames.len() >= MAX_DEPTH => {
                    let at = bom + reader.buffer_position() as usize;
                    let span = self.span(at.saturating_sub(1)..at);
                    self.b
                        .diags()
                        .error(format!("elements nest deeper than {MAX_DEPTH}"), Some(span));
                    return;
                }
                Event::Start(ref e) | Event::Empty(ref e)
                    if !self.b.room_for_node(self.span_of(e.name().0, 0)) =>
                {
                    return;
                }
                Event::Start(e) => self.start(&e, false),
                Event::Empty(e) => self.start(&e, true),
                Event::End(_) => self.end(),
                Event::Text(t) => self.text_content(&t),
                Event::CData(c) => {
                    let code: &str = c.as_ref();
                    let span = self.span_of(code, 0);
                    self.script_text(code, span);
                }
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) => {}
                Event::GeneralRef(_) => {}
                Event::DocType(d) => {
                    if d.contains("<!ENTITY") {
                        let span = self.span_of(&d, 0);
                        self.b.diags().warning(
                            "entities declared in the DOCTYPE are not expanded",
                            Some(span),
                        );
                    }
                }
                Event::Eof => break,
            }
        }
        if let Some((_, name, span)) = self.frames.last() {
            let (name, span) = (name.clone(), *span);
            let end = self.text.len();
            let d = crate::diag::Diagnostic::error(
                format!("the file ends inside <{name}>, which is not closed"),
                Some(self.span(end..end)),
            )
            .with_note(format!("<{name}> opens at {}", self.where_(span)));
            self.b.diags().push(d);
        } else if !self.saw_x3d {
            let span = self.span(0..0);
            if self.b.holds_x3d_nodes() {
                if !self.root_node {
                    self.b
                        .diags()
                        .warning("the file has no <X3D> element", Some(span));
                }
            } else {
                self.b.diags().error(
                    "not an X3D scene: no <X3D> element and no X3D node",
                    Some(span),
                );
            }
        }
    }

    fn where_(&self, span: Span) -> String {
        let (line, col) = self.source.line_col(span.start as usize);
        format!("line {line}, column {col}")
    }

    /// The text inside a Script element (in CDATA or not) is its program:
    /// its `sourceCode`.
    fn script_text(&mut self, code: &str, span: Span) {
        if code.trim().is_empty() {
            return;
        }
        if let Some((Frame::Node(id), _, _)) = self.frames.last()
            && self.b.scene().node(*id).type_name == "Script"
        {
            let id = *id;
            let value = Value {
                ty: FieldType::SFString,
                data: Data::Strings(vec![code.to_string()]),
            };
            self.b.set_value(id, "sourceCode", value, span);
        }
    }

    fn text_content(&mut self, t: &quick_xml::events::BytesText<'_>) {
        if t.trim().is_empty() {
            return;
        }
        if let Some((Frame::Node(id), _, _)) = self.frames.last() {
            let ty = &self.b.scene().node(*id).type_name;
            if ty == "Script" {
                let raw: &str = t.as_ref();
                let span = self.span_of(raw, 0);
                let code = quick_xml::escape::unescape(raw).unwrap_or(Cow::Borrowed(raw));
                self.script_text(&code, span);
            } else if ty != "ShaderPart" && ty != "ShaderProgram" {
                let span = self.span_of(t, 0);
                let msg = format!("text inside <{ty}> is ignored");
                self.b.diags().warning(msg, Some(span));
            }
        }
    }

    fn end(&mut self) {
        if let Some((Frame::ProtoBody(p), _, _)) = self.frames.pop() {
            self.protos.pop();
            self.b.end_proto_body(p);
        }
    }

    /// The attributes of a start tag: `key="value"` or `key='value'`,
    /// separated by XML whitespace. Read here rather than with quick-xml's
    /// attribute iterator, which walks each value byte by byte (a tenth of
    /// a large bake); the closing quote is found with memchr. A malformed
    /// attribute ends the tag's attributes; a repeated one is dropped.
    fn attrs<'e>(&mut self, e: &'e BytesStart<'s>) -> Vec<Attr<'e>> {
        let raw = e.attributes_raw();
        let base = self.offset_of(raw).unwrap_or(0);
        let b = raw.as_bytes();
        let skip_space = |mut i: usize| {
            while b.get(i).is_some_and(|c| is_xml_space(*c)) {
                i += 1;
            }
            i
        };
        let mut out: Vec<Attr<'e>> = Vec::new();
        let mut i = skip_space(0);
        while i < b.len() {
            let k0 = i;
            while b.get(i).is_some_and(|&c| c != b'=' && !is_xml_space(c)) {
                i += 1;
            }
            let key = &raw[k0..i];
            let key_span = self.span(base + k0..base + i.max(k0 + 1));
            let eq = skip_space(i);
            let problem = if key.is_empty() {
                Some("an attribute has no name".to_string())
            } else if b.get(eq) != Some(&b'=') {
                Some(format!("attribute `{key}` has no value (`{key}=\"...\"`)"))
            } else {
                None
            };
            let q = skip_space(eq + 1);
            // The closing quote, and whether a reference (`&`) comes
            // before it: one pass over the value (a keyValue can be
            // megabytes long).
            let mut refs = false;
            let closing = match b.get(q) {
                Some(&quote @ (b'"' | b'\'')) if problem.is_none() => {
                    memchr::memchr2_iter(quote, b'&', &b[q + 1..])
                        .map(|n| q + 1 + n)
                        .find(|&n| {
                            refs |= b[n] == b'&';
                            b[n] == quote
                        })
                }
                _ => None,
            };
            let Some(close) = closing else {
                let msg = problem.unwrap_or_else(|| match b.get(q) {
                    Some(b'"' | b'\'') => format!("the value of `{key}` has no closing quote"),
                    _ => format!("the value of `{key}` is not in quotes"),
                });
                self.b.diags().error(msg, Some(key_span));
                break;
            };
            let value = &raw[q + 1..close];
            i = skip_space(close + 1);
            let (value, pos) = if refs {
                let a = Attribute {
                    key: QName(key),
                    value: Cow::Borrowed(value),
                };
                match a.normalized_value(XmlVersion::Implicit1_0) {
                    Ok(v) => (Cow::Owned(v.into_owned()), TextPos::Field(key_span)),
                    Err(err) => {
                        self.b
                            .diags()
                            .error(format!("bad entity in `{key}`: {err}"), Some(key_span));
                        continue;
                    }
                }
            } else {
                let at = base + q + 1;
                (
                    Cow::Borrowed(value),
                    TextPos::Verbatim(self.span(at..at + value.len())),
                )
            };
            out.push(Attr { key, value, pos });
        }
        self.drop_repeated(&mut out);
        out
    }

    /// Reports and drops attributes given again in the same tag. A tag has
    /// a few attributes, compared pair by pair without allocating; one with
    /// very many is looked up in a set instead, so that it is not quadratic.
    /// (Not sorting every tag's names: std's sort paths for each length and
    /// order would be a tenth of what read_xml's fuzzing has to cover.)
    fn drop_repeated(&mut self, attrs: &mut Vec<Attr<'_>>) {
        let repeated: Vec<usize> = if attrs.len() <= 16 {
            (1..attrs.len())
                .filter(|&n| attrs[..n].iter().any(|a| a.key == attrs[n].key))
                .collect()
        } else {
            let mut seen = HashSet::default();
            (0..attrs.len())
                .filter(|&n| !seen.insert(attrs[n].key))
                .collect()
        };
        if repeated.is_empty() {
            return;
        }
        for &n in &repeated {
            let key = attrs[n].key;
            let span = self.span_of(key, 0);
            let msg = format!("attribute `{key}` is given twice");
            self.b.diags().error(msg, Some(span));
        }
        let mut n = 0;
        attrs.retain(|_| {
            n += 1;
            repeated.binary_search(&(n - 1)).is_err()
        });
    }

    fn start(&mut self, e: &BytesStart<'s>, empty: bool) {
        let name = e.name().0;
        let name_span = self.span_of(name, 0);
        let attrs = self.attrs(e);
        let frame = self.element(name, name_span, &attrs);
        // A long start tag (a long keyValue) of a mapped file, scanned: its
        // pages leave memory, and its values read them again piece by
        // piece. (Once its values are handed to another thread to read:
        // not before, when that thread would wait.)
        if e.len() >= crate::par::SPLIT_BYTES {
            crate::sys::mapped::let_go(e[..].as_bytes());
        }
        if !empty {
            self.frames.push((frame, name.to_string(), name_span));
        } else if let Frame::ProtoBody(p) = frame {
            self.protos.pop();
            self.b.end_proto_body(p);
        }
    }

    fn parent(&self) -> Option<&Frame> {
        self.frames.last().map(|(f, _, _)| f)
    }

    fn get<'a>(attrs: &'a [Attr<'_>], key: &str) -> Option<&'a Attr<'a>> {
        attrs.iter().find(|a| a.key == key)
    }

    /// An optional attribute's text, empty when absent.
    fn text(attrs: &[Attr<'_>], key: &str) -> String {
        Self::get(attrs, key)
            .map(|a| a.value.to_string())
            .unwrap_or_default()
    }

    /// Handles one element and returns the frame for its content.
    fn element(&mut self, name: &str, span: Span, attrs: &[Attr<'_>]) -> Frame {
        match (name, self.parent()) {
            ("X3D", None) => {
                self.saw_x3d = true;
                let h = self.b.header_mut();
                h.profile = Self::get(attrs, "profile").map(|a| a.value.to_string());
                h.version = Self::get(attrs, "version").map(|a| a.value.to_string());
                Frame::X3d
            }
            ("head", Some(Frame::X3d)) => Frame::Head,
            ("Scene", Some(Frame::X3d)) => Frame::Scene,
            ("component", Some(Frame::Head)) => {
                let n = Self::text(attrs, "name");
                let level = Self::get(attrs, "level").and_then(|a| a.value.trim().parse().ok());
                self.b.header_mut().components.push((n, level.unwrap_or(1)));
                Frame::Ignore
            }
            ("unit", Some(Frame::Head)) => {
                let factor = Self::text(attrs, "conversionFactor")
                    .trim()
                    .parse()
                    .unwrap_or(1.0);
                let unit = (
                    Self::text(attrs, "category"),
                    Self::text(attrs, "name"),
                    factor,
                );
                self.b.header_mut().units.push(unit);
                Frame::Ignore
            }
            ("meta", Some(Frame::Head)) => {
                let meta = (Self::text(attrs, "name"), Self::text(attrs, "content"));
                self.b.header_mut().meta.push(meta);
                Frame::Ignore
            }
            (_, Some(Frame::Ignore | Frame::Use)) => Frame::Ignore,
            (_, Some(Frame::Head)) => {
                self.b
                    .diags()
                    .warning(format!("<{name}> in <head> is ignored"), Some(span));
                Frame::Ignore
            }
            ("ROUTE", _) => {
                self.route(attrs, span);
                Frame::Ignore
            }
            ("ProtoDeclare", _) => {
                let n = self.required(attrs, "name", name, span);
                let p = self.b.declare_proto(&n, None, span);
                Frame::ProtoDeclare(p)
            }
            ("ProtoInterface", Some(&Frame::ProtoDeclare(p))) => Frame::ProtoInterface(p),
            ("ProtoBody", Some(&Frame::ProtoDeclare(p))) => {
                self.protos.push(p);
                self.b.begin_proto_body(p);
                Frame::ProtoBody(p)
            }
            ("ExternProtoDeclare", _) => {
                let n = self.required(attrs, "name", name, span);
                let url = match Self::get(attrs, "url") {
                    Some(a) => parse_value(FieldType::MFString, &a.value, Encoding::Xml)
                        .map(|v| v.strings().to_vec())
                        .unwrap_or_default(),
                    None => Vec::new(),
                };
                Frame::ExternProto(self.b.declare_proto(&n, Some(url), span))
            }
            ("field", Some(&(Frame::ProtoInterface(p) | Frame::ExternProto(p)))) => {
                match self.field_decl(attrs, span) {
                    Some(def) => {
                        self.b.add_proto_field(p, def);
                        let i = self.b.scene().protos[p].interface.len() - 1;
                        Frame::ProtoField(p, i)
                    }
                    None => Frame::Ignore,
                }
            }
            ("field", Some(&Frame::Node(id))) => match self.field_decl(attrs, span) {
                Some(def) => {
                    let fname = def.name.clone();
                    self.b.declare_field(id, def);
                    Frame::FieldOf(id, fname)
                }
                None => Frame::Ignore,
            },
            ("fieldValue", Some(&Frame::Node(id))) => {
                let fname = self.required(attrs, "name", name, span);
                if let Some(v) = Self::get(attrs, "value") {
                    self.b.set_field_text(id, &fname, &v.value, v.pos);
                }
                Frame::FieldOf(id, fname)
            }
            ("IS", Some(&Frame::Node(id))) => {
                if self.protos.is_empty() {
                    self.b
                        .diags()
                        .error("<IS> outside a prototype body", Some(span));
                    return Frame::Ignore;
                }
                Frame::Is(id)
            }
            ("connect", Some(&Frame::Is(id))) => {
                let nf = self.required(attrs, "nodeField", name, span);
                let pf = self.required(attrs, "protoField", name, span);
                // IS frames are only opened inside a prototype body.
                let p = *self.protos.last().expect("inside a ProtoBody");
                self.b.connect(p, id, &nf, &pf, span);
                Frame::Ignore
            }
            ("IMPORT", _) => {
                let inline = self.required(attrs, "inlineDEF", name, span);
                let exported = self.required(attrs, "importedDEF", name, span);
                let local =
                    Self::get(attrs, "AS").map_or(exported.clone(), |a| a.value.to_string());
                self.b.import(&inline, &exported, &local, span);
                Frame::Ignore
            }
            ("EXPORT", _) => {
                let local = self.required(attrs, "localDEF", name, span);
                let as_name = Self::get(attrs, "AS").map_or(local.clone(), |a| a.value.to_string());
                self.b.export(&local, &as_name, span);
                Frame::Ignore
            }
            _ => self.node_element(name, span, attrs),
        }
    }

    fn required(&mut self, attrs: &[Attr<'_>], key: &str, elem: &str, span: Span) -> String {
        self.required_text(attrs, key, elem, span).to_string()
    }

    /// A required attribute's text, empty (and an error) when absent.
    fn required_text<'a>(
        &mut self,
        attrs: &'a [Attr<'_>],
        key: &str,
        elem: &str,
        span: Span,
    ) -> &'a str {
        match Self::get(attrs, key) {
            Some(a) => &a.value,
            None => {
                self.b
                    .diags()
                    .error(format!("<{elem}> has no `{key}` attribute"), Some(span));
                ""
            }
        }
    }

    fn route(&mut self, attrs: &[Attr<'_>], span: Span) {
        let parts = ["fromNode", "fromField", "toNode", "toField"].map(|key| {
            let at = Self::get(attrs, key).map_or(span, |a| a.pos_span());
            (self.required_text(attrs, key, "ROUTE", span), at)
        });
        if parts.iter().all(|(p, _)| !p.is_empty()) {
            self.b.add_route(parts, span);
        }
    }

    /// A `<field>` declaration (prototype interface or Script).
    fn field_decl(&mut self, attrs: &[Attr<'_>], span: Span) -> Option<FieldDef> {
        let name = self.required(attrs, "name", "field", span);
        let ty_text = self.required(attrs, "type", "field", span);
        let ty = FieldType::from_name(&ty_text);
        if ty.is_none() && !ty_text.is_empty() {
            self.b
                .diags()
                .error(format!("`{ty_text}` is not an X3D field type"), Some(span));
        }
        let access = match Self::get(attrs, "accessType") {
            Some(a) => Access::from_name(&a.value).or_else(|| {
                let msg = format!("`{}` is not an access type", a.value);
                self.b.diags().error(msg, Some(span));
                None
            })?,
            None => Access::InputOutput,
        };
        let ty = ty?;
        let default = match Self::get(attrs, "value") {
            Some(a) => self
                .b
                .declared_value(&name, ty, &a.value, a.pos)
                .unwrap_or_else(|| Value::initial(ty)),
            None => Value::initial(ty),
        };
        if name.is_empty() {
            return None;
        }
        Some(FieldDef {
            name,
            ty,
            access,
            default,
            extension: false,
        })
    }

    fn node_element(&mut self, name: &str, span: Span, attrs: &[Attr<'_>]) -> Frame {
        let container = Self::get(attrs, "containerField").map(|a| (a.value.to_string(), a.pos));
        if let Some(u) = Self::get(attrs, "USE") {
            let Some(id) = self.b.lookup_use(&u.value, u.pos_span()) else {
                return Frame::Use;
            };
            let used = &self.b.scene().node(id).type_name;
            if name != "ProtoInstance" && used != name {
                let msg = format!("USE `{}` is a `{used}`, not a `{name}`", u.value);
                self.b.diags().warning(msg, Some(span));
            }
            for a in attrs {
                if !matches!(
                    a.key,
                    "USE" | "containerField" | "class" | "id" | "style" | "name"
                ) {
                    let msg = format!("`{}` on a USE is ignored", a.key);
                    self.b.diags().warning(msg, Some(a.pos_span()));
                }
            }
            self.attach(id, container, span);
            return Frame::Use;
        }
        let id = if name == "ProtoInstance" {
            let proto = self.required(attrs, "name", name, span);
            self.b.new_proto_instance(&proto, span)
        } else {
            self.b.new_node(name, span)
        };
        for a in attrs {
            match a.key {
                "DEF" => self.b.define(id, &a.value, a.pos_span()),
                // FontStyle's `style` field shares its name with the XML
                // attribute (CSS) that other elements carry.
                "style" if matches!(name, "FontStyle" | "ScreenFontStyle") => {
                    self.b.set_field_text(id, "style", &a.value, a.pos)
                }
                "containerField" | "class" | "id" | "style" => {}
                "name" if name == "ProtoInstance" => {}
                k if k.starts_with("xmlns") || k.contains(':') => {}
                k => self.b.set_field_text(id, k, &a.value, a.pos),
            }
        }
        self.attach(id, container, span);
        Frame::Node(id)
    }

    /// Puts a node where its element stands.
    fn attach(&mut self, id: NodeId, container: Option<(String, TextPos)>, span: Span) {
        let default_container = || match self.b.scene().node(id).class {
            NodeClass::Known(def) => def.container_field.clone(),
            _ => "children".to_string(),
        };
        match self.parent() {
            Some(Frame::Scene) => self.b.add_root(id),
            Some(&Frame::Node(p)) => {
                let (field, at) = match container {
                    Some((f, pos)) => (f, pos.span()),
                    None => (default_container(), span),
                };
                self.b.add_child(p, &field, id, at);
            }
            Some(Frame::FieldOf(p, f)) => {
                let (p, f) = (*p, f.clone());
                self.b.add_child(p, &f, id, span);
            }
            Some(&Frame::ProtoBody(p)) => self.b.add_proto_body_root(p, id),
            Some(&Frame::ProtoField(p, i)) => self.b.add_proto_field_node(p, i, id),
            None => {
                self.b.diags().warning(
                    "the document root is a node, not <X3D>: read as the scene",
                    Some(span),
                );
                self.root_node = true;
                self.b.add_root(id);
            }
            Some(_) => {
                let ty = self.b.scene().node(id).type_name.clone();
                self.b.diags().warning(
                    format!("a `{ty}` node is not allowed here: ignored"),
                    Some(span),
                );
            }
        }
    }
}

/// XML's whitespace (S in the XML grammar).
fn is_xml_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

impl Attr<'_> {
    fn pos_span(&self) -> Span {
        self.pos.span()
    }
}
