//! Where a track's values go in glTF: node paths, KHR_animation_pointer
//! pointers, KHR_node_visibility, KHR_texture_transform or morph weights.
use super::Writer;
use super::cameras_lights;
use super::materials::{TexField, TexFields, TexPart};
use super::nodes::is_transform_like;
use crate::anim::clip::Track;
use crate::anim::keyframes::{Interpolation, Keyframes};
use crate::hash::HashMap;
use crate::scene::{NodeId, NodeType};
use gltf_json as json;
use json::{Index, animation};

/// A TextureTransform's animated field and where it goes.
pub(super) struct TexTarget {
    pub(super) materials: Vec<usize>,
    pub(super) field: TexField,
    pub(super) fixed: TexFields,
}

/// Where the tracks of a node type's field go in glTF, from the type and
/// field alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// A Transform's (or an H-Anim joint's, a CADPart's) translation,
    /// rotation or scale: node channels.
    Transform,
    /// A viewpoint's position and orientation, a light's location: node
    /// channels of the node that holds it.
    Place,
    /// Viewpoint.fieldOfView: the camera's yfov (KHR_animation_pointer).
    FieldOfView,
    /// A light's color or intensity (KHR_animation_pointer).
    Light,
    /// A material's colour, transparency, emissive colour, shininess,
    /// metallic or roughness (KHR_animation_pointer).
    Material,
    /// A TextureTransform's field: KHR_texture_transform
    /// (KHR_animation_pointer).
    TextureTransform,
    /// Switch.whichChoice: each choice's visibility (KHR_node_visibility).
    Choice,
    /// `visible` (KHR_node_visibility).
    Visible,
    /// Coordinate and TextureCoordinate points, Normal vectors, the fields
    /// a generated geometry is drawn from: morph targets of the meshes that
    /// use them, and their weights.
    Morph,
    /// An HAnimDisplacer's weight: the weight of its morph target in the
    /// humanoid's skinned meshes.
    Displacer,
}

impl Channel {
    /// How the glTF holds it, for the report.
    pub fn describe(self) -> &'static str {
        match self {
            Channel::Transform | Channel::Place => "node channel",
            Channel::FieldOfView
            | Channel::Light
            | Channel::Material
            | Channel::TextureTransform => "KHR_animation_pointer",
            Channel::Choice | Channel::Visible => "KHR_node_visibility",
            Channel::Morph | Channel::Displacer => "morph weights",
        }
    }
}

/// Where tracks of `field` of a node of type `ty` go in glTF; `None` where
/// glTF has no place for them.
pub fn channel(ty: Option<NodeType>, field: &str) -> Option<Channel> {
    use NodeType::*;
    if field == "visible" {
        // Any node's, of any type (X3D 4's X3DBoundedObject).
        return Some(Channel::Visible);
    }
    Some(match (ty?, field) {
        (t, "translation" | "rotation" | "scale") if is_transform_like(t) => Channel::Transform,
        // (Its Transform chain, between its geoCenter's frame and back.)
        (GeoTransform, "translation" | "rotation" | "scale") => Channel::Transform,
        (Viewpoint | OrthoViewpoint, "position" | "orientation")
        | (PointLight | SpotLight, "location")
        // (The frame the coordinates a GeoPositionInterpolator sends put
        // it in: see `anim::track::GeoTurn`.)
        | (GeoLocation | GeoViewpoint, "translation" | "rotation") => Channel::Place,
        (Viewpoint, "fieldOfView") => Channel::FieldOfView,
        (DirectionalLight | PointLight | SpotLight, "color" | "intensity" | "on") => Channel::Light,
        (Material | TwoSidedMaterial, "diffuseColor" | "transparency" | "emissiveColor")
        | (Material | TwoSidedMaterial, "shininess")
        | (PhysicalMaterial, "baseColor" | "transparency" | "emissiveColor")
        | (PhysicalMaterial, "metallic" | "roughness")
        | (UnlitMaterial, "emissiveColor" | "transparency") => Channel::Material,
        (TextureTransform, "center" | "rotation" | "scale" | "translation") => {
            Channel::TextureTransform
        }
        (Switch, "whichChoice") => Channel::Choice,
        (Coordinate | GeoCoordinate | TextureCoordinate, "point") | (Normal, "vector") => {
            Channel::Morph
        }
        (HAnimDisplacer, "weight") => Channel::Displacer,
        (t, f) if crate::mesh::reshapes(t, f) => Channel::Morph,
        _ => return None,
    })
}

