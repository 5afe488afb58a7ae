//! X3D field types and values, and the XML-encoding lexical forms of values.

use super::number::*;
pub use super::number::{Encoding, LongFloats, ValueError};
use crate::diag::Diagnostic;
use crate::source::Span;
use std::fmt;

/// How a field may be accessed (X3D access types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `initializeOnly`: set in the file, not routed.
    InitializeOnly,
    /// `inputOnly`: routed to.
    InputOnly,
    /// `outputOnly`: routed from.
    OutputOnly,
    /// `inputOutput`: both.
    InputOutput,
}

impl Access {
    /// Whether a ROUTE may read it.
    pub fn readable(self) -> bool {
        matches!(self, Access::OutputOnly | Access::InputOutput)
    }
    /// Whether a ROUTE may write it.
    pub fn writable(self) -> bool {
        matches!(self, Access::InputOnly | Access::InputOutput)
    }
    /// The X3D name.
    pub fn name(self) -> &'static str {
        match self {
            Access::InitializeOnly => "initializeOnly",
            Access::InputOnly => "inputOnly",
            Access::OutputOnly => "outputOnly",
            Access::InputOutput => "inputOutput",
        }
    }
    /// Reads the X3D (and VRML97) spellings of an access type.
    pub fn from_name(s: &str) -> Option<Access> {
        Some(match s {
            "initializeOnly" | "field" => Access::InitializeOnly,
            "inputOnly" | "eventIn" => Access::InputOnly,
            "outputOnly" | "eventOut" => Access::OutputOnly,
            "inputOutput" | "exposedField" => Access::InputOutput,
            _ => return None,
        })
    }
}

/// The kind of scalar a field's value is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// SFBool, MFBool.
    Bool,
    /// SFInt32, MFInt32, SFImage.
    Int,
    /// Single-precision types (SFFloat, SFVec3f, SFColor, SFRotation...).
    Float,
    /// Double-precision types (SFDouble, SFTime, SFVec3d...).
    Double,
    /// SFString, MFString.
    String,
    /// SFNode, MFNode.
    Node,
}

macro_rules! field_types {
    ($( $sf:ident / $mf:ident : $scalar:ident * $n:expr ),* $(,)?) => {
        /// An X3D field type.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum FieldType {
            $(
                #[doc = concat!("`", stringify!($sf), "`")]
                $sf,
                #[doc = concat!("`", stringify!($mf), "`")]
                $mf,
            )*
        }

        impl FieldType {
            /// Every type, SF and MF alternating, in declaration order.
            pub const ALL: &'static [FieldType] = &[$( FieldType::$sf, FieldType::$mf, )*];
            /// Per type, in the order of `ALL`: name, scalar, components.
            /// A table, not a `match` per question: the answers are data, and
            /// each arm of a match is a branch that a coverage-guided fuzzer
            /// counts as a place to reach, type by type, in every caller.
            const INFO: &'static [(&'static str, Scalar, usize)] = &[
                $( (stringify!($sf), Scalar::$scalar, $n), (stringify!($mf), Scalar::$scalar, $n), )*
            ];
        }
    };
}

field_types! {
    SFBool / MFBool: Bool * 1,
    SFInt32 / MFInt32: Int * 1,
    SFFloat / MFFloat: Float * 1,
    SFDouble / MFDouble: Double * 1,
    SFTime / MFTime: Double * 1,
    SFVec2f / MFVec2f: Float * 2,
    SFVec3f / MFVec3f: Float * 3,
    SFVec4f / MFVec4f: Float * 4,
    SFVec2d / MFVec2d: Double * 2,
    SFVec3d / MFVec3d: Double * 3,
    SFVec4d / MFVec4d: Double * 4,
    SFColor / MFColor: Float * 3,
    SFColorRGBA / MFColorRGBA: Float * 4,
    SFRotation / MFRotation: Float * 4,
    SFMatrix3f / MFMatrix3f: Float * 9,
    SFMatrix4f / MFMatrix4f: Float * 16,
    SFString / MFString: String * 1,
    SFNode / MFNode: Node * 1,
    SFImage / MFImage: Int * 1,
    // X3D 4.1 (GaussianSplats orientations).
    SFQuaternion / MFQuaternion: Float * 4,
}

