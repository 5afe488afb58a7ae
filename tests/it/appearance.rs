//! X3D 4 appearance in glTF: PhysicalMaterial, UnlitMaterial,
//! TwoSidedMaterial, PixelTexture, TextureProperties, MultiTexture and
//! OrthoViewpoint, on `fixtures/scenes/materials_x3d4.x3d`.

use crate::util;
use serde_json::{Value, json};

fn baked() -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.gltf");
    let o = util::run(&[
        "fixtures/scenes/materials_x3d4.x3d",
        "-o",
        out.to_str().unwrap(),
        "--embed",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    (serde_json::from_str(&text).unwrap(), util::stderr(&o))
}

/// A number as the glTF's JSON writes it: the shortest text of the f32
/// nearest it (0.8, not the f64 0.800000011920929 of that f32).
fn f(x: f64) -> f64 {
    (x as f32).to_string().parse().unwrap()
}

#[test]
fn x3d4_materials_map_to_gltf_materials() {
    let (doc, err) = baked();
    let m = &doc["materials"];
    // PhysicalMaterial: glTF's own model, factor for factor, its
    // metallicRoughnessTexture a PixelTexture made PNG.
    let gold = &m[0]["pbrMetallicRoughness"];
    assert_eq!(m[0]["name"], "Gold");
    assert_eq!(gold["baseColorFactor"], json!([1.0, f(0.8), f(0.3), 1.0]));
    assert_eq!(gold["metallicFactor"], json!(f(0.9)));
    assert_eq!(gold["roughnessFactor"], json!(f(0.3)));
    assert_eq!(m[0]["emissiveFactor"], json!([f(0.1), 0.0, 0.0]));
    let t = gold["metallicRoughnessTexture"]["index"].as_u64().unwrap() as usize;
    let image = doc["textures"][t]["source"].as_u64().unwrap() as usize;
    assert_eq!(doc["images"][image]["mimeType"], "image/png");
    // UnlitMaterial: unlit, its emissive colour the base colour, alpha
    // 1 − transparency.
    assert_eq!(m[1]["extensions"]["KHR_materials_unlit"], json!({}));
    assert_eq!(
        m[1]["pbrMetallicRoughness"]["baseColorFactor"],
        json!([0.0, 0.5, 1.0, 0.75])
    );
    assert_eq!(m[1]["alphaMode"], "BLEND");
    // TwoSidedMaterial: double-sided; its PixelTexture's TextureProperties
    // as the sampler (MIRRORED_REPEAT, CLAMP, NEAREST_PIXEL,
    // AVG_PIXEL_AVG_MIPMAP).
    assert_eq!(m[2]["doubleSided"], true);
    let t = m[2]["pbrMetallicRoughness"]["baseColorTexture"]["index"]
        .as_u64()
        .unwrap() as usize;
    let s = doc["textures"][t]["sampler"].as_u64().unwrap() as usize;
    assert_eq!(
        doc["samplers"][s],
        json!({"magFilter": 9728, "minFilter": 9987, "wrapS": 33648, "wrapT": 33071})
    );
    // MultiTexture: its first texture; its MODULATE unit named.
    assert!(m[3]["pbrMetallicRoughness"]["baseColorTexture"].is_object());
    assert!(
        err.contains("unit 1 (MODULATE) has no glTF material slot"),
        "{err}"
    );
    // OrthoViewpoint: half the fieldOfView's width and height.
    assert_eq!(doc["cameras"][0]["type"], "orthographic");
    assert_eq!(doc["cameras"][0]["orthographic"]["xmag"], json!(4.0));
    assert_eq!(doc["cameras"][0]["orthographic"]["ymag"], json!(3.0));
}

#[test]
fn animated_x3d4_material_fields_are_pointer_channels() {
    let (doc, _) = baked();
    let pointers: Vec<&str> = doc["animations"][0]["channels"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["target"]["extensions"]["KHR_animation_pointer"]["pointer"].as_str())
        .collect();
    for p in [
        "/materials/0/pbrMetallicRoughness/baseColorFactor",
        "/materials/0/pbrMetallicRoughness/metallicFactor",
        "/materials/1/pbrMetallicRoughness/baseColorFactor",
    ] {
        assert!(pointers.contains(&p), "{p} not in {pointers:?}");
    }
}
