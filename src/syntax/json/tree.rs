//! JSON text to a tree of values that borrow from it, in one pass, each
//! value with its text so that the reader can say where it is. The parser
//! keeps its open arrays and objects in a list, not on the call stack, and
//! the tree is dropped the same way, so nesting costs no stack, however
//! deep (the reader limits how deep nodes nest).

use std::borrow::Cow;

/// A JSON value.
pub struct Json<'s> {
    /// The value's text, from its first character to its last.
    pub raw: &'s str,
    pub kind: Kind<'s>,
}

pub enum Kind<'s> {
    /// The members in file order, repeated names included.
    Object(Vec<(Cow<'s, str>, Json<'s>)>),
    /// The strings, arrays and objects of an array, in order. Its numbers,
    /// booleans and nulls are checked but not kept one by one (X3D reads
    /// arrays of numbers from their text): only the first one's text, so
    /// that an array that should hold none can say where one is.
    Array {
        items: Vec<Json<'s>>,
        first_scalar: Option<&'s str>,
    },
    String(Cow<'s, str>),
    /// A number, `true`, `false` or `null`.
    Scalar,
}

impl Drop for Json<'_> {
    /// Without recursion: the values inside are moved to a list and
    /// dropped from there, each with its own values already moved out.
    fn drop(&mut self) {
        let mut inside = Vec::new();
        self.kind.move_values(&mut inside);
        while let Some(mut v) = inside.pop() {
            v.kind.move_values(&mut inside);
        }
    }
}

impl<'s> Kind<'s> {
    fn move_values(&mut self, to: &mut Vec<Json<'s>>) {
        match self {
            Kind::Object(members) => to.extend(members.drain(..).map(|(_, v)| v)),
            Kind::Array { items, .. } => to.append(items),
            Kind::String(_) | Kind::Scalar => {}
        }
    }
}

impl Kind<'_> {
    /// What the value is, for messages: "an object", "a number", ...
    pub fn describe(&self, raw: &str) -> &'static str {
        match self {
            Kind::Object(_) => "an object",
            Kind::Array { .. } => "an array",
            Kind::String(_) => "a string",
            // A scalar is `null`, `true`, `false` or a number, which starts
            // with `-` or a digit: its first byte tells (and, unlike a string
            // comparison, gives a fuzzer no partial matches to chase).
            Kind::Scalar => match raw.as_bytes().first() {
                Some(b'n') => "null",
                Some(b't' | b'f') => "a boolean",
                _ => "a number",
            },
        }
    }
}

/// Text that is not JSON: what is wrong, at which byte.
#[derive(Debug, PartialEq)]
pub struct Error {
    pub at: usize,
    pub msg: &'static str,
}

/// An array or object being read.
enum Open<'s> {
    Object {
        start: usize,
        entries: Vec<(Cow<'s, str>, Json<'s>)>,
        /// The name of the member whose value is being read.
        key: Cow<'s, str>,
    },
    Array {
        start: usize,
        items: Vec<Json<'s>>,
        first_scalar: Option<&'s str>,
    },
}

struct Parser<'s> {
    text: &'s str,
    pos: usize,
}

