//! Materials and textures: X3D Material as metallic-roughness, ImageTexture
//! with its image embedded, TextureTransform as KHR_texture_transform.

use super::Writer;
use super::nodes::gltf_name;
use super::png::sfimage_png;
use crate::hash::HashMap;
use crate::math;
use crate::scene::{NodeId, NodeType, Scene};
use gltf_json as json;
use json::Index;
use json::validation::Checked;

/// The materials, textures and texture transforms written.
#[derive(Default)]
pub(super) struct Materials {
    /// Materials already written, by appearance, two-sidedness and vertex
    /// colours.
    pub(super) materials: HashMap<(Option<NodeId>, bool, bool), Index<json::Material>>,
    /// Equal things written once: materials and meshes nothing animates,
    /// by their glTF JSON.
    pub(super) equal_materials: HashMap<String, Index<json::Material>>,
    /// The glTF materials made from each X3D Material.
    pub(super) x3d_materials: HashMap<NodeId, Vec<MadeMaterial>>,
    /// Each TextureTransform written: its fields, and the glTF materials
    /// whose base colour texture it moves.
    pub(super) tex_transforms: HashMap<NodeId, (TexFields, Vec<usize>)>,
    /// The glTF texture of each ImageTexture node (`None`: no image could
    /// be read), made once however many appearances USE it.
    pub(super) textures: HashMap<NodeId, Option<Index<json::Texture>>>,
    /// The names given to glTF materials.
    pub(super) material_names: crate::hash::HashSet<String>,
    /// For an appearance whose MultiTexture units beyond the first are
    /// written: the unit each texture coordinate set from 1 on holds.
    pub(super) unit_sets: HashMap<NodeId, Vec<usize>>,
}

/// A glTF material made from an X3D Material.
#[derive(Clone, Copy)]
pub(super) struct MadeMaterial {
    pub(super) index: usize,
    pub(super) base: [f32; 3],
    pub(super) alpha: f32,
    /// The base colour is white (vertex colours or a texture give it).
    pub(super) white: bool,
}

/// The fields of an X3D TextureTransform: center, rotation, scale and
/// translation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct TexFields {
    pub(super) c: [f64; 2],
    pub(super) a: f64,
    pub(super) s: [f64; 2],
    pub(super) t: [f64; 2],
}

/// A field of a TextureTransform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TexField {
    Center,
    Rotation,
    Scale,
    Translation,
}

/// A property of KHR_texture_transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TexPart {
    Offset,
    Rotation,
    Scale,
}

impl TexFields {
    /// The same fields with one replaced by `v`.
    pub(super) fn with(mut self, field: TexField, v: &[f64]) -> TexFields {
        let two = |v: &[f64]| [v[0], v.get(1).copied().unwrap_or(0.0)];
        match field {
            TexField::Center => self.c = two(v),
            TexField::Rotation => self.a = v[0],
            TexField::Scale => self.s = two(v),
            TexField::Translation => self.t = two(v),
        }
        self
    }

    /// X3D's Tc' = −C·S·R·C·T·Tc as KHR_texture_transform (offset, rotation,
    /// scale) in glTF's flipped v, where `rotation` r turns uv by −r (the
    /// Khronos GLSL read as written; three.js agrees). Exact when the scale
    /// is even or the rotation zero.
    pub(super) fn khr(self) -> ([f64; 2], f64, [f64; 2]) {
        let TexFields { c, a, s, t } = self;
        // X3D: Tc' = M·Tc + k with M = S·R(a), k = M·(T + C) − C. With
        // v_gltf = 1 − v the matrix becomes S·R(−a), which is glTF's
        // rotation a, and the offset is (k_u + m01, 1 − m11 − k_v).
        let (sn, cs) = math::sin_cos(a);
        let m = [[s[0] * cs, -s[0] * sn], [s[1] * sn, s[1] * cs]];
        let (px, py) = (t[0] + c[0], t[1] + c[1]);
        let k = [
            m[0][0] * px + m[0][1] * py - c[0],
            m[1][0] * px + m[1][1] * py - c[1],
        ];
        ([k[0] + m[0][1], 1.0 - m[1][1] - k[1]], a, s)
    }

