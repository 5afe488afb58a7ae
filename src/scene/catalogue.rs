//! The node catalogue: every node type x3dbake knows, with its fields.
//!
//! The table itself is `catalogue.txt`, written in the notation of the X3D
//! node signatures; it is read once, on first use.

use super::value::{Access, Encoding, FieldType, Value, parse_value};
use crate::hash::HashMap;
use std::sync::OnceLock;

/// One field of a node type.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// The field's X3D name.
    pub name: String,
    /// The field's type.
    pub ty: FieldType,
    /// The field's access type.
    pub access: Access,
    /// The default value (the type's initial value for outputOnly and
    /// inputOnly fields).
    pub default: Value,
    /// Not in X3D: a project three extension or a VRML97 spelling.
    pub extension: bool,
}

include!(concat!(env!("OUT_DIR"), "/node_type.rs"));

/// One node type.
#[derive(Debug)]
pub struct NodeDef {
    /// The type, as a variant.
    pub ty: NodeType,
    /// The X3D name.
    pub name: String,
    /// The containerField a node of this type has in XML when none is given.
    pub container_field: String,
    /// Every field, the base types' included.
    pub fields: Vec<FieldDef>,
}

impl NodeDef {
    /// The field of that name.
    pub fn field(&self, name: &str) -> Option<&FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Looks up a node type by its X3D name.
pub fn node_def(name: &str) -> Option<&'static NodeDef> {
    catalogue().get(name)
}

fn catalogue() -> &'static HashMap<String, NodeDef> {
    static CATALOGUE: OnceLock<HashMap<String, NodeDef>> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        // The table is part of the program and checked by a test, so a
        // mistake in it is a bug found before release, not an input error.
        parse_catalogue(include_str!("catalogue.txt")).expect("catalogue.txt is well-formed")
    })
}

/// A node type being read: its name, containerField and fields.
type Reading = (String, String, Vec<FieldDef>);