/// The field of a material node type that is glTF's base colour (with
/// 1 − transparency as its alpha).
pub(super) fn base_color_field(ty: NodeType) -> Option<&'static str> {
    match ty {
        NodeType::Material | NodeType::TwoSidedMaterial => Some("diffuseColor"),
        NodeType::PhysicalMaterial => Some("baseColor"),
        NodeType::UnlitMaterial => Some("emissiveColor"),
        _ => None,
    }
}

/// How a pointer channel's values come from the X3D values.
#[derive(Clone, Copy)]
pub(super) enum Conv {
    Same,
    /// An RGB colour with a fixed alpha after it.
    AppendAlpha(f32),
    /// A transparency t as the colour's alpha 1 − t, after a fixed RGB.
    AlphaOf([f32; 3]),
    /// 1 − v (shininess as roughness).
    OneMinus,
    /// v × a fixed factor (a light's `on` as its intensity or none).
    Times(f32),
    /// One property of KHR_texture_transform when one field of a
    /// TextureTransform takes the value and the others keep theirs.
    Tex {
        part: TexPart,
        field: TexField,
        fixed: TexFields,
    },
}

impl Conv {
    /// [`Conv::apply`] as f32 appended to `out`.
    pub(super) fn append(self, v: &[f64], tangent: bool, out: &mut Vec<f32>) {
        out.extend(self.apply(v, tangent).iter().map(|&x| x as f32));
    }

    /// Converts a value (`tangent`: the derivative of one, without offsets).
    fn apply(self, v: &[f64], tangent: bool) -> Vec<f64> {
        let zero = if tangent { 0.0 } else { 1.0 };
        match self {
            Conv::Same => v.to_vec(),
            Conv::AppendAlpha(a) => v
                .iter()
                .copied()
                .chain([if tangent { 0.0 } else { a as f64 }])
                .collect(),
            Conv::AlphaOf(c) => {
                let rgb = c.map(|x| if tangent { 0.0 } else { x as f64 });
                rgb.into_iter().chain([zero - v[0]]).collect()
            }
            Conv::OneMinus => vec![zero - v[0]],
            Conv::Times(k) => vec![v[0] * k as f64],
            Conv::Tex { part, field, fixed } => {
                let out = fixed.with(field, v).part(part);
                if !tangent {
                    return out;
                }
                // The parts written with tangents are affine in the field:
                // the derivative is the linear part.
                let zero = fixed.with(field, &[0.0, 0.0]).part(part);
                out.iter().zip(zero).map(|(a, b)| a - b).collect()
            }
        }
    }
}

/// Which of a mesh's triangulations is drawn at each morph key: its value
/// the triangulation's number, and the nodes that draw each.
pub(super) struct Shapes {
    pub(super) at: Keyframes<'static>,
    pub(super) shown: Vec<(Option<usize>, Vec<Index<json::Node>>)>,
}

/// Where a track's values go in glTF.
pub(super) enum Target {
    /// A TRS property of nodes; `offset` is added to the values.
    Node {
        path: animation::Property,
        nodes: Vec<Index<json::Node>>,
        offset: Vec<f64>,
    },
    /// KHR_animation_pointer: JSON pointers and the value conversion.
    Pointer { pointers: Vec<String>, conv: Conv },
    /// Nodes shown by KHR_node_visibility: each list is shown while the
    /// value is its number (a Switch's choices), or `None`: is not zero (an
    /// SFBool `visible`).
    Visibility {
        shown: Vec<(Option<usize>, Vec<Index<json::Node>>)>,
    },
    /// A TextureTransform field, as the KHR_texture_transform properties it
    /// moves in these materials' base colour textures.
    Texture {
        materials: Vec<usize>,
        field: TexField,
        fixed: TexFields,
    },
    /// Morph weights of nodes: one-hot at target `first + key` of `total`;
    /// with `shapes`, the triangulation drawn at each key.
    Weights {
        nodes: Vec<Index<json::Node>>,
        first: usize,
        total: usize,
        shapes: Option<Shapes>,
    },
    /// One morph weight of nodes, `index` of the weights `fixed` (the
    /// others keep theirs): an HAnimDisplacer's.
    Weight {
        nodes: Vec<Index<json::Node>>,
        index: usize,
        fixed: Vec<f32>,
    },
}

