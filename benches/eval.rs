//! Evaluation speed of the interpolation maths: values per second for a
//! linear vec3, a spline vec3 and a squad rotation (100 keys each, fractions
//! sweeping the whole key range). Run with `cargo bench --bench eval`.

use std::hint::black_box;
use std::time::{Duration, Instant};
use x3dbake::internal::interp::{Interpolator, Kind, Spec, TangentRule};

fn build(kind: Kind, elem: usize, keys: &[f64], values: &[f64]) -> Interpolator {
    Interpolator::new(
        Spec {
            kind,
            keys,
            key_value: values.into(),
            elem,
            multiple: false,
            key_velocity: &[],
            closed: false,
            normalize_velocity: false,
            rule: TangentRule::AsWritten,
        },
        &mut Vec::new(),
    )
}

/// Best of five one-second runs, in values per second.
fn measure(name: &str, it: &Interpolator) {
    let mut out = Vec::with_capacity(4);
    let mut best = 0.0f64;
    for _ in 0..5 {
        let start = Instant::now();
        let mut n = 0u64;
        while start.elapsed() < Duration::from_secs(1) {
            for i in 0..10_000 {
                it.eval(black_box(i as f64 / 10_000.0), &mut out);
                black_box(&out);
            }
            n += 10_000;
        }
        best = best.max(n as f64 / start.elapsed().as_secs_f64());
    }
    println!("{name:<28} {:>8.1} M values/s", best / 1e6);
}

fn main() {
    let n = 100;
    let keys: Vec<f64> = (0..n).map(|i| i as f64 / (n - 1) as f64).collect();
    let vec3: Vec<f64> = (0..n * 3)
        .map(|i| ((i * 7919) % 101) as f64 / 10.0)
        .collect();
    let rot: Vec<f64> = (0..n)
        .flat_map(|i| [1.0, (i % 5) as f64, 0.5, i as f64 * 0.37])
        .collect();
    measure(
        "linear vec3 (Position)",
        &build(Kind::Linear, 3, &keys, &vec3),
    );
    measure(
        "spline vec3 (SplinePosition)",
        &build(Kind::Spline, 3, &keys, &vec3),
    );
    measure("squad rotation", &build(Kind::Squad, 4, &keys, &rot));
}
