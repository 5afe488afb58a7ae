//! ClassicVRML (.x3dv) and VRML97 (.wrl): a hand-written lexer and a
//! recursive-descent parser that streams into the scene builder.
//!
//! Field values are found by the field's type where it is known (and read
//! straight from the source text, so errors point into it); values of
//! unknown fields are skipped by their shape and kept as text.

use crate::diag::{Diagnostic, Diagnostics};
use crate::limits::Limits;
use crate::scene::build::TextPos;
use crate::scene::value::{Encoding, Scalar, parse_value};
use crate::scene::{Access, Builder, FieldDef, FieldType, NodeId, Scene, Value};
use crate::source::{FileId, SourceFile, Span};

/// How deep nodes may nest before the reader gives up.
pub const MAX_DEPTH: usize = 500;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ident,
    Str,
    Num,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Dot,
    Eof,
    /// A character that starts no token.
    Bad,
}

#[derive(Clone, Copy, Debug)]
struct Tok {
    kind: Kind,
    start: usize,
    end: usize,
}

struct Lexer<'s> {
    text: &'s str,
    pos: usize,
    peeked: Vec<Tok>,
}

fn is_ident_byte(b: u8) -> bool {
    !(b <= b' '
        || matches!(
            b,
            b'"' | b'#' | b'\'' | b',' | b'.' | b'[' | b']' | b'\\' | b'{' | b'}' | 0x7f
        ))
}

