//! The number lexer: separators, tokens, and X3D decimal numbers read 64
//! bytes at a time (long lists in pieces on two threads, see `crate::par`).

use crate::par;
use std::sync::PoisonError;

/// A value that could not be read, with the byte range (inside the text that
/// was parsed) of the offending token.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueError {
    /// What is wrong.
    pub message: String,
    /// Where, in bytes of the value's text.
    pub at: std::ops::Range<usize>,
}

/// Lexical conventions that differ between encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// XML attribute text: SFString is the text itself, MFString is quoted.
    Xml,
    /// ClassicVRML / VRML97: strings are always quoted.
    Vrml,
}

/// Skips separators (and, in ClassicVRML, `#` comments to the end of the
/// line) from `i`.
pub(super) fn skip_separators(bytes: &[u8], mut i: usize, enc: Encoding) -> usize {
    while i < bytes.len() {
        if is_separator(bytes[i]) {
            i += 1;
        } else if enc == Encoding::Vrml && bytes[i] == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else {
            break;
        }
    }
    i
}

/// Splits on white space and commas, parsing each token: by `run` over a
/// stretch of plain tokens it reads itself (it gives where it stopped), by
/// `quick` when it reads a whole token (it gives the value and the bytes it
/// read, or `None` to leave the token to `parse`), else by `parse`. A long
/// text is read in pieces (see `cut_points`), two at a time on two threads,
/// each pair's values appended as soon as both are read: so beside the
/// values only two pieces' are ever held apart.
pub(super) fn parse_tokens<T: Send>(
    text: &str,
    enc: Encoding,
    run: impl Fn(&[u8], usize, &mut Vec<T>) -> usize + Sync,
    quick: impl Fn(&[u8]) -> Option<(T, usize)> + Sync,
    parse: impl Fn(&str) -> Result<T, BadToken> + Sync,
) -> Result<Vec<T>, ValueError> {
    let read = |piece: &[usize], values: &mut Vec<T>| {
        read_piece(
            text,
            enc,
            (piece[0], piece[1]),
            &run,
            &quick,
            &parse,
            values,
        )
    };
    let mut values = Vec::with_capacity(text.len() / 6);
    if text.len() < par::SPLIT_BYTES {
        // One piece (as `cut_points` cuts it), read without the lists.
        read(&[0, text.len()], &mut values)?;
        return Ok(values);
    }
    let cuts = cut_points(text.as_bytes(), enc);
    // The second piece of each pair, read on the other thread into the same
    // block each time.
    let mut other = Vec::new();
    let pieces: Vec<&[usize]> = cuts.windows(2).collect();
    for pair in pieces.chunks(2) {
        let (first, second) = match pair {
            [a, b] => par::join(|| read(a, &mut values), || read(b, &mut other)),
            [a] => (read(a, &mut values), Ok(())),
            _ => unreachable!("chunks of two"),
        };
        // The first error in the text is the first piece's, if it has one.
        first?;
        second?;
        values.append(&mut other);
    }
    Ok(values)
}

/// Appends the values of `text[from..to]` (a piece, see `cut_points`) to
/// `values`, its error placed in the whole text; the piece's pages of a
/// mapped file then leave memory. The vector is moved here and back: a
/// local one's length stays in a register (through the reference the
/// reading took 30 % more time).
fn read_piece<T>(
    text: &str,
    enc: Encoding,
    (from, to): (usize, usize),
    run: &impl Fn(&[u8], usize, &mut Vec<T>) -> usize,
    quick: &impl Fn(&[u8]) -> Option<(T, usize)>,
    parse: &impl Fn(&str) -> Result<T, BadToken>,
    values: &mut Vec<T>,
) -> Result<(), ValueError> {
    let mut out = std::mem::take(values);
    let read = read_tokens_into(&text[from..to], enc, run, quick, parse, &mut out);
    *values = out;
    crate::sys::mapped::let_go(&text.as_bytes()[from..to]);
    read.map_err(|e| ValueError {
        message: e.message,
        at: e.at.start + from..e.at.end + from,
    })
}

