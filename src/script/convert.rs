//! Values between x3dbake and a Script's context, as JSON: a value is the
//! flat list of its scalars (an SFNode or MFNode value lists node
//! numbers), its type known on both sides.

use super::Output;
use crate::scene::value::Data;
use crate::scene::value::Scalar;
use crate::scene::{FieldType, NodeClass, NodeId, Scene, Value};
use serde_json::{Map, Value as Json, json};
use std::collections::VecDeque;

/// A value's scalars as JSON.
pub fn data(value: &Value) -> Json {
    match &value.data {
        Data::Bools(v) => json!(v),
        Data::Ints(v) => json!(v),
        Data::Floats(v) => Json::Array(v.iter().map(|&x| json!(f64::from(x))).collect()),
        Data::Doubles(v) => json!(v),
        Data::Strings(v) => json!(v),
        Data::Nodes(v) => Json::Array(v.iter().map(|n| json!(n.0)).collect()),
    }
}

/// A value's scalars as JSON text.
pub fn to_json(value: &Value) -> String {
    data(value).to_string()
}

/// A value of type `ty` from its scalars; `None` when they are not of the
/// type (a number that is not finite comes as `null`).
pub fn from_json(ty: FieldType, data: &Json) -> Option<Value> {
    let items = data.as_array()?;
    let data = match ty.scalar() {
        Scalar::Bool => Data::Bools(items.iter().map(Json::as_bool).collect::<Option<_>>()?),
        Scalar::Int => Data::Ints(
            items
                .iter()
                .map(|v| v.as_f64().map(|x| x as i32))
                .collect::<Option<_>>()?,
        ),
        Scalar::Float => Data::Floats(
            items
                .iter()
                .map(|v| v.as_f64().map(|x| x as f32))
                .collect::<Option<Vec<_>>>()?
                .into(),
        ),
        Scalar::Double => Data::Doubles(items.iter().map(Json::as_f64).collect::<Option<_>>()?),
        Scalar::String => Data::Strings(
            items
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<_>>()?,
        ),
        Scalar::Node => Data::Nodes(
            items
                .iter()
                .map(|v| v.as_u64().map(|n| NodeId(n as u32)))
                .collect::<Option<_>>()?,
        ),
    };
    let value = Value { ty, data };
    let whole = value.scalar_len().is_multiple_of(ty.components());
    let single = ty.is_mf() || value.scalar_len() == value.ty.components();
    let node = ty == FieldType::SFNode && value.scalar_len() <= 1;
    (whole && (single || node)).then_some(value)
}

/// What a Script's context is set up with: its fields with their values,
/// and the nodes it holds (through its SFNode and MFNode fields, and
/// theirs, `max` at most) with their fields' types and values; and those
/// nodes.
pub fn setup(scene: &Scene, script: NodeId, max: usize) -> (String, Vec<NodeId>) {
    let fields: Vec<Json> = scene
        .node(script)
        .user_fields
        .iter()
        .map(|f| {
            let value = scene.value(script, &f.name).unwrap_or(&f.default);
            json!({
                "name": f.name,
                "type": f.ty.name(),
                "access": f.access.name(),
                "data": data(value),
            })
        })
        .collect();
    let mut nodes = Map::new();
    let mut queue: VecDeque<NodeId> = held(scene, script).collect();
    while let Some(id) = queue.pop_front() {
        if nodes.len() >= max || nodes.contains_key(&id.0.to_string()) {
            continue;
        }
        nodes.insert(id.0.to_string(), node_info(scene, id, 0));
        queue.extend(held(scene, id));
    }
    let types: Vec<&str> = crate::scene::NodeType::ALL
        .iter()
        .map(|t| t.name())
        .collect();
    let held = nodes
        .keys()
        .filter_map(|k| k.parse().ok())
        .map(NodeId)
        .collect();
    let text = json!({ "fields": fields, "nodes": nodes, "types": types }).to_string();
    (text, held)
}

