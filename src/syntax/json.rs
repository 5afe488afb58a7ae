//! The X3D JSON encoding, read with serde_json. Objects are read one level
//! at a time with their values kept as raw text (`RawValue`) borrowed from
//! the source, so every value, and every error in it, has its exact place
//! in the file.

use crate::diag::{Diagnostic, Diagnostics};
use crate::scene::build::TextPos;
use crate::scene::value::{Encoding, Scalar};
use crate::scene::{Access, Builder, FieldDef, FieldType, NodeId, Scene, Value};
use crate::source::{FileId, SourceFile, Span};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// How deep nodes may nest before the reader gives up.
pub const MAX_DEPTH: usize = 500;

/// A JSON object's members in file order, values unparsed.
struct Entries<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Entries<'a>, M::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<Cow<'de, str>, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

struct Reader<'s, 'd> {
    file: FileId,
    text: &'s str,
    b: Builder<'d>,
    protos: Vec<usize>,
    depth: usize,
}

/// A parse failure: already reported; reading stops.
struct Stop;

type R<T> = Result<T, Stop>;

/// Reads an X3D JSON file into a scene.
pub fn read(source: &SourceFile, file: FileId, diags: &mut Diagnostics) -> Scene {
    let mut r = Reader {
        file,
        text: source.text(),
        b: Builder::new(diags, Encoding::Xml),
        protos: Vec::new(),
        depth: 0,
    };
    let _ = r.document();
    r.b.finish()
}

