//! The followers' continuous pieces against values worked by hand.

use super::*;
use crate::diag::Diagnostics;
use crate::limits::Limits;
use crate::source::Sources;
use glam::DQuat;

/// Every follower type of X3D 4.0 moves by its family's law, component
/// by component (a rotation as a normalised quaternion), from its
/// initialValue to its initialDestination from load: a Chaser
/// (duration 1) halfway at 0.5 s, a Damper (tau 0.5, order 2) at
/// d + (v₀ − d)·e⁻¹·(1 + 1); an OrientationDamper that far along the
/// angle (its stages turn about the one axis).
#[test]
fn every_follower_type_follows_its_law() {
    let types = [
        ("Color", "0 0 0", "1 0.5 0.25"),
        ("Coordinate", "0 0 0 1 1 1", "2 0 0 3 1 1"),
        ("Orientation", "0 1 0 0", "0 1 0 1"),
        ("Position", "0 0 0", "4 2 0"),
        ("Position2D", "0 0", "4 2"),
        ("Scalar", "0", "3"),
        ("TexCoord2D", "0 0 1 1", "1 1 0 0"),
    ];
    let mut text = String::from("#X3D V4.0 utf8\n");
    for (name, from, to) in types {
        let (chaser, damper) = match name.strip_suffix("2D") {
            Some(base) => (format!("{base}Chaser2D"), format!("{base}Damper2D")),
            None => (format!("{name}Chaser"), format!("{name}Damper")),
        };
        let (from, to) = match name {
            "Coordinate" | "TexCoord2D" => (format!("[{from}]"), format!("[{to}]")),
            _ => (from.to_string(), to.to_string()),
        };
        text += &format!(
            "DEF C{name} {chaser} {{ duration 1 initialValue {from} initialDestination {to} }}\n\
             DEF D{name} {damper} {{ tau 0.5 order 2 initialValue {from} initialDestination {to} }}\n"
        );
    }
    let mut sources = Sources::new();
    let file = sources.add("f.x3dv", text);
    let mut diags = Diagnostics::default();
    let scene = crate::syntax::parse(&sources, file, &Limits::default(), &mut diags);
    assert!(!diags.has_errors(), "{:?}", diags.list());
    let followers = load(&scene, None);
    assert_eq!(followers.len(), 14);
    for (name, _, _) in types {
        for (prefix, w) in [("C", 0.5), ("D", 1.0 - (-1.0f64).exp() * 2.0)] {
            let id = scene.def(&format!("{prefix}{name}")).expect("node");
            let f = &followers[&id];
            assert!(f.active, "{prefix}{name} moves from load");
            let value = |field: &str| track_numbers(scene.value(id, field).unwrap());
            let (from, to) = (value("initialValue"), value("initialDestination"));
            let mut want: Vec<f64> = from.iter().zip(&to).map(|(a, b)| a + (b - a) * w).collect();
            if name == "Orientation" && prefix == "D" {
                want = DQuat::from_rotation_y(w).to_array().to_vec();
            } else if name == "Orientation" {
                let n = want.iter().map(|x| x * x).sum::<f64>().sqrt();
                want.iter_mut().for_each(|x| *x /= n);
            }
            let got = f.value(0.5);
            assert_eq!(got.len(), want.len(), "{prefix}{name}");
            // (An OrientationDamper of order 2 is integrated.)
            let within = if f.turns() { 1e-10 } else { 1e-12 };
            for (g, x) in got.iter().zip(&want) {
                assert!((g - x).abs() < within, "{prefix}{name}: {got:?} ≠ {want:?}");
            }
        }
    }
}

fn damper(order: usize, tau: f64) -> Follower {
    damper_of(FieldType::SFFloat, vec![0.0], order, tau, 1e-9)
}

/// A Damper of `ty` at rest at `at`.
fn damper_of(ty: FieldType, at: Vec<f64>, order: usize, tau: f64, tolerance: f64) -> Follower {
    Follower {
        ty,
        law: Law::Damper {
            tau,
            order,
            tolerance,
            t0: 0.0,
            stages: vec![at.clone(); order],
            pieces: vec![(0.0, Dest::Value(at))],
        },
        active: false,
        sample: 0,
        step: f64::INFINITY,
    }
}

/// A step of a Damper against its closed form worked by hand: order 1
/// is 1 − e⁻ˢ, order 2 is 1 − e⁻ˢ(1 + s), order 3 1 − e⁻ˢ(1 + s + s²/2);
/// a second step midway starts from where the stages are.
#[test]
fn a_damper_step_is_the_closed_form() {
    for order in 1..=3 {
        let mut f = damper(order, 0.5);
        f.set_destination(1.0, vec![1.0]);
        for t in [1.0, 1.25, 1.5, 2.0, 3.0] {
            let s: f64 = (t - 1.0) / 0.5;
            let sum: f64 = [1.0, s, s * s / 2.0][..order].iter().sum();
            let want = 1.0 - (-s).exp() * sum;
            assert!((f.value(t)[0] - want).abs() < 1e-12, "order {order} at {t}");
        }
    }
    // Order 1, a new destination 2 at 2 s: from y(2) = 1 − e⁻², e⁻ˢ
    // towards 2.
    let mut f = damper(1, 1.0);
    f.set_destination(1.0, vec![1.0]);
    f.set_destination(2.0, vec![2.0]);
    let y2 = 1.0 - (-1.0f64).exp();
    let want = 2.0 + (y2 - 2.0) * (-0.5f64).exp();
    assert!((f.value(2.5)[0] - want).abs() < 1e-12);
}

