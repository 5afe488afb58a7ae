//! The events a person would cause, given as `--event TIME:NODE.FIELD=VALUE`:
//! parsed, and resolved against the scene.

use super::{Ev, Field};
use crate::scene::{Dir, FieldType, NodeId, Scene};

/// An event a person would cause (a click, a key), given on the command
/// line as `TIME:NODE.FIELD=VALUE`: at world time TIME, NODE sends FIELD
/// (an output, as a TouchSensor's touchTime) or receives it (an input, as a
/// TimeSensor's startTime).
#[derive(Clone, Debug, PartialEq)]
pub struct UserEvent {
    /// World time, seconds.
    pub time: f64,
    /// The node's DEF name.
    pub node: String,
    /// The field, as written.
    pub field: String,
    /// The value, as written (`true`, `2.5`, `3`).
    pub value: String,
}

impl std::str::FromStr for UserEvent {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let form = || format!("`{s}` is not TIME:NODE.FIELD=VALUE (e.g. 2:Button.touchTime=2)");
        let (time, rest) = s.split_once(':').ok_or_else(form)?;
        let (target, value) = rest.split_once('=').ok_or_else(form)?;
        let (node, field) = target.rsplit_once('.').ok_or_else(form)?;
        let time: f64 = time.trim().parse().map_err(|_| form())?;
        if !time.is_finite() || node.is_empty() || field.is_empty() {
            return Err(form());
        }
        Ok(UserEvent {
            time,
            node: node.to_string(),
            field: field.to_string(),
            value: value.trim().to_string(),
        })
    }
}

impl UserEvent {
    /// The node, field and value the event names in `scene`, or what the
    /// scene lacks: the node, the field, or a value of the field's type.
    pub(super) fn resolve<'s>(&self, scene: &'s Scene) -> Result<(NodeId, Field<'s>, Ev), String> {
        let node = scene
            .def(&self.node)
            .ok_or_else(|| format!("--event {}: no node named `{}`", self.time, self.node))?;
        let sends = scene.find_field(node, &self.field, Dir::Out);
        let receives = scene.find_field(node, &self.field, Dir::In);
        let def = sends.or(receives).ok_or_else(|| {
            format!(
                "--event {}: `{}` ({}) has no field `{}`",
                self.time,
                self.node,
                scene.node(node).type_name,
                self.field
            )
        })?;
        let value = parse_value(&self.value, def.ty).ok_or_else(|| {
            format!(
                "--event {}: `{}` is not a value of `{}.{}`",
                self.time, self.value, self.node, self.field
            )
        })?;
        let field = Field::User {
            sends: sends.map(|d| d.name.as_str()),
            receives: receives.map(|d| d.name.as_str()),
        };
        Ok((node, field, value))
    }
}

/// A value as written on the command line, for a field of type `ty`: as
/// in a ClassicVRML file (`4 0 0`, `"text"`), a bool also as `true`,
/// `false`, 1 or 0.
pub(super) fn parse_value(text: &str, ty: FieldType) -> Option<Ev> {
    let text = match (ty, text) {
        (FieldType::SFBool, "true" | "1") => "TRUE",
        (FieldType::SFBool, "false" | "0") => "FALSE",
        _ => text,
    };
    let value =
        crate::scene::value::parse_value(ty, text, crate::scene::value::Encoding::Vrml).ok()?;
    let finite = value.numbers().iter().all(|x| x.is_finite());
    finite.then(|| Ev::of(value))
}
