//! Rotation keys that every player plays alike. glTF joins LINEAR rotation
//! keys by slerp, and three.js and Babylon.js do; Blender's importer (and
//! engines that turn channels into per-component curves) interpolates each
//! quaternion component and normalises: nlerp. Between two keys the two
//! paths part by up to [`gap`] of the keys' angle (15° → 7.2e-5 rad, 20° →
//! 1.7e-4, 90° → 1.6e-2), so LINEAR rotation keys are kept close enough
//! that both stay within the bound: a fit measures both paths
//! (`fit::Curve::distance_at`), so does thinning (`reduce::thin`), and
//! exact slerp keys are first cut by [`split`] into equal arcs (the keys
//! added lie on the slerp path: a slerp player's curve is unchanged).

use super::keyframes::{Interpolation, Keyframes};
use crate::hash::HashMap;
use crate::interp::rotation::Slerp;
use crate::math;
use glam::DQuat;
use std::cell::RefCell;

/// The rotation between a quaternion and the nlerp of `a` and `b` at `s`
/// (`b` in `a`'s hemisphere): the distance an nlerp player is from slerp.
pub fn nlerp(a: DQuat, b: DQuat, s: f64) -> DQuat {
    (a + (b - a) * s).normalize()
}

/// Points a gap is measured at on half a segment (the gap is symmetric
/// about its middle), plus one.
const GAP_CHECKS: usize = 64;

/// The largest angle (radians, as a rotation) between slerp and nlerp of
/// two unit quaternions `omega` apart in 4D (rotations 2·`omega` apart). At
/// parameter s slerp is s·omega from the first, nlerp atan2(s·sin omega,
/// 1 − s + s·cos omega); the rotations differ by twice that difference.
/// The largest of them on a grid of 1/128 of the segment (the gap is smooth
/// and flat at its largest: off by under 1e-3 of it).
pub fn gap(omega: f64) -> f64 {
    let (sin, cos) = (math::sin(omega), math::cos(omega));
    (1..=GAP_CHECKS)
        .map(|i| {
            let s = 0.5 * i as f64 / GAP_CHECKS as f64;
            let phi = math::atan2(s * sin, 1.0 - s + s * cos);
            2.0 * (phi - s * omega).abs()
        })
        .fold(0.0, f64::max)
}

/// How many equal arcs a slerp segment `omega` apart (4D) is cut into so
/// that nlerp keeps within `room` of it (a gap is at most 1e-3 above its
/// grid value: a margin of 1 %); at most `MAX_ARCS`.
fn arcs(omega: f64, room: f64) -> usize {
    // Scenes repeat their turns (many nodes spun alike): each answer is
    // kept for the thread's next segment of that angle and room.
    thread_local! {
        static KNOWN: RefCell<HashMap<(u64, u64), usize>> = RefCell::default();
    }
    const KEPT: usize = 4096;
    let key = (omega.to_bits(), room.to_bits());
    if let Some(n) = KNOWN.with_borrow(|known| known.get(&key).copied()) {
        return n;
    }
    let n = count_arcs(omega, room);
    KNOWN.with_borrow_mut(|known| {
        if known.len() >= KEPT {
            known.clear();
        }
        known.insert(key, n);
    });
    n
}

/// [`arcs`], counted.
fn count_arcs(omega: f64, room: f64) -> usize {
    const MAX_ARCS: usize = 1 << 16;
    let room = 0.99 * room;
    // The gap grows as omega³ (about 0.0321·omega³ for a small omega):
    // start from that guess, one below it.
    let guess = (omega * math::powf(0.0321 / room.max(f64::MIN_POSITIVE), 1.0 / 3.0)) as usize;
    let mut n = guess.saturating_sub(1).max(1);
    while n < MAX_ARCS && gap(omega / n as f64) > room {
        n += 1;
    }
    n
}

