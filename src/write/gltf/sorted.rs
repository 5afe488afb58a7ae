//! JSON text with every object's members in the order of their keys, made
//! from the compact text serde_json writes, as a round trip through
//! `serde_json::Value` (a `BTreeMap` of members) would make it, without
//! reading any number: scalars are copied as they are (a number serde_json
//! wrote, read into an f64 and written again, is the same text: both are
//! the shortest that reads back), members are reordered and, of members
//! with the same key, the last is kept; members gltf-json cannot hold
//! (KHR_animation_pointer targets, morph targets' texture coordinates) are
//! set on the way. The round trip took 3.5 ms of `--compress` at
//! bigscene's 10 MB, and 56 ms (and 25 MiB) of a bake of 3 000 animated
//! colours, most of it reading floats.

use std::borrow::Cow;
use std::cmp::Ordering;

/// A step down to a value: an object's member (its key as written, without
/// its quotes) or an array's element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step<'t> {
    Key(&'t str),
    Index(usize),
}

/// Members an object is given as it is copied, each replacing any of the
/// same key: the key, and the value's JSON text as a `serde_json::Value`
/// writes it (copied as it is).
pub(super) type Members = Vec<(&'static str, String)>;

/// `text` (compact JSON as serde_json writes it) with every object's keys
/// in order, each object given the members `set` says for its path (from
/// the document's root), as setting them in a `serde_json::Value` would.
pub(super) fn keys_in_order(text: &str, set: &dyn Fn(&[Step]) -> Members) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copier = Copier {
        text,
        at: 0,
        path: Vec::new(),
        set,
        scratch: Vec::new(),
    };
    copier.value(&mut out);
    out
}

/// Copies a JSON text, where it is, and the path down to there.
struct Copier<'t, 's> {
    text: &'t str,
    at: usize,
    path: Vec<Step<'t>>,
    set: &'s dyn Fn(&[Step]) -> Members,
    /// What an object's members are gathered in, for each depth of the
    /// path (an object's members lie deeper than it), kept from one
    /// object to the next (made for each, and grown, they were a quarter
    /// of the copying).
    scratch: Vec<Gathered<'t>>,
}

/// An object's members (each key, and where its value lies in the text
/// beside) and their values' text.
type Gathered<'t> = (Vec<(Key<'t>, usize, usize)>, String);

impl<'t> Copier<'t, '_> {
    /// Copies the value here into `out` (objects' keys in order), and goes
    /// on after it.
    fn value(&mut self, out: &mut String) {
        let (text, bytes) = (self.text, self.text.as_bytes());
        let start = self.at;
        match bytes[start] {
            b'{' => self.object(out),
            b'[' => {
                out.push('[');
                self.at += 1;
                if bytes[self.at] == b']' {
                    self.at += 1;
                    out.push(']');
                    return;
                }
                for k in 0.. {
                    self.path.push(Step::Index(k));
                    self.value(out);
                    self.path.pop();
                    let end = bytes[self.at];
                    self.at += 1;
                    out.push(end as char);
                    if end == b']' {
                        return;
                    }
                }
            }
            b'"' => {
                skip_string(bytes, &mut self.at);
                out.push_str(&text[start..self.at]);
            }
            _ => {
                // A number, true, false or null: up to what ends it.
                while self.at < bytes.len() && !matches!(bytes[self.at], b',' | b']' | b'}') {
                    self.at += 1;
                }
                number(&text[start..self.at], out);
            }
        }
    }

    /// Copies the object here into `out`, its members (and those `set`
    /// gives it) in the order of their keys.
    fn object(&mut self, out: &mut String) {
        let (text, bytes) = (self.text, self.text.as_bytes());
        self.at += 1;
        out.push('{');
        // Each member: its key and where its value lies in `values`.
        let depth = self.path.len();
        if self.scratch.len() <= depth {
            self.scratch.resize_with(depth + 1, Default::default);
        }
        let (mut members, mut values) = std::mem::take(&mut self.scratch[depth]);
        if bytes[self.at] == b'}' {
            self.at += 1;
        } else {
            loop {
                let key = self.at;
                skip_string(bytes, &mut self.at);
                let key = &text[key..self.at];
                self.at += 1; // ':'
                let from = values.len();
                self.path.push(Step::Key(&key[1..key.len() - 1]));
                self.value(&mut values);
                self.path.pop();
                members.push((Key::new(key.into()), from, values.len()));
                let end = bytes[self.at];
                self.at += 1;
                if end == b'}' {
                    break;
                }
            }
        }
        // (Pushed after those the text has, each replaces one of its key.)
        for (key, value) in (self.set)(&self.path) {
            let from = values.len();
            values.push_str(&value);
            let key = Key::new(format!("\"{key}\"").into());
            members.push((key, from, values.len()));
        }
        // (A stable sort: of equal keys, the last is the one kept.)
        members.sort_by(|a, b| a.0.order(&b.0));
        let mut first = true;
        for (i, (key, from, to)) in members.iter().enumerate() {
            let replaced = members
                .get(i + 1)
                .is_some_and(|next| key.order(&next.0).is_eq());
            if replaced {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&key.quoted);
            out.push(':');
            out.push_str(&values[*from..*to]);
        }
        out.push('}');
        members.clear();
        values.clear();
        self.scratch[depth] = (members, values);
    }
}