impl FieldType {
    /// The X3D name, e.g. `MFVec3f`.
    pub fn name(self) -> &'static str {
        FieldType::INFO[self as usize].0
    }
    /// The scalar each component is made of.
    pub fn scalar(self) -> Scalar {
        FieldType::INFO[self as usize].1
    }
    /// Scalars per element: 3 for SFVec3f and MFVec3f, 1 for SFFloat.
    pub fn components(self) -> usize {
        FieldType::INFO[self as usize].2
    }
    /// Whether it is a multiple-valued (MF) type.
    pub fn is_mf(self) -> bool {
        self as usize % 2 == 1
    }
    /// The single-value type of an MF type (itself for SF types).
    pub fn single(self) -> FieldType {
        FieldType::ALL[self as usize & !1]
    }
    /// The type of an X3D name (`SFVec3f`).
    pub fn from_name(s: &str) -> Option<FieldType> {
        FieldType::ALL.iter().copied().find(|t| t.name() == s)
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Index of a node in the scene arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// The scalars of a value, flat: an MFVec3f of k points is 3k floats.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// Booleans.
    Bools(Vec<bool>),
    /// 32-bit integers.
    Ints(Vec<i32>),
    /// Single-precision numbers, shared: an interpolator holds a large
    /// keyValue without a copy of it.
    Floats(std::sync::Arc<Vec<f32>>),
    /// Double-precision numbers.
    Doubles(Vec<f64>),
    /// Strings.
    Strings(Vec<String>),
    /// Nodes.
    Nodes(Vec<NodeId>),
}

/// A typed field value. SF values hold exactly `components()` scalars
/// (SFNode holds zero for NULL or one node); MF values a multiple of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// The field type.
    pub ty: FieldType,
    /// The scalars, flat.
    pub data: Data,
}

impl Value {
    /// The numbers of the value as f64 (booleans as 0 and 1; none for
    /// strings and nodes).
    pub fn numbers(&self) -> Vec<f64> {
        match &self.data {
            Data::Floats(x) => x.iter().map(|&f| f as f64).collect(),
            Data::Doubles(x) => x.clone(),
            Data::Ints(x) => x.iter().map(|&i| i as f64).collect(),
            Data::Bools(x) => x.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect(),
            Data::Strings(_) | Data::Nodes(_) => Vec::new(),
        }
    }

    /// The empty (MF) or initial (SF) value of a type, as X3D defines it.
    pub fn initial(ty: FieldType) -> Value {
        let n = if ty.is_mf() || ty.scalar() == Scalar::Node {
            0
        } else {
            ty.components()
        };
        let data = match ty.scalar() {
            Scalar::Bool => Data::Bools(vec![false; n]),
            Scalar::Int => Data::Ints(vec![0; n]),
            Scalar::Float => Data::Floats(vec![0.0; n].into()),
            Scalar::Double => Data::Doubles(vec![0.0; n]),
            Scalar::String => Data::Strings(vec![String::new(); n]),
            Scalar::Node => Data::Nodes(Vec::new()),
        };
        let mut v = Value { ty, data };
        if ty == FieldType::SFRotation {
            v.data = Data::Floats(vec![0.0, 0.0, 1.0, 0.0].into());
        }
        v
    }

    /// Number of scalars.
    pub fn scalar_len(&self) -> usize {
        match &self.data {
            Data::Bools(v) => v.len(),
            Data::Ints(v) => v.len(),
            Data::Floats(v) => v.len(),
            Data::Doubles(v) => v.len(),
            Data::Strings(v) => v.len(),
            Data::Nodes(v) => v.len(),
        }
    }

    /// Number of elements (points for MFVec3f, 1 for an SF value).
    pub fn len(&self) -> usize {
        self.scalar_len() / self.ty.components()
    }

    /// Whether it holds no scalar.
    pub fn is_empty(&self) -> bool {
        self.scalar_len() == 0
    }