/// Slerp keyframes with each segment cut into equal arcs so that an nlerp
/// player stays within `room` of the slerp curve (keys at one time, jumps,
/// are kept as they are); `None` when no segment needs it. The room is
/// asked for only for slerp keys (a value track's bound scans its values).
pub fn split(k: &Keyframes, room: impl FnOnce() -> f64) -> Option<Keyframes<'static>> {
    let cuts = cuts(k, room)?;
    let quat = |i: usize| DQuat::from_slice(&k.value(i));
    let mut out = Keyframes::with_room(Interpolation::Slerp, 4, k.quaternions, cut_len(&cuts));
    for (i, &n) in cuts.iter().enumerate() {
        let a = quat(i);
        let (t0, t1) = (k.times[i], k.times[i + 1]);
        // (The arc's angle found once for its n - 1 points.)
        let arc = (n > 1).then(|| Slerp::new(a, quat(i + 1)));
        for j in 0..n {
            let s = j as f64 / n as f64;
            let q = match &arc {
                Some(arc) if j > 0 => arc.at(s),
                _ => a,
            };
            out.push(t0 + (t1 - t0) * s, &q.to_array(), &[], &[], 1.0);
        }
    }
    let last = k.len() - 1;
    out.push(k.times[last], &k.value(last), &[], &[], 1.0);
    Some(out)
}

/// How many keyframes [`split`] makes of `k`: as many as it has where no
/// segment needs cutting (counted, not made: `inspect`'s account).
pub fn split_len(k: &Keyframes, room: impl FnOnce() -> f64) -> usize {
    cuts(k, room).map_or(k.len(), |cuts| cut_len(&cuts))
}

/// How many keyframes segments cut into `cuts` arcs make: each arc's
/// first key, and the last key.
fn cut_len(cuts: &[usize]) -> usize {
    cuts.iter().sum::<usize>() + 1
}

/// The arcs each segment of slerp keyframes is cut into (see [`split`]);
/// `None` when no segment needs it.
fn cuts(k: &Keyframes, room: impl FnOnce() -> f64) -> Option<Vec<usize>> {
    if k.interpolation != Interpolation::Slerp || k.width != 4 || k.len() < 2 {
        return None;
    }
    let room = room();
    let quat = |i: usize| DQuat::from_slice(&k.value(i));
    let cuts: Vec<usize> = (0..k.len() - 1)
        .map(|i| {
            let (a, b) = (quat(i), quat(i + 1));
            let b = if a.dot(b) < 0.0 { -b } else { b };
            let omega = 2.0 * math::atan2((a - b).length(), (a + b).length());
            match k.times[i + 1] > k.times[i] {
                true => arcs(omega, room),
                false => 1,
            }
        })
        .collect();
    (!cuts.iter().all(|&n| n == 1)).then_some(cuts)
}

#[cfg(test)]
mod tests {
    use super::{gap, nlerp, split, split_len};
    use crate::anim::keyframes::{Interpolation, Keyframes};
    use crate::interp::rotation::slerp;
    use glam::{DQuat, DVec3};

    /// The rotation between two unit quaternions, in radians.
    fn angle(p: DQuat, q: DQuat) -> f64 {
        let q = if p.dot(q) < 0.0 { -q } else { q };
        4.0 * (p - q).length().atan2((p + q).length())
    }