fn parse_catalogue(text: &str) -> Result<HashMap<String, NodeDef>, String> {
    let mut all: HashMap<String, NodeDef> = HashMap::default();
    // The abstract types' fields, by name.
    let mut bases: HashMap<String, Vec<FieldDef>> = HashMap::default();
    let mut current: Option<Reading> = None;
    // Keeps a node type read, as an abstract base or a node type.
    let keep = |(name, container_field, fields): Reading,
                all: &mut HashMap<String, NodeDef>,
                bases: &mut HashMap<String, Vec<FieldDef>>|
     -> Result<(), String> {
        if name.starts_with('@') {
            bases.insert(name, fields);
            return Ok(());
        }
        let ty = NodeType::from_name(&name).ok_or_else(|| format!("{name}: no NodeType"))?;
        let def = NodeDef {
            ty,
            name,
            container_field,
            fields,
        };
        match all.insert(def.name.clone(), def) {
            Some(old) => Err(format!("{} is declared twice", old.name)),
            None => Ok(()),
        }
    };
    for (n, line) in text.lines().enumerate() {
        let err = |m: &str| format!("catalogue.txt:{}: {m}", n + 1);
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if !line.starts_with(' ') {
            if let Some(reading) = current.take() {
                keep(reading, &mut all, &mut bases).map_err(|e| err(&e))?;
            }
            let (head, container) = match line.split_once('[') {
                Some((h, c)) => (h, c.trim_end_matches(']').trim().to_string()),
                None => (line, String::new()),
            };
            let (name, base_names) = head.split_once(':').unwrap_or((head, ""));
            let mut fields = Vec::new();
            for base in base_names.split_whitespace() {
                let b = bases
                    .get(base)
                    .or_else(|| all.get(base).map(|d| &d.fields))
                    .ok_or_else(|| err(&format!("unknown base {base}")))?;
                fields.extend(b.iter().cloned());
            }
            current = Some((name.trim().to_string(), container, fields));
            continue;
        }
        let (_, _, def_fields) = current
            .as_mut()
            .ok_or_else(|| err("field before any node"))?;
        let mut words = line.split_whitespace();
        let ty = words
            .next()
            .and_then(FieldType::from_name)
            .ok_or_else(|| err("bad type"))?;
        let access = match words.next() {
            Some("init") => Access::InitializeOnly,
            Some("in") => Access::InputOnly,
            Some("out") => Access::OutputOnly,
            Some("io") => Access::InputOutput,
            _ => return Err(err("bad access")),
        };
        let mut name = words.next().ok_or_else(|| err("no name"))?;
        let extension = name == "ext";
        if extension {
            name = words.next().ok_or_else(|| err("no name"))?;
        }
        let rest: Vec<&str> = words.collect();
        let text = rest.join(" ");
        let default = if text.is_empty() || text == "NULL" {
            Value::initial(ty)
        } else {
            parse_value(
                ty,
                text.trim_matches(|c| c == '"' && !ty.is_mf()),
                Encoding::Xml,
            )
            .map_err(|e| err(&e.message))?
        };
        def_fields.push(FieldDef {
            name: name.to_string(),
            ty,
            access,
            default,
            extension,
        });
    }
    if let Some(reading) = current.take() {
        keep(reading, &mut all, &mut bases)?;
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use FieldType::*;

    #[test]
    fn catalogue_has_every_node_the_project_needs() {
        for name in [
            "ColorInterpolator",
            "CoordinateInterpolator",
            "CoordinateInterpolator2D",
            "EaseInEaseOut",
            "NormalInterpolator",
            "OrientationInterpolator",
            "PositionInterpolator",
            "PositionInterpolator2D",
            "ScalarInterpolator",
            "SplinePositionInterpolator",
            "SplinePositionInterpolator2D",
            "SplineScalarInterpolator",
            "SquadOrientationInterpolator",
            "BooleanSequencer",
            "IntegerSequencer",
            "TimeSensor",
            "Transform",
            "Group",
            "Switch",
            "Collision",
            "Anchor",
            "Billboard",
            "LOD",
            "StaticGroup",
            "Shape",
            "Appearance",
            "Material",
            "ImageTexture",
            "TextureTransform",
            "IndexedFaceSet",
            "IndexedTriangleSet",
            "IndexedLineSet",
            "TriangleSet",
            "Coordinate",
            "Normal",
            "Color",
            "TextureCoordinate",
            "Box",
            "Sphere",
            "Cylinder",
            "Cone",
            "Viewpoint",
            "DirectionalLight",
            "PointLight",
            "SpotLight",
            "Timer",
            "Link",
        ] {
            assert!(node_def(name).is_some(), "{name} missing");
        }
        assert!(node_def("@X3DNode").is_none());
    }

    #[test]
    fn fields_have_types_access_and_defaults() {
        let t = node_def("Transform").unwrap();
        assert_eq!(t.container_field, "children");
        let s = t.field("scale").unwrap();
        assert_eq!((s.ty, s.access), (SFVec3f, Access::InputOutput));
        assert_eq!(s.default.floats(), &[1.0, 1.0, 1.0]);
        assert_eq!(t.field("metadata").unwrap().ty, SFNode);
        assert_eq!(t.field("children").unwrap().ty, MFNode);
        let ts = node_def("TimeSensor").unwrap();
        assert_eq!(ts.field("cycleInterval").unwrap().default.doubles(), &[1.0]);
        assert_eq!(
            ts.field("fraction_changed").unwrap().access,
            Access::OutputOnly
        );
        let si = node_def("SplineScalarInterpolator").unwrap();
        assert_eq!(si.field("value_changed").unwrap().ty, SFFloat);
        assert_eq!(si.field("set_fraction").unwrap().access, Access::InputOnly);
        let nav = node_def("NavigationInfo").unwrap();
        assert_eq!(nav.field("type").unwrap().default.strings().len(), 2);
        assert_eq!(node_def("Material").unwrap().container_field, "material");
        assert_eq!(
            node_def("Box")
                .unwrap()
                .field("size")
                .unwrap()
                .default
                .floats(),
            &[2.0; 3]
        );
        assert!(
            node_def("PositionInterpolator")
                .unwrap()
                .field("smooth")
                .unwrap()
                .extension
        );
    }
}
