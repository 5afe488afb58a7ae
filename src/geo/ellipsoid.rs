//! Reference ellipsoids and the conversions on them: geodetic to
//! geocentric and back, UTM to geodetic (Snyder, USGS Professional Paper
//! 1395, p. 63), the frame up at a point.

use crate::math::{atan2, sin, sin_cos};
use glam::{DAffine3, DMat3, DVec3};

/// An ellipsoid of revolution about the Z axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ellipsoid {
    /// Semi-major axis, metres.
    pub a: f64,
    /// Semi-minor axis, metres.
    pub c: f64,
}

/// The X3D text's ellipsoid codes (19775-1, table 25.3): semi-major axis
/// and inverse flattening.
const CODES: [(&str, f64, f64); 23] = [
    ("AA", 6377563.396, 299.3249646),
    ("AM", 6377340.189, 299.3249646),
    ("AN", 6378160.0, 298.25),
    ("BN", 6377483.865, 299.1528128),
    ("BR", 6377397.155, 299.1528128),
    ("CC", 6378206.4, 294.9786982),
    ("CD", 6378249.145, 293.465),
    ("EA", 6377276.345, 300.8017),
    ("EB", 6377298.556, 300.8017),
    ("EC", 6377301.243, 300.8017),
    ("ED", 6377295.664, 300.8017),
    ("EE", 6377304.063, 300.8017),
    ("EF", 6377309.613, 300.8017),
    ("FA", 6378155.0, 298.3),
    ("HE", 6378200.0, 298.3),
    ("HO", 6378270.0, 297.0),
    ("ID", 6378160.0, 298.247),
    ("IN", 6378388.0, 297.0),
    ("KA", 6378245.0, 298.3),
    ("RF", 6378137.0, 298.257222101),
    ("SA", 6378160.0, 298.25),
    ("WD", 6378135.0, 298.26),
    ("WE", 6378137.0, 298.257223563),
];

/// UTM's scale on the central meridian, false easting and false northing
/// (south).
const K0: f64 = 0.9996;
const E0: f64 = 500_000.0;
const N0: f64 = 10_000_000.0;

impl Ellipsoid {
    /// WGS84, X3D's default ("WE").
    pub const WGS84: Ellipsoid = Ellipsoid::flattened(6378137.0, 298.257223563);

    const fn flattened(a: f64, inverse_flattening: f64) -> Ellipsoid {
        Ellipsoid {
            a,
            c: a * (1.0 - 1.0 / inverse_flattening),
        }
    }

    /// The ellipsoid an X3D code names, if any.
    pub fn named(code: &str) -> Option<Ellipsoid> {
        CODES
            .iter()
            .find(|(c, ..)| *c == code)
            .map(|&(_, a, f)| Ellipsoid::flattened(a, f))
    }

    /// The first eccentricity squared, e² = 1 − c²/a².
    fn e2(&self) -> f64 {
        1.0 - (self.c / self.a) * (self.c / self.a)
    }

    /// Geodetic latitude, longitude (radians) and height to geocentric:
    /// N = a/√(1 − e² sin²φ), X = (N + h) cos φ cos λ,
    /// Y = (N + h) cos φ sin λ, Z = (N (1 − e²) + h) sin φ.
    pub fn geodetic_to_gc(&self, lat: f64, lon: f64, h: f64) -> DVec3 {
        let (slat, clat) = sin_cos(lat);
        let (slon, clon) = sin_cos(lon);
        let e2 = self.e2();
        let n = self.a / (1.0 - e2 * slat * slat).sqrt();
        DVec3::new(
            (n + h) * clat * clon,
            (n + h) * clat * slon,
            (n * (1.0 - e2) + h) * slat,
        )
    }

