//! The X3D JSON encoding. The text is parsed once into a tree of values
//! that borrow from it (the private module `tree`, a one-pass parser), so
//! every value, and every error in it, has its exact place in the file; the
//! tree is then read as X3D.

mod tree;

use crate::diag::{Diagnostic, Diagnostics};
use crate::limits::Limits;
use crate::scene::build::TextPos;
use crate::scene::value::Data;
use crate::scene::value::{Encoding, Scalar};
use crate::scene::{Access, Builder, FieldDef, FieldType, NodeId, Scene, Value};
use crate::source::{FileId, SourceFile, Span};
use std::borrow::Cow;
use tree::{Json, Kind};

/// How deep nodes may nest before the reader gives up.
pub const MAX_DEPTH: usize = 500;

/// An object's members, in file order.
type Members<'t, 's> = &'t [(Cow<'s, str>, Json<'s>)];

struct Reader<'s, 'd> {
    file: FileId,
    text: &'s str,
    b: Builder<'d>,
    protos: Vec<usize>,
    depth: usize,
}

/// Why reading stopped, already reported.
enum Stop {
    /// The file cannot be read on: reading stops.
    Fatal,
    /// A member of a node has a value of the wrong kind (a string where an
    /// object goes): that member is ignored and the node read on, as
    /// browsers read such files.
    Skip,
}

type R<T> = Result<T, Stop>;

/// Reads an X3D JSON file into a scene.
pub fn read(source: &SourceFile, file: FileId, limits: &Limits, diags: &mut Diagnostics) -> Scene {
    let mut r = Reader {
        file,
        text: source.text(),
        b: Builder::new(diags, Encoding::Xml, limits.file_nodes),
        protos: Vec::new(),
        depth: 0,
    };
    let _ = r.document();
    r.b.finish()
}

