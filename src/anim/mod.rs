//! From the scene to animation: the functions that interpolator nodes
//! compute. (Routing and clips build on this.)

pub mod build;
pub mod cascade;
pub mod check;
pub mod clip;
pub mod clock;
pub mod fit;
pub mod keyframes;
pub mod keys;
pub mod motion;
pub mod nlerp;
pub mod reduce;
mod route_reports;
mod track;
mod walk;

use crate::interp::{
    Ease, Floats, Interpolator, KeyWarning, Kind, PointMap, Spec, TangentRule, Values,
};
use crate::scene::value::Data;
use crate::scene::{NodeId, Scene, Value};

/// What a node of the Interpolation component computes.
#[derive(Clone, Debug)]
pub enum NodeFn {
    /// fraction → value (interpolators and sequencers).
    Value(Interpolator),
    /// fraction → fraction (EaseInEaseOut).
    Fraction(Ease),
}

/// Options that change how interpolators are read.
#[derive(Clone, Copy, Debug, Default)]
pub struct InterpOptions {
    /// How spline tangents are read.
    pub rule: TangentRule,
    /// The clock driving a project three `smooth` interpolator is periodic
    /// (its spline may then be closed).
    pub periodic: bool,
}

/// The numbers of a field as f64 (booleans as 0 and 1).
fn numbers(scene: &Scene, id: NodeId, field: &str) -> Vec<f64> {
    scene
        .value(id, field)
        .map(Value::numbers)
        .unwrap_or_default()
}

/// An interpolator's keyValue: single-precision numbers as the scene holds
/// them (the interpolator copies them as they are), any other as f64.
fn key_values(scene: &Scene, id: NodeId) -> Values<'_> {
    match scene.value(id, "keyValue").map(|v| &v.data) {
        Some(Data::Floats(x)) => Values::Narrow(Floats::Shared(x.clone())),
        _ => numbers(scene, id, "keyValue").into(),
    }
}

/// The numbers of a value as a track holds them: [`Value::numbers`], with
/// rotations (axis and angle) as unit quaternions.
pub fn track_numbers(v: &crate::scene::Value) -> Vec<f64> {
    let n = v.numbers();
    if v.ty.single() != crate::scene::FieldType::SFRotation {
        return n;
    }
    n.chunks_exact(4)
        .flat_map(|r| crate::interp::rotation::from_axis_angle(r).to_array())
        .collect()
}

/// The function of an interpolator, sequencer or EaseInEaseOut node, with
/// warnings about its keys. `None` for other node types.
pub fn node_function(
    scene: &Scene,
    id: NodeId,
    opts: InterpOptions,
) -> Option<(NodeFn, Vec<KeyWarning>)> {
    let type_name = scene.known(id)?.name.as_str();
    let keys = numbers(scene, id, "key");
    let mut warnings = Vec::new();
    if type_name == "EaseInEaseOut" {
        crate::interp::keys::check_keys(&keys, &mut warnings);
        let ease = Ease::new(keys, &numbers(scene, id, "easeInEaseOut"));
        return Some((NodeFn::Fraction(ease), warnings));
    }
    if let Some((kind @ (Kind::Nurbs | Kind::NurbsOrientation), _, _)) = Kind::of_node(type_name) {
        let points = scene
            .child(id, "controlPoint")
            .and_then(|c| scene.value(c, "point"))
            .map(Value::numbers)
            .unwrap_or_default();
        let order = scene.ints(id, "order").first().copied().unwrap_or(3);
        let (weights, knots) = (numbers(scene, id, "weight"), numbers(scene, id, "knot"));
        let it = Interpolator::nurbs(kind, points, &weights, order, &knots).unwrap_or_else(|| {
            warnings.push(KeyWarning::NoCurve);
            Interpolator::new(Spec::scalar(Kind::Linear, &[], Vec::new()), &mut Vec::new())
        });
        return Some((NodeFn::Value(it), warnings));
    }
    let (mut kind, elem, multiple) = Kind::of_node(type_name)?;
    let smooth = scene.flag(id, "smooth");
    let mut closed = scene.flag(id, "closed");
    if smooth {
        match type_name {
            "ScalarInterpolator" | "PositionInterpolator" => {
                kind = Kind::Spline;
                closed = opts.periodic;
            }
            _ => warnings.push(KeyWarning::SmoothIgnored),
        }
    }
    let spec = Spec {
        kind,
        keys: &keys,
        key_value: key_values(scene, id),
        elem,
        multiple,
        key_velocity: &numbers(scene, id, "keyVelocity"),
        closed,
        normalize_velocity: scene.flag(id, "normalizeVelocity"),
        rule: opts.rule,
    };
    let mut it = Interpolator::new(spec, &mut warnings);
    if kind == Kind::Geo {
        let frame = crate::geo::Frame::of(scene, id);
        it = it.with_map(PointMap(std::sync::Arc::new(move |p| frame.point(p))));
    }
    Some((NodeFn::Value(it), warnings))
}
