//! Numbers as `std::fmt::Display` writes them (the fewest digits that read
//! back to the same float, never an exponent), by zmij: the CSV tables'
//! numbers were most of their time in std's formatting.
//!
//! Where two shortest texts are equally near the float (it lies exactly
//! halfway), zmij takes the even last digit and std the one away from zero
//! (`-1298351.25_f32`: `-1298351.2` and `-1298351.3`); those floats, and
//! only they, are left to std.

/// A float zmij can write: f32 or f64.
pub trait Float: zmij::Float + std::fmt::Display + Copy {
    /// Neither NaN nor infinite.
    fn finite(self) -> bool;
    /// The power of two of the float's lowest set bit (0 for zero).
    fn lowest_bit(self) -> i32;
}

impl Float for f32 {
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn lowest_bit(self) -> i32 {
        lowest_bit(self.to_bits().into(), 23, 8)
    }
}

impl Float for f64 {
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn lowest_bit(self) -> i32 {
        lowest_bit(self.to_bits(), 52, 11)
    }
}

/// The power of two of the lowest set bit of a float of `fraction` and
/// `exponent` bits, from its bits.
fn lowest_bit(bits: u64, fraction: u32, exponent: u32) -> i32 {
    let mantissa = bits & ((1 << fraction) - 1);
    let biased = ((bits >> fraction) & ((1 << exponent) - 1)) as i32;
    let bias = (1 << (exponent - 1)) - 1 + fraction as i32;
    let (mantissa, power) = match biased {
        0 => (mantissa, 1 - bias),
        _ => (mantissa | 1 << fraction, biased - bias),
    };
    match mantissa {
        0 => 0,
        m => power + m.trailing_zeros() as i32,
    }
}

/// Appends `x` to `out` as `write!(out, "{x}")` would.
pub fn push<F: Float>(out: &mut String, x: F) {
    let mut buffer = zmij::Buffer::new();
    let text = if x.finite() {
        buffer.format_finite(x)
    } else {
        ""
    };
    let bytes = text.as_bytes();
    // An exponent is in the last five bytes (`e-324`), if anywhere.
    let tail = bytes.len().saturating_sub(5);
    let written = match bytes[tail..].iter().position(|&b| b == b'e') {
        _ if text.is_empty() => false,
        None => plain(out, x, text),
        Some(e) => scientific(out, x, &text[..tail + e], &text[tail + e + 1..]),
    };
    if !written {
        // NaN, the infinities and floats halfway, rare: std's own text.
        use std::fmt::Write as _;
        let _ = write!(out, "{x}");
    }
}

/// Whether a float could lie halfway between two texts of the shortest
/// length whose last digit is worth 10^-`k`: the float times 10^`k` can
/// end in .5 only if its lowest bit is worth 2^-(`k` + 1).
fn maybe_halfway<F: Float>(x: F, k: i32) -> bool {
    x.lowest_bit() + k == -1
}

/// How many zeros end `digits`.
fn trailing_zeros(digits: &str) -> i32 {
    (digits.len() - digits.trim_end_matches('0').len()) as i32
}

/// zmij's plain text (`123.0`, `0.25`): as it is, but a whole number
/// without `.0`. False, writing nothing, for a float maybe halfway.
fn plain<F: Float>(out: &mut String, x: F, text: &str) -> bool {
    // zmij writes a point in every plain text.
    let (text, k) = match text.strip_suffix(".0") {
        Some(whole) => (whole, -trailing_zeros(whole)),
        None => {
            let point = text.bytes().position(|b| b == b'.').unwrap_or(text.len());
            (text, (text.len() - point) as i32 - 1)
        }
    };
    if maybe_halfway(x, k) {
        return false;
    }
    out.push_str(text);
    true
}

/// zmij's text with an exponent (`1.25e-7`, `1e+16`), in plain digits.
/// False, writing nothing, for a float maybe halfway.
fn scientific<F: Float>(out: &mut String, x: F, mantissa: &str, exponent: &str) -> bool {
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let exponent: i32 = exponent.parse().expect("zmij writes a decimal exponent");
    let k = match fraction {
        "" => -trailing_zeros(whole) - exponent,
        f => f.len() as i32 - exponent,
    };
    if maybe_halfway(x, k) {
        return false;
    }
    // The digits, and how many of them come before the point.
    let point = whole.len() as i32 + exponent;
    out.push_str(sign);
    let digits = whole.bytes().chain(fraction.bytes()).map(char::from);
    let len = (whole.len() + fraction.len()) as i32;
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.extend(digits);
    } else if point >= len {
        out.extend(digits);
        out.extend(std::iter::repeat_n('0', (point - len) as usize));
    } else {
        let mut digits = digits;
        out.extend(digits.by_ref().take(point as usize));
        out.push('.');
        out.extend(digits);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same<F: Float>(x: F) {
        let mut ours = String::new();
        push(&mut ours, x);
        assert_eq!(ours, x.to_string());
    }

    /// The same text as std for special values, floats halfway between two
    /// shortest texts, every power of ten and its neighbours, and random
    /// bit patterns (every exponent, both widths).
    #[test]
    fn writes_what_display_writes() {
        // Exact in f32, halfway between the 8-digit texts either side.
        for halfway in ["-1298351.25", "2563072.25", "0.125"] {
            same(halfway.parse::<f32>().unwrap());
        }
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.1,
            123456.0,
            f64::MAX,
            f64::MIN_POSITIVE,
        ] {
            same(x);
            same(x as f32);
        }
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 5e-324] {
            same(x);
            same(x as f32);
        }
        for e in -330..310 {
            let x: f64 = format!("1e{e}").parse().unwrap();
            for y in [x, x.next_up(), x.next_down(), -x, 1.5 * x, 9.999 * x] {
                same(y);
                same(y as f32);
            }
        }
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..200_000 {
            // xorshift64*
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let bits = state.wrapping_mul(0x2545_f491_4f6c_dd1d);
            same(f64::from_bits(bits));
            same(f32::from_bits(bits as u32));
            same(f32::from_bits((bits >> 32) as u32));
        }
    }
}