    /// The gap against a dense search of the two paths, at the figures
    /// the importer comparison measured (15° → 7.2e-5 rad, 20° → 1.7e-4).
    #[test]
    fn the_gap_is_the_largest_distance_of_the_two_paths() {
        for degrees in [1.0f64, 15.0, 20.0, 90.0, 179.0] {
            let a = DQuat::from_axis_angle(DVec3::new(0.3, 1.0, -0.2).normalize(), 0.4);
            let b = a * DQuat::from_axis_angle(DVec3::Z, degrees.to_radians());
            let dense = (0..=10_000)
                .map(|i| {
                    let s = i as f64 / 10_000.0;
                    angle(slerp(a, b, s), nlerp(a, b, s))
                })
                .fold(0.0, f64::max);
            let omega = degrees.to_radians() / 2.0;
            let g = gap(omega);
            assert!(
                g <= dense * (1.0 + 1e-9) && g >= dense * (1.0 - 1e-3),
                "{degrees}°: {g} vs {dense}"
            );
        }
        assert!((gap(7.5f64.to_radians()) - 7.2e-5).abs() < 1e-6);
        assert!((gap(10f64.to_radians()) - 1.7e-4).abs() < 1e-5);
    }

    /// A half turn in one segment is cut into arcs short enough that nlerp
    /// between them is within the room of the slerp path at every time,
    /// and every key added lies on that path.
    #[test]
    fn split_keys_keep_nlerp_within_the_room() {
        let mut k = Keyframes::new(Interpolation::Slerp, 4, true);
        let a = DQuat::IDENTITY;
        let b = DQuat::from_axis_angle(DVec3::Y, 3.0);
        k.push(0.0, &a.to_array(), &[], &[], 1.0);
        k.push(2.0, &b.to_array(), &[], &[], 1.0);
        let room = 1e-4;
        let cut = split(&k, || room).expect("a half turn is cut");
        assert!(cut.len() > 10 && cut.len() < 40, "{} keys", cut.len());
        let mut worst = 0.0f64;
        for i in 0..=2000 {
            let t = 2.0 * i as f64 / 2000.0;
            let truth = slerp(a, b, t / 2.0);
            // The cut keys played by nlerp.
            let j = cut
                .times
                .partition_point(|&x| x <= t)
                .clamp(1, cut.len() - 1)
                - 1;
            let (p, q) = (
                DQuat::from_slice(&cut.value(j)),
                DQuat::from_slice(&cut.value(j + 1)),
            );
            let s = (t - cut.times[j]) / (cut.times[j + 1] - cut.times[j]);
            worst = worst.max(angle(nlerp(p, q, s), truth));
            assert!(angle(p, slerp(a, b, cut.times[j] / 2.0)) < 1e-12);
        }
        assert!(worst <= room, "{worst}");
        assert!(worst > 0.5 * room, "not cut more than needed: {worst}");
        // Short segments are left alone.
        let mut short = Keyframes::new(Interpolation::Slerp, 4, true);
        short.push(0.0, &a.to_array(), &[], &[], 1.0);
        short.push(
            1.0,
            &DQuat::from_axis_angle(DVec3::Y, 0.2).to_array(),
            &[],
            &[],
            1.0,
        );
        assert!(split(&short, || room).is_none());
        assert_eq!(split_len(&short, || room), 2);
    }

    /// Counted, the keyframes split makes: segments cut and not, a jump
    /// (two keys at one time), a value track.
    #[test]
    fn split_len_counts_the_keys_split_makes() {
        let mut k = Keyframes::new(Interpolation::Slerp, 4, true);
        let turns = [0.0, 3.0, 3.1, 3.1, 1.0, -2.5];
        let times = [0.0, 1.0, 2.0, 2.0, 3.0, 4.0];
        for (t, a) in times.into_iter().zip(turns) {
            k.push(
                t,
                &DQuat::from_axis_angle(DVec3::Y, a).to_array(),
                &[],
                &[],
                1.0,
            );
        }
        for room in [1e-2, 1e-4, 1e-6] {
            let made = split(&k, || room).map_or(k.len(), |cut| cut.len());
            assert_eq!(split_len(&k, || room), made, "room {room}");
        }
        let mut values = Keyframes::new(Interpolation::Linear, 1, false);
        values.push(0.0, &[1.0], &[], &[], 1.0);
        values.push(1.0, &[5.0], &[], &[], 1.0);
        assert_eq!(split_len(&values, || 1e-4), 2);
    }
}