/// A long text of floats (an MFVec3f's, an MFFloat's...) read by two
/// threads at once from either end: one takes its pieces (see
/// `cut_points`) from the start, in order, into one vector; the other,
/// once it comes to help, takes them from the end, each into its own; where
/// they meet, the two are joined. The values and the first error are what
/// one thread reading it whole gives. So a reader can go on through the
/// rest of its file while another thread reads a long value (see
/// `Builder::defer_long_values`).
#[derive(Debug)]
pub struct LongFloats {
    /// Where the value is in the file's text.
    at: usize,
    enc: Encoding,
    cuts: Vec<usize>,
    /// The pieces not yet taken: `next.0..next.1`.
    next: std::sync::Mutex<(usize, usize)>,
}

/// What the thread reading a [`LongFloats`] from its start made: its
/// pieces' values, and the error that stopped it.
#[derive(Debug, Default)]
pub struct Front {
    values: Vec<f32>,
    error: Option<ValueError>,
}

/// What the thread reading a [`LongFloats`] from its end made: each piece
/// (by number) with its values, or its error.
#[derive(Debug, Default)]
pub struct Back(Vec<(usize, Result<Vec<f32>, ValueError>)>);

impl LongFloats {
    /// The value `value`, which starts at byte `at` of the file's text.
    pub fn new(value: &str, at: usize, enc: Encoding) -> LongFloats {
        let cuts = cut_points(value.as_bytes(), enc);
        let pieces = cuts.len() - 1;
        LongFloats {
            at,
            enc,
            cuts,
            next: std::sync::Mutex::new((0, pieces)),
        }
    }

    /// The value's text in the file's `text`.
    fn text<'t>(&self, text: &'t str) -> &'t str {
        &text[self.at..self.at + self.cuts[self.cuts.len() - 1]]
    }

    /// The next piece not taken, from the start or from the end.
    fn take(&self, from_start: bool) -> Option<usize> {
        let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
        let (first, end) = &mut *next;
        (*first < *end).then(|| {
            if from_start {
                *first += 1;
                *first - 1
            } else {
                *end -= 1;
                *end
            }
        })
    }

    /// Where piece `k` is in the value's text.
    fn piece(&self, k: usize) -> (usize, usize) {
        (self.cuts[k], self.cuts[k + 1])
    }

    /// Appends piece `k`'s floats (of the value's `text`) to `values`.
    fn read(&self, text: &str, k: usize, values: &mut Vec<f32>) -> Result<(), ValueError> {
        let piece = self.piece(k);
        let (run, quick) = (float_run::<f32>, quick_number::<f32>);
        read_piece(
            text,
            self.enc,
            piece,
            &run,
            &quick,
            &parse_number::<f32>,
            values,
        )
    }

    /// Reads pieces from the start (in `text`, the file's) until none is
    /// left or one has an error.
    pub fn read_front(&self, text: &str) -> Front {
        let text = self.text(text);
        let mut front = Front {
            values: Vec::with_capacity(text.len() / 6),
            error: None,
        };
        while let Some(k) = self.take(true) {
            if let Err(e) = self.read(text, k, &mut front.values) {
                front.error = Some(e);
                break;
            }
        }
        front
    }

    /// Reads pieces from the end until none is left.
    pub fn read_back(&self, text: &str) -> Back {
        let text = self.text(text);
        let mut back = Back::default();
        while let Some(k) = self.take(false) {
            let (from, to) = self.piece(k);
            let mut values = Vec::with_capacity((to - from) / 6);
            let read = self.read(text, k, &mut values);
            back.0.push((k, read.map(|()| values)));
        }
        back
    }

    /// The value's floats, or its first error: the front's pieces, then the
    /// back's in order.
    pub fn join(
        Front { mut values, error }: Front,
        Back(mut back): Back,
    ) -> Result<Vec<f32>, ValueError> {
        if let Some(e) = error {
            return Err(e);
        }
        back.sort_unstable_by_key(|&(k, _)| k);
        for (_, piece) in back {
            values.append(&mut piece?);
        }
        Ok(values)
    }
}