/// Parses a whole JSON text (one value, with white space around it and a
/// byte order mark before it allowed).
pub fn parse(text: &str) -> Result<Json<'_>, Error> {
    let mut p = Parser {
        text,
        pos: if text.starts_with('\u{feff}') { 3 } else { 0 },
    };
    let mut open: Vec<Open> = Vec::new();
    'value: loop {
        p.skip_space();
        let start = p.pos;
        let mut done = match p.peek() {
            Some(c @ (b'{' | b'[')) => {
                p.pos += 1;
                p.skip_space();
                let close = if c == b'{' { b'}' } else { b']' };
                if p.peek() == Some(close) {
                    p.pos += 1;
                    let kind = if c == b'{' {
                        Kind::Object(Vec::new())
                    } else {
                        Kind::Array {
                            items: Vec::new(),
                            first_scalar: None,
                        }
                    };
                    p.value(start, kind)
                } else {
                    open.push(if c == b'{' {
                        Open::Object {
                            start,
                            entries: Vec::new(),
                            key: p.key()?,
                        }
                    } else {
                        Open::Array {
                            start,
                            items: Vec::new(),
                            first_scalar: None,
                        }
                    });
                    continue 'value;
                }
            }
            Some(b'"') => {
                let s = p.string()?;
                p.value(start, Kind::String(s))
            }
            Some(b'-' | b'0'..=b'9') => {
                p.number()?;
                p.value(start, Kind::Scalar)
            }
            Some(_) => {
                p.literal()?;
                p.value(start, Kind::Scalar)
            }
            None => return Err(p.error("EOF while parsing a value")),
        };
        // Put the value in its array or object; close those that end here.
        loop {
            p.skip_space();
            let next = p.peek();
            match open.last_mut() {
                None if next.is_none() => return Ok(done),
                None => return Err(p.error("trailing characters")),
                Some(Open::Object { entries, key, .. }) => {
                    entries.push((std::mem::take(key), done));
                    match next {
                        Some(b',') => {
                            p.pos += 1;
                            *key = p.key()?;
                            continue 'value;
                        }
                        Some(b'}') => {}
                        Some(_) => return Err(p.error("expected `,` or `}`")),
                        None => return Err(p.error("EOF while parsing an object")),
                    }
                }
                Some(Open::Array {
                    items,
                    first_scalar,
                    ..
                }) => {
                    match done.kind {
                        Kind::Scalar => {
                            first_scalar.get_or_insert(done.raw);
                        }
                        _ => items.push(done),
                    }
                    match next {
                        Some(b',') => {
                            p.pos += 1;
                            continue 'value;
                        }
                        Some(b']') => {}
                        Some(_) => return Err(p.error("expected `,` or `]`")),
                        None => return Err(p.error("EOF while parsing an array")),
                    }
                }
            }
            // A closing bracket or brace: the container is done.
            p.pos += 1;
            done = match open.pop() {
                Some(Open::Object { start, entries, .. }) => p.value(start, Kind::Object(entries)),
                Some(Open::Array {
                    start,
                    items,
                    first_scalar,
                }) => p.value(
                    start,
                    Kind::Array {
                        items,
                        first_scalar,
                    },
                ),
                None => unreachable!("a container was open"),
            };
        }
    }
}

