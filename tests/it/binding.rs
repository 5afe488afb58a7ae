//! The X3D ECMAScript binding against X_ITE: every case of
//! tests/binding/cases.js (one function, property or constructor of the
//! binding with fixed arguments) runs as a Script's initialize() in
//! x3dbake's QuickJS and in X_ITE, and the results agree within 1e-6,
//! rotations compared as rotations; each deliberate difference is pinned
//! below with its reason. The coverage (cases agreeing, of the binding's
//! members listed in `inventory`) is printed.
//!
//! The X_ITE half runs when X3DBAKE_XITE names the oracle folder
//! (.ci/run sets it up); skipped with a note otherwise (failing under CI).

use crate::util;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use x3dbake::internal::anim::cascade::DEFAULT_LOAD_TIME;
use x3dbake::internal::script::{Budget, Engine, Output, Script};

const CASES: &str = include_str!("../binding/cases.js");

/// The scene both run: the cases as a Script that holds a Transform.
fn scene() -> String {
    format!(
        r#"<X3D profile="Full" version="4.0"><Scene>
<Transform DEF="Held" translation="1 2 3" rotation="0 1 0 0.5"><Shape/></Transform>
<Script DEF="T" directOutput="true">
<field name="node" type="SFNode" accessType="initializeOnly"><Transform USE="Held"/></field>
<field name="result" type="SFString" accessType="outputOnly"/>
<![CDATA[ecmascript:
{CASES}]]></Script></Scene></X3D>"#
    )
}

/// Each case's [type, value] as x3dbake's binding gives it.
fn ours() -> BTreeMap<String, Json> {
    let bake = util::load_text("binding.x3d", scene().as_bytes());
    assert!(!bake.diags.has_errors(), "{:?}", bake.diags.list());
    let scene = &bake.scene;
    let t = scene.def("T").unwrap();
    let engine = Engine::new(scene, &Budget::new(&x3dbake::Limits::default())).unwrap();
    let script = Script::load(&engine, scene, t, CASES).unwrap();
    let out = script.initialize(DEFAULT_LOAD_TIME).unwrap();
    let text = out
        .iter()
        .find_map(|o| match o {
            Output::Send { field, value } if field == "result" => Some(value.strings()[0].clone()),
            _ => None,
        })
        .expect("the cases set `result`");
    serde_json::from_str(&text).unwrap()
}

/// The same in X_ITE.
fn theirs(dir: &std::path::Path) -> BTreeMap<String, Json> {
    let (_tmp, path) = util::scene_file("binding.x3d", &scene());
    let runner = util::root().join("tests/binding/run-xite.mjs");
    let out = util::node(
        &[runner.as_os_str(), dir.as_os_str(), path.as_ref()],
        Some(dir),
        &[],
    );
    serde_json::from_slice(&out).expect("run-xite prints the cases' results")
}

fn numbers(v: &Json) -> Option<Vec<f64>> {
    match v {
        Json::Number(n) => n.as_f64().map(|x| vec![x]),
        Json::Array(items) => items.iter().map(|x| numbers(x).map(|n| n[0])).collect(),
        _ => None,
    }
}

/// The quaternion of an axis-angle rotation.
fn quaternion(r: &[f64]) -> glam::DQuat {
    let axis = glam::DVec3::new(r[0], r[1], r[2]);
    if axis.length() == 0.0 {
        return glam::DQuat::IDENTITY;
    }
    glam::DQuat::from_axis_angle(axis.normalize(), r[3])
}

/// Whether two [type, value] results agree: the same type, numbers within
/// 1e-6 (relative above 1), rotations as rotations, a string of numbers
/// (toString) as its numbers.
fn agree(a: &Json, b: &Json) -> bool {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-6 * x.abs().max(y.abs()).max(1.0);
    match (a, b) {
        (Json::Array(a), Json::Array(b)) if a.len() == 2 && b.len() == 2 && a[0] == b[0] => {
            let ty = a[0].as_str().unwrap_or("");
            if ty == "SFRotation"
                && let (Some(p), Some(q)) = (numbers(&a[1]), numbers(&b[1]))
            {
                return quaternion(&p).dot(quaternion(&q)).abs() > 1.0 - 1e-9;
            }
            if let (Json::Array(x), Json::Array(y)) = (&a[1], &b[1])
                && x.iter().all(Json::is_array)
            {
                return x.len() == y.len() && x.iter().zip(y).all(|(p, q)| agree(p, q));
            }
            if let (Some(x), Some(y)) = (numbers(&a[1]), numbers(&b[1])) {
                return x.len() == y.len() && x.iter().zip(&y).all(|(&p, &q)| close(p, q));
            }
            if let (Some(x), Some(y)) = (a[1].as_str(), b[1].as_str()) {
                let parse = |s: &str| {
                    s.split_whitespace()
                        .map(str::parse::<f64>)
                        .collect::<Result<Vec<_>, _>>()
                };
                if let (Ok(p), Ok(q)) = (parse(x), parse(y)) {
                    return p.len() == q.len() && p.iter().zip(&q).all(|(&p, &q)| close(p, q));
                }
            }
            a[1] == b[1]
        }
        _ => a == b,
    }
}