/// Where a text of tokens is cut into pieces that, each read on its own,
/// give what the whole gives: the start, just after a separator near each
/// multiple of `par::SPLIT_BYTES` (in VRML after a line end, which also
/// ends a comment), and the end. A shorter text is not cut; a longer one in
/// two pieces at least.
pub(super) fn cut_points(bytes: &[u8], enc: Encoding) -> Vec<usize> {
    let mut cuts = vec![0];
    if bytes.len() >= par::SPLIT_BYTES {
        let pieces = (bytes.len() / par::SPLIT_BYTES).max(2);
        for k in 1..pieces {
            let near = bytes.len() * k / pieces;
            let from = near.max(*cuts.last().unwrap_or(&0));
            let rest = &bytes[from..];
            let at = match enc {
                Encoding::Xml => rest.iter().position(|&b| is_separator(b)),
                Encoding::Vrml => memchr::memchr(b'\n', rest),
            };
            match at {
                Some(at) if from + at + 1 < bytes.len() => cuts.push(from + at + 1),
                _ => break,
            }
        }
    }
    cuts.push(bytes.len());
    cuts
}

/// A token that is not the number its field wants (the token as written).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BadToken {
    /// Not a number at all (NaN and infinity included).
    #[error("`{0}` is not a number")]
    NotANumber(String),
    /// A number past the type's range.
    #[error("`{0}` is out of range")]
    OutOfRange(String),
    /// Not `true` or `false` (`TRUE`, `FALSE`).
    #[error("`{0}` is not a boolean (true or false)")]
    NotABoolean(String),
    /// Not an integer.
    #[error("`{0}` is not an integer")]
    NotAnInteger(String),
    /// An integer past SFInt32 (and past 0xFFFFFFFF in hexadecimal).
    #[error("`{0}` is out of the SFInt32 range")]
    OutOfInt32Range(String),
}

/// `parse_tokens` on one thread.
#[cfg(test)]
pub(super) fn read_tokens<T>(
    text: &str,
    enc: Encoding,
    run: impl Fn(&[u8], usize, &mut Vec<T>) -> usize,
    quick: impl Fn(&[u8]) -> Option<(T, usize)>,
    parse: impl Fn(&str) -> Result<T, BadToken>,
) -> Result<Vec<T>, ValueError> {
    let mut out = Vec::with_capacity(text.len() / 6);
    read_tokens_into(text, enc, run, quick, parse, &mut out)?;
    Ok(out)
}

/// The same, appending to `out`.
fn read_tokens_into<T>(
    text: &str,
    enc: Encoding,
    run: impl Fn(&[u8], usize, &mut Vec<T>) -> usize,
    quick: impl Fn(&[u8]) -> Option<(T, usize)>,
    parse: impl Fn(&str) -> Result<T, BadToken>,
    out: &mut Vec<T>,
) -> Result<(), ValueError> {
    let bytes = text.as_bytes();
    let ends_token = |b: u8| is_separator(b) || (enc == Encoding::Vrml && b == b'#');
    let mut i = 0;
    while i < bytes.len() {
        i = skip_separators(bytes, i, enc);
        i = skip_separators(bytes, run(bytes, i, out), enc);
        if let Some((v, n)) = quick(&bytes[i..])
            && bytes.get(i + n).is_none_or(|&b| ends_token(b))
        {
            out.push(v);
            i += n;
            continue;
        }
        let start = i;
        while i < bytes.len() && !ends_token(bytes[i]) {
            i += 1;
        }
        if start == i {
            break;
        }
        let token = &text[start..i];
        match parse(token) {
            Ok(v) => out.push(v),
            Err(bad) => {
                return Err(ValueError {
                    message: bad.to_string(),
                    at: start..i,
                });
            }
        }
    }
    Ok(())
}