    /// Geocentric to geodetic latitude, longitude (radians) and height,
    /// by fixed-point iteration on the latitude (to 1e-14 rad).
    pub fn gc_to_geodetic(&self, gc: DVec3) -> (f64, f64, f64) {
        let p = (gc.x * gc.x + gc.y * gc.y).sqrt();
        let lon = atan2(gc.y, gc.x);
        let e2 = self.e2();
        if p == 0.0 {
            let lat = if gc.z < 0.0 {
                -std::f64::consts::FRAC_PI_2
            } else {
                std::f64::consts::FRAC_PI_2
            };
            return (lat, lon, gc.z.abs() - self.c);
        }
        let mut lat = atan2(gc.z, p * (1.0 - e2));
        let mut h = 0.0;
        for _ in 0..30 {
            let (s, c) = sin_cos(lat);
            let n = self.a / (1.0 - e2 * s * s).sqrt();
            h = p / c - n;
            let next = atan2(gc.z, p * (1.0 - e2 * n / (n + h)));
            let done = (next - lat).abs() < 1e-14;
            lat = next;
            if done {
                break;
            }
        }
        (lat, lon, h)
    }

    /// UTM northing and easting in a zone (south: the false northing
    /// taken off) to geodetic latitude and longitude, radians.
    pub fn utm_to_geodetic(&self, zone: i32, south: bool, north: f64, east: f64) -> (f64, f64) {
        let e2 = self.e2();
        let ep2 = e2 / (1.0 - e2);
        let m = (north - if south { N0 } else { 0.0 }) / K0;
        let mu =
            m / (self.a * (1.0 - e2 / 4.0 - 3.0 * e2 * e2 / 64.0 - 5.0 * e2 * e2 * e2 / 256.0));
        let r = (1.0 - e2).sqrt();
        let e1 = (1.0 - r) / (1.0 + r);
        let phi1 = mu
            + (3.0 * e1 / 2.0 - 27.0 * e1 * e1 * e1 / 32.0) * sin(2.0 * mu)
            + (21.0 * e1 * e1 / 16.0 - 55.0 * e1 * e1 * e1 * e1 / 32.0) * sin(4.0 * mu)
            + (151.0 * e1 * e1 * e1 / 96.0) * sin(6.0 * mu)
            + (1097.0 * e1 * e1 * e1 * e1 / 512.0) * sin(8.0 * mu);
        let (s1, c1) = sin_cos(phi1);
        let tan1 = s1 / c1;
        let cc = ep2 * c1 * c1;
        let t = tan1 * tan1;
        let w = 1.0 - e2 * s1 * s1;
        let n1 = self.a / w.sqrt();
        let r1 = self.a * (1.0 - e2) / (w * w.sqrt());
        let d = (east - E0) / (n1 * K0);
        let d2 = d * d;
        let lat = phi1
            - (n1 * tan1 / r1)
                * (d * d / 2.0
                    - (5.0 + 3.0 * t + 10.0 * cc - 4.0 * cc * cc - 9.0 * ep2) * d2 * d2 / 24.0
                    + (61.0 + 90.0 * t + 298.0 * cc + 45.0 * t * t - 252.0 * ep2 - 3.0 * cc * cc)
                        * d2
                        * d2
                        * d2
                        / 720.0);
        let lon0 = ((zone * 6 - 183) as f64).to_radians();
        let lon = lon0
            + (d - (1.0 + 2.0 * t + cc) * d2 * d / 6.0
                + (5.0 - 2.0 * cc + 28.0 * t - 3.0 * cc * cc + 8.0 * ep2 + 24.0 * t * t)
                    * d2
                    * d2
                    * d
                    / 120.0)
                / c1;
        (lat, lon)
    }

    /// The frame at a geocentric point: its origin there, +Y the
    /// ellipsoid's normal (geodetic up), +X = Z_gc × up (east; X_gc at a
    /// pole), +Z = X × Y.
    pub fn tangent_frame(&self, gc: DVec3) -> DAffine3 {
        let (lat, lon, _) = self.gc_to_geodetic(gc);
        let (slat, clat) = sin_cos(lat);
        let (slon, clon) = sin_cos(lon);
        let y = DVec3::new(clat * clon, clat * slon, slat);
        let x = DVec3::Z.cross(y);
        // (At a pole, within rounding.)
        let x = if x.length() < 1e-12 {
            DVec3::X
        } else {
            x.normalize()
        };
        let z = x.cross(y).normalize();
        DAffine3::from_mat3_translation(DMat3::from_cols(x, y, z), gc)
    }
}
