use super::*;

fn strings(s: &[&str]) -> Vec<String> {
    s.iter().map(|s| s.to_string()).collect()
}

fn close(a: DVec3, b: DVec3, tol: f64) {
    assert!(
        (a - b).abs().max_element() <= tol,
        "{a} is not {b} (within {tol})"
    );
}

#[test]
fn geodetic_to_geocentric_as_computed_by_hand() {
    let gd = GeoSystem::parse(&strings(&["GD", "WE"]));
    // On the equator at the prime meridian: (a, 0, 0).
    close(gd.to_gc(DVec3::ZERO), DVec3::new(6378137.0, 0.0, 0.0), 1e-9);
    // 45°N 45°E: N = a/√(1 − e²/2) = 6388838.290 m; X = Y = N/2,
    // Z = N(1 − e²)/√2 (the published WGS84 value).
    let p = DVec3::new(3194419.145060574, 3194419.145060574, 4487348.408865919);
    close(gd.to_gc(DVec3::new(45.0, 45.0, 0.0)), p, 1e-6);
    // The north pole: (0, 0, c), c = a(1 − f).
    let c = 6378137.0 * (1.0 - 1.0 / 298.257223563);
    close(
        gd.to_gc(DVec3::new(90.0, 0.0, 0.0)),
        DVec3::new(0.0, 0.0, c),
        1e-6,
    );
    // 37.5°N 122.25°W, 10 m up; and the same longitude first.
    let p = DVec3::new(-2703511.352090526, -4284806.1635509785, 3861570.1864238963);
    close(gd.to_gc(DVec3::new(37.5, -122.25, 10.0)), p, 1e-6);
    let lf = GeoSystem::parse(&strings(&["GD", "WE", "longitude_first"]));
    close(lf.to_gc(DVec3::new(-122.25, 37.5, 10.0)), p, 1e-6);
}

#[test]
fn geocentric_back_to_geodetic() {
    let e = Ellipsoid::WGS84;
    for (lat, lon, h) in [
        (37.5, -122.25, 10.0),
        (-80.0, 170.0, 9000.0),
        (0.0, 0.0, -50.0),
    ] {
        let gc = e.geodetic_to_gc(f64::to_radians(lat), f64::to_radians(lon), h);
        let (la, lo, he) = e.gc_to_geodetic(gc);
        assert!((la.to_degrees() - lat).abs() < 1e-11, "{la}");
        assert!((lo.to_degrees() - lon).abs() < 1e-11, "{lo}");
        assert!((he - h).abs() < 1e-6, "{he}");
    }
}

#[test]
fn utm_to_geodetic_as_published() {
    let e = Ellipsoid::WGS84;
    // The central meridian of zone 31 on the equator: 0°, 3°E.
    let (lat, lon) = e.utm_to_geodetic(31, false, 0.0, 500_000.0);
    assert!(lat.abs() < 1e-12 && (lon.to_degrees() - 3.0).abs() < 1e-12);
    // The CN Tower: 17T 630084 E 4833438 N, 43.642567°N 79.387139°W (to
    // the metre the published figures give).
    let (lat, lon) = e.utm_to_geodetic(17, false, 4_833_438.0, 630_084.0);
    assert!(
        (lat.to_degrees() - 43.642567).abs() < 1e-5,
        "{}",
        lat.to_degrees()
    );
    assert!(
        (lon.to_degrees() + 79.387139).abs() < 1e-5,
        "{}",
        lon.to_degrees()
    );
    // The same place south of the equator is its mirror (false northing).
    let (s, _) = e.utm_to_geodetic(17, true, 10_000_000.0 - 4_833_438.0, 630_084.0);
    assert!((s + lat).abs() < 1e-12);
    let utm = GeoSystem::parse(&strings(&["UTM", "Z17", "easting_first"]));
    assert_eq!(
        utm.coords,
        Coords::Utm {
            zone: 17,
            south: false,
            easting_first: true
        }
    );
    let p = DVec3::new(851422.4123060623, -4543894.236310961, 4379437.9337584255);
    close(utm.to_gc(DVec3::new(630_084.0, 4_833_438.0, 0.0)), p, 1.5);
}

#[test]
fn systems_and_ellipsoids_read_as_the_text_names_them() {
    assert_eq!(
        GeoSystem::parse(&[]).coords,
        Coords::Gd {
            longitude_first: false
        }
    );
    assert_eq!(GeoSystem::parse(&strings(&["GCC"])).coords, Coords::Gc);
    let intl = GeoSystem::parse(&strings(&["GD", "IN"])).ellipsoid;
    assert_eq!(intl.a, 6378388.0);
    assert!((intl.c - 6378388.0 * (1.0 - 1.0 / 297.0)).abs() < 1e-9);
    assert_eq!(
        GeoSystem::parse(&strings(&["GD", "XX"])).ellipsoid,
        Ellipsoid::WGS84
    );
}

#[test]
fn the_tangent_frame_is_east_up_south() {
    let e = Ellipsoid::WGS84;
    let f = e.tangent_frame(DVec3::new(6378137.0, 0.0, 0.0));
    close(f.matrix3.x_axis, DVec3::Y, 1e-12);
    close(f.matrix3.y_axis, DVec3::X, 1e-12);
    close(f.matrix3.z_axis, -DVec3::Z, 1e-12);
    // At a pole, +X stays the geocentric X.
    let f = e.tangent_frame(DVec3::new(0.0, 0.0, 6356752.0));
    close(f.matrix3.x_axis, DVec3::X, 1e-12);
    close(f.matrix3.y_axis, DVec3::Z, 1e-12);
}

#[test]
fn rotate_y_up_makes_the_origins_up_plus_y() {
    let gd = GeoSystem::parse(&[]);
    let origin = gd.to_gc(DVec3::new(37.5, -122.25, 0.0));
    let frame = |world| Frame { system: gd, world };
    let yup = frame(Ellipsoid::WGS84.tangent_frame(origin).inverse());
    close(
        yup.point(DVec3::new(37.5, -122.25, 100.0)),
        DVec3::new(0.0, 100.0, 0.0),
        1e-6,
    );
    // North is −Z, east +X; the ground falls away from the origin.
    let north = yup.point(DVec3::new(37.51, -122.25, 0.0));
    assert!(
        north.z < -1100.0 && north.x.abs() < 1e-6 && north.y < 0.0,
        "{north}"
    );
    let east = yup.point(DVec3::new(37.5, -122.24, 0.0));
    assert!(east.x > 880.0 && east.y < 0.0, "{east}");
    // Without rotateYUp: the origin's GC position taken off.
    let moved = frame(DAffine3::from_translation(-origin));
    close(
        moved.point(DVec3::new(37.5, -122.25, 0.0)),
        DVec3::ZERO,
        1e-9,
    );
    // A location's +Y is up there.
    let l = yup.location(DVec3::new(37.5, -122.25, 0.0));
    close(l.matrix3.y_axis, DVec3::Y, 1e-12);
    close(l.translation, DVec3::ZERO, 1e-6);
}