    /// The single-precision scalars (empty for other types).
    pub fn floats(&self) -> &[f32] {
        match &self.data {
            Data::Floats(v) => v,
            _ => &[],
        }
    }
    /// The double-precision scalars (empty for other types).
    pub fn doubles(&self) -> &[f64] {
        match &self.data {
            Data::Doubles(v) => v,
            _ => &[],
        }
    }
    /// The integers (empty for other types).
    pub fn ints(&self) -> &[i32] {
        match &self.data {
            Data::Ints(v) => v,
            _ => &[],
        }
    }
    /// The booleans (empty for other types).
    pub fn bools(&self) -> &[bool] {
        match &self.data {
            Data::Bools(v) => v,
            _ => &[],
        }
    }
    /// The strings (empty for other types).
    pub fn strings(&self) -> &[String] {
        match &self.data {
            Data::Strings(v) => v,
            _ => &[],
        }
    }
    /// The nodes (empty for other types).
    pub fn nodes(&self) -> &[NodeId] {
        match &self.data {
            Data::Nodes(v) => v,
            _ => &[],
        }
    }

    /// A number of an SF numeric value as f64 (0 for other types).
    pub fn as_f64(&self) -> f64 {
        match &self.data {
            Data::Floats(v) => v.first().map(|&x| x as f64).unwrap_or(0.0),
            Data::Doubles(v) => v.first().copied().unwrap_or(0.0),
            Data::Ints(v) => v.first().map(|&x| x as f64).unwrap_or(0.0),
            _ => 0.0,
        }
    }
    /// The first boolean (false when there is none).
    pub fn as_bool(&self) -> bool {
        self.bools().first().copied().unwrap_or(false)
    }
}

/// Where the text of a value sits in the source: its exact start when the
/// text is the source verbatim, else only the span of the whole field.
#[derive(Clone, Copy, Debug)]
pub enum TextPos {
    /// The bytes of the value as written.
    Verbatim(Span),
    /// The whole field (name and value), for messages.
    Field(Span),
}

impl TextPos {
    /// The span.
    pub fn span(self) -> Span {
        match self {
            TextPos::Verbatim(s) | TextPos::Field(s) => s,
        }
    }
    /// The span of `range` inside the text.
    pub(super) fn sub(self, range: std::ops::Range<usize>) -> Span {
        match self {
            TextPos::Verbatim(s) => Span {
                file: s.file,
                start: s.start + range.start as u32,
                end: s.start + range.end as u32,
            },
            TextPos::Field(s) => s,
        }
    }
}

/// The diagnostic for a value of `node.name` (`node` its type) in error:
/// in XML (and JSON, which X_ITE reads as XML) a warning, the field keeping
/// its default, as a browser leaves an attribute and goes on; in
/// ClassicVRML, where the value is part of the grammar and no browser goes
/// on, an error.
pub(super) fn bad_value(
    encoding: Encoding,
    node: &str,
    name: &str,
    ty: FieldType,
    pos: TextPos,
    e: ValueError,
) -> Diagnostic {
    let message = format!("bad value for `{node}.{name}` ({ty}): {}", e.message);
    let at = Some(pos.sub(e.at));
    match encoding {
        Encoding::Xml => Diagnostic::warning(
            format!("{message}: ignored, the field keeps its default"),
            at,
        ),
        Encoding::Vrml => Diagnostic::error(message, at),
    }
}

/// Parses the text of a value of type `ty`.
pub fn parse_value(ty: FieldType, text: &str, enc: Encoding) -> Result<Value, ValueError> {
    let data = match ty.scalar() {
        Scalar::Node => Data::Nodes(Vec::new()),
        Scalar::String => Data::Strings(parse_strings(ty, text, enc)?),
        Scalar::Bool => Data::Bools(parse_tokens(
            text,
            enc,
            |_, i, _| i,
            |_| None,
            |t| match t {
                "true" | "TRUE" => Ok(true),
                "false" | "FALSE" => Ok(false),
                _ => Err(BadToken::NotABoolean(t.to_string())),
            },
        )?),
        Scalar::Int => Data::Ints(parse_tokens(text, enc, |_, i, _| i, quick_int, parse_int)?),
        Scalar::Float => Data::Floats(
            parse_tokens(
                text,
                enc,
                float_run::<f32>,
                quick_number::<f32>,
                parse_number::<f32>,
            )?
            .into(),
        ),
        Scalar::Double => Data::Doubles(parse_tokens(
            text,
            enc,
            float_run::<f64>,
            quick_number::<f64>,
            parse_number::<f64>,
        )?),
    };
    counted(Value { ty, data }, text)
}