/// The run of decimal digits from `b[i]`, appended to the digits of `m`:
/// (the number, how many digits the run has). Eight bytes at a time where
/// there are eight; past 19 digits in all the number wraps, and the caller
/// refuses it.
pub(super) fn digit_run(b: &[u8], mut i: usize, mut m: u64) -> (u64, usize) {
    const POW10: [u64; 9] = [
        1,
        10,
        100,
        1_000,
        10_000,
        100_000,
        1_000_000,
        10_000_000,
        100_000_000,
    ];
    let start = i;
    while let Some(chunk) = b.get(i..i + 8) {
        let bytes = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        // Each byte minus '0' (one step less than `digit_bytes`): only bytes
        // after the first non-digit can be disturbed by a borrow, and only
        // the digits before it are used.
        let x = bytes.wrapping_sub(0x3030_3030_3030_3030);
        let not_digit = (x | x.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
        let n = (not_digit.trailing_zeros() / 8) as usize;
        if n > 0 {
            // The n digits to the top bytes, zeros (leading) below them.
            m = m
                .wrapping_mul(POW10[n])
                .wrapping_add(eight_digits(x << (8 * (8 - n))));
        }
        i += n;
        if n < 8 {
            return (m, i - start);
        }
    }
    while let Some(&c @ b'0'..=b'9') = b.get(i) {
        m = m.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
        i += 1;
    }
    (m, i - start)
}

/// The bytes of `word` with each digit turned into its value 0..=9 (by
/// exclusive or, so no byte disturbs the next), and a mask with the top bit
/// of each byte set where the byte is not a digit.
pub(super) fn digit_bytes(word: u64) -> (u64, u64) {
    const ONES: u64 = u64::MAX / 255;
    let x = word ^ (ONES * 0x30);
    let not_digit = (((x & (ONES * 0x7F)) + ONES * 0x76) | x) & (ONES * 0x80);
    (x, not_digit)
}

/// Eight digit values, one a byte, the first in the lowest byte, as one
/// number (three multiplications: pairs, fours, eights).
pub(super) fn eight_digits(x: u64) -> u64 {
    let x = (x & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(2561) >> 8;
    let x = (x & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601) >> 16;
    (x & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001) >> 32
}

/// An optional `+` or `-` at `b[i]`: (negative, where what follows starts).
pub(super) fn sign(b: &[u8], i: usize) -> (bool, usize) {
    match b.get(i) {
        Some(b'-') => (true, i + 1),
        Some(b'+') => (false, i + 1),
        _ => (false, i),
    }
}

/// A plain decimal at the start of `b` (sign, digits, point, digits,
/// exponent) as (negative, its digits as an integer, power of ten, bytes
/// read); `None` for anything else or more than 19 digits.
pub(super) fn decimal(b: &[u8]) -> Option<(bool, u64, i32, usize)> {
    let (neg, mut i) = sign(b, 0);
    if let Some((m, exp, n)) = b.get(i..).and_then(short_decimal) {
        return Some((neg, m, exp, i + n));
    }
    let (mut m, whole) = digit_run(b, i, 0);
    i += whole;
    let mut fraction = 0;
    if b.get(i) == Some(&b'.') {
        (m, fraction) = digit_run(b, i + 1, m);
        i += 1 + fraction;
    }
    if whole + fraction == 0 || whole + fraction > 19 {
        return None;
    }
    let mut exp = -(fraction as i32);
    if let Some(b'e' | b'E') = b.get(i) {
        let negative;
        (negative, i) = sign(b, i + 1);
        let (e, digits) = digit_run(b, i, 0);
        if digits == 0 || digits > 4 {
            return None;
        }
        i += digits;
        let e = e as i32;
        exp += if negative { -e } else { e };
    }
    Some((neg, m, exp, i))
}

/// An unsigned decimal (its sign already read) of at most eight bytes
/// without exponent (`12`, `0.5`, `3.141592`) at the start of `b`, read
/// from one eight-byte word: (its digits as an integer, power of ten, bytes
/// read). `None` when it is longer or not of that form; `decimal` then
/// reads it run by run.
pub(super) fn short_decimal(b: &[u8]) -> Option<(u64, i32, usize)> {
    let (x, not_digit) = digit_bytes(u64::from_le_bytes(*b.first_chunk::<8>()?));
    let whole = (not_digit.trailing_zeros() / 8) as usize;
    // A point inside the word, and the digits after it up to the next
    // non-digit.
    let point = whole < 8 && b[whole] == b'.';
    let end = if point {
        let after = not_digit & !(0x80 << (8 * whole));
        (after.trailing_zeros() / 8) as usize
    } else {
        whole
    };
    match b.get(end) {
        Some(b'0'..=b'9' | b'.' | b'e' | b'E') | None => return None,
        _ if end == usize::from(point) => return None,
        _ => {}
    }
    let (m, exp) = word_decimal(x, whole, end, point);
    Some((m, exp, end))
}

/// The number written in the first `len` bytes of `x` (at most eight digit
/// values, one a byte, the first in the lowest byte), with a point at byte
/// `whole` when `point`: (its digits as an integer, power of ten).
pub(super) fn word_decimal(x: u64, whole: usize, len: usize, point: bool) -> (u64, i32) {
    let digits = len - usize::from(point);
    // The digits after the point moved down over it.
    let joined = if point {
        let low = (1u64 << (8 * whole)) - 1;
        (x & low) | ((x >> 8) & !low)
    } else {
        x
    };
    let m = eight_digits(joined << (8 * (8 - digits)));
    (m, -((digits - whole) as i32))
}

/// Reads numbers from `b[i]`, the start of a token, 64 bytes at a time
/// while there are 64, and appends them to `out`; gives where it stopped:
/// at a token it leaves to `parse_tokens` (one `word_decimal` does not
/// read, such as `1e5` or `+2`, or a `#` comment), or short of the end.
///
/// Each block's bytes are first sorted into classes (digit, point, minus,
/// separator) as bit masks, so where each token starts and ends is known
/// at once, and each number is read on its own: a number does not wait for
/// the one before it to find its end, as a byte-by-byte reader must.
pub(super) fn float_run<T: Float>(b: &[u8], mut i: usize, out: &mut Vec<T>) -> usize {
    // A token is read here when its sign, its eight bytes of digits and
    // point, and the separator after it lie in the block: those starting
    // at 0..=LAST.
    const LAST: u32 = 64 - 10;
    const HERE: u64 = (1 << (LAST + 1)) - 1;
    while let Some(block) = b.get(i..).and_then(|b| b.first_chunk::<64>()) {
        let c = Classes::of(block);
        // The block starts at a token.
        let starts = !c.separator & ((c.separator << 1) | 1);
        let mut here = starts & HERE;
        // The block's numbers, gathered here and appended together (a
        // push a number made each wait for the one before to store the
        // vector's length).
        let mut read = [T::default(); LAST as usize + 1];
        let mut n = 0;
        while here != 0 {
            let at = here.trailing_zeros();
            let Some(v) = c.number(block, at) else {
                append_first(out, &read, n);
                return i + at as usize;
            };
            read[n] = v;
            n += 1;
            here &= here - 1;
        }
        append_first(out, &read, n);
        let later = starts & !HERE;
        if later != 0 {
            i += later.trailing_zeros() as usize;
        } else {
            // Separators (or the ends of tokens read) to the block's end.
            i += 64;
            while b.get(i).is_some_and(|&c| is_separator(c)) {
                i += 1;
            }
        }
    }
    i
}

/// Appends the first `n` of `read` to `out`: up to sixteen as sixteen, cut
/// back after, a copy of one size the compiler makes inline (a copy of `n`
/// was a call to `memcpy` for every 64 bytes read: bigscene 10 MB's
/// keyValue, read on one thread, 6.55 -> 6.23 ms).
fn append_first<T: Copy>(out: &mut Vec<T>, read: &[T], n: usize) {
    const AT_ONCE: usize = 16;
    if n <= AT_ONCE && read.len() >= AT_ONCE {
        let len = out.len();
        out.extend_from_slice(&read[..AT_ONCE]);
        out.truncate(len + n);
    } else {
        out.extend_from_slice(&read[..n]);
    }
}

/// The bytes of a 64-byte block sorted into the classes a number is made
/// of, as bit masks (bit k for byte k).
#[derive(Debug, Default, PartialEq)]
pub(super) struct Classes {
    digit: u64,
    point: u64,
    minus: u64,
    separator: u64,
}

impl Classes {
    /// Sixteen bytes at a time, with SSE2 (every x86_64 has it).
    #[cfg(target_arch = "x86_64")]
    pub(super) fn of(block: &[u8; 64]) -> Classes {
        let mut c = Classes::default();
        for (k, bytes) in block.chunks_exact(16).enumerate() {
            let half = |h: usize| i64::from_le_bytes(*bytes[8 * h..].first_chunk().expect("16"));
            let [digit, point, minus, separator] =
                crate::sys::sse2_classes(half(0), half(1)).map(|m| u64::from(m) << (16 * k));
            c.digit |= digit;
            c.point |= point;
            c.minus |= minus;
            c.separator |= separator;
        }
        c
    }

    /// A byte at a time elsewhere.
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) fn of(block: &[u8; 64]) -> Classes {
        Classes::byte_by_byte(block)
    }

    #[cfg(any(not(target_arch = "x86_64"), test))]
    pub(super) fn byte_by_byte(block: &[u8; 64]) -> Classes {
        let mut c = Classes::default();
        for (k, &b) in block.iter().enumerate() {
            c.digit |= u64::from(b.is_ascii_digit()) << k;
            c.point |= u64::from(b == b'.') << k;
            c.minus |= u64::from(b == b'-') << k;
            c.separator |= u64::from(is_separator(b)) << k;
        }
        c
    }

    /// The number whose token starts at byte `at` (at most LAST) when it
    /// is an optional minus, one to eight digits with at most one point,
    /// and a separator, and its value is exact in `T`.
    fn number<T: Float>(&self, block: &[u8; 64], at: u32) -> Option<T> {
        let neg = (self.minus >> at) & 1 == 1;
        let start = at + u32::from(neg);
        let len = (!((self.digit | self.point) >> start)).trailing_zeros();
        if len > 8 || (self.separator >> (start + len)) & 1 == 0 {
            return None;
        }
        let points = (self.point >> start) & ((1 << len) - 1);
        let point = points != 0;
        if points.count_ones() > 1 || len == u32::from(point) {
            return None;
        }
        let whole = if point { points.trailing_zeros() } else { len };
        let start = start as usize;
        let (x, _) = digit_bytes(u64::from_le_bytes(*block[start..].first_chunk::<8>()?));
        let (m, exp) = word_decimal(x, whole as usize, len as usize, point);
        T::exact(neg, m, exp)
    }
}

/// A decimal whose digits and power of ten are exact in `T`, so that one
/// multiplication or division rounds it correctly (Clinger's fast path);
/// `None` leaves the rest to the full parser.
pub(super) fn quick_number<T: Float>(b: &[u8]) -> Option<(T, usize)> {
    let (neg, m, exp, n) = decimal(b)?;
    Some((T::exact(neg, m, exp)?, n))
}

/// A decimal SFInt32 of up to ten digits.
pub(super) fn quick_int(b: &[u8]) -> Option<(i32, usize)> {
    let (neg, start) = sign(b, 0);
    let (v, digits) = digit_run(b, start, 0);
    if digits == 0 || digits > 10 {
        return None;
    }
    let v = if neg { -(v as i64) } else { v as i64 };
    // The range parse_int accepts.
    (i32::MIN as i64..=u32::MAX as i64)
        .contains(&v)
        .then_some((v as u32 as i32, start + digits))
}

/// Space, tab, line feed, carriage return and comma: the bytes between
/// values. Looked up in a table, so that the readers it is inlined into
/// take no branch per kind of separator.
pub(super) fn is_separator(b: u8) -> bool {
    const SEPARATORS: [bool; 256] = {
        let mut t = [false; 256];
        t[b' ' as usize] = true;
        t[b'\t' as usize] = true;
        t[b'\n' as usize] = true;
        t[b'\r' as usize] = true;
        t[b',' as usize] = true;
        t
    };
    SEPARATORS[b as usize]
}

/// A finite floating-point number in X3D syntax, rounded once to the target
/// precision (SFFloat values are parsed as f32 directly, not through f64).
/// NaN and infinity are refused: no X3D field type allows them.
pub fn parse_number<T: Float>(t: &str) -> Result<T, BadToken> {
    match t.parse::<T>() {
        // Rust also reads "inf", "NaN" and "infinity"; those start with a
        // letter, and X3D numbers never do.
        Ok(x) if x.finite() => Ok(x),
        Ok(_)
            if !t
                .trim_start_matches(['+', '-'])
                .starts_with(['i', 'I', 'n', 'N']) =>
        {
            Err(BadToken::OutOfRange(t.to_string()))
        }
        _ => Err(BadToken::NotANumber(t.to_string())),
    }
}

/// The floating-point types of field values.
pub trait Float: std::str::FromStr + Copy + Default {
    fn finite(&self) -> bool;
    /// `±m · 10^exp` when `m` and `10^|exp|` are exact in the type.
    fn exact(neg: bool, m: u64, exp: i32) -> Option<Self>;
}

macro_rules! float {
    ($t:ty, $bits:ty, $digits:expr, $powers:expr) => {
        impl Float for $t {
            fn finite(&self) -> bool {
                self.is_finite()
            }
            fn exact(neg: bool, m: u64, exp: i32) -> Option<$t> {
                const POW10: [$t; $powers + 1] = {
                    let mut p = [1.0; $powers + 1];
                    let mut i = 1;
                    while i <= $powers {
                        p[i] = p[i - 1] * 10.0;
                        i += 1;
                    }
                    p
                };
                if m > 1 << $digits || exp.unsigned_abs() > $powers {
                    return None;
                }
                let v = m as $t;
                let v = if exp < 0 {
                    v / POW10[exp.unsigned_abs() as usize]
                } else {
                    v * POW10[exp as usize]
                };
                // The sign bit set, not chosen by a branch: signs in a
                // list of numbers are as good as random.
                let sign = <$bits>::from(neg) << (<$bits>::BITS - 1);
                Some(<$t>::from_bits(v.to_bits() | sign))
            }
        }
    };
}
// Every integer up to 2^24 and every power of ten up to 10^10 is exact in
// f32; up to 2^53 and 10^22 in f64.
float!(f32, u32, 24, 10);
float!(f64, u64, 53, 22);

/// An SFInt32 in decimal or hexadecimal (`0x1F`) notation.
pub fn parse_int(t: &str) -> Result<i32, BadToken> {
    let (neg, start) = sign(t.as_bytes(), 0);
    let digits = &t[start..];
    let parsed = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i64::from_str_radix(hex, 16)
    } else {
        digits.parse::<i64>()
    };
    let v = parsed.map_err(|_| BadToken::NotAnInteger(t.to_string()))?;
    let v = if neg { -v } else { v };
    // Hexadecimal values up to 0xFFFFFFFF are bit patterns (SFImage pixels).
    if (i32::MIN as i64..=u32::MAX as i64).contains(&v) {
        Ok(v as u32 as i32)
    } else {
        Err(BadToken::OutOfInt32Range(t.to_string()))
    }
}
