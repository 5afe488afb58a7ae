//! The floor a bake is measured against (`bench/limits.sh`): read a file
//! and parse every number in it with fast-float2, on one thread, doing
//! nothing else. x3dbake must at least do this much.
//!
//!     cargo run --release --example floor -- FILE

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: floor FILE");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("floor: {path}: {e}");
        std::process::exit(2)
    });
    let number = |b: u8| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E');
    let (mut count, mut sum) = (0usize, 0f64);
    let mut i = 0;
    while i < bytes.len() {
        if !number(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && number(bytes[i]) {
            i += 1;
        }
        if let Ok(x) = fast_float2::parse::<f64, _>(&bytes[start..i]) {
            count += 1;
            sum += x;
        }
    }
    // Printed, so that the parsing is not optimised away.
    println!("{count} numbers, sum {sum}");
}
