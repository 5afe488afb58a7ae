//! The Geospatial component's coordinates: a `geoSystem` (GD, UTM, GC on
//! an ellipsoid) to geocentric (GC) metres, and GC to the scene's frame
//! (minus the `geoOrigin`'s GC position, turned so that +Y is up there
//! when it says `rotateYUp`), as X3D 19775-1 clause 25 defines them.

mod ellipsoid;

use crate::scene::{NodeId, NodeType, Scene};
pub use ellipsoid::Ellipsoid;
use glam::{DAffine3, DVec3};

/// Which coordinates a `geoSystem` gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coords {
    /// Geodetic: latitude, longitude (degrees), elevation (metres above
    /// the ellipsoid); longitude first with "longitude_first".
    Gd { longitude_first: bool },
    /// Universal Transverse Mercator: northing, easting, elevation in a
    /// zone ("Z10"), south of the equator with "S"; easting first with
    /// "easting_first".
    Utm {
        zone: i32,
        south: bool,
        easting_first: bool,
    },
    /// Geocentric: x, y, z metres from the Earth's centre.
    Gc,
}

/// A `geoSystem` field, read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoSystem {
    pub coords: Coords,
    pub ellipsoid: Ellipsoid,
}

impl GeoSystem {
    /// The strings of a `geoSystem` field: the first that names a system
    /// ("GD"/"GDC", "UTM", "GC"/"GCC"/"GS"; GD when none does), the first
    /// ellipsoid code (WGS84 "WE" when none), a zone "Zn" (1 when none),
    /// "S", "longitude_first", "easting_first".
    pub fn parse(strings: &[String]) -> GeoSystem {
        let has = |s: &str| strings.iter().any(|g| g == s);
        let system = strings.iter().find_map(|s| match s.as_str() {
            "GD" | "GDC" => Some(0),
            "UTM" => Some(1),
            "GC" | "GCC" | "GS" => Some(2),
            _ => None,
        });
        let zone = strings
            .iter()
            .find_map(|s| s.strip_prefix('Z')?.parse::<i32>().ok())
            .unwrap_or(1);
        let coords = match system {
            Some(1) => Coords::Utm {
                zone,
                south: has("S"),
                easting_first: has("easting_first"),
            },
            Some(2) => Coords::Gc,
            _ => Coords::Gd {
                longitude_first: has("longitude_first"),
            },
        };
        let ellipsoid = strings
            .iter()
            .find_map(|s| Ellipsoid::named(s))
            .unwrap_or(Ellipsoid::WGS84);
        GeoSystem { coords, ellipsoid }
    }

    /// A node's `geoSystem` (GD on WGS84 without the field).
    pub fn of(scene: &Scene, id: NodeId) -> GeoSystem {
        GeoSystem::parse(scene.value(id, "geoSystem").map_or(&[], |v| v.strings()))
    }

    /// Whether the first two coordinates are in the order the X3D text
    /// calls standard (latitude/northing first; always for GC).
    pub fn standard_order(&self) -> bool {
        match self.coords {
            Coords::Gd { longitude_first } => !longitude_first,
            Coords::Utm { easting_first, .. } => !easting_first,
            Coords::Gc => true,
        }
    }

    /// A point of this system in geocentric metres.
    pub fn to_gc(&self, p: DVec3) -> DVec3 {
        let e = &self.ellipsoid;
        match self.coords {
            Coords::Gc => p,
            Coords::Gd { longitude_first } => {
                let (lat, lon) = if longitude_first {
                    (p.y, p.x)
                } else {
                    (p.x, p.y)
                };
                e.geodetic_to_gc(lat.to_radians(), lon.to_radians(), p.z)
            }
            Coords::Utm {
                zone,
                south,
                easting_first,
            } => {
                let (north, east) = if easting_first {
                    (p.y, p.x)
                } else {
                    (p.x, p.y)
                };
                let (lat, lon) = e.utm_to_geodetic(zone, south, north, east);
                e.geodetic_to_gc(lat, lon, p.z)
            }
        }
    }
}

/// The frame a Geospatial node's coordinates are drawn in: its
/// `geoSystem`, and the scene's frame as its `geoOrigin` makes it.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub system: GeoSystem,
    /// Geocentric to the scene's frame: minus the origin's GC position,
    /// and with rotateYUp turned so that the origin's up is +Y.
    pub world: DAffine3,
}

impl Frame {
    /// The frame of a node with `geoSystem` and `geoOrigin` fields.
    pub fn of(scene: &Scene, id: NodeId) -> Frame {
        let system = GeoSystem::of(scene, id);
        let world = scene
            .child(id, "geoOrigin")
            .filter(|&o| scene.node_type(o) == Some(NodeType::GeoOrigin))
            .map_or(DAffine3::IDENTITY, |o| {
                let origin = GeoSystem::of(scene, o).to_gc(doubles3(scene, o, "geoCoords"));
                if scene.flag(o, "rotateYUp") {
                    system.ellipsoid.tangent_frame(origin).inverse()
                } else {
                    DAffine3::from_translation(-origin)
                }
            });
        Frame { system, world }
    }

    /// A point of the node's `geoSystem` in the scene's frame.
    pub fn point(&self, geo: DVec3) -> DVec3 {
        self.world.transform_point3(self.system.to_gc(geo))
    }

    /// The place of a point of the node's `geoSystem` (GeoLocation's
    /// geoCoords, GeoTransform's geoCenter) in the scene's frame: +Y up
    /// (the ellipsoid's normal), +X east, +Z south.
    pub fn location(&self, geo: DVec3) -> DAffine3 {
        let gc = self.system.to_gc(geo);
        self.world * self.system.ellipsoid.tangent_frame(gc)
    }
}

/// Where a GeoViewpoint stands, in the scene's frame, with the frame there
/// (+Y up): its orientation is relative to it.
pub fn view_location(scene: &Scene, id: NodeId) -> DAffine3 {
    Frame::of(scene, id).location(doubles3(scene, id, "position"))
}

/// An SFVec3d (or SFVec3f) field's three numbers (zeros when it has fewer).
pub fn doubles3(scene: &Scene, id: NodeId, field: &str) -> DVec3 {
    let v = scene
        .value(id, field)
        .map_or_else(Vec::new, |v| v.numbers());
    match v[..] {
        [x, y, z, ..] => DVec3::new(x, y, z),
        _ => DVec3::ZERO,
    }
}

#[cfg(test)]
mod tests;
