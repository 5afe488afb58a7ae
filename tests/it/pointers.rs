//! Every KHR_animation_pointer names a property of its glTF type.

use crate::util;
use crate::util::bake;

/// The Asset Object Model type of each property x3dbake animates through
/// KHR_animation_pointer: (path ending, accessor type, component type, the
/// property has a default when absent).
const POINTER_TYPES: &[(&str, &str, u64, bool)] = &[
    ("/pbrMetallicRoughness/baseColorFactor", "VEC4", 5126, true),
    (
        "/pbrMetallicRoughness/roughnessFactor",
        "SCALAR",
        5126,
        true,
    ),
    ("/pbrMetallicRoughness/metallicFactor", "SCALAR", 5126, true),
    ("/emissiveFactor", "VEC3", 5126, true),
    ("/perspective/yfov", "SCALAR", 5126, false),
    ("/color", "VEC3", 5126, true),
    ("/intensity", "SCALAR", 5126, true),
    (
        "/extensions/KHR_texture_transform/offset",
        "VEC2",
        5126,
        true,
    ),
    (
        "/extensions/KHR_texture_transform/rotation",
        "SCALAR",
        5126,
        true,
    ),
    (
        "/extensions/KHR_texture_transform/scale",
        "VEC2",
        5126,
        true,
    ),
    (
        "/extensions/KHR_node_visibility/visible",
        "SCALAR",
        5121,
        true,
    ),
];

#[test]
fn every_pointer_names_a_property_of_its_type() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = std::collections::BTreeMap::new();
    for x3d in util::fixtures("scenes", "x3d") {
        let baked = dir.path().join("p.glb");
        // (KHR_node_visibility's pointer with the extension asked for.)
        let out = bake(
            &x3d.to_string_lossy(),
            &baked,
            &["--visibility", "extension"],
        );
        assert_eq!(out.status.code(), Some(0), "{}", x3d.display());
        let (json, _) = util::document_json(&std::fs::read(&baked).unwrap());
        let used: Vec<&str> = json["extensionsUsed"]
            .as_array()
            .map(|a| a.iter().filter_map(|e| e.as_str()).collect())
            .unwrap_or_default();
        for anim in json["animations"].as_array().into_iter().flatten() {
            let mut seen = x3dbake::internal::hash::HashSet::default();
            for c in anim["channels"].as_array().unwrap() {
                if c["target"]["path"] != "pointer" {
                    continue;
                }
                let pointer = c["target"]["extensions"]["KHR_animation_pointer"]["pointer"]
                    .as_str()
                    .unwrap();
                let at = format!("{}: {pointer}", x3d.display());
                assert!(c["target"].get("node").is_none(), "{at}: node set");
                assert!(
                    seen.insert(pointer),
                    "{at}: animated twice in one animation"
                );
                let &(end, ty, component, default) = POINTER_TYPES
                    .iter()
                    .find(|p| pointer.ends_with(p.0))
                    .unwrap_or_else(|| panic!("{at}: unknown property"));
                // Defined: present, or defaulted inside an object that is.
                let (parent, _) = pointer.rsplit_once('/').unwrap();
                assert!(
                    json.pointer(pointer).is_some()
                        || (default && json.pointer(parent).is_some_and(|p| p.is_object())),
                    "{at}: does not resolve"
                );
                for ext in [
                    "KHR_texture_transform",
                    "KHR_node_visibility",
                    "KHR_lights_punctual",
                ] {
                    if pointer.contains(ext) {
                        assert!(used.contains(&ext), "{at}: {ext} not in extensionsUsed");
                    }
                }
                let sampler = &anim["samplers"][c["sampler"].as_u64().unwrap() as usize];
                let output = &json["accessors"][sampler["output"].as_u64().unwrap() as usize];
                let input = &json["accessors"][sampler["input"].as_u64().unwrap() as usize];
                assert_eq!(output["type"], ty, "{at}");
                assert_eq!(output["componentType"], component, "{at}");
                let interpolation = sampler["interpolation"].as_str().unwrap_or("LINEAR");
                if component != 5126 {
                    assert_eq!(interpolation, "STEP", "{at}: a bool must step");
                }
                let per_key = if interpolation == "CUBICSPLINE" { 3 } else { 1 };
                assert_eq!(
                    output["count"].as_u64().unwrap(),
                    input["count"].as_u64().unwrap() * per_key,
                    "{at}: value count"
                );
                *checked.entry(end).or_insert(0) += 1;
            }
        }
    }
    assert_eq!(
        checked.len(),
        POINTER_TYPES.len(),
        "every property is exercised: {checked:?}"
    );
}