/// A Chaser moves as the cosine step over its duration, and two
/// changes add.
#[test]
fn a_chaser_adds_cosine_steps() {
    let mut f = Follower {
        ty: FieldType::SFFloat,
        law: Law::Chaser {
            duration: 2.0,
            pieces: vec![(f64::NEG_INFINITY, Dest::Value(vec![0.0]))],
        },
        active: false,
        sample: 0,
        step: f64::INFINITY,
    };
    f.set_destination(1.0, vec![4.0]);
    assert_eq!(f.value(1.0), vec![0.0]);
    assert!((f.value(2.0)[0] - 2.0).abs() < 1e-12);
    assert!((f.value(3.0)[0] - 4.0).abs() < 1e-12);
    assert!(!f.settled(2.9) && f.settled(3.0));
    // Back to 0 at 2 s: 4·S(t − 1) − 4·S(t − 2).
    f.set_destination(2.0, vec![0.0]);
    let s = |u: f64| 0.5 - 0.5 * (std::f64::consts::PI * u / 2.0).cos();
    let want = 4.0 * s(1.5) - 4.0 * s(0.5);
    assert!((f.value(2.5)[0] - want).abs() < 1e-12);
    assert!((f.value(4.0)[0]).abs() < 1e-12);
}

/// The angle between two quaternions.
fn angle(a: DQuat, b: DQuat) -> f64 {
    2.0 * a.dot(b).abs().min(1.0).acos()
}

/// An OrientationDamper of order 1 (τ 0.5) sent a quarter turn about
/// (1, 1, 0)/√2 at 1 s turns about that axis, and τ later has turned
/// 1 − e⁻¹ ≈ 63.2 % of it, 2τ later 1 − e⁻²: as X_ITE's frames, each
/// a slerp by 1 − e^(−Δt/τ), compose. It stops when it is within
/// `tolerance` (1e-4 rad) of the destination, ln(π/2 / 1e-4) τ after
/// the change, and holds its value there.
#[test]
fn an_orientation_damper_turns_along_the_rotation() {
    let axis = glam::DVec3::new(1.0, 1.0, 0.0).normalize();
    let d = DQuat::from_axis_angle(axis, std::f64::consts::FRAC_PI_2);
    let identity = DQuat::IDENTITY.to_array().to_vec();
    let mut f = damper_of(FieldType::SFRotation, identity, 1, 0.5, 1e-4);
    f.set_destination(1.0, d.to_array().to_vec());
    for (t, w) in [(1.5, 1.0 - (-1.0f64).exp()), (2.0, 1.0 - (-2.0f64).exp())] {
        let q = DQuat::from_slice(&f.value(t));
        let want = DQuat::from_axis_angle(axis, w * std::f64::consts::FRAC_PI_2);
        assert!(angle(q, want) < 1e-12, "at {t}: {q:?}");
    }
    let ends = 1.0 + 0.5 * (std::f64::consts::FRAC_PI_2 / 1e-4).ln();
    assert!(!f.settled(ends - 1e-3) && f.settled(ends + 1e-3));
    assert_eq!(f.arrived(ends + 1e-3), f.value(ends + 1e-3));
}

/// An OrientationDamper of order 2 (τ 0.3) sent a quarter turn about +y
/// at 0, then a half turn about +x at 0.4 s: its stages leave the one
/// plane, and at every tenth of a second to 2 s its value is within 2e-6
/// rad of X_ITE's definition integrated in frames of 1 µs (each stage
/// slerped towards its input, the one before it as just moved, by
/// 1 − e^(−Δt/τ); the frames' own error, of the order of Δt/τ of the
/// turn, is 4e-7 rad here).
#[test]
fn an_orientation_damper_is_its_frames_in_the_limit() {
    let tau = 0.3;
    let first = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2);
    let second = DQuat::from_rotation_x(std::f64::consts::PI * 0.5);
    let identity = DQuat::IDENTITY.to_array().to_vec();
    let mut f = damper_of(FieldType::SFRotation, identity, 2, tau, 1e-9);
    f.set_destination(0.0, first.to_array().to_vec());
    let dt = 1e-6;
    let w = 1.0 - (-dt / tau).exp();
    let mut y = [DQuat::IDENTITY; 2];
    let mut worst = 0.0f64;
    for n in 1..=2_000_000u32 {
        let t = f64::from(n) * dt;
        let d = if t <= 0.4 + dt / 2.0 { first } else { second };
        if n == 400_000 {
            f.set_destination(0.4, second.to_array().to_vec());
        }
        y[0] = crate::interp::rotation::slerp(y[0], d, w);
        y[1] = crate::interp::rotation::slerp(y[1], y[0], w);
        if n % 100_000 == 0 {
            worst = worst.max(angle(DQuat::from_slice(&f.value(t)), y[1]));
        }
    }
    assert!(worst < 2e-6, "{worst:e}");
}