    pub(super) fn part(self, part: TexPart) -> Vec<f64> {
        let (offset, rotation, scale) = self.khr();
        match part {
            TexPart::Offset => offset.to_vec(),
            TexPart::Rotation => vec![rotation],
            TexPart::Scale => scale.to_vec(),
        }
    }
}

impl TexPart {
    pub(super) fn width(self) -> usize {
        match self {
            TexPart::Rotation => 1,
            TexPart::Offset | TexPart::Scale => 2,
        }
    }

    pub(super) fn property(self) -> &'static str {
        match self {
            TexPart::Offset => "offset",
            TexPart::Rotation => "rotation",
            TexPart::Scale => "scale",
        }
    }
}

impl TexField {
    pub(super) fn of(name: &str) -> TexField {
        match name {
            "center" => TexField::Center,
            "rotation" => TexField::Rotation,
            "scale" => TexField::Scale,
            _ => TexField::Translation,
        }
    }

    /// The glTF properties an animated field moves, each with whether it
    /// follows the field linearly (so that keys stay exact) or must be
    /// resampled (the offset turns with the rotation).
    pub(super) fn parts(self) -> &'static [(TexPart, bool)] {
        match self {
            TexField::Center | TexField::Translation => &[(TexPart::Offset, true)],
            TexField::Scale => &[(TexPart::Scale, true), (TexPart::Offset, true)],
            TexField::Rotation => &[(TexPart::Rotation, true), (TexPart::Offset, false)],
        }
    }
}

/// The MIME type of PNG or JPEG bytes (the image types core glTF takes).
pub(super) fn image_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else {
        None
    }
}

/// A field's first number clamped to [0, 1] (`default` without one).
fn fraction(scene: &Scene, id: NodeId, field: &str, default: f32) -> f32 {
    scene
        .floats(id, field)
        .first()
        .copied()
        .unwrap_or(default)
        .clamp(0.0, 1.0)
}

/// A texture's sampler: from its TextureProperties (boundary modes and
/// filters) when it has one, else from repeatS and repeatT.
fn sampler(scene: &Scene, tex: NodeId) -> json::texture::Sampler {
    use json::texture::{MagFilter, MinFilter, WrappingMode};
    let props = scene.child(tex, "textureProperties");
    let text = |f: &str| {
        props
            .and_then(|p| scene.value(p, f))
            .and_then(|v| v.strings().first().cloned())
            .unwrap_or_default()
    };
    let wrap = |repeat: &str, boundary: &str| {
        Checked::Valid(match props {
            Some(_) => match text(boundary).as_str() {
                "REPEAT" => WrappingMode::Repeat,
                "MIRRORED_REPEAT" => WrappingMode::MirroredRepeat,
                _ => WrappingMode::ClampToEdge,
            },
            None if scene.value(tex, repeat).is_none_or(|v| v.as_bool()) => WrappingMode::Repeat,
            None => WrappingMode::ClampToEdge,
        })
    };
    let mag_filter = match text("magnificationFilter").as_str() {
        "NEAREST_PIXEL" => Some(MagFilter::Nearest),
        "AVG_PIXEL" | "NICEST" => Some(MagFilter::Linear),
        _ => None,
    };
    let min_filter = match text("minificationFilter").as_str() {
        "NEAREST_PIXEL" => Some(MinFilter::Nearest),
        "AVG_PIXEL" => Some(MinFilter::Linear),
        "AVG_PIXEL_AVG_MIPMAP" | "NICEST" => Some(MinFilter::LinearMipmapLinear),
        "AVG_PIXEL_NEAREST_MIPMAP" => Some(MinFilter::LinearMipmapNearest),
        "NEAREST_PIXEL_AVG_MIPMAP" => Some(MinFilter::NearestMipmapLinear),
        "NEAREST_PIXEL_NEAREST_MIPMAP" => Some(MinFilter::NearestMipmapNearest),
        _ => None,
    };
    json::texture::Sampler {
        mag_filter: mag_filter.map(Checked::Valid),
        min_filter: min_filter.map(Checked::Valid),
        name: None,
        wrap_s: wrap("repeatS", "boundaryModeS"),
        wrap_t: wrap("repeatT", "boundaryModeT"),
        extensions: None,
        extras: None,
    }
}

