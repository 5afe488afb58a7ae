//! The Geospatial component's geometry: GeoElevationGrid, and the points
//! of a GeoCoordinate, in the scene's frame (see [`crate::geo`]).

use super::elevation::grid;
use super::{Mesh, Overrides, Primitive};
use crate::geo::{Frame, doubles3};
use crate::scene::{NodeId, Scene};
use glam::{DVec3, Vec3};

/// A GeoCoordinate's points in the scene's frame (an animated state of
/// its `point` is in its geoSystem too).
pub(super) fn geo_points(scene: &Scene, rest: &Overrides, id: NodeId) -> Vec<Vec3> {
    let frame = Frame::of(scene, id);
    let given: Vec<f64> = match rest.get(id, "point") {
        Some(v) => v.iter().map(|&x| x as f64).collect(),
        None => scene
            .value(id, "point")
            .map_or_else(Vec::new, |v| v.numbers()),
    };
    given
        .chunks_exact(3)
        .map(|p| frame.point(DVec3::from_slice(p)).as_vec3())
        .collect()
}

/// A GeoElevationGrid: point (i, j) at geoGridOrigin + (j·zSpacing,
/// i·xSpacing, yScale·height) in its geoSystem (latitude or northing
/// first; (i·xSpacing, j·zSpacing, …) with "longitude_first" or
/// "easting_first"), a missing height 0; its faces as ElevationGrid's,
/// turned to face up (rows run north).
pub(super) fn geo_elevation_grid(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let dim = |f: &str| scene.ints(id, f).first().map_or(0, |&d| d.max(0) as usize);
    let (nx, nz) = (dim("xDimension"), dim("zDimension"));
    let number = |f: &str, default: f64| scene.value(id, f).map_or(default, |v| v.as_f64());
    let (dx, dz) = (number("xSpacing", 1.0), number("zSpacing", 1.0));
    let y_scale = number("yScale", 1.0);
    let heights: Vec<f64> = match rest.get(id, "height") {
        Some(v) => v.iter().map(|&x| x as f64).collect(),
        None => scene
            .value(id, "height")
            .map_or_else(Vec::new, |v| v.numbers()),
    };
    if nx < 2 || nz < 2 || nx.saturating_mul(nz) > super::MAX_GENERATED_POINTS {
        return Mesh::new(Primitive::Triangles);
    }
    let frame = Frame::of(scene, id);
    let origin = doubles3(scene, id, "geoGridOrigin");
    let standard = frame.system.standard_order();
    let points: Vec<Vec3> = (0..nz)
        .flat_map(|j| (0..nx).map(move |i| (i, j)))
        .map(|(i, j)| {
            let (x, z) = (i as f64 * dx, j as f64 * dz);
            let h = heights.get(i + j * nx).copied().unwrap_or(0.0) * y_scale;
            let step = if standard {
                DVec3::new(z, x, h)
            } else {
                DVec3::new(x, z, h)
            };
            frame.point(origin + step).as_vec3()
        })
        .collect();
    grid(scene, rest, id, [nx, nz], &points, true)
}