impl<'s> Lexer<'s> {
    fn skip_space(&mut self) {
        let b = self.text.as_bytes();
        while self.pos < b.len() {
            match b[self.pos] {
                b' ' | b'\t' | b'\n' | b'\r' | b',' => self.pos += 1,
                b'#' if b[self.pos..].starts_with(b"#/*") => {
                    // A block comment `#/* ... */` (an Xj3D extension found
                    // in real files).
                    self.pos = match self.text[self.pos + 3..].find("*/") {
                        Some(e) => self.pos + 3 + e + 2,
                        None => b.len(),
                    };
                }
                b'#' => {
                    while self.pos < b.len() && b[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn lex(&mut self) -> Tok {
        self.skip_space();
        let b = self.text.as_bytes();
        let start = self.pos;
        if start >= b.len() {
            return Tok {
                kind: Kind::Eof,
                start,
                end: start,
            };
        }
        let one = |kind| (kind, start + 1);
        let (kind, end) = match b[start] {
            b'{' => one(Kind::LBrace),
            b'}' => one(Kind::RBrace),
            b'[' => one(Kind::LBracket),
            b']' => one(Kind::RBracket),
            b'.' if !b.get(start + 1).is_some_and(u8::is_ascii_digit) => one(Kind::Dot),
            b'"' => {
                let mut i = start + 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                (Kind::Str, (i + 1).min(b.len()))
            }
            c if c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.') => {
                let mut i = start + 1;
                while i < b.len() && (is_ident_byte(b[i]) || b[i] == b'.') {
                    i += 1;
                }
                (Kind::Num, i)
            }
            c if is_ident_byte(c) => {
                let mut i = start + 1;
                while i < b.len() && is_ident_byte(b[i]) {
                    i += 1;
                }
                (Kind::Ident, i)
            }
            _ => {
                // Step over one whole character.
                let len = self.text[start..].chars().next().map_or(1, char::len_utf8);
                (Kind::Bad, start + len)
            }
        };
        self.pos = end;
        Tok { kind, start, end }
    }

    fn peek_n(&mut self, n: usize) -> Tok {
        while self.peeked.len() <= n {
            let t = self.lex();
            self.peeked.push(t);
        }
        self.peeked[n]
    }

    fn peek(&mut self) -> Tok {
        self.peek_n(0)
    }

    fn next(&mut self) -> Tok {
        if self.peeked.is_empty() {
            self.lex()
        } else {
            self.peeked.remove(0)
        }
    }
}

/// A parse failure: already reported; reading stops.
struct Stop;

type R<T> = Result<T, Stop>;

struct Parser<'s, 'd> {
    file: FileId,
    text: &'s str,
    lx: Lexer<'s>,
    b: Builder<'d>,
    /// Prototypes whose bodies are open, innermost last.
    protos: Vec<usize>,
    depth: usize,
}

/// Reads a ClassicVRML or VRML97 file into a scene.
pub fn read(source: &SourceFile, file: FileId, limits: &Limits, diags: &mut Diagnostics) -> Scene {
    let text = source.text();
    let mut p = Parser {
        file,
        text,
        lx: Lexer {
            text,
            pos: 0,
            peeked: Vec::new(),
        },
        b: Builder::new(diags, Encoding::Vrml, limits.file_nodes),
        protos: Vec::new(),
        depth: 0,
    };
    let _ = p.statements(None);
    if !(text.starts_with("#VRML") || text.starts_with("#X3D")) {
        let span = p.span(0, 0);
        if p.b.holds_x3d_nodes() {
            p.b.diags()
                .warning("the file has no #VRML or #X3D header line", Some(span));
        } else {
            p.b.diags().error(
                "not an X3D scene: no #VRML or #X3D header line and no X3D node",
                Some(span),
            );
        }
    }
    p.b.finish()
}

impl<'s> Parser<'s, '_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start..end)
    }

    fn tspan(&self, t: Tok) -> Span {
        self.span(t.start, t.end)
    }

    fn s(&self, t: Tok) -> &'s str {
        &self.text[t.start..t.end]
    }

    fn error<T>(&mut self, t: Tok, msg: impl Into<String>) -> R<T> {
        let span = self.tspan(t);
        self.b.diags().push(Diagnostic::error(msg, Some(span)));
        Err(Stop)
    }

    fn describe(&self, t: Tok) -> String {
        match t.kind {
            Kind::Eof => "the end of the file".to_string(),
            _ => format!("`{}`", self.s(t)),
        }
    }

    fn expect(&mut self, kind: Kind, what: &str) -> R<Tok> {
        let t = self.lx.next();
        if t.kind == kind {
            Ok(t)
        } else {
            let found = self.describe(t);
            self.error(t, format!("expected {what}, found {found}"))
        }
    }

    fn ident(&mut self, what: &str) -> R<(&'s str, Tok)> {
        let t = self.expect(Kind::Ident, what)?;
        Ok((self.s(t), t))
    }

    /// Statements until `}` (inside a PROTO body) or the end of the file.
    fn statements(&mut self, proto: Option<usize>) -> R<()> {
        loop {
            let t = self.lx.peek();
            match t.kind {
                Kind::Eof if proto.is_none() => return Ok(()),
                Kind::RBrace if proto.is_some() => return Ok(()),
                Kind::Ident => {
                    if !self.statement(t)? {
                        let id = self.node(t)?;
                        if let Some(id) = id {
                            match proto {
                                Some(p) => self.b.add_proto_body_root(p, id),
                                None => self.b.add_root(id),
                            }
                        }
                    }
                }
                _ => {
                    let t = self.lx.next();
                    let found = self.describe(t);
                    return self.error(t, format!("expected a node or a statement, found {found}"));
                }
            }
        }
    }

    /// A statement that is not a node: header statements, ROUTE, PROTO,
    /// EXTERNPROTO, IMPORT, EXPORT. False when `t` starts a node instead.
    fn statement(&mut self, t: Tok) -> R<bool> {
        match self.s(t) {
            "PROFILE" => {
                self.lx.next();
                let (p, _) = self.ident("a profile name")?;
                self.b.header_mut().profile = Some(p.to_string());
            }
            "COMPONENT" => {
                // `COMPONENT Name:2`, also written `Name : 2`.
                self.lx.next();
                let (c, _) = self.ident("a component name")?;
                let (name, mut level) = c.split_once(':').unwrap_or((c, ""));
                let next = self.lx.peek();
                if level.is_empty() && next.kind == Kind::Ident && self.s(next).starts_with(':') {
                    let t = self.lx.next();
                    level = &self.s(t)[1..];
                    if level.is_empty() && self.lx.peek().kind == Kind::Num {
                        let t = self.lx.next();
                        level = self.s(t);
                    }
                }
                let level = level.parse().unwrap_or(1);
                self.b
                    .header_mut()
                    .components
                    .push((name.to_string(), level));
            }
            "META" => {
                self.lx.next();
                let k = self.string()?;
                let v = self.string()?;
                self.b.header_mut().meta.push((k, v));
            }
            "UNIT" => {
                self.lx.next();
                let (cat, _) = self.ident("a unit category")?;
                let (name, _) = self.ident("a unit name")?;
                let f = self.expect(Kind::Num, "a conversion factor")?;
                let factor = self.s(f).parse().unwrap_or(1.0);
                self.b
                    .header_mut()
                    .units
                    .push((cat.to_string(), name.to_string(), factor));
            }
            "ROUTE" => self.route()?,
            "PROTO" => self.proto()?,
            "EXTERNPROTO" => self.extern_proto()?,
            "IMPORT" => self.import()?,
            "EXPORT" => {
                let start = self.lx.next();
                let (local, _) = self.ident("a DEF name")?;
                let name = self.renamed(local)?;
                let span = self.tspan(start);
                self.b.export(local, name, span);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The name after `AS` when one follows (IMPORT, EXPORT), else `name`.
    fn renamed(&mut self, name: &'s str) -> R<&'s str> {
        if !self.next_is("AS") {
            return Ok(name);
        }
        self.lx.next();
        Ok(self.ident("a name")?.0)
    }

    /// The next token is this keyword.
    fn next_is(&mut self, word: &str) -> bool {
        let t = self.lx.peek();
        t.kind == Kind::Ident && self.s(t) == word
    }

    fn string(&mut self) -> R<String> {
        let t = self.expect(Kind::Str, "a quoted string")?;
        let v = parse_value(FieldType::SFString, self.s(t), Encoding::Vrml).map_err(|e| {
            let span = self.tspan(t);
            self.b.diags().error(e.message, Some(span));
            Stop
        })?;
        Ok(v.strings().first().cloned().unwrap_or_default())
    }

    fn route(&mut self) -> R<()> {
        let start = self.lx.next();
        let mut parts = Vec::new();
        for i in 0..2 {
            if i == 1 {
                let (to, t) = self.ident("TO")?;
                if to != "TO" {
                    return self.error(t, format!("expected TO, found `{to}`"));
                }
            }
            let (node, nt) = self.ident("a DEF name")?;
            self.expect(Kind::Dot, "`.` and a field name")?;
            let (field, ft) = self.ident("a field name")?;
            parts.push((node, self.tspan(nt)));
            parts.push((field, self.tspan(ft)));
        }
        let span = self.tspan(start);
        let parts: [(&str, Span); 4] = parts.try_into().map_err(|_| Stop)?;
        self.b.add_route(parts, span);
        Ok(())
    }

    fn import(&mut self) -> R<()> {
        let start = self.lx.next();
        let (inline, _) = self.ident("an Inline's DEF name")?;
        self.expect(Kind::Dot, "`.` and an exported name")?;
        let (exported, _) = self.ident("an exported name")?;
        let local = self.renamed(exported)?;
        let span = self.tspan(start);
        self.b.import(inline, exported, local, span);
        Ok(())
    }

    /// The interface of a PROTO or EXTERNPROTO: field declarations in [ ].
    fn interface(&mut self, proto: usize, with_values: bool) -> R<()> {
        self.expect(Kind::LBracket, "`[` and the interface")?;
        while self.lx.peek().kind != Kind::RBracket {
            let t = self.lx.peek();
            if t.kind != Kind::Ident {
                let found = self.describe(t);
                return self.error(
                    t,
                    format!("expected a field declaration or `]`, found {found}"),
                );
            }
            let def = self.field_decl(with_values, None)?;
            if let Some(def) = def {
                self.b.add_proto_field(proto, def);
            }
        }
        self.lx.next();
        Ok(())
    }

    /// `access Type name [value]`, or with `IS protoField` inside a body
    /// (for a node that declares its own fields: `node`).
    fn field_decl(&mut self, with_values: bool, node: Option<NodeId>) -> R<Option<FieldDef>> {
        let (access_word, at) = self.ident("an access type")?;
        let Some(access) = Access::from_name(access_word) else {
            return self.error(at, format!("`{access_word}` is not an access type (field, exposedField, eventIn, eventOut, initializeOnly, inputOutput, inputOnly, outputOnly)"));
        };
        let (ty_word, tt) = self.ident("a field type")?;
        let Some(ty) = FieldType::from_name(ty_word) else {
            return self.error(tt, format!("`{ty_word}` is not an X3D field type"));
        };
        let (name, _) = self.ident("a field name")?;
        let mut def = FieldDef {
            name: name.to_string(),
            ty,
            access,
            default: Value::initial(ty),
            extension: false,
        };
        let next = self.lx.peek();
        if next.kind == Kind::Ident && self.s(next) == "IS" {
            self.lx.next();
            let (pf, pt) = self.ident("a prototype field")?;
            if let Some(id) = node {
                self.b.declare_field(id, def);
                self.connect(id, name, pf, pt)?;
                return Ok(None);
            }
            return Ok(Some(def));
        }
        let has_value =
            with_values && matches!(access, Access::InitializeOnly | Access::InputOutput);
        if has_value {
            if ty.scalar() == Scalar::Node {
                let nodes = self.node_value(ty)?;
                def.default.data = crate::scene::value::Data::Nodes(nodes);
            } else {
                let (text, pos) = self.typed_text(ty)?;
                if let Some(v) = self.b.declared_value(name, ty, text, pos) {
                    def.default = v;
                }
            }
        }
        Ok(Some(def))
    }

    fn connect(&mut self, node: NodeId, field: &str, proto_field: &str, t: Tok) -> R<()> {
        let span = self.tspan(t);
        match self.protos.last() {
            Some(&p) => self.b.connect(p, node, field, proto_field, span),
            None => self
                .b
                .diags()
                .error("IS outside a prototype body", Some(span)),
        }
        Ok(())
    }

    fn proto(&mut self) -> R<()> {
        let start = self.lx.next();
        let (name, _) = self.ident("a prototype name")?;
        let span = self.tspan(start);
        let p = self.b.declare_proto(name, None, span);
        self.interface(p, true)?;
        self.expect(Kind::LBrace, "`{` and the prototype body")?;
        self.protos.push(p);
        self.b.begin_proto_body(p);
        let body = self.statements(Some(p));
        self.protos.pop();
        self.b.end_proto_body(p);
        body?;
        self.expect(Kind::RBrace, "`}`")?;
        Ok(())
    }

    fn extern_proto(&mut self) -> R<()> {
        let start = self.lx.next();
        let (name, _) = self.ident("a prototype name")?;
        let span = self.tspan(start);
        let p = self.b.declare_proto(name, Some(Vec::new()), span);
        self.interface(p, false)?;
        let (text, _) = self.typed_text(FieldType::MFString)?;
        let urls = parse_value(FieldType::MFString, text, Encoding::Vrml)
            .map(|v| v.strings().to_vec())
            .unwrap_or_default();
        self.b.set_extern_url(p, urls);
        Ok(())
    }

    /// A node: `[DEF name] Type { ... }`, `USE name`, or `NULL` (None).
    fn node(&mut self, first: Tok) -> R<Option<NodeId>> {
        let t = self.lx.next();
        debug_assert_eq!(t.start, first.start);
        let word = self.s(t);
        match word {
            "NULL" => return Ok(None),
            "USE" => {
                let (name, nt) = self.ident("a DEF name")?;
                let span = self.tspan(nt);
                return Ok(self.b.lookup_use(name, span));
            }
            _ => {}
        }
        let (def, type_tok) = if word == "DEF" {
            let (name, nt) = self.ident("a DEF name")?;
            let (_, tt) = self.ident("a node type")?;
            (Some((name, nt)), tt)
        } else {
            (None, t)
        };
        if self.depth >= MAX_DEPTH {
            return self.error(type_tok, format!("nodes nest deeper than {MAX_DEPTH}"));
        }
        let type_name = self.s(type_tok);
        let span = self.tspan(type_tok);
        if !self.b.room_for_node(span) {
            return Err(Stop);
        }
        let id = if crate::scene::node_def(type_name).is_none()
            && self.b.proto_named(type_name).is_some()
        {
            self.b.new_proto_instance(type_name, span)
        } else {
            self.b.new_node(type_name, span)
        };
        if let Some((name, nt)) = def {
            let s = self.tspan(nt);
            self.b.define(id, name, s);
        }
        self.expect(Kind::LBrace, "`{`")?;
        self.depth += 1;
        let body = self.body(id);
        self.depth -= 1;
        body?;
        self.expect(Kind::RBrace, "`}`")?;
        Ok(Some(id))
    }

    /// The fields of a node, up to its `}`.
    fn body(&mut self, id: NodeId) -> R<()> {
        loop {
            let t = self.lx.peek();
            match t.kind {
                Kind::RBrace => return Ok(()),
                Kind::Ident => {}
                _ => {
                    let t = self.lx.next();
                    let found = self.describe(t);
                    return self.error(t, format!("expected a field name or `}}`, found {found}"));
                }
            }
            let word = self.s(t);
            if matches!(
                word,
                "ROUTE" | "PROTO" | "EXTERNPROTO" | "IMPORT" | "EXPORT"
            ) {
                self.statement(t)?;
                continue;
            }
            if Access::from_name(word).is_some() && self.lx.peek_n(1).kind == Kind::Ident {
                if let Some(def) = self.field_decl(true, Some(id))? {
                    self.b.declare_field(id, def);
                }
                continue;
            }
            let name_tok = self.lx.next();
            let name = self.s(name_tok);
            let next = self.lx.peek();
            if next.kind == Kind::Ident && self.s(next) == "IS" {
                self.lx.next();
                let (pf, pt) = self.ident("a prototype field")?;
                self.connect(id, name, pf, pt)?;
                continue;
            }
            self.field_value(id, name, name_tok)?;
        }
    }

    /// The value of field `name` of node `id`.
    fn field_value(&mut self, id: NodeId, name: &str, name_tok: Tok) -> R<()> {
        let ty = self.b.scene().field_def(id, name).map(|f| f.ty);
        match ty {
            Some(ty) if ty.scalar() == Scalar::Node => {
                let nodes = self.node_value(ty)?;
                let span = self.tspan(name_tok);
                for n in nodes {
                    self.b.add_child(id, name, n, span);
                }
            }
            Some(ty) => {
                let (text, pos) = self.typed_text(ty)?;
                self.b.set_field_text(id, name, text, pos);
            }
            None => self.unknown_value(id, name, name_tok)?,
        }
        Ok(())
    }

    /// SFNode: a node or NULL; MFNode: `[ nodes ]` or one node.
    fn node_value(&mut self, ty: FieldType) -> R<Vec<NodeId>> {
        let t = self.lx.peek();
        let mut out = Vec::new();
        if t.kind == Kind::LBracket && ty.is_mf() {
            self.lx.next();
            loop {
                let t = self.lx.peek();
                match t.kind {
                    Kind::RBracket => {
                        self.lx.next();
                        break;
                    }
                    Kind::Ident => {
                        if self.statement(t)? {
                            continue;
                        }
                        out.extend(self.node(t)?);
                    }
                    _ => {
                        let t = self.lx.next();
                        let found = self.describe(t);
                        return self.error(t, format!("expected a node or `]`, found {found}"));
                    }
                }
            }
        } else if t.kind == Kind::Ident {
            out.extend(self.node(t)?);
        } else {
            let t = self.lx.next();
            let found = self.describe(t);
            return self.error(t, format!("expected a node, found {found}"));
        }
        Ok(out)
    }

    /// The source text of a typed value: inside `[ ]`, or as many tokens as
    /// one value of the type has.
    fn typed_text(&mut self, ty: FieldType) -> R<(&'s str, TextPos)> {
        let first = self.lx.peek();
        if first.kind == Kind::LBracket {
            self.lx.next();
            let open = first.end;
            loop {
                let t = self.lx.next();
                match t.kind {
                    Kind::RBracket => {
                        let span = self.span(open, t.start);
                        return Ok((&self.text[open..t.start], TextPos::Verbatim(span)));
                    }
                    Kind::Num | Kind::Str | Kind::Ident => {}
                    _ => {
                        let found = self.describe(t);
                        return self.error(
                            t,
                            format!("expected a {} value or `]`, found {found}", ty.single()),
                        );
                    }
                }
            }
        }
        let count = match ty.scalar() {
            Scalar::String | Scalar::Bool => 1,
            _ if ty.single() == FieldType::SFImage => self.image_len(),
            _ => ty.components(),
        };
        let mut end = first.start;
        for _ in 0..count {
            let t = self.lx.peek();
            let ok = match ty.scalar() {
                Scalar::String => t.kind == Kind::Str,
                Scalar::Bool => t.kind == Kind::Ident,
                _ => t.kind == Kind::Num,
            };
            if !ok {
                break;
            }
            end = self.lx.next().end;
        }
        if end == first.start {
            let t = self.lx.next();
            let found = self.describe(t);
            return self.error(t, format!("expected a {ty} value, found {found}"));
        }
        let span = self.span(first.start, end);
        Ok((&self.text[first.start..end], TextPos::Verbatim(span)))
    }

    /// The numbers of an SFImage: width height components, then a pixel
    /// each.
    fn image_len(&mut self) -> usize {
        let n = |p: &mut Self, i| {
            let t = p.lx.peek_n(i);
            if t.kind == Kind::Num {
                p.s(t).parse::<usize>().ok()
            } else {
                None
            }
        };
        match (n(self, 0), n(self, 1)) {
            (Some(w), Some(h)) => 3 + w.saturating_mul(h).min(1 << 26),
            _ => 3,
        }
    }

    /// A value whose type is not known: by its shape; nodes in it are read.
    fn unknown_value(&mut self, id: NodeId, name: &str, name_tok: Tok) -> R<()> {
        let t = self.lx.peek();
        let start = t.start;
        let word_is_node = |p: &mut Self, t: Tok| {
            let w = p.s(t);
            w == "DEF"
                || w == "USE"
                || (w != "TRUE"
                    && w != "FALSE"
                    && w != "NULL"
                    && p.lx.peek_n(1).kind == Kind::LBrace)
        };
        match t.kind {
            Kind::Ident if word_is_node(self, t) => {
                let span = self.tspan(name_tok);
                if let Some(n) = self.node(t)? {
                    self.b.add_child(id, name, n, span);
                }
                return Ok(());
            }
            Kind::LBracket => {
                let inner = self.lx.peek_n(1);
                if inner.kind == Kind::Ident && !matches!(self.s(inner), "TRUE" | "FALSE" | "NULL")
                {
                    let nodes = self.node_value(FieldType::MFNode)?;
                    let span = self.tspan(name_tok);
                    for n in nodes {
                        self.b.add_child(id, name, n, span);
                    }
                    return Ok(());
                }
                self.typed_text(FieldType::MFString)?;
            }
            Kind::Num => {
                while self.lx.peek().kind == Kind::Num {
                    self.lx.next();
                }
            }
            Kind::Str | Kind::Ident => {
                self.lx.next();
            }
            _ => {
                let t = self.lx.next();
                let found = self.describe(t);
                return self.error(t, format!("expected a value for `{name}`, found {found}"));
            }
        }
        let end = self.lx.peeked.first().map_or(self.lx.pos, |t| t.start);
        let text = self.text[start..end].trim_end();
        let span = self.span(start, start + text.len());
        self.b.set_field_text(id, name, text, TextPos::Field(span));
        Ok(())
    }
}