/// Where x3dbake departs from X_ITE on purpose, and why.
const DIFFERENCES: &[(&str, &str)] = &[
    (
        "SFRotation.new(matrix)",
        "X_ITE gives NaN for a rotation made from an SFMatrix3f; x3dbake the matrix's rotation (ISO/IEC 19777-1)",
    ),
    (
        "Browser.currentTime",
        "X_ITE's Browser object has no currentTime property (it has getCurrentTime()); x3dbake gives both",
    ),
    (
        "SFRotation.fromQuaternion",
        "X_ITE reads a quaternion's x, y, z and w and gives NaN for the [x, y, z, w] array its own getQuaternion() returns; x3dbake takes both forms",
    ),
    ("SFRotation.setQuaternion", "as fromQuaternion"),
];

/// The binding's members, one name a case covers each: TYPE.member.
fn inventory() -> Vec<String> {
    let mut all = Vec::new();
    let mut add = |ty: &str, names: &[&str]| all.extend(names.iter().map(|n| format!("{ty}.{n}")));
    for ty in [
        "SFVec2f", "SFVec2d", "SFVec3f", "SFVec3d", "SFVec4f", "SFVec4d",
    ] {
        add(
            ty,
            &[
                "new()",
                "new(…)",
                "x",
                "y",
                "[i]=",
                "add",
                "subtract",
                "multiply",
                "divide",
                "multVec",
                "divVec",
                "negate",
                "inverse",
                "abs",
                "min",
                "max",
                "clamp",
                "dot",
                "length",
                "normalize",
                "distance",
                "lerp",
                "reflect",
                "equals",
                "copy",
                "toString",
                "ZERO",
                "ONE",
                "NEGATIVE_ONE",
                "X_AXIS",
                "NEGATIVE_Y_AXIS",
            ],
        );
    }
    add("SFVec3f", &["z", "cross"]);
    add("SFVec3d", &["cross"]);
    add("SFVec4f", &["w"]);
    for ty in ["SFMatrix3f", "SFMatrix3d", "SFMatrix4f", "SFMatrix4d"] {
        add(
            ty,
            &[
                "new()",
                "new(…)",
                "[i]=",
                "determinant",
                "inverse",
                "transpose",
                "multLeft",
                "multRight",
                "multVecMatrix",
                "multMatrixVec",
                "multDirMatrix",
                "multMatrixDir",
                "equals",
                "toString",
                "IDENTITY",
                "ZERO",
            ],
        );
    }
    add(
        "SFMatrix4f",
        &[
            "setTransform",
            "getTransform",
            "translate",
            "rotate",
            "scale",
        ],
    );
    add(
        "SFMatrix3f",
        &[
            "setTransform",
            "getTransform",
            "translate",
            "rotate",
            "scale",
            "skewX",
            "skewY",
        ],
    );
    add(
        "SFColor",
        &[
            "new()",
            "new(…)",
            "r",
            "[i]=",
            "getHSV",
            "setHSV",
            "fromHSV",
            "lerp",
            "linearToSRGB",
            "sRGBToLinear",
            "equals",
            "toString",
            "BLACK",
            "WHITE",
        ],
    );
    add(
        "SFColorRGBA",
        &[
            "new()",
            "new(…)",
            "a",
            "getHSVA",
            "setHSVA",
            "fromHSVA",
            "lerp",
            "linearToSRGB",
            "sRGBToLinear",
            "TRANSPARENT",
        ],
    );
    add(
        "SFRotation",
        &[
            "new()",
            "new(x, y, z, a)",
            "new(axis, angle)",
            "new(from, to)",
            "new(matrix)",
            "angle",
            "[i]=",
            "getAxis",
            "setAxis",
            "getMatrix",
            "setMatrix",
            "getQuaternion",
            "setQuaternion",
            "fromQuaternion",
            "fromMatrix",
            "inverse",
            "multiply",
            "multVec",
            "slerp",
            "straighten",
            "equals",
            "IDENTITY",
        ],
    );
    add(
        "SFImage",
        &[
            "new()", "new(…)", "width", "height", "comp", "array", "x", "y",
        ],
    );
    for ty in [
        "MFFloat",
        "MFInt32",
        "MFBool",
        "MFString",
        "MFTime",
        "MFDouble",
        "MFVec2f",
        "MFVec3f",
        "MFVec4f",
        "MFVec2d",
        "MFVec3d",
        "MFVec4d",
        "MFColor",
        "MFColorRGBA",
        "MFRotation",
        "MFMatrix3f",
        "MFMatrix4f",
    ] {
        add(ty, &["new(…)"]);
    }
    add(
        "MFFloat",
        &[
            "[i]= beyond",
            "length= shrink",
            "push",
            "pop",
            "shift",
            "unshift",
            "splice",
            "slice",
            "indexOf",
            "includes",
            "reverse",
            "sort",
            "fill",
            "map",
            "filter",
            "reduce",
            "forEach",
            "some",
            "every",
            "find",
            "findIndex",
            "join",
            "at",
            "iterate",
            "assign",
            "equals",
        ],
    );
    add(
        "MFVec3f",
        &[
            "length",
            "[i]",
            "[i]= beyond",
            "length= grow",
            "push",
            "equals",
        ],
    );
    add(
        "X3DConstants",
        &[
            "initializeOnly",
            "inputOnly",
            "outputOnly",
            "inputOutput",
            "SFVec3f",
            "MFNode",
            "SFTime",
            "Transform",
        ],
    );
    add(
        "Browser",
        &[
            "name",
            "version",
            "currentTime",
            "currentSpeed",
            "currentFrameRate",
            "getName",
            "getVersion",
            "getCurrentTime",
            "getCurrentSpeed",
            "getCurrentFrameRate",
            "getWorldURL",
            "description",
            "setDescription",
            "print",
            "println",
            "createX3DFromString",
            "createVrmlFromString",
            "createX3DFromURL",
            "createVrmlFromURL",
            "loadURL",
            "replaceWorld",
            "addRoute",
            "deleteRoute",
        ],
    );
    add(
        "SFNode",
        &[
            "field",
            "getNodeName",
            "getNodeTypeName",
            "getNodeType",
            "getFieldDefinitions",
            "set field",
            "set_ field",
            "field_changed",
        ],
    );
    all
}