impl<'s> Reader<'s, '_> {
    /// The span of a raw value (it borrows from the source text).
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
        Err(Stop)
    }

    /// Parses raw JSON text as `T`; a syntax error is reported at its place.
    fn parse<T: serde::Deserialize<'s>>(&mut self, raw: &'s str) -> R<T> {
        match serde_json::from_str::<T>(raw) {
            Ok(v) => Ok(v),
            Err(e) => {
                // The error's line and column are within `raw`.
                let local: usize = raw
                    .split_inclusive('\n')
                    .take(e.line().saturating_sub(1))
                    .map(str::len)
                    .sum();
                let at = self.span_of(raw).start as usize + local + e.column().saturating_sub(1);
                let span = Span::new(self.file, at..at + 1);
                let msg = e.to_string();
                let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
                self.fail(span, format!("malformed JSON: {msg}"))
            }
        }
    }

    fn object(&mut self, raw: &'s RawValue) -> R<Vec<(Cow<'s, str>, &'s RawValue)>> {
        Ok(self.parse::<Entries<'s>>(raw.get())?.0)
    }

    fn array(&mut self, raw: &'s RawValue) -> R<Vec<&'s RawValue>> {
        self.parse::<Vec<&'s RawValue>>(raw.get())
    }

    /// An object, or each object of an array.
    fn objects(&mut self, raw: &'s RawValue) -> R<Vec<&'s RawValue>> {
        if raw.get().trim_start().starts_with('[') {
            self.array(raw)
        } else {
            Ok(vec![raw])
        }
    }

    fn string(&mut self, raw: &'s RawValue) -> R<String> {
        let t = raw.get().trim();
        if t.starts_with('"') {
            self.parse::<String>(t)
        } else {
            // Numbers and booleans as text (`"@level": 2`).
            Ok(t.to_string())
        }
    }

    fn document(&mut self) -> R<()> {
        let text = self.text;
        let top: Entries<'s> = self.parse(text)?;
        let Some((_, x3d)) = top.0.into_iter().find(|(k, _)| k == "X3D") else {
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

    fn head(&mut self, raw: &'s RawValue) -> R<()> {
        for (key, value) in self.object(raw)? {
            for item in self.objects(value)? {
                let entries = self.object(item)?;
                let get = |name: &str| entries.iter().find(|(k, _)| k == name).map(|(_, v)| *v);
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
    fn children(&mut self, raw: &'s RawValue, parent: Option<(NodeId, &str)>) -> R<()> {
        for item in self.objects(raw)? {
            for (key, value) in self.object(item)? {
                let span = self.span_of(value.get());
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
                        self.import_export(&key, value)?;
                        continue;
                    }
                    _ => self.node(&key, value)?,
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

    fn route(&mut self, raw: &'s RawValue) -> R<()> {
        let span = self.span_of(raw.get());
        let entries = self.object(raw)?;
        let mut parts = Vec::new();
        for key in ["@fromNode", "@fromField", "@toNode", "@toField"] {
            match entries.iter().find(|(k, _)| k == key) {
                Some((_, v)) => {
                    let s = self.span_of(v.get());
                    parts.push((self.string(v)?, s));
                }
                None => return self.fail(span, format!("ROUTE has no \"{key}\"")),
            }
        }
        let parts: [(String, Span); 4] = parts.try_into().map_err(|_| Stop)?;
        self.b.add_route(parts, span);
        Ok(())
    }

    fn import_export(&mut self, key: &str, raw: &'s RawValue) -> R<()> {
        let span = self.span_of(raw.get());
        let e = self.object(raw)?;
        let mut get = |n: &str| -> R<Option<String>> {
            match e.iter().find(|(k, _)| k == n) {
                Some((_, v)) => Ok(Some(self.string(v)?)),
                None => Ok(None),
            }
        };
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

    fn field_decls(&mut self, raw: &'s RawValue) -> R<Vec<(FieldDef, Option<&'s RawValue>)>> {
        let mut out = Vec::new();
        for item in self.objects(raw)? {
            let span = self.span_of(item.get());
            let entries = self.object(item)?;
            let get = |name: &str| entries.iter().find(|(k, _)| k == name).map(|(_, v)| *v);
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

    fn proto(&mut self, raw: &'s RawValue) -> R<()> {
        let span = self.span_of(raw.get());
        let entries = self.object(raw)?;
        let name = match entries.iter().find(|(k, _)| k == "@name") {
            Some((_, v)) => self.string(v)?,
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

    fn extern_proto(&mut self, raw: &'s RawValue) -> R<()> {
        let span = self.span_of(raw.get());
        let entries = self.object(raw)?;
        let mut name = String::new();
        let mut urls = Vec::new();
        let mut fields = Vec::new();
        for (key, value) in entries {
            match key.as_ref() {
                "@name" => name = self.string(value)?,
                "@url" => urls = self.parse::<Vec<String>>(value.get())?,
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
    fn value(&mut self, ty: FieldType, raw: &'s RawValue, name: &str) -> R<Option<Value>> {
        let (text, pos) = self.value_text(ty, raw)?;
        Ok(self.b.declared_value(name, ty, &text, pos))
    }

    /// A value as the text the XML encoding would have, with where it is.
    fn value_text(&mut self, ty: FieldType, raw: &'s RawValue) -> R<(Cow<'s, str>, TextPos)> {
        let t = raw.get().trim();
        let span = self.span_of(t);
        if ty.scalar() == Scalar::String {
            let strings: Vec<String> = if t.starts_with('[') {
                self.parse(t)?
            } else {
                vec![self.parse(t)?]
            };
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
        if t.starts_with('"') {
            let s: String = self.parse(t)?;
            return Ok((Cow::Owned(s), TextPos::Field(span)));
        }
        if let Some(inner) = t.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            let start = span.start as usize + 1;
            return Ok((
                Cow::Borrowed(inner),
                TextPos::Verbatim(Span::new(self.file, start..start + inner.len())),
            ));
        }
        Ok((Cow::Borrowed(t), TextPos::Verbatim(span)))
    }

    /// A node object `{ "@DEF": ..., "@field": value, "-field": nodes }`.
    fn node(&mut self, type_name: &str, raw: &'s RawValue) -> R<Option<NodeId>> {
        let span = self.span_of(raw.get());
        if self.depth >= MAX_DEPTH {
            // At the node's opening brace: the whole object would be most of the file.
            // (A JSON value is never empty and starts with an ASCII character.)
            let brace = self.span_of(&raw.get()[..1]);
            return self.fail(brace, format!("nodes nest deeper than {MAX_DEPTH}"));
        }
        let entries = self.object(raw)?;
        let get = |name: &str| entries.iter().find(|(k, _)| k == name).map(|(_, v)| *v);
        if let Some(u) = get("@USE") {
            let name = self.string(u)?;
            let s = self.span_of(u.get());
            return Ok(self.b.lookup_use(&name, s));
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

    fn node_body(
        &mut self,
        id: NodeId,
        type_name: &str,
        entries: Vec<(Cow<'s, str>, &'s RawValue)>,
    ) -> R<()> {
        for (key, value) in entries {
            let vspan = self.span_of(value.get());
            match key.as_ref() {
                "@DEF" => {
                    let name = self.string(value)?;
                    self.b.define(id, &name, vspan);
                }
                "@name" if type_name == "ProtoInstance" => {}
                "@containerField" | "@class" | "@id" | "@style" => {}
                k if k.starts_with('#') => {}
                "IS" => {
                    for (k, v) in self.object(value)? {
                        if k != "connect" {
                            continue;
                        }
                        for c in self.objects(v)? {
                            let e = self.object(c)?;
                            let get = |n: &str| e.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
                            let (Some(nf), Some(pf)) = (get("@nodeField"), get("@protoField"))
                            else {
                                return self.fail(
                                    vspan,
                                    "connect needs \"@nodeField\" and \"@protoField\"",
                                );
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
                        let Some((_, n)) = e.iter().find(|(k, _)| k == "@name") else {
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
        }
        Ok(())
    }

    fn set_field(&mut self, id: NodeId, name: &str, raw: &'s RawValue) -> R<()> {
        let ty = self
            .b
            .scene()
            .field_defs(id)
            .find(|f| f.name == name)
            .map(|f| f.ty);
        let Some(ty) = ty else {
            // Not a field x3dbake knows: kept as its JSON text (with a
            // warning on known node types).
            let span = self.span_of(raw.get());
            self.b
                .set_field_text(id, name, raw.get().trim(), TextPos::Field(span));
            return Ok(());
        };
        let (text, pos) = self.value_text(ty, raw)?;
        self.b.set_field_text(id, name, &text, pos);
        Ok(())
    }
}