/// The value of the float type `ty` whose text `text` gave `floats` (read
/// apart, see [`LongFloats`]), checked as [`parse_value`] checks it.
pub fn floats_value(ty: FieldType, floats: Vec<f32>, text: &str) -> Result<Value, ValueError> {
    let data = Data::Floats(floats.into());
    counted(Value { ty, data }, text)
}

/// `value` (read from `text`), where it has as many numbers as its type
/// wants.
fn counted(value: Value, text: &str) -> Result<Value, ValueError> {
    let ty = value.ty;
    let n = value.scalar_len();
    let c = ty.components();
    let ok = match (ty.scalar(), ty.is_mf()) {
        (Scalar::Node, _) | (Scalar::String, true) => true,
        // SFImage is "width height components pixels...": at least 3 numbers.
        (_, _) if ty.single() == FieldType::SFImage => ty.is_mf() || n >= 3 || n == 0,
        (_, false) => n == c,
        (_, true) => n.is_multiple_of(c),
    };
    if ok {
        return Ok(value);
    }
    let what = if c == 1 {
        "1 value".to_string()
    } else {
        format!("{c} numbers")
    };
    let message = if ty.is_mf() {
        format!("{ty} wants a multiple of {what}, found {n}")
    } else {
        format!("{ty} wants {what}, found {n}")
    };
    Err(ValueError {
        message,
        at: 0..text.len(),
    })
}

/// Strings: quoted with `"` and backslash escapes, or (XML SFString, or an
/// XML MFString written without quotes) the whole text.
fn parse_strings(ty: FieldType, text: &str, enc: Encoding) -> Result<Vec<String>, ValueError> {
    let trimmed = text.trim_start();
    if enc == Encoding::Xml && (!ty.is_mf() || !trimmed.starts_with('"')) {
        if ty.is_mf() && trimmed.is_empty() {
            return Ok(Vec::new());
        }
        return Ok(vec![text.to_string()]);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        i = skip_separators(bytes, i, enc);
        if i == bytes.len() {
            break;
        }
        if bytes[i] != b'"' {
            let end = text[i..].find(is_sep_char).map_or(text.len(), |e| i + e);
            return Err(ValueError {
                message: format!("expected a quoted string, found `{}`", &text[i..end]),
                at: i..end,
            });
        }
        let open = i;
        i += 1;
        let mut s = String::new();
        let mut closed = false;
        let mut chars = text[i..].char_indices();
        while let Some((k, c)) = chars.next() {
            match c {
                '"' => {
                    i += k + 1;
                    closed = true;
                    break;
                }
                '\\' => {
                    if let Some((_, e)) = chars.next() {
                        s.push(e);
                    }
                }
                _ => s.push(c),
            }
        }
        if !closed {
            return Err(ValueError {
                message: "string has no closing quote".to_string(),
                at: open..open + 1,
            });
        }
        out.push(s);
    }
    if !ty.is_mf() && out.len() != 1 {
        return Err(ValueError {
            message: format!("SFString wants one string, found {}", out.len()),
            at: 0..text.len(),
        });
    }
    Ok(out)
}