/// Copies a number (or true, false, null) as a round trip through an f64
/// writes it. serde_json writes an f32 and an f64 with the same digits,
/// but in fixed notation for decimal exponents of -6 to 12 and -5 to 15
/// respectively: so an f32 of exponent -6 (`0.000001` to `0.00000999…`)
/// or 13 to 15 (`1e+13` to `9.99…e+15`) is written again (read into an
/// f64, as the round trip does); anything else is the same text.
fn number(token: &str, out: &mut String) {
    let numeric = token.starts_with(|c: char| c == '-' || c.is_ascii_digit());
    if numeric
        && (token.contains('e') || token.contains("0.00000"))
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(token)
    {
        out.push_str(&v.to_string());
        return;
    }
    out.push_str(token);
}

/// Moves `at` from a string's opening quote to after its closing one.
fn skip_string(bytes: &[u8], at: &mut usize) {
    *at += 1;
    while let Some(n) = memchr::memchr2(b'"', b'\\', &bytes[*at..]) {
        *at += n;
        if bytes[*at] == b'"' {
            *at += 1;
            return;
        }
        *at += 2;
    }
    unreachable!("serde_json closes every string");
}

/// An object's key: quoted, as written, and whether it has an escape
/// (looked for once, not at each comparison of the sort).
struct Key<'t> {
    quoted: Cow<'t, str>,
    escaped: bool,
}

impl<'t> Key<'t> {
    fn new(quoted: Cow<'t, str>) -> Key<'t> {
        let escaped = quoted.contains('\\');
        Key { quoted, escaped }
    }

    /// The order of two keys as strings: by their bytes between the
    /// quotes, or where either has an escape, by what they stand for.
    fn order(&self, other: &Key<'_>) -> Ordering {
        let (a, b) = (&self.quoted, &other.quoted);
        if !self.escaped && !other.escaped {
            return a[1..a.len() - 1].cmp(&b[1..b.len() - 1]);
        }
        let decoded = |k: &str| serde_json::from_str::<String>(k).unwrap_or_default();
        decoded(a).cmp(&decoded(b))
    }
}

#[cfg(test)]
mod tests {
    use super::{Members, Step, keys_in_order};

    /// Nothing set.
    fn none(_: &[Step]) -> Members {
        Vec::new()
    }

    /// What a round trip through `serde_json::Value` makes of `text`.
    fn through_value(text: &str) -> String {
        serde_json::from_str::<serde_json::Value>(text)
            .unwrap()
            .to_string()
    }