/// What a Script's context knows of a node: its type, DEF name and fields
/// (type, value, access), the nodes its values hold numbered `offset`
/// after their numbers in `scene`.
pub fn node_info(scene: &Scene, id: NodeId, offset: u32) -> Json {
    let mut own = Map::new();
    for def in node_fields(scene, id) {
        if let Some(v) = scene.value(id, &def.name) {
            let values = match &v.data {
                Data::Nodes(n) => json!(n.iter().map(|n| n.0 + offset).collect::<Vec<_>>()),
                _ => data(v),
            };
            own.insert(
                def.name.clone(),
                json!([def.ty.name(), values, def.access.name()]),
            );
        }
    }
    let n = scene.node(id);
    json!({
        "type": n.type_name,
        "name": n.def.clone().unwrap_or_default(),
        "fields": own,
    })
}

/// Every field of a node: its type's (catalogue or prototype interface)
/// and its own.
fn node_fields(scene: &Scene, id: NodeId) -> impl Iterator<Item = &crate::scene::FieldDef> {
    let n = scene.node(id);
    let typed: &[crate::scene::FieldDef] = match n.class {
        NodeClass::Known(def) => &def.fields,
        NodeClass::Proto(p) => &scene.protos[p].interface,
        NodeClass::Unknown => &[],
    };
    typed.iter().chain(n.user_fields.iter())
}

/// The nodes a node holds in its SFNode and MFNode fields.
fn held(scene: &Scene, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    node_fields(scene, id)
        .filter_map(move |f| scene.value(id, &f.name))
        .flat_map(|v| v.nodes().iter().copied())
}

/// What a Script did, from the JSON list its call returns; `field_type`
/// gives the type of the Script's own fields.
pub fn outputs(
    text: &str,
    field_type: impl Fn(&str) -> Option<FieldType>,
) -> Result<Vec<Output>, String> {
    let list: Vec<Json> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(list.len());
    for item in &list {
        let parts = item.as_array().map(Vec::as_slice).unwrap_or_default();
        let text = |i: usize| parts.get(i).and_then(Json::as_str);
        match (text(0), parts.len()) {
            (Some("print"), 2) => out.push(Output::Print(text(1).unwrap_or_default().into())),
            (Some("out"), 3) => {
                let field = text(1).ok_or("an output with no field")?;
                let ty = field_type(field).ok_or_else(|| format!("no field `{field}`"))?;
                out.push(match from_json(ty, &parts[2]) {
                    Some(value) => Output::Send {
                        field: field.to_string(),
                        value,
                    },
                    None => Output::Dropped(not_of_type(field, ty, &parts[2])),
                });
            }
            (Some("set"), 5) => {
                let node = parts[1].as_u64().ok_or("a write to no node")?;
                let field = text(2).ok_or("a write to no field")?;
                let ty = text(3)
                    .and_then(FieldType::from_name)
                    .ok_or("a write of no type")?;
                out.push(match from_json(ty, &parts[4]) {
                    Some(value) => Output::Write {
                        node: NodeId(node as u32),
                        field: field.to_string(),
                        value,
                    },
                    None => Output::Dropped(not_of_type(field, ty, &parts[4])),
                });
            }
            _ => return Err(format!("an entry x3dbake does not know: {item}")),
        }
    }
    Ok(out)
}

/// Why a value sent to `field` of type `ty` is not passed on.
fn not_of_type(field: &str, ty: FieldType, data: &Json) -> String {
    let scalars = data.as_array().map(Vec::as_slice).unwrap_or_default();
    if scalars.iter().any(Json::is_null) {
        format!(
            "`{field}` ({ty}) was sent a number that is not finite (NaN, as X_ITE makes of `undefined`, a word or a node), which glTF cannot hold"
        )
    } else {
        format!("`{field}` was sent a value that is not {ty}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_pass_as_their_scalars() {
        let v = Value {
            ty: FieldType::MFVec3f,
            data: Data::Floats(vec![1.0, 2.0, 3.5, 4.0, 5.0, 6.0].into()),
        };
        assert_eq!(to_json(&v), "[1.0,2.0,3.5,4.0,5.0,6.0]");
        assert_eq!(from_json(FieldType::MFVec3f, &data(&v)), Some(v));
        // A point short, a NaN (null) or a word: not a value of the type.
        assert_eq!(from_json(FieldType::SFVec3f, &json!([1, 2])), None);
        assert_eq!(from_json(FieldType::SFFloat, &json!([null])), None);
        assert_eq!(from_json(FieldType::SFInt32, &json!(["a"])), None);
        assert_eq!(
            from_json(FieldType::SFNode, &json!([])),
            Some(Value::initial(FieldType::SFNode))
        );
    }
}