fn is_sep_char(c: char) -> bool {
    c.is_ascii() && is_separator(c as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::par;
    use FieldType::*;

    fn xml(ty: FieldType, s: &str) -> Value {
        parse_value(ty, s, Encoding::Xml).unwrap()
    }
    fn err(ty: FieldType, s: &str) -> ValueError {
        parse_value(ty, s, Encoding::Xml).unwrap_err()
    }

    #[test]
    fn field_type_tables() {
        assert_eq!(FieldType::ALL.len(), 40);
        for (i, &t) in FieldType::ALL.iter().enumerate() {
            assert_eq!(t as usize, i);
            let name = t.name();
            assert_eq!(FieldType::from_name(name), Some(t));
            assert_eq!(t.is_mf(), name.starts_with("MF"), "{name}");
            assert_eq!(t.single().name(), name.replacen("MF", "SF", 1));
            assert_eq!(t.single().components(), t.components());
            assert_eq!(t.single().scalar(), t.scalar());
        }
        assert_eq!(MFVec3f.name(), "MFVec3f");
        assert_eq!(SFRotation.components(), 4);
        assert_eq!(MFMatrix4f.components(), 16);
        assert_eq!(SFTime.scalar(), Scalar::Double);
        assert_eq!(MFImage.scalar(), Scalar::Int);
        assert_eq!(MFNode.single(), SFNode);
        assert_eq!(SFString.single(), SFString);
    }

    #[test]
    fn golden_values_of_every_type() {
        assert_eq!(xml(SFBool, "true").bools(), &[true]);
        assert_eq!(xml(SFBool, " FALSE ").bools(), &[false]);
        assert_eq!(
            xml(MFBool, "true false, TRUE").bools(),
            &[true, false, true]
        );
        assert_eq!(xml(SFInt32, "-12").ints(), &[-12]);
        assert_eq!(xml(MFInt32, "0 1 2 -1, 0x10").ints(), &[0, 1, 2, -1, 16]);
        assert_eq!(xml(SFFloat, "1.5e2").floats(), &[150.0]);
        assert_eq!(
            xml(MFFloat, "0, .25,0.5 1.").floats(),
            &[0.0, 0.25, 0.5, 1.0]
        );
        assert_eq!(xml(SFDouble, "0.1").doubles(), &[0.1]);
        assert_eq!(xml(SFTime, "-1").doubles(), &[-1.0]);
        assert_eq!(xml(MFTime, "1 2").doubles(), &[1.0, 2.0]);
        assert_eq!(xml(SFVec2f, "1 2").floats(), &[1.0, 2.0]);
        assert_eq!(xml(MFVec2f, "1 2, 3 4").len(), 2);
        assert_eq!(xml(SFVec3f, "1 2 3").floats(), &[1.0, 2.0, 3.0]);
        assert_eq!(xml(MFVec3f, "1 2 3, 4 5 6,").len(), 2);
        assert_eq!(xml(SFColor, "1 0 0.5").floats(), &[1.0, 0.0, 0.5]);
        assert_eq!(xml(MFColor, "1 0 0 0 1 0").len(), 2);
        assert_eq!(xml(SFColorRGBA, "1 0 0 1").len(), 1);
        assert_eq!(xml(MFColorRGBA, "1 0 0 1 0 0 0 0").len(), 2);
        assert_eq!(xml(SFRotation, "0 1 0 2.5").floats()[3], 2.5);
        assert_eq!(xml(MFRotation, "0 1 0 0, 1 0 0 1").len(), 2);
        assert_eq!(xml(SFString, "a \"b\"").strings(), &["a \"b\"".to_string()]);
        assert_eq!(
            xml(MFString, r#""a b" "c\"d" "e\\f""#).strings(),
            &["a b".to_string(), "c\"d".to_string(), "e\\f".to_string()]
        );
        assert_eq!(
            xml(MFString, "plain.png").strings(),
            &["plain.png".to_string()]
        );
        assert!(xml(MFString, "  ").is_empty());
        assert!(xml(MFFloat, "").is_empty());
    }

    #[test]
    fn wrong_counts_and_bad_tokens_are_errors_with_positions() {
        let e = err(SFVec3f, "1 2");
        assert_eq!(e.message, "SFVec3f wants 3 numbers, found 2");
        let e = err(MFVec3f, "1 2 3 4");
        assert_eq!(e.message, "MFVec3f wants a multiple of 3 numbers, found 4");
        let e = err(MFFloat, "0 0.5 x1 1");
        assert_eq!(e.message, "`x1` is not a number");
        assert_eq!(e.at, 6..8);
        assert_eq!(err(SFFloat, "NaN").message, "`NaN` is not a number");
        assert_eq!(err(SFFloat, "inf").message, "`inf` is not a number");
        assert_eq!(err(SFDouble, "1e999").message, "`1e999` is out of range");
        assert_eq!(
            err(SFBool, "yes").message,
            "`yes` is not a boolean (true or false)"
        );
        assert_eq!(err(SFInt32, "1.5").message, "`1.5` is not an integer");
        assert_eq!(
            err(SFInt32, "99999999999").message,
            "`99999999999` is out of the SFInt32 range"
        );
        assert_eq!(
            err(MFString, r#""a" b"#).message,
            "expected a quoted string, found `b`"
        );
        assert_eq!(
            err(MFString, r#""a"#).message,
            "string has no closing quote"
        );
        assert_eq!(
            err(SFFloat, "1 2").message,
            "SFFloat wants 1 value, found 2"
        );
    }

    /// A random number below its argument (xorshift, fixed seed).
    fn random() -> impl FnMut(u64) -> u64 {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        move |n| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        }
    }

    /// A token shaped like a number, or nearly: sign, digits, point,
    /// digits, exponent, each part there or not (so also `+`, `.`, `1e`).
    fn number_like(next: &mut impl FnMut(u64) -> u64) -> String {
        let mut t = String::new();
        for part in 0..5 {
            let digits = if next(4) == 0 { next(24) } else { next(5) };
            let digits: String = (0..digits)
                .map(|_| char::from(b'0' + next(10) as u8))
                .collect();
            let piece = match (part, next(4)) {
                (0, 0) => "-",
                (0, 1) => "+",
                (1, _) | (3, _) => &digits,
                (2, 0 | 1) => ".",
                (4, 0) => "e",
                (4, 1) => "E-",
                _ => "",
            };
            t.push_str(piece);
        }
        if t.ends_with(['e', '-']) && next(2) == 0 {
            t.push_str(&next(60).to_string());
        }
        t
    }

    /// The quick paths give what the full parser gives, bit for bit, on
    /// numbers of every shape (and leave the rest to it).
    #[test]
    fn quick_paths_agree_with_the_full_parser() {
        let mut next = random();
        let (mut quick, mut short) = (0, 0);
        for _ in 0..200_000 {
            let t = number_like(&mut next);
            if t.is_empty() {
                continue;
            }
            // Followed by one short number, or by enough of them that
            // the token is read from a whole eight-byte word.
            let text = if next(2) == 0 {
                format!("{t} 7")
            } else {
                format!("{t},7 7 7 7")
            };
            let agree =
                |ty: FieldType, full: Result<u64, BadToken>, first: fn(&Value) -> u64| match (
                    full,
                    parse_value(ty, &text, Encoding::Xml),
                ) {
                    (Ok(a), Ok(v)) => assert_eq!(a, first(&v), "{t}"),
                    (Err(_), Err(_)) => {}
                    (full, got) => panic!("{t}: {full:?} vs {got:?}"),
                };
            agree(
                MFFloat,
                parse_number::<f32>(&t).map(|x| x.to_bits().into()),
                |v| v.floats()[0].to_bits().into(),
            );
            agree(MFDouble, parse_number::<f64>(&t).map(f64::to_bits), |v| {
                v.doubles()[0].to_bits()
            });
            agree(MFInt32, parse_int(&t).map(|i| i as u64), |v| {
                v.ints()[0] as u64
            });
            quick +=
                usize::from(quick_number::<f32>(t.as_bytes()).is_some_and(|(_, n)| n == t.len()));
            let unsigned = t.trim_start_matches(['-', '+']);
            short += usize::from(
                short_decimal(&text.as_bytes()[t.len() - unsigned.len()..])
                    .is_some_and(|(.., n)| n == unsigned.len()),
            );
        }
        // Most of them took a quick path, many of those in one word.
        assert!(quick > 50_000, "{quick}");
        assert!(short > 20_000, "{short}");
    }

    /// Both ways of sorting a block's bytes agree, on every byte value.
    #[test]
    fn classes_of_every_byte() {
        let mut next = random();
        let usual = b" ,\t\n\r.-+e0123456789#";
        for _ in 0..10_000 {
            let mut block = [0u8; 64];
            block.fill_with(|| match next(3) {
                0 => next(256) as u8,
                _ => usual[next(usual.len() as u64) as usize],
            });
            assert_eq!(Classes::of(&block), Classes::byte_by_byte(&block));
        }
    }

    /// Reading 64-byte blocks (float_run) gives what reading token by
    /// token gives, bit for bit, errors and their places too, on long
    /// texts of numbers of every shape (mostly the plain ones it reads
    /// itself) between every kind of separator, and VRML comments.
    #[test]
    fn block_reader_agrees_with_the_token_reader() {
        fn both<T: Float>(text: &str, enc: Encoding, bits: fn(T) -> u64) -> usize {
            let read = std::cell::Cell::new(0);
            let counted = |b: &[u8], i, out: &mut Vec<T>| {
                let before = out.len();
                let stop = float_run(b, i, out);
                read.set(read.get() + out.len() - before);
                stop
            };
            let blocks = read_tokens(text, enc, counted, quick_number, parse_number);
            let one_by_one = read_tokens(text, enc, |_, i, _| i, quick_number, parse_number);
            let bits = |v: Vec<T>| v.into_iter().map(bits).collect::<Vec<_>>();
            assert_eq!(blocks.map(bits), one_by_one.map(bits), "{text:?}");
            // How many numbers the block reader itself read.
            read.get()
        }
        let mut next = random();
        let separators = [" ", ", ", ",", "\n", "\r\n", "\t", "  ", " ,\t"];
        let (mut total, mut by_blocks) = (0, 0);
        for round in 0..3_000 {
            let enc = [Encoding::Xml, Encoding::Vrml][round % 2];
            let mut text = String::new();
            for _ in 0..next(200) {
                // Now and then a token it leaves to the token reader
                // (rarely a wrong one, which ends the text with an error).
                let t = match next(1000) {
                    0..20 => number_like(&mut next),
                    20..40 if enc == Encoding::Vrml => "# a comment 1 2\n".to_string(),
                    40..50 => ["1e5", "+4", "99999999", "-12345678"][next(4) as usize].into(),
                    50..52 => ["x", "1e", "-", ".", "1.2.3"][next(5) as usize].into(),
                    _ => format!(
                        "{}{}.{:06}",
                        ["", "-"][next(2) as usize],
                        next(10),
                        next(1_000_000)
                    ),
                };
                text.push_str(&t);
                text.push_str(separators[next(8) as usize]);
                total += 1;
            }
            by_blocks += both::<f32>(&text, enc, |x| x.to_bits().into());
            both::<f64>(&text, enc, f64::to_bits);
        }
        // Most numbers were read by blocks.
        assert!(by_blocks > total / 2, "{by_blocks} of {total}");
    }

    /// A long text of floats read from both ends ([`LongFloats`]) gives
    /// what one thread reading it whole gives: read all from its start,
    /// all from its end (the pieces then come in reverse), and from both at
    /// once on two threads; with bad tokens in two pieces, the first error,
    /// at its place in the text.
    #[test]
    fn long_floats_read_from_either_end_read_as_one() {
        let mut next = random();
        let mut text = String::new();
        while text.len() < 5 * par::SPLIT_BYTES {
            let sign = ["", "-"][next(2) as usize];
            text.push_str(&format!("{sign}{}.{:03}, ", next(100), next(1000)));
        }
        let whole = |t: &str| {
            read_tokens(
                t,
                Encoding::Xml,
                float_run::<f32>,
                quick_number,
                parse_number::<f32>,
            )
        };
        let apart = |t: &str, how: usize| {
            assert_eq!(
                cut_points(t.as_bytes(), Encoding::Xml).len(),
                6,
                "five pieces"
            );
            let floats = LongFloats::new(t, 0, Encoding::Xml);
            match how {
                0 => LongFloats::join(floats.read_front(t), Back::default()),
                1 => LongFloats::join(Front::default(), floats.read_back(t)),
                _ => {
                    let (front, back) = std::thread::scope(|s| {
                        let front = s.spawn(|| floats.read_front(t));
                        let back = floats.read_back(t);
                        (front.join().unwrap(), back)
                    });
                    LongFloats::join(front, back)
                }
            }
        };
        let mut bad = text.clone();
        for at in [7 * bad.len() / 10, 3 * bad.len() / 10] {
            let at = at + bad[at..].find(' ').unwrap();
            bad.insert_str(at + 1, "1x ");
        }
        for t in [&text, &bad] {
            let one = whole(t);
            for how in 0..3 {
                assert!(apart(t, how) == one, "{how}: {:?}", one.as_ref().err());
            }
        }
        assert!(whole(&bad).is_err() && whole(&text).unwrap().len() > 100_000);
    }

    /// A text long enough to be read in pieces (three here, two at a time
    /// and one alone) gives what one thread reading it whole gives: the
    /// same values in the same order, and the same first error at the same
    /// place (in any piece), with a VRML comment running across the first
    /// cut and commas at the cuts.
    #[test]
    fn a_long_text_read_in_pieces_reads_as_one() {
        let mut next = random();
        let (mut text, mut comment) = (String::new(), false);
        while text.len() < 3 * par::SPLIT_BYTES {
            if text.len() >= par::SPLIT_BYTES - par::SPLIT_BYTES / 8 && !comment {
                comment = true;
                // A comment from before the first cut to well after it.
                text.push_str("1e9 # 7 7 7 ");
                text.push_str(&"8, ".repeat(par::SPLIT_BYTES / 8));
                text.push('\n');
            }
            let sign = ["", "-"][next(2) as usize];
            text.push_str(&format!("{sign}{}.{:04},", next(100), next(10_000)));
            text.push_str([" ", "\n", ",", "\t"][next(4) as usize]);
        }
        let ints = text.replace('.', " ").replace("1e9", "9");
        let mut xml = text.replace('#', " ");
        // The XML text is cut just after separators: make them commas.
        for cut in cut_points(xml.as_bytes(), Encoding::Xml) {
            if cut > 0 && cut < xml.len() {
                xml.replace_range(cut - 1..cut, ",");
            }
        }
        let vrml_cuts = cut_points(text.as_bytes(), Encoding::Vrml);
        assert_eq!(vrml_cuts.len(), 4, "three pieces");
        assert!(text[..vrml_cuts[1]].contains('#') && !text[vrml_cuts[1]..].contains('#'));
        fn same<T: Float + PartialEq + Send + fmt::Debug>(text: &str, enc: Encoding) {
            assert_eq!(cut_points(text.as_bytes(), enc).len(), 4);
            let one = read_tokens(text, enc, float_run::<T>, quick_number, parse_number);
            let two = parse_tokens(text, enc, float_run::<T>, quick_number, parse_number);
            assert!(one == two, "{:?} {:?}", one.err(), two.err());
        }
        for (text, enc) in [(&text, Encoding::Vrml), (&xml, Encoding::Xml)] {
            same::<f32>(text, enc);
            same::<f64>(text, enc);
            // A wrong token in the second part, then one in the first too.
            let mut bad = text.clone();
            let at = 3 * bad.len() / 4;
            let at = at + bad[at..].find(' ').unwrap();
            bad.insert_str(at + 1, "1x ");
            let err = parse_tokens(&bad, enc, float_run::<f32>, quick_number, parse_number);
            assert_eq!(err.unwrap_err().at, at + 1..at + 3);
            same::<f32>(&bad, enc);
            let at = bad.len() / 4;
            let at = at + bad[at..].find(' ').unwrap();
            bad.insert_str(at + 1, "--1 ");
            let err = parse_tokens(&bad, enc, float_run::<f64>, quick_number, parse_number);
            assert_eq!(err.unwrap_err().at, at + 1..at + 4);
        }
        let one = read_tokens(&ints, Encoding::Vrml, |_, i, _| i, quick_int, parse_int);
        let two = parse_tokens(&ints, Encoding::Vrml, |_, i, _| i, quick_int, parse_int);
        assert_eq!(one.unwrap(), two.unwrap());
        // Values from both parts, and the comment skipped.
        let v = parse_value(MFFloat, &text, Encoding::Vrml).unwrap();
        assert!(v.floats().contains(&1e9) && !v.floats().contains(&7.0));
    }

    #[test]
    fn vrml_comments_are_skipped() {
        let v = parse_value(MFFloat, "1 2 # three\n 4#five\n", Encoding::Vrml).unwrap();
        assert_eq!(v.floats(), &[1.0, 2.0, 4.0]);
        let v = parse_value(MFString, "\"a#b\" # c\n \"d\"", Encoding::Vrml).unwrap();
        assert_eq!(v.strings(), &["a#b".to_string(), "d".to_string()]);
    }

    #[test]
    fn vrml_strings_are_quoted() {
        let v = parse_value(SFString, "\"hi\"", Encoding::Vrml).unwrap();
        assert_eq!(v.strings(), &["hi".to_string()]);
    }

    #[test]
    fn initial_values() {
        assert_eq!(Value::initial(SFRotation).floats(), &[0.0, 0.0, 1.0, 0.0]);
        assert_eq!(Value::initial(SFVec3f).floats(), &[0.0; 3]);
        assert!(Value::initial(MFVec3f).is_empty());
        assert_eq!(FieldType::from_name("MFVec3f"), Some(MFVec3f));
        assert_eq!(MFColor.single(), SFColor);
    }
}