    /// Keys out of order at every depth, in arrays, given twice, with
    /// escapes (`\"` stands for a quote, which sorts between `!` and `#`,
    /// though its text begins with a backslash), one the prefix of
    /// another followed by a byte below the quote's; numbers as serde_json
    /// writes f32s, f64s and integers; strings with escapes and other
    /// scripts; empty objects and arrays: the text a round trip through
    /// `Value` makes.
    #[test]
    fn keys_are_ordered_as_a_round_trip_through_value_orders_them() {
        // (Numbers as serde_json writes them.)
        let n = |x: f32| serde_json::to_string(&x).unwrap();
        let text = format!(
            r##"{{"z":1,"a":{{"y":[3,{{"b":null,"a":true}}],"x":{}}},"a!":"s\"q\\u","a":{},"":[],"e":{{}},"\"":{},"!":{},"#":-17,"\\":"é\u0001","]":{},"\u0001":false,"m":[[],{{}},[{{"k":"v","j":0.800000011920929}}]]}}"##,
            n(-0.0),
            n(2.5e-7),
            n(0.1),
            n(f32::MAX),
            serde_json::to_string(&1e20f64).unwrap(),
        );
        // f32s written otherwise than as f64s (exponents -6, 13 to 15),
        // and on either side of those.
        let tens = [
            6.104261e-6,
            -1e-6,
            9.999999e-6,
            1.5e-5,
            9.9e-7,
            1.2345e13,
            -3e14,
            9.9e15,
            1e16,
            8e12,
        ];
        let numbers: Vec<String> = tens.iter().map(|&x| n(x)).collect();
        let text = text.replacen("\"z\":1", &format!("\"z\":[{}]", numbers.join(",")), 1);
        let text = text.as_str();
        assert_eq!(keys_in_order(text, &none), through_value(text));
        for scalar in ["1", "-0.5", "\"x\"", "null", "[]", "{}", "[1,2]"] {
            assert_eq!(keys_in_order(scalar, &none), through_value(scalar));
        }
    }

    /// A glTF document as gltf-json writes it, with numbers of every kind
    /// its fields hold.
    #[test]
    fn a_gltf_document_is_ordered_as_through_value() {
        let mut root = gltf_json::Root::default();
        root.asset.generator = Some("x3dbake \"test\"".into());
        root.push(gltf_json::Node {
            translation: Some([0.1, -2.5e-9, 3.0e30]),
            rotation: Some(gltf_json::scene::UnitQuaternion([
                0.0, 0.70710677, 0.0, 0.70710677,
            ])),
            name: Some("n\u{7}é".into()),
            ..gltf_json::Node::default()
        });
        let text = root.to_string().unwrap();
        assert_eq!(keys_in_order(&text, &none), through_value(&text));
    }

    /// Members set at a path (added, replacing one there, into an empty
    /// object, at the root; none where the path is not in the document):
    /// what setting them in the `Value` gives.
    #[test]
    fn members_set_at_a_path_are_as_set_in_the_value() {
        let text = r#"{"b":[{"t":{"n":0},"z":1},{"t":2}],"a":{},"c":[[{}]]}"#;
        let set = |path: &[Step]| -> Members {
            match *path {
                [Step::Key("b"), Step::Index(1)] => {
                    vec![("t", serde_json::json!({"y": 1, "x": [2]}).to_string())]
                }
                [Step::Key("b"), Step::Index(0)] => vec![("s", "3".into()), ("t", "4".into())],
                [Step::Key("a")] => vec![("k", "\"v\"".into())],
                [Step::Key("c"), Step::Index(0), Step::Index(0)] => vec![("d", "null".into())],
                [] => vec![("0", "[]".into())],
                [Step::Key("b"), Step::Index(9)] => vec![("never", "0".into())],
                _ => Vec::new(),
            }
        };
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["b"][1]["t"] = serde_json::json!({"y": 1, "x": [2]});
        v["b"][0]["s"] = 3.into();
        v["b"][0]["t"] = 4.into();
        v["a"]["k"] = "v".into();
        v["c"][0][0]["d"] = serde_json::Value::Null;
        v["0"] = serde_json::json!([]);
        assert_eq!(keys_in_order(text, &set), v.to_string());
    }
}