impl Writer<'_> {
    /// The material of an Appearance: Material as metallic-roughness (see
    /// the README for the mapping); none at all is unlit white, as X3D
    /// draws geometry without a Material.
    pub(super) fn material(
        &mut self,
        appearance: Option<NodeId>,
        double_sided: bool,
        vertex_colors: bool,
    ) -> Index<json::Material> {
        let key = (appearance, double_sided, vertex_colors);
        if let Some(&m) = self.mat.materials.get(&key) {
            return m;
        }
        let scene = self.scene;
        let x3d_material = appearance.and_then(|a| scene.child(a, "material"));
        // Named after the X3D Material's DEF, else the Appearance's.
        let name = x3d_material
            .and_then(|mat| gltf_name(scene, mat))
            .or_else(|| appearance.and_then(|a| gltf_name(scene, a)));
        let mut m = json::Material {
            double_sided,
            name,
            ..Default::default()
        };
        let kind = x3d_material.map(|mat| (mat, scene.node_type(mat)));
        match kind {
            Some((mat, Some(NodeType::UnlitMaterial))) => {
                self.unlit_material(&mut m, mat, appearance, vertex_colors);
            }
            Some((
                mat,
                Some(
                    ty @ (NodeType::Material
                    | NodeType::TwoSidedMaterial
                    | NodeType::PhysicalMaterial),
                ),
            )) => {
                let physical = ty == NodeType::PhysicalMaterial;
                if ty == NodeType::TwoSidedMaterial {
                    m.double_sided = true;
                    if scene.flag(mat, "separateBackColor") {
                        self.diags.warning(
                            format!(
                                "TwoSidedMaterial `{}`: glTF draws both sides alike: its back \
                                 colours are not written",
                                scene.display_name(mat)
                            ),
                            Some(scene.node(mat).span),
                        );
                    }
                }
                let diffuse = scene.floats(
                    mat,
                    if physical {
                        "baseColor"
                    } else {
                        "diffuseColor"
                    },
                );
                let transparency = fraction(scene, mat, "transparency", 0.0);
                let base = if vertex_colors || diffuse.len() < 3 {
                    [1.0; 3]
                } else {
                    [diffuse[0], diffuse[1], diffuse[2]].map(|x| x.clamp(0.0, 1.0))
                };
                self.base_color(&mut m, mat, base, transparency, vertex_colors);
                let (metallic, roughness) = if physical {
                    (
                        fraction(scene, mat, "metallic", 1.0),
                        fraction(scene, mat, "roughness", 1.0),
                    )
                } else {
                    (0.0, 1.0 - fraction(scene, mat, "shininess", 0.2))
                };
                m.pbr_metallic_roughness.metallic_factor = json::material::StrengthFactor(metallic);
                m.pbr_metallic_roughness.roughness_factor =
                    json::material::StrengthFactor(roughness);
                let e = scene.floats(mat, "emissiveColor");
                if e.len() == 3 && e != [0.0; 3] {
                    m.emissive_factor = json::material::EmissiveFactor(
                        [e[0], e[1], e[2]].map(|x| x.clamp(0.0, 1.0)),
                    );
                }
                let base_texture = match appearance {
                    Some(a) if physical => self.physical_textures(&mut m, mat, a),
                    Some(a) => self.texture(a),
                    None => None,
                };
                if let Some(texture) = base_texture {
                    // An RGB texture replaces the diffuse colour (X3D lighting).
                    let f = &mut m.pbr_metallic_roughness.base_color_factor.0;
                    f[..3].copy_from_slice(&[1.0; 3]);
                    m.pbr_metallic_roughness.base_color_texture = Some(texture);
                    if let Some(last) = self
                        .mat
                        .x3d_materials
                        .get_mut(&mat)
                        .and_then(|v| v.last_mut())
                    {
                        last.white = true;
                    }
                }
            }
            Some((mat, _)) => {
                self.diags.warning(
                    format!(
                        "`{}` is not a material glTF can hold: drawn unlit white",
                        scene.node(mat).type_name
                    ),
                    Some(scene.node(mat).span),
                );
                self.unlit(&mut m, appearance);
            }
            None => self.unlit(&mut m, appearance),
        }
        if let Some(a) = appearance
            && let Some(multi) = scene.child(a, "texture")
            && scene.node_type(multi) == Some(NodeType::MultiTexture)
        {
            self.multi_texture_units(&mut m, a, multi);
        }
        // Equal materials nothing animates, neither named, are one.
        let transform = appearance.and_then(|a| scene.child(a, "textureTransform"));
        let still = [x3d_material, transform]
            .iter()
            .flatten()
            .all(|n| !self.anim.clips_of.contains_key(n));
        let equal = (still && m.name.is_none())
            .then(|| serde_json::to_string(&m).ok())
            .flatten();
        if let Some(&same) = equal.as_ref().and_then(|k| self.mat.equal_materials.get(k)) {
            let next = self.root.materials.len();
            if let Some(made) = x3d_material.and_then(|mat| self.mat.x3d_materials.get_mut(&mat)) {
                made.retain(|x| x.index != next);
            }
            self.mat.materials.insert(key, same);
            return same;
        }
        // Unique names: clients bind animation tracks to materials by name.
        let name = m.name.take().unwrap_or_else(|| "material".to_string());
        let name = if self.mat.material_names.contains(&name) {
            format!("{name}_{}", self.root.materials.len())
        } else {
            name
        };
        self.mat.material_names.insert(name.clone());
        m.name = Some(name);
        let moved = m.pbr_metallic_roughness.base_color_texture.as_ref();
        let moved = moved
            .and_then(|i| i.extensions.as_ref()?.texture_transform.as_ref())
            .is_some();
        let index = self.root.push(m);
        if let Some(k) = equal {
            self.mat.equal_materials.insert(k, index);
        }
        if let Some(t) = transform.filter(|_| moved)
            && let Some((_, list)) = self.mat.tex_transforms.get_mut(&t)
        {
            list.push(index.value());
        }
        self.mat.materials.insert(key, index);
        index
    }

    /// No material: unlit white (KHR_materials_unlit), as X3D draws it,
    /// with the appearance's texture.
    fn unlit(&mut self, m: &mut json::Material, appearance: Option<NodeId>) {
        m.extensions = Some(json::extensions::material::Material {
            unlit: Some(json::extensions::material::Unlit {}),
            ..Default::default()
        });
        self.extensions.push("KHR_materials_unlit");
        m.pbr_metallic_roughness.base_color_texture = appearance.and_then(|a| self.texture(a));
    }

    /// UnlitMaterial: KHR_materials_unlit with the emissive colour as the
    /// base colour and 1 − transparency as its alpha; its emissiveTexture
    /// (else the appearance's texture) as the base colour texture.
    fn unlit_material(
        &mut self,
        m: &mut json::Material,
        mat: NodeId,
        appearance: Option<NodeId>,
        vertex_colors: bool,
    ) {
        let scene = self.scene;
        self.unlit(m, None);
        let e = scene.floats(mat, "emissiveColor");
        let transparency = fraction(scene, mat, "transparency", 0.0);
        let texture = appearance.and_then(|a| match scene.child(mat, "emissiveTexture") {
            Some(t) => self.texture_info(t, a),
            None => self.texture(a),
        });
        let white = vertex_colors || texture.is_some() || e.len() < 3;
        let base = if white {
            [1.0; 3]
        } else {
            [e[0], e[1], e[2]].map(|x| x.clamp(0.0, 1.0))
        };
        self.base_color(m, mat, base, transparency, white);
        m.pbr_metallic_roughness.base_color_texture = texture;
    }

    /// Gives `m`, made from the X3D material `mat`, its base colour: `base`
    /// with alpha 1 − transparency, blended when transparent or when its
    /// transparency is animated; names it after `mat`, and records it for
    /// the pointer channels of `mat`'s colour and transparency (`white`:
    /// vertex colours or a texture give the colour instead).
    fn base_color(
        &mut self,
        m: &mut json::Material,
        mat: NodeId,
        base: [f32; 3],
        transparency: f32,
        white: bool,
    ) {
        m.pbr_metallic_roughness.base_color_factor =
            json::material::PbrBaseColorFactor([base[0], base[1], base[2], 1.0 - transparency]);
        if transparency > 0.0
            || self
                .anim
                .animated
                .contains(&(mat, "transparency".to_string()))
        {
            m.alpha_mode = Checked::Valid(json::material::AlphaMode::Blend);
        }
        let made = MadeMaterial {
            index: self.root.materials.len(),
            base,
            alpha: 1.0 - transparency,
            white,
        };
        self.mat.x3d_materials.entry(mat).or_default().push(made);
    }

    /// A PhysicalMaterial's textures (glTF's own): metallicRoughness,
    /// normal, emissive and occlusion set on `m`; the base colour texture
    /// (its baseTexture, else the appearance's texture) returned.
    fn physical_textures(
        &mut self,
        m: &mut json::Material,
        mat: NodeId,
        appearance: NodeId,
    ) -> Option<json::texture::Info> {
        let scene = self.scene;
        let mut info = |field: &str| {
            let t = scene.child(mat, field)?;
            self.texture_info(t, appearance)
        };
        // normalScale and occlusionStrength: 1 unless set.
        let factor = |field: &str| scene.floats(mat, field).first().copied().unwrap_or(1.0);
        m.pbr_metallic_roughness.metallic_roughness_texture = info("metallicRoughnessTexture");
        m.emissive_texture = info("emissiveTexture");
        m.normal_texture = info("normalTexture").map(|i| json::material::NormalTexture {
            index: i.index,
            scale: factor("normalScale"),
            tex_coord: 0,
            extensions: None,
            extras: None,
        });
        m.occlusion_texture = info("occlusionTexture").map(|i| json::material::OcclusionTexture {
            index: i.index,
            strength: json::material::StrengthFactor(factor("occlusionStrength")),
            tex_coord: 0,
            extensions: None,
            extras: None,
        });
        match scene.child(mat, "baseTexture") {
            Some(t) => self.texture_info(t, appearance),
            None => self.texture(appearance),
        }
    }

    /// The texture of an Appearance's ImageTexture, its image embedded, with
    /// its TextureTransform (KHR_texture_transform).
    pub(super) fn texture(&mut self, appearance: NodeId) -> Option<json::texture::Info> {
        let tex = self.scene.child(appearance, "texture")?;
        self.texture_info(tex, appearance)
    }

    /// A texture node as a glTF texture reference, moved by the
    /// appearance's TextureTransform.
    fn texture_info(&mut self, tex: NodeId, appearance: NodeId) -> Option<json::texture::Info> {
        self.unit_info(tex, appearance, 0, 0)
    }

    /// The texture of unit `unit` (of a MultiTexture; 0 otherwise), read
    /// through TEXCOORD_`set` and moved by its TextureTransform (the
    /// appearance's, or the unit's of a MultiTextureTransform, else its
    /// last).
    fn unit_info(
        &mut self,
        tex: NodeId,
        appearance: NodeId,
        unit: usize,
        set: usize,
    ) -> Option<json::texture::Info> {
        let texture = match self.mat.textures.get(&tex) {
            Some(&t) => t,
            None => {
                let t = self.image_texture(tex);
                self.mat.textures.insert(tex, t);
                t
            }
        }?;
        let scene = self.scene;
        let transform = scene.child(appearance, "textureTransform").and_then(|t| {
            if scene.node_type(t) == Some(NodeType::MultiTextureTransform) {
                let list = scene.nodes_in(t, "textureTransform");
                list.get(unit).or(list.last()).copied()
            } else {
                Some(t)
            }
        });
        let mut extensions = transform.and_then(|t| self.texture_transform(t));
        if let Some(t) = extensions
            .as_mut()
            .and_then(|e| e.texture_transform.as_mut())
        {
            t.tex_coord = Some(set as u32);
        }
        Some(json::texture::Info {
            index: texture,
            tex_coord: set as u32,
            extensions,
            extras: None,
        })
    }

    /// A MultiTexture's units after the first: an ADD unit is the
    /// material's emission (it adds to the colour as light would), read
    /// through its own texture coordinates; the others have no glTF
    /// material slot and are named.
    fn multi_texture_units(&mut self, m: &mut json::Material, appearance: NodeId, multi: NodeId) {
        let scene = self.scene;
        let modes = scene
            .value(multi, "mode")
            .map(|v| v.strings().to_vec())
            .unwrap_or_default();
        let mut left = Vec::new();
        // (An unlit material shows no emission.)
        let lit = m.extensions.as_ref().is_none_or(|e| e.unlit.is_none());
        for (unit, &tex) in scene.nodes_in(multi, "texture").iter().enumerate().skip(1) {
            let mode = modes.get(unit).map_or("MODULATE", String::as_str);
            // (Read through the next coordinate set, which holds this
            // unit's coordinates.)
            let set = self
                .mat
                .unit_sets
                .get(&appearance)
                .map_or(1, |s| s.len() + 1);
            if mode.eq_ignore_ascii_case("ADD")
                && lit
                && m.emissive_texture.is_none()
                && let Some(info) = self.unit_info(scene.stand_in(tex), appearance, unit, set)
            {
                m.emissive_texture = Some(info);
                m.emissive_factor = json::material::EmissiveFactor([1.0; 3]);
                self.mat.unit_sets.entry(appearance).or_default().push(unit);
                continue;
            }
            left.push(format!("{unit} ({mode})"));
        }
        if !left.is_empty() {
            let (units, have) = if left.len() == 1 {
                ("unit", "has")
            } else {
                ("units", "have")
            };
            self.diags.warning(
                format!(
                    "MultiTexture `{}`: {units} {} {have} no glTF material slot (unit 0 is the base colour, an ADD unit of a lit material the emission): not written",
                    scene.display_name(multi),
                    left.join(", ")
                ),
                Some(scene.node(multi).span),
            );
        }
    }

    /// An ImageTexture's image (embedded in the buffer), sampler and glTF
    /// texture.
    pub(super) fn image_texture(&mut self, tex: NodeId) -> Option<Index<json::Texture>> {
        let scene = self.scene;
        let span = Some(scene.node(tex).span);
        let (mime, bytes) = match scene.node_type(tex) {
            Some(NodeType::ImageTexture) => {
                let urls = scene
                    .value(tex, "url")
                    .map(|v| v.strings().to_vec())
                    .unwrap_or_default();
                // The first URL that gives a PNG or JPEG; why each before
                // it did not.
                let mut tried = Vec::new();
                let found = urls.iter().find_map(|u| {
                    let read = (self.images)(tex, u).and_then(|b| match image_mime(&b) {
                        Some(mime) => Ok((mime, b)),
                        None => Err("not a PNG or JPEG image".to_string()),
                    });
                    read.map_err(|why| tried.push(format!("{u} ({why})"))).ok()
                });
                let Some(found) = found else {
                    self.diags.warning(
                        format!(
                            "ImageTexture: no PNG or JPEG image could be read: {}",
                            tried.join(", ")
                        ),
                        span,
                    );
                    return None;
                };
                found
            }
            Some(NodeType::PixelTexture) => match sfimage_png(scene.ints(tex, "image")) {
                Some(png) => ("image/png", png),
                None => {
                    self.diags.warning(
                        format!(
                            "PixelTexture `{}`: its image is empty or malformed: not written",
                            scene.display_name(tex)
                        ),
                        span,
                    );
                    return None;
                }
            },
            // Its first unit; the others: `multi_texture_units`.
            Some(NodeType::MultiTexture) => {
                let first = scene
                    .value(tex, "texture")
                    .and_then(|v| v.nodes().first().copied())
                    .map(|t| scene.stand_in(t))
                    .filter(|&t| scene.node_type(t) != Some(NodeType::MultiTexture));
                return first.and_then(|t| self.image_texture(t));
            }
            _ => {
                let ty = &scene.node(tex).type_name;
                self.diags
                    .warning(format!("`{ty}` textures are not written yet"), span);
                return None;
            }
        };
        let offset = self.append(bytes.len(), |to| to.copy_from_slice(&bytes));
        let view = self.view(offset, bytes.len(), None);
        let image = self.root.push(json::Image {
            buffer_view: Some(view),
            mime_type: Some(json::image::MimeType(mime.to_string())),
            name: gltf_name(scene, tex),
            uri: None,
            extensions: None,
            extras: None,
        });
        let sampler = self.root.push(sampler(scene, tex));
        Some(self.root.push(json::Texture {
            name: None,
            sampler: Some(sampler),
            source: image,
            extensions: None,
            extras: None,
        }))
    }

    /// The fields of a TextureTransform as written: its rotation is left
    /// out when it also scales unevenly, which glTF's fixed order cannot
    /// hold (with a warning).
    pub(super) fn tex_fields(&mut self, t: NodeId) -> Option<TexFields> {
        let scene = self.scene;
        let f =
            |name: &str| -> Vec<f64> { scene.floats(t, name).iter().map(|&x| x as f64).collect() };
        let (c, s, tr) = (f("center"), f("scale"), f("translation"));
        if c.len() < 2 || s.len() < 2 || tr.len() < 2 {
            return None;
        }
        let mut a = f("rotation").first().copied().unwrap_or(0.0);
        if a != 0.0 && s[0] != s[1] {
            self.diags.warning(
                "a TextureTransform that rotates and scales unevenly cannot be written exactly: its rotation is left out",
                Some(scene.node(t).span),
            );
            a = 0.0;
        }
        Some(TexFields {
            c: [c[0], c[1]],
            a,
            s: [s[0], s[1]],
            t: [tr[0], tr[1]],
        })
    }

    /// X3D's TextureTransform as KHR_texture_transform (see [`TexFields::khr`]).
    pub(super) fn texture_transform(
        &mut self,
        t: NodeId,
    ) -> Option<json::extensions::texture::Info> {
        let fields = self.tex_fields(t)?;
        self.mat
            .tex_transforms
            .entry(t)
            .or_insert((fields, Vec::new()));
        let (offset, rotation, scale) = fields.khr();
        let f = |v: [f64; 2]| v.map(|x| x as f32);
        self.extensions.push("KHR_texture_transform");
        Some(json::extensions::texture::Info {
            texture_transform: Some(json::extensions::texture::TextureTransform {
                offset: json::extensions::texture::TextureTransformOffset(f(offset)),
                rotation: json::extensions::texture::TextureTransformRotation(rotation as f32),
                scale: json::extensions::texture::TextureTransformScale(f(scale)),
                // gltf-json writes `null` for None, which is not valid.
                tex_coord: Some(0),
                extras: None,
            }),
            ..Default::default()
        })
    }
}
