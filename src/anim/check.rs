//! The interpolator check: warnings about keys and values that the X3D text
//! leaves undefined, each interpolator's form (exact or sampled), and the
//! interpolators built on the way, kept for the clips.

use super::{InterpOptions, NodeFn, node_function};
use crate::diag::Diagnostics;
use crate::interp::Kind;
use crate::scene::{NodeId, NodeType, Scene};

/// How an interpolator node can be written: its exact form, or sampled.
fn form(f: &NodeFn) -> &'static str {
    match f {
        NodeFn::Value(it) if !it.produces() => "no keys: sends nothing",
        NodeFn::Value(it) => match it.kind() {
            Kind::Linear => "exact: linear",
            Kind::Orientation => "exact: slerp",
            Kind::Spline => "exact: hermite",
            Kind::Step => "exact: step",
            Kind::Color
            | Kind::Normal
            | Kind::Squad
            | Kind::Nurbs
            | Kind::NurbsOrientation
            | Kind::Geo => "sampled",
        },
        NodeFn::Fraction(_) => "modifies fractions: chains through it are sampled",
    }
}

/// The forms of the scene's interpolators, by node, for the report.
pub type Forms = crate::hash::HashMap<NodeId, &'static str>;

/// Interpolators built with the default options, by node.
pub type Built = crate::hash::HashMap<NodeId, std::sync::Arc<crate::interp::Interpolator>>;

/// What the check found.
#[derive(Default)]
pub struct Checked {
    /// Each interpolator's form, for the report.
    pub forms: Forms,
    /// The interpolators built on the way (with the default options), for
    /// [`clips_using`](super::build::clips_using), so that a large one is
    /// built once.
    pub built: Built,
}

/// Warnings about interpolator keys and values (the undefined cases of
/// `docs/interpretations.md`), at the node that has them; each
/// interpolator's form, and the interpolators built.
pub fn check(scene: &Scene, diags: &mut Diagnostics) -> Checked {
    let mut checked = Checked::default();
    for id in ids(scene).filter(|&id| scene.node(id).in_proto.is_none()) {
        if let Some((f, warnings)) = node_function(scene, id, InterpOptions::default()) {
            let span = scene
                .value_span(id, "keyValue")
                .or(Some(scene.node(id).span));
            for w in warnings {
                let name = scene.display_name(id);
                diags.warning(format!("{} {name}: {w}", scene.node(id).type_name), span);
            }
            checked.forms.insert(id, form(&f));
            if let NodeFn::Value(it) = f {
                checked.built.insert(id, std::sync::Arc::new(it));
            }
        }
    }
    checked
}

/// Node types that produce a fraction or a value over time.
pub fn is_clock(type_name: &str) -> bool {
    matches!(type_name, "TimeSensor" | "Timer")
}

/// The event utilities that turn one event into another (`--interactive`
/// carries them in its graph).
pub fn is_event_utility(ty: NodeType) -> bool {
    use NodeType::*;
    matches!(
        ty,
        BooleanFilter | BooleanToggle | BooleanTrigger | IntegerTrigger | TimeTrigger
    )
}

/// Sensors a person works (pointing, keys, moving about).
pub fn is_user_sensor(ty: NodeType) -> bool {
    use NodeType::*;
    matches!(
        ty,
        TouchSensor
            | PlaneSensor
            | CylinderSensor
            | SphereSensor
            | KeySensor
            | StringSensor
            | ProximitySensor
            | VisibilitySensor
            | TransformSensor
            | GeoProximitySensor
    )
}

/// The Followers component's node types (the Chaser and Damper families).
pub fn is_follower(type_name: &str) -> bool {
    type_name.contains("Chaser") || type_name.contains("Damper")
}

/// Node types that map a fraction to a value.
pub fn is_interpolator(type_name: &str) -> bool {
    type_name.ends_with("Interpolator")
        || type_name.ends_with("Interpolator2D")
        || matches!(
            type_name,
            "EaseInEaseOut" | "BooleanSequencer" | "IntegerSequencer"
        )
}

pub(crate) fn ids(scene: &Scene) -> impl Iterator<Item = NodeId> + '_ {
    (0..scene.nodes.len() as u32).map(NodeId)
}

/// Whether a node computes a value from a fraction (an interpolator, a
/// sequencer, EaseInEaseOut).
pub(crate) fn is_chain_node(scene: &Scene, id: NodeId) -> bool {
    scene
        .known(id)
        .is_some_and(|d| d.name == "EaseInEaseOut" || Kind::of_node(&d.name).is_some())
}
