//! Viewpoints as cameras, and lights as KHR_lights_punctual.
use super::Writer;
use super::nodes::{f32s, gltf_name, node, quat_f32, rotation_field, vec3};
use crate::scene::{NodeId, NodeType, Scene};
use glam::{DQuat, DVec3};
use gltf_json as json;
use json::Index;
use json::validation::Checked;

impl Writer<'_> {
    /// A Viewpoint (a perspective camera) or an OrthoViewpoint (an
    /// orthographic one), on a node placed and turned as the viewpoint.
    pub(super) fn viewpoint(&mut self, id: NodeId, parent: &mut Vec<Index<json::Node>>) {
        let scene = self.scene;
        let f = |name: &str| scene.floats(id, name).to_vec();
        let fov = f("fieldOfView")
            .first()
            .copied()
            .unwrap_or(std::f32::consts::FRAC_PI_4)
            .clamp(0.01, 3.1);
        let near = f("nearDistance")
            .first()
            .copied()
            .filter(|&n| n > 0.0)
            .unwrap_or(0.1);
        let far = f("farDistance").first().copied().filter(|&x| x > near);
        let camera = if scene.node_type(id) == Some(NodeType::OrthoViewpoint) {
            // fieldOfView is (minX, minY, maxX, maxY) of the view; glTF
            // wants half its width and height, and a finite far plane.
            let v = f("fieldOfView");
            let half = |lo: usize, hi: usize| match (v.get(lo), v.get(hi)) {
                (Some(a), Some(b)) if b > a => (b - a) / 2.0,
                _ => 1.0,
            };
            json::Camera {
                name: gltf_name(scene, id),
                orthographic: Some(json::camera::Orthographic {
                    xmag: half(0, 2),
                    ymag: half(1, 3),
                    zfar: far.unwrap_or(near * 1e6),
                    znear: near,
                    extensions: None,
                    extras: None,
                }),
                perspective: None,
                type_: Checked::Valid(json::camera::Type::Orthographic),
                extensions: None,
                extras: None,
            }
        } else {
            json::Camera {
                name: gltf_name(scene, id),
                orthographic: None,
                perspective: Some(json::camera::Perspective {
                    aspect_ratio: None,
                    yfov: fov,
                    zfar: far,
                    znear: near,
                    extensions: None,
                    extras: None,
                }),
                type_: Checked::Valid(json::camera::Type::Perspective),
                extensions: None,
                extras: None,
            }
        };
        let camera = self.root.push(camera);
        // Only a perspective camera's field of view is animated (yfov).
        if scene.node_type(id) != Some(NodeType::OrthoViewpoint) {
            self.tree
                .cameras
                .entry(id)
                .or_default()
                .push(camera.value());
        }
        let mut n = node(gltf_name(scene, id));
        n.camera = Some(camera);
        let (p, o) = if scene.node_type(id) == Some(NodeType::GeoViewpoint) {
            super::geo::geo_view(scene, id)
        } else {
            let p = f("position");
            let p = DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64);
            (p, rotation_field(scene, id, "orientation"))
        };
        n.translation = Some(f32s(p)).filter(|v| *v != [0.0; 3]);
        n.rotation = Some(quat_f32(o)).filter(|q| q.0 != [0.0, 0.0, 0.0, 1.0]);
        let index = self.root.push(n);
        self.place(id, index);
        parent.push(index);
    }

    /// A light: KHR_lights_punctual on a node placed and turned as the
    /// light is. A light that is off is left out, unless it is turned on
    /// by an animation: then its intensity is 0 until it is.
    pub(super) fn light(&mut self, id: NodeId, ty: NodeType, parent: &mut Vec<Index<json::Node>>) {
        use json::extensions::scene::khr_lights_punctual as klp;
        let scene = self.scene;
        let on = scene.flag(id, "on");
        if !on && !self.anim.animated.contains(&(id, "on".to_string())) {
            return;
        }
        let f = |name: &str| scene.floats(id, name).to_vec();
        let color = f("color");
        let intensity = if on { light_intensity(scene, id) } else { 0.0 };
        let (type_, spot, range) = match ty {
            NodeType::DirectionalLight => (klp::Type::Directional, None, None),
            NodeType::PointLight => (
                klp::Type::Point,
                None,
                f("radius").first().copied().filter(|&r| r > 0.0),
            ),
            _ => {
                let outer = f("cutOffAngle")
                    .first()
                    .copied()
                    .unwrap_or(std::f32::consts::FRAC_PI_2)
                    .clamp(0.001, std::f32::consts::FRAC_PI_2);
                let inner = f("beamWidth")
                    .first()
                    .copied()
                    .unwrap_or(std::f32::consts::FRAC_PI_4)
                    .clamp(0.0, outer * 0.999);
                let spot = klp::Spot {
                    inner_cone_angle: inner,
                    outer_cone_angle: outer,
                };
                (
                    klp::Type::Spot,
                    Some(spot),
                    f("radius").first().copied().filter(|&r| r > 0.0),
                )
            }
        };
        let light = klp::Light {
            color: [color[0], color[1], color[2]],
            extensions: None,
            extras: None,
            intensity,
            name: gltf_name(scene, id),
            range,
            spot,
            type_: Checked::Valid(type_),
        };
        let lights = &mut self
            .root
            .extensions
            .get_or_insert_with(Default::default)
            .khr_lights_punctual;
        let list = &mut lights.get_or_insert_with(Default::default).lights;
        list.push(light);
        let index = Index::new(list.len() as u32 - 1);
        self.tree.lights.entry(id).or_default().push(index.value());
        self.extensions.push("KHR_lights_punctual");
        let mut n = node(gltf_name(scene, id));
        n.extensions = Some(json::extensions::scene::Node {
            khr_lights_punctual: Some(klp::KhrLightsPunctual { light: index }),
            ..Default::default()
        });
        if ty != NodeType::DirectionalLight {
            let l = f("location");
            n.translation = Some([l[0], l[1], l[2]]).filter(|v| *v != [0.0; 3]);
        }
        if ty != NodeType::PointLight {
            // glTF lights shine down −Z: turn −Z onto the X3D direction.
            let d = vec3(&f("direction"));
            if let Some(d) = d.try_normalize() {
                let q = DQuat::from_rotation_arc(-DVec3::Z, d);
                n.rotation = Some(quat_f32(q)).filter(|q| q.0 != [0.0, 0.0, 0.0, 1.0]);
            }
        }
        let index = self.root.push(n);
        self.place(id, index);
        parent.push(index);
    }
}

/// A light's intensity as the file gives it (1 if it gives none; never
/// below 0).
pub(super) fn light_intensity(scene: &Scene, id: NodeId) -> f32 {
    let given = scene.floats(id, "intensity").first().copied();
    given.unwrap_or(1.0).max(0.0)
}