/// The value of the first member called `name`.
fn get<'t, 's>(members: Members<'t, 's>, name: &str) -> Option<&'t Json<'s>> {
    members.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

impl<'s> Reader<'s, '_> {
    /// The span of text borrowed from the source.
    fn span_of(&self, raw: &str) -> Span {
        let base = self.text.as_ptr() as usize;
        let p = raw.as_ptr() as usize;
        let start = p.saturating_sub(base).min(self.text.len());
        Span::new(
            self.file,
            start..start + raw.len().min(self.text.len() - start),
        )
    }

    fn fail<T>(&mut self, span: Span, msg: impl Into<String>) -> R<T> {
        self.b.diags().push(Diagnostic::error(msg, Some(span)));
        Err(Stop::Fatal)
    }

    /// Reports a value of the wrong kind, at the value: inside a node the
    /// member holding it is ignored (a warning), outside one the file is
    /// not X3D (an error).
    fn wrong_kind<T>(&mut self, span: Span, message: String) -> R<T> {
        if self.depth == 0 {
            return self.fail(span, message);
        }
        let message = format!("{message}: ignored");
        self.b
            .diags()
            .push(Diagnostic::warning(message, Some(span)));
        Err(Stop::Skip)
    }

    /// Reports a value of the wrong kind, at the value.
    fn expected<T>(&mut self, what: &str, v: &Json) -> R<T> {
        let span = self.span_of(v.raw);
        let found = v.kind.describe(v.raw);
        self.wrong_kind(span, format!("expected {what} here, found {found}"))
    }

    /// Reports a number, boolean or null where it should not be.
    fn expected_scalar<T>(&mut self, what: &str, raw: &str) -> R<T> {
        let span = self.span_of(raw);
        let found = Kind::Scalar.describe(raw);
        self.wrong_kind(span, format!("expected {what} here, found {found}"))
    }

    fn object<'t>(&mut self, v: &'t Json<'s>) -> R<Members<'t, 's>> {
        match &v.kind {
            Kind::Object(members) => Ok(members),
            _ => self.expected("a JSON object", v),
        }
    }

    /// An object, or each object of an array.
    fn objects<'t>(&mut self, v: &'t Json<'s>) -> R<&'t [Json<'s>]> {
        match &v.kind {
            Kind::Object(_) => Ok(std::slice::from_ref(v)),
            Kind::Array {
                items,
                first_scalar,
            } => match (
                items.iter().find(|i| !matches!(i.kind, Kind::Object(_))),
                first_scalar,
            ) {
                (None, None) => Ok(items),
                (Some(item), _) => self.expected("a JSON object", item),
                (None, Some(s)) => self.expected_scalar("a JSON object", s),
            },
            _ => self.expected("a JSON object or an array of them", v),
        }
    }

    /// A string, or a number or boolean as its text (`"@level": 2`).
    fn string(&mut self, v: &Json<'s>) -> R<String> {
        match &v.kind {
            Kind::String(s) => Ok(s.to_string()),
            Kind::Scalar => Ok(v.raw.to_string()),
            _ => self.expected("a string", v),
        }
    }

    /// A string or an array of strings.
    fn strings(&mut self, v: &Json<'s>) -> R<Vec<String>> {
        match &v.kind {
            Kind::Array {
                items,
                first_scalar: None,
            } => items.iter().map(|i| self.string_only(i)).collect(),
            Kind::Array {
                first_scalar: Some(s),
                ..
            } => self.expected_scalar("a string", s),
            _ => Ok(vec![self.string_only(v)?]),
        }
    }

    fn string_only(&mut self, v: &Json<'s>) -> R<String> {
        match &v.kind {
            Kind::String(s) => Ok(s.to_string()),
            _ => self.expected("a string", v),
        }
    }

    fn document(&mut self) -> R<()> {
        let root = match tree::parse(self.text) {
            Ok(root) => root,
            Err(e) => {
                let end = self.text[e.at..]
                    .chars()
                    .next()
                    .map_or(e.at, |c| e.at + c.len_utf8());
                let span = Span::new(self.file, e.at..end);
                return self.fail(span, format!("malformed JSON: {}", e.msg));
            }
        };
        let top = self.object(&root)?;
        let Some(x3d) = get(top, "X3D") else {
            let span = Span::new(self.file, 0..0);
            return self.fail(span, "the JSON has no \"X3D\" object");
        };
        for (key, value) in self.object(x3d)? {
            match key.as_ref() {
                "@profile" => self.b.header_mut().profile = Some(self.string(value)?),
                "@version" => self.b.header_mut().version = Some(self.string(value)?),
                "head" => self.head(value)?,
                "Scene" => {
                    for (k, v) in self.object(value)? {
                        if k == "-children" {
                            self.children(v, None)?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn head(&mut self, raw: &Json<'s>) -> R<()> {
        for (key, value) in self.object(raw)? {
            for item in self.objects(value)? {
                let entries = self.object(item)?;
                let get = |name: &str| get(entries, name);
                let (a, b, c) = (
                    get("@name"),
                    get("@content").or(get("@level")),
                    get("@conversionFactor"),
                );
                let cat = get("@category");
                let a = a.map(|v| self.string(v)).transpose()?.unwrap_or_default();
                let b = b.map(|v| self.string(v)).transpose()?.unwrap_or_default();
                match key.as_ref() {
                    "meta" => self.b.header_mut().meta.push((a, b)),
                    "component" => self
                        .b
                        .header_mut()
                        .components
                        .push((a, b.parse().unwrap_or(1))),
                    "unit" => {
                        let cat = cat.map(|v| self.string(v)).transpose()?.unwrap_or_default();
                        let f = c
                            .map(|v| self.string(v))
                            .transpose()?
                            .and_then(|s| s.parse().ok())
                            .unwrap_or(1.0);
                        self.b.header_mut().units.push((cat, a, f));
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// `-children`-like arrays: nodes and statements; nodes go to `parent`'s
    /// field (or are roots of the scene or of a prototype body).
    fn children(&mut self, raw: &Json<'s>, parent: Option<(NodeId, &str)>) -> R<()> {
        for item in self.objects(raw)? {
            for (key, value) in self.object(item)? {
                let span = self.span_of(value.raw);
                let id = match key.as_ref() {
                    k if k.starts_with('#') => continue,
                    "ROUTE" => {
                        self.route(value)?;
                        continue;
                    }
                    "ProtoDeclare" => {
                        self.proto(value)?;
                        continue;
                    }
                    "ExternProtoDeclare" => {
                        self.extern_proto(value)?;
                        continue;
                    }
                    "IMPORT" | "EXPORT" => {
                        self.import_export(key, value)?;
                        continue;
                    }
                    _ => match self.node(key, value) {
                        Err(Stop::Skip) => continue,
                        other => other?,
                    },
                };
                let Some(id) = id else { continue };
                match (parent, self.protos.last()) {
                    (Some((p, field)), _) => self.b.add_child(p, field, id, span),
                    (None, Some(&proto)) => self.b.add_proto_body_root(proto, id),
                    (None, None) => self.b.add_root(id),
                }
            }
        }
        Ok(())
    }

    fn route(&mut self, raw: &Json<'s>) -> R<()> {
        let span = self.span_of(raw.raw);
        let entries = self.object(raw)?;
        let mut parts = Vec::new();
        for key in ["@fromNode", "@fromField", "@toNode", "@toField"] {
            match get(entries, key) {
                Some(v) => {
                    let s = self.span_of(v.raw);
                    parts.push((self.string(v)?, s));
                }
                None => return self.fail(span, format!("ROUTE has no \"{key}\"")),
            }
        }
        let parts: [(String, Span); 4] = parts.try_into().map_err(|_| Stop::Fatal)?;
        self.b
            .add_route(parts.each_ref().map(|(p, s)| (p.as_str(), *s)), span);
        Ok(())
    }

    fn import_export(&mut self, key: &str, raw: &Json<'s>) -> R<()> {
        let span = self.span_of(raw.raw);
        let e = self.object(raw)?;
        let mut get = |n: &str| get(e, n).map(|v| self.string(v)).transpose();
        if key == "IMPORT" {
            let (Some(inline), Some(exported)) = (get("@inlineDEF")?, get("@importedDEF")?) else {
                return self.fail(span, "IMPORT needs \"@inlineDEF\" and \"@importedDEF\"");
            };
            let local = get("@AS")?.unwrap_or_else(|| exported.clone());
            self.b.import(&inline, &exported, &local, span);
        } else {
            let Some(local) = get("@localDEF")? else {
                return self.fail(span, "EXPORT needs \"@localDEF\"");
            };
            let name = get("@AS")?.unwrap_or_else(|| local.clone());
            self.b.export(&local, &name, span);
        }
        Ok(())
    }

    fn field_decls<'t>(&mut self, raw: &'t Json<'s>) -> R<Vec<(FieldDef, Option<&'t Json<'s>>)>> {
        let mut out = Vec::new();
        for item in self.objects(raw)? {
            let span = self.span_of(item.raw);
            let entries = self.object(item)?;
            let get = |name: &str| get(entries, name);
            let (Some(name), Some(ty)) = (get("@name"), get("@type")) else {
                return self.fail(span, "a field declaration needs \"@name\" and \"@type\"");
            };
            let name = self.string(name)?;
            let ty_name = self.string(ty)?;
            let Some(ty) = FieldType::from_name(&ty_name) else {
                return self.fail(span, format!("`{ty_name}` is not an X3D field type"));
            };
            let access = match get("@accessType") {
                Some(a) => {
                    let a = self.string(a)?;
                    match Access::from_name(&a) {
                        Some(a) => a,
                        None => return self.fail(span, format!("`{a}` is not an access type")),
                    }
                }
                None => Access::InputOutput,
            };
            let mut def = FieldDef {
                name,
                ty,
                access,
                default: Value::initial(ty),
                extension: false,
            };
            if let Some(v) = get("@value")
                && let Some(value) = self.value(ty, v, &def.name)?
            {
                def.default = value;
            }
            out.push((def, get("-children").or(get("-value"))));
        }
        Ok(out)
    }

    fn proto(&mut self, raw: &Json<'s>) -> R<()> {
        let span = self.span_of(raw.raw);
        let entries = self.object(raw)?;
        let name = match get(entries, "@name") {
            Some(v) => self.string(v)?,
            None => return self.fail(span, "ProtoDeclare has no \"@name\""),
        };
        let p = self.b.declare_proto(&name, None, span);
        for (key, value) in entries {
            match key.as_ref() {
                "ProtoInterface" => {
                    for (k, v) in self.object(value)? {
                        if k == "field" {
                            for (def, _) in self.field_decls(v)? {
                                self.b.add_proto_field(p, def);
                            }
                        }
                    }
                }
                "ProtoBody" => {
                    self.protos.push(p);
                    self.b.begin_proto_body(p);
                    let mut body = Ok(());
                    for (k, v) in self.object(value)? {
                        if k == "-children" {
                            body = self.children(v, None);
                        }
                    }
                    self.protos.pop();
                    self.b.end_proto_body(p);
                    body?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn extern_proto(&mut self, raw: &Json<'s>) -> R<()> {
        let span = self.span_of(raw.raw);
        let entries = self.object(raw)?;
        let mut name = String::new();
        let mut urls = Vec::new();
        let mut fields = Vec::new();
        for (key, value) in entries {
            match key.as_ref() {
                "@name" => name = self.string(value)?,
                "@url" => urls = self.strings(value)?,
                "field" => fields = self.field_decls(value)?,
                _ => {}
            }
        }
        let p = self.b.declare_proto(&name, Some(urls), span);
        for (def, _) in fields {
            self.b.add_proto_field(p, def);
        }
        Ok(())
    }

    /// A field value from its JSON form: numbers, arrays of numbers,
    /// booleans, strings, arrays of strings.
    fn value(&mut self, ty: FieldType, raw: &Json<'s>, name: &str) -> R<Option<Value>> {
        let (text, pos) = self.value_text(ty, raw)?;
        Ok(self.b.declared_value(name, ty, &text, pos))
    }

    /// A value as the text the XML encoding would have, with where it is.
    fn value_text(&mut self, ty: FieldType, raw: &Json<'s>) -> R<(Cow<'s, str>, TextPos)> {
        let span = self.span_of(raw.raw);
        if ty.scalar() == Scalar::String {
            let strings = self.strings(raw)?;
            let text = if ty.is_mf() {
                strings
                    .iter()
                    .map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")))
                    .collect::<Vec<_>>()
                    .join(" ")
            } else {
                strings.concat()
            };
            return Ok((Cow::Owned(text), TextPos::Field(span)));
        }
        match &raw.kind {
            Kind::String(s) => Ok((Cow::Owned(s.to_string()), TextPos::Field(span))),
            Kind::Array { .. } => {
                // Between the brackets: the numbers with their commas.
                let inner = &raw.raw[1..raw.raw.len() - 1];
                Ok((Cow::Borrowed(inner), TextPos::Verbatim(self.span_of(inner))))
            }
            _ => Ok((Cow::Borrowed(raw.raw), TextPos::Verbatim(span))),
        }
    }

    /// A node object `{ "@DEF": ..., "@field": value, "-field": nodes }`.
    fn node(&mut self, type_name: &str, raw: &Json<'s>) -> R<Option<NodeId>> {
        let span = self.span_of(raw.raw);
        if self.depth >= MAX_DEPTH {
            // At the node's opening brace: the whole object would be most of the file.
            // (A JSON value is never empty and starts with an ASCII character.)
            let brace = self.span_of(&raw.raw[..1]);
            return self.fail(brace, format!("nodes nest deeper than {MAX_DEPTH}"));
        }
        let entries = self.object(raw)?;
        let get = |name: &str| get(entries, name);
        if let Some(u) = get("@USE") {
            let name = self.string(u)?;
            let s = self.span_of(u.raw);
            return Ok(self.b.lookup_use(&name, s));
        }
        if !self.b.room_for_node(span) {
            return Err(Stop::Fatal);
        }
        let id = if type_name == "ProtoInstance" {
            let name = match get("@name") {
                Some(n) => self.string(n)?,
                None => return self.fail(span, "ProtoInstance has no \"@name\""),
            };
            self.b.new_proto_instance(&name, span)
        } else {
            self.b.new_node(type_name, span)
        };
        self.depth += 1;
        let result = self.node_body(id, type_name, entries);
        self.depth -= 1;
        result?;
        Ok(Some(id))
    }

    fn node_body(&mut self, id: NodeId, type_name: &str, entries: Members<'_, 's>) -> R<()> {
        for (key, value) in entries {
            match self.member(id, type_name, key, value) {
                Err(Stop::Skip) => continue,
                other => other?,
            }
        }
        Ok(())
    }

    /// One member of a node's object.
    fn member(&mut self, id: NodeId, type_name: &str, key: &str, value: &Json<'s>) -> R<()> {
        let vspan = self.span_of(value.raw);
        match key {
            "@DEF" => {
                let name = self.string(value)?;
                self.b.define(id, &name, vspan);
            }
            "@name" if type_name == "ProtoInstance" => {}
            "@containerField" | "@class" | "@id" | "@style" => {}
            // A Script's program, a line a string (the JSON encoding's
            // "#sourceCode"; "#sourceText" as some tools write it).
            "#sourceCode" | "#sourceText" if type_name == "Script" => {
                let code = self.strings(value)?.join("\n");
                if !code.trim().is_empty() {
                    let value = Value {
                        ty: FieldType::SFString,
                        data: Data::Strings(vec![code]),
                    };
                    self.b.set_value(id, "sourceCode", value, vspan);
                }
            }
            k if k.starts_with('#') => {}
            "IS" => {
                for (k, v) in self.object(value)? {
                    if k != "connect" {
                        continue;
                    }
                    for c in self.objects(v)? {
                        let e = self.object(c)?;
                        let get = |n: &str| get(e, n);
                        let (Some(nf), Some(pf)) = (get("@nodeField"), get("@protoField")) else {
                            return self
                                .fail(vspan, "connect needs \"@nodeField\" and \"@protoField\"");
                        };
                        let (nf, pf) = (self.string(nf)?, self.string(pf)?);
                        match self.protos.last() {
                            Some(&p) => self.b.connect(p, id, &nf, &pf, vspan),
                            None => self
                                .b
                                .diags()
                                .error("IS outside a prototype body", Some(vspan)),
                        }
                    }
                }
            }
            "field" => {
                for (def, nodes) in self.field_decls(value)? {
                    let name = def.name.clone();
                    self.b.declare_field(id, def);
                    if let Some(n) = nodes {
                        self.children(n, Some((id, &name)))?;
                    }
                }
            }
            "fieldValue" => {
                for fv in self.objects(value)? {
                    let e = self.object(fv)?;
                    let Some(n) = get(e, "@name") else {
                        return self.fail(vspan, "fieldValue has no \"@name\"");
                    };
                    let name = self.string(n)?;
                    for (k, v) in e {
                        match k.as_ref() {
                            "@value" => self.set_field(id, &name, v)?,
                            "-children" | "-value" => self.children(v, Some((id, &name)))?,
                            _ => {}
                        }
                    }
                }
            }
            k if k.starts_with('-') => self.children(value, Some((id, &k[1..])))?,
            k if k.starts_with('@') => self.set_field(id, &k[1..], value)?,
            _ => {}
        }
        Ok(())
    }

    fn set_field(&mut self, id: NodeId, name: &str, raw: &Json<'s>) -> R<()> {
        let ty = self.b.scene().field_def(id, name).map(|f| f.ty);
        let Some(ty) = ty else {
            // Not a field x3dbake knows: kept as its JSON text (with a
            // warning on known node types).
            let span = self.span_of(raw.raw);
            self.b
                .set_field_text(id, name, raw.raw, TextPos::Field(span));
            return Ok(());
        };
        let (text, pos) = self.value_text(ty, raw)?;
        self.b.set_field_text(id, name, &text, pos);
        Ok(())
    }
}