impl<'s> Parser<'s> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn error(&self, msg: &'static str) -> Error {
        Error { at: self.pos, msg }
    }

    /// The value that started at `start` and ends before the current place.
    fn value(&self, start: usize, kind: Kind<'s>) -> Json<'s> {
        Json {
            raw: &self.text[start..self.pos],
            kind,
        }
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// A member's name and its colon.
    fn key(&mut self) -> Result<Cow<'s, str>, Error> {
        self.skip_space();
        match self.peek() {
            Some(b'"') => {}
            Some(_) => return Err(self.error("key must be a string")),
            None => return Err(self.error("EOF while parsing an object")),
        }
        let key = self.string()?;
        self.skip_space();
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                Ok(key)
            }
            Some(_) => Err(self.error("expected `:`")),
            None => Err(self.error("EOF while parsing an object")),
        }
    }

    /// A string, at its opening quote; borrowed unless it has escapes.
    fn string(&mut self) -> Result<Cow<'s, str>, Error> {
        self.pos += 1;
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let mut owned: Option<String> = None;
        let mut from = start;
        loop {
            let Some(&c) = bytes.get(self.pos) else {
                return Err(self.error("EOF while parsing a string"));
            };
            match c {
                b'"' => {
                    let tail = &self.text[from..self.pos];
                    self.pos += 1;
                    return Ok(match owned {
                        Some(mut s) => {
                            s.push_str(tail);
                            Cow::Owned(s)
                        }
                        None => Cow::Borrowed(tail),
                    });
                }
                b'\\' => {
                    let s = owned.get_or_insert_with(String::new);
                    s.push_str(&self.text[from..self.pos]);
                    self.pos += 1;
                    let e = self.escape()?;
                    s.push(e);
                    from = self.pos;
                }
                0..=0x1f => {
                    return Err(self.error("control character in a string"));
                }
                _ => self.pos += 1,
            }
        }
    }

    /// The character an escape stands for, after its backslash.
    fn escape(&mut self) -> Result<char, Error> {
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let high = self.hex4()?;
                let code = match high {
                    0xd800..=0xdbff => {
                        if !self.text[self.pos..].starts_with("\\u") {
                            return Err(self.error("lone leading surrogate in hex escape"));
                        }
                        self.pos += 2;
                        let low = self.hex4()?;
                        if !(0xdc00..=0xdfff).contains(&low) {
                            return Err(Error {
                                at: self.pos - 6,
                                msg: "lone leading surrogate in hex escape",
                            });
                        }
                        0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00)
                    }
                    0xdc00..=0xdfff => {
                        return Err(Error {
                            at: self.pos - 6,
                            msg: "lone trailing surrogate in hex escape",
                        });
                    }
                    c => c,
                };
                return Ok(char::from_u32(code).expect("not a surrogate"));
            }
            Some(_) => return Err(self.error("invalid escape")),
            None => return Err(self.error("EOF while parsing a string")),
        };
        self.pos += 1;
        Ok(c)
    }

    /// Four hexadecimal digits.
    fn hex4(&mut self) -> Result<u32, Error> {
        let mut v = 0;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c) => (c as char).to_digit(16),
                None => return Err(self.error("EOF while parsing a string")),
            };
            let Some(d) = d else {
                return Err(self.error("invalid hex escape"));
            };
            v = v * 16 + d;
            self.pos += 1;
        }
        Ok(v)
    }

    /// Digits, at least one.
    fn digits(&mut self) -> Result<(), Error> {
        if !matches!(self.peek(), Some(b'0'..=b'9')) {
            return Err(self.error("invalid number"));
        }
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        Ok(())
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Result<(), Error> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
            if matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("invalid number"));
            }
        } else {
            self.digits()?;
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.digits()?;
        }
        Ok(())
    }

    /// `true`, `false` or `null`.
    fn literal(&mut self) -> Result<(), Error> {
        let rest = &self.text[self.pos..];
        match ["true", "false", "null"]
            .iter()
            .find(|w| rest.starts_with(*w))
        {
            Some(w) => {
                self.pos += w.len();
                Ok(())
            }
            None => Err(self.error("expected value")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> (usize, &'static str) {
        match parse(text) {
            Ok(_) => panic!("{text:?} parsed"),
            Err(e) => (e.at, e.msg),
        }
    }

    #[test]
    fn values_keep_their_text_and_strings_their_meaning() {
        let text =
            " {\"a\": [1, \"x\\u00e9\\ud83d\\ude00\\n\", {\"b\": true}, -0.5e+3],\"c\":null } ";
        let v = parse(text).unwrap();
        assert_eq!(v.raw, text.trim());
        let Kind::Object(members) = &v.kind else {
            panic!("an object")
        };
        assert_eq!(members.len(), 2);
        assert_eq!(members[0].0, "a");
        assert_eq!(members[1].0, "c");
        assert_eq!(members[1].1.raw, "null");
        let Kind::Array {
            items,
            first_scalar,
        } = &members[0].1.kind
        else {
            panic!("an array")
        };
        assert_eq!(*first_scalar, Some("1"));
        assert_eq!(items.len(), 2);
        assert!(matches!(&items[0].kind, Kind::String(s) if s == "xé😀\n"));
        assert_eq!(items[1].raw, "{\"b\": true}");
        assert!(matches!(items[0].kind, Kind::String(Cow::Owned(_))));
        let plain = parse("\"plain\"").unwrap();
        assert!(matches!(plain.kind, Kind::String(Cow::Borrowed("plain"))));
    }

    #[test]
    fn malformed_text_is_reported_where_it_goes_wrong() {
        assert_eq!(err("{\"a\": 1,}"), (8, "key must be a string"));
        assert_eq!(err("{\"a\" 1}"), (5, "expected `:`"));
        assert_eq!(err("[1 2]"), (3, "expected `,` or `]`"));
        assert_eq!(err("{\"a\":1 \"b\"}"), (7, "expected `,` or `}`"));
        assert_eq!(err("[1, 2"), (5, "EOF while parsing an array"));
        assert_eq!(err("{\"a\":1"), (6, "EOF while parsing an object"));
        assert_eq!(err("\"abc"), (4, "EOF while parsing a string"));
        assert_eq!(err(""), (0, "EOF while parsing a value"));
        assert_eq!(err("[01]"), (2, "invalid number"));
        assert_eq!(err("[1.]"), (3, "invalid number"));
        assert_eq!(err("[-]"), (2, "invalid number"));
        assert_eq!(err("[1e+]"), (4, "invalid number"));
        assert_eq!(err("[tru]"), (1, "expected value"));
        assert_eq!(err("[NaN]"), (1, "expected value"));
        assert_eq!(err("\"a\tb\""), (2, "control character in a string"));
        assert_eq!(err("\"\\x\""), (2, "invalid escape"));
        assert_eq!(err("\"\\u12g4\""), (5, "invalid hex escape"));
        assert_eq!(
            err("\"\\ud800\""),
            (7, "lone leading surrogate in hex escape")
        );
        assert_eq!(
            err("\"\\ud800\\u0041\""),
            (7, "lone leading surrogate in hex escape")
        );
        assert_eq!(
            err("\"\\udc00\""),
            (1, "lone trailing surrogate in hex escape")
        );
        assert_eq!(err("{} {}"), (3, "trailing characters"));
        assert!(parse("\u{feff}{}").is_ok());
    }

    #[test]
    fn values_describe_their_kind() {
        let v = parse(r#"[{}, [], "s", null, true, false, 0, -1.5, 2e3]"#).unwrap();
        let Kind::Array { items, .. } = &v.kind else {
            panic!("an array");
        };
        let described: Vec<_> = items.iter().map(|i| i.kind.describe(i.raw)).collect();
        assert_eq!(described, ["an object", "an array", "a string"]);
        let scalars = ["null", "true", "false", "0", "-1.5", "2e3"].map(|s| {
            let v = parse(s).unwrap();
            v.kind.describe(v.raw)
        });
        let want = ["null", "a boolean", "a boolean"]
            .into_iter()
            .chain(["a number"; 3]);
        assert!(scalars.into_iter().eq(want));
    }

    /// As serde_json, which this parser replaced, on what both read.
    #[test]
    fn agrees_with_serde_json_on_valid_text() {
        let text =
            r#"{"k": [0, -1.5e-3, 1E2, true, false, null, "s\"\\\/\b\f\n\r\t\u0001"], "": {}}"#;
        let ours = parse(text).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
        let Kind::Object(m) = &ours.kind else {
            panic!()
        };
        let Kind::Array { items, .. } = &m[0].1.kind else {
            panic!()
        };
        let Kind::String(s) = &items[0].kind else {
            panic!()
        };
        assert_eq!(theirs["k"][6].as_str(), Some(s.as_ref()));
        assert_eq!(m[0].1.raw, &text[6..text.find("], ").unwrap() + 1]);
    }

    #[test]
    fn nesting_costs_no_stack() {
        let n = 1_000_000;
        let deep = "[{\"a\":".repeat(n) + "0" + &"}]".repeat(n);
        let small = std::thread::Builder::new().stack_size(64 << 10);
        let done = small.spawn(move || parse(&deep).map(|v| v.raw.len()));
        assert_eq!(done.unwrap().join().unwrap(), Ok(8 * n + 1));
    }
}