impl Target {
    /// A value (or, `tangent`, a derivative) as the target takes it, as
    /// f32 appended to `out`: node values plus their offset, pointer
    /// values converted.
    pub(super) fn convert(&self, v: &[f64], tangent: bool, out: &mut Vec<f32>) {
        match self {
            Target::Node { offset, .. } if !tangent => {
                out.extend(v.iter().zip(offset).map(|(a, b)| (a + b) as f32))
            }
            Target::Pointer { conv, .. } => conv.append(v, tangent, out),
            _ => out.extend(v.iter().map(|&x| x as f32)),
        }
    }
}

pub(super) fn gltf_interpolation(i: Interpolation) -> animation::Interpolation {
    match i {
        Interpolation::Linear | Interpolation::Slerp => animation::Interpolation::Linear,
        Interpolation::Step => animation::Interpolation::Step,
        Interpolation::Cubic => animation::Interpolation::CubicSpline,
    }
}

impl Writer<'_> {
    /// Where a track goes in glTF, or a warning when it has no place yet.
    pub(super) fn target(&mut self, track: &Track) -> Option<Target> {
        use animation::Property::{Rotation, Scale, Translation};
        let scene = self.scene;
        let ty = scene.node_type(track.target);
        let field = track.field.as_str();
        let node_target = |path, nodes: Vec<Index<json::Node>>, offset: Vec<f64>| {
            Some(Target::Node {
                path,
                nodes,
                offset,
            })
        };
        let found = match channel(ty, field) {
            Some(Channel::Transform) => {
                let places = self
                    .tree
                    .transforms
                    .get(&track.target)
                    .cloned()
                    .unwrap_or_default();
                let path = match field {
                    "translation" => Translation,
                    "rotation" => Rotation,
                    _ => Scale,
                };
                let nodes = places
                    .iter()
                    .map(|p| if path == Scale { p.scale } else { p.main })
                    .collect();
                let offset = match (path, places.first()) {
                    (Translation, Some(p)) => p.center.to_array().to_vec(),
                    _ => vec![0.0; 4],
                };
                node_target(path, nodes, offset)
            }
            Some(Channel::Place) => {
                let turn = matches!(field, "orientation" | "rotation");
                node_target(
                    if turn { Rotation } else { Translation },
                    self.tree
                        .placed
                        .get(&track.target)
                        .cloned()
                        .unwrap_or_default(),
                    vec![0.0; if turn { 4 } else { 3 }],
                )
            }
            Some(Channel::FieldOfView) => self.pointer_list(
                &self.tree.cameras,
                track,
                "/cameras/{}/perspective/yfov",
                Conv::Same,
            ),
            // A light's `on` is its intensity or none, unless its intensity
            // is animated too (the product has no pointer: not written).
            Some(Channel::Light) if field == "on" => {
                let intensity = (track.target, "intensity".to_string());
                let path = "/extensions/KHR_lights_punctual/lights/{}/intensity";
                let conv = Conv::Times(cameras_lights::light_intensity(scene, track.target));
                (!self.anim.animated.contains(&intensity))
                    .then(|| self.pointer_list(&self.tree.lights, track, path, conv))
                    .flatten()
            }
            Some(Channel::Light) => {
                let path = format!("/extensions/KHR_lights_punctual/lights/{{}}/{field}");
                self.pointer_list(&self.tree.lights, track, &path, Conv::Same)
            }
            Some(Channel::Material) => self.material_target(track),
            Some(Channel::TextureTransform) => {
                match self.mat.tex_transforms.get(&track.target).cloned() {
                    Some((fixed, materials)) => Some(Target::Texture {
                        materials,
                        field: TexField::of(field),
                        fixed,
                    }),
                    // No material uses it (its shapes are not drawn): a
                    // target with no place, reported below.
                    None => Some(Target::Pointer {
                        pointers: Vec::new(),
                        conv: Conv::Same,
                    }),
                }
            }
            Some(Channel::Choice) => {
                let places = self
                    .tree
                    .switches
                    .get(&track.target)
                    .cloned()
                    .unwrap_or_default();
                let choices = places.iter().map(Vec::len).max().unwrap_or(0);
                let shown = (0..choices)
                    .map(|i| {
                        (
                            Some(i),
                            places.iter().filter_map(|p| p.get(i).copied()).collect(),
                        )
                    })
                    .collect();
                Some(Target::Visibility { shown })
            }
            Some(Channel::Visible) => Some(Target::Visibility {
                shown: vec![(
                    None,
                    self.tree
                        .placed
                        .get(&track.target)
                        .cloned()
                        .unwrap_or_default(),
                )],
            }),
            Some(Channel::Displacer) => self.displacer_target(track),
            // Morph targets are made with their mesh (none uses these).
            Some(Channel::Morph) | None => None,
        };
        // (Unread texture coordinates were named with their mesh.)
        if found.is_none() && !self.geo.unread_uvs.contains(&track.target) {
            self.diags.warning(
                format!(
                    "`{}.{}` ({}) has no glTF animation target yet: not written",
                    scene.display_name(track.target),
                    track.field,
                    scene.node(track.target).type_name
                ),
                Some(track.span),
            );
        }
        // A node not in the shown hierarchy has no glTF node to animate.
        let placed = found.is_some();
        let shown = found.filter(|t| match t {
            Target::Node { nodes, .. }
            | Target::Weights { nodes, .. }
            | Target::Weight { nodes, .. } => !nodes.is_empty(),
            Target::Pointer { pointers, .. } => !pointers.is_empty(),
            Target::Visibility { shown } => shown.iter().any(|(_, n)| !n.is_empty()),
            Target::Texture { materials, .. } => !materials.is_empty(),
        });
        if placed && shown.is_none() {
            self.diags.warning(
                format!(
                    "`{}.{}` ({}) is not in the drawn scene (a Switch choice or LOD level \
                     not shown, or outside the scene's tree): not written",
                    scene.display_name(track.target),
                    track.field,
                    scene.node(track.target).type_name
                ),
                Some(track.span),
            );
        }
        shown
    }

    /// Pointer targets with `{}` replaced by each glTF index of the node.
    pub(super) fn pointer_list(
        &self,
        map: &HashMap<NodeId, Vec<usize>>,
        track: &Track,
        path: &str,
        conv: Conv,
    ) -> Option<Target> {
        let indices = map.get(&track.target)?;
        let pointers = indices
            .iter()
            .map(|i| path.replace("{}", &i.to_string()))
            .collect();
        Some(Target::Pointer { pointers, conv })
    }

    /// A Material field as a pointer into every glTF material made from it.
    pub(super) fn material_target(&mut self, track: &Track) -> Option<Target> {
        let list = self.mat.x3d_materials.get(&track.target)?.clone();
        let ty = self.scene.node_type(track.target)?;
        let field = track.field.as_str();
        let (property, conv) = match (ty, field) {
            // With vertex colours or a texture the base colour is white.
            _ if Some(field) == base_color_field(ty) => {
                if list.iter().any(|m| m.white) {
                    return None;
                }
                (
                    "pbrMetallicRoughness/baseColorFactor",
                    Conv::AppendAlpha(list[0].alpha),
                )
            }
            (_, "transparency") => (
                "pbrMetallicRoughness/baseColorFactor",
                Conv::AlphaOf(list[0].base),
            ),
            (NodeType::UnlitMaterial, _) => return None,
            (_, "emissiveColor") => ("emissiveFactor", Conv::Same),
            (NodeType::PhysicalMaterial, "metallic") => {
                ("pbrMetallicRoughness/metallicFactor", Conv::Same)
            }
            (NodeType::PhysicalMaterial, "roughness") => {
                ("pbrMetallicRoughness/roughnessFactor", Conv::Same)
            }
            (NodeType::Material | NodeType::TwoSidedMaterial, "shininess") => {
                ("pbrMetallicRoughness/roughnessFactor", Conv::OneMinus)
            }
            _ => return None,
        };
        let pointers = list
            .iter()
            .map(|m| format!("/materials/{}/{property}", m.index))
            .collect();
        Some(Target::Pointer { pointers, conv })
    }
}