#[test]
fn every_case_of_the_binding_runs_in_x3dbake() {
    let ours = ours();
    let failed: Vec<_> = ours.iter().filter(|(_, v)| v[0] == "throws").collect();
    let allowed: Vec<&str> = DIFFERENCES.iter().map(|d| d.0).collect();
    let unexpected: Vec<_> = failed
        .iter()
        .filter(|(k, _)| !allowed.contains(&k.as_str()))
        .collect();
    assert!(unexpected.is_empty(), "cases that throw: {unexpected:#?}");
    let missing: Vec<_> = inventory()
        .into_iter()
        .filter(|n| !ours.contains_key(n))
        .collect();
    assert!(missing.is_empty(), "members with no case: {missing:?}");
}

#[test]
fn the_binding_agrees_with_x_ite() {
    let Some(dir) = util::tool_dir("X3DBAKE_XITE", "the ECMAScript binding against X_ITE") else {
        return;
    };
    let (ours, theirs) = (ours(), theirs(&dir));
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>(),
        "both run every case"
    );
    let differ: Vec<&String> = ours
        .keys()
        .filter(|k| !agree(&ours[*k], &theirs[*k]))
        .collect();
    let pinned: Vec<&str> = DIFFERENCES.iter().map(|d| d.0).collect();
    let report: Vec<String> = differ
        .iter()
        .filter(|k| !pinned.contains(&k.as_str()))
        .map(|k| format!("{k}: x3dbake {} X_ITE {}", ours[*k], theirs[*k]))
        .collect();
    assert!(
        report.is_empty(),
        "the binding differs from X_ITE:\n{}",
        report.join("\n")
    );
    for (name, why) in DIFFERENCES {
        assert!(
            differ.iter().any(|k| k == name),
            "{name} agrees now: unpin it ({why})"
        );
    }
    let inventory = inventory();
    let agreeing = inventory.iter().filter(|n| !differ.contains(n)).count();
    println!(
        "binding: {agreeing} of {} members agree with X_ITE ({} cases run, {} pinned differences)",
        inventory.len(),
        ours.len(),
        DIFFERENCES.len()
    );
}
