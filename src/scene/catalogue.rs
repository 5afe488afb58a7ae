//! The node catalogue: every node type x3dbake knows, with its fields.
//!
//! Two tables: `x3d4-nodes.tsv`, every node type of
//! X3D 4.0 with the fields a file may set (from the X3D Unified Object
//! Model; its README gives the source and licence), and `catalogue.txt`, in
//! the notation of the X3D node signatures, which adds what that table
//! leaves out (inputOnly and outputOnly fields, for the node types whose
//! events x3dbake follows), project three's Timer and Link, VRML97
//! spellings, and the places where x3dbake reads X3D 4 (bboxCenter is
//! inputOutput). Where both name a field, `catalogue.txt` wins.
//!
//! The X3D table is indexed on first use and each node type's rows are
//! parsed when that type is first asked for: parsing all of them took 2 ms,
//! a third of the time of baking a small file.

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
#[derive(Clone, Debug)]
pub struct NodeDef {
    /// The type, as a variant.
    pub ty: NodeType,
    /// The X3D name.
    pub name: String,
    /// The containerField a node of this type has in XML when none is given.
    pub container_field: String,
    /// Every field, the base types' included.
    pub fields: Vec<FieldDef>,
    /// A node type of X3D 4.0 (not an extension of x3dbake's table).
    pub x3d: bool,
    /// Its inputOnly and outputOnly fields are listed (a ROUTE to a field
    /// not listed is an error); for the others only the fields a file may
    /// set are known, and a ROUTE to another field is kept unchecked.
    pub events_listed: bool,
}

impl NodeDef {
    /// The field of that name.
    pub fn field(&self, name: &str) -> Option<&FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Indexes the node catalogue on a thread of its own (where one can start),
/// so that the first node a file names need not wait for it: for a caller
/// about to read a file (the index took 0.4 ms of the reader's thread).
pub fn warm_up() {
    let _ = std::thread::Builder::new().spawn(|| {
        catalogue();
    });
}

/// Looks up a node type by its X3D name.
pub fn node_def(name: &str) -> Option<&'static NodeDef> {
    let entry = catalogue().get(name)?;
    Some(entry.def.get_or_init(|| entry.build()))
}

/// The X3D table.
const TABLE: &str = include_str!("x3d4-nodes.tsv");

/// A node type's rows in the X3D table: their bytes and the first one's line.
type Rows = (std::ops::Range<usize>, usize);

/// Where a node type of the catalogue is defined.
enum Tables {
    /// The X3D table alone.
    X3d(Rows),
    /// `catalogue.txt` alone.
    Added(NodeDef),
    /// Both: `catalogue.txt` adds to the X3D table.
    Both(Rows, NodeDef),
}

/// A node type of the catalogue, made when first asked for.
struct Entry {
    tables: Tables,
    def: OnceLock<NodeDef>,
}

impl Entry {
    fn build(&self) -> NodeDef {
        // The tables are part of the program and checked by tests, so a
        // mistake in them is a bug found before release, not an input error.
        let table = |(bytes, line): &Rows| {
            parse_rows(&TABLE[bytes.clone()], *line).expect("x3d4-nodes.tsv is well-formed")
        };
        match &self.tables {
            Tables::X3d(rows) => table(rows),
            Tables::Added(added) => added.clone(),
            Tables::Both(rows, added) => {
                let mut def = table(rows);
                def.add(added.clone());
                def
            }
        }
    }
}

fn catalogue() -> &'static HashMap<String, Entry> {
    static CATALOGUE: OnceLock<HashMap<String, Entry>> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let mut additions =
            parse_catalogue(include_str!("catalogue.txt")).expect("catalogue.txt is well-formed");
        let mut all: HashMap<String, Entry> = HashMap::default();
        let mut keep = |name: String, tables| {
            let def = OnceLock::new();
            all.insert(name, Entry { tables, def });
        };
        for (name, rows) in index_table(TABLE) {
            match additions.remove(name) {
                Some(added) => keep(name.to_string(), Tables::Both(rows, added)),
                None => keep(name.to_string(), Tables::X3d(rows)),
            }
        }
        for (name, added) in additions {
            keep(name, Tables::Added(added));
        }
        all
    })
}

impl NodeDef {
    /// Takes `catalogue.txt`'s entry for the same type: its fields replace
    /// those of the same name and come first, in its order; its
    /// containerField, when it gives one, wins.
    fn add(&mut self, added: NodeDef) {
        let mut fields = added.fields;
        let listed: crate::hash::HashSet<String> = fields.iter().map(|f| f.name.clone()).collect();
        fields.extend(self.fields.drain(..).filter(|f| !listed.contains(&f.name)));
        self.fields = fields;
        if !added.container_field.is_empty() {
            self.container_field = added.container_field;
        }
        self.events_listed = true;
    }
}

/// Where each node type's rows are in the X3D 4.0 table (a header line,
/// then a field a line, a type's rows together): their bytes and the first
/// one's line number. Statements of the XML encoding are left out.
fn index_table(text: &str) -> Vec<(&str, Rows)> {
    let mut index: Vec<(&str, Rows)> = Vec::new();
    let mut at = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let start = at;
        at += line.len();
        let node = line.split('\t').next().unwrap_or_default();
        if n == 0 || STATEMENTS.contains(&node) {
            continue;
        }
        match index.last_mut() {
            Some((last, (rows, _))) if *last == node => rows.end = at,
            _ => index.push((node, (start..at, n + 1))),
        }
    }
    index
}

/// Reads one node type's rows of the X3D 4.0 table (node, component, base
/// types, containerField, field, type, access, default as a Python
/// literal); `line` is the first one's line number.
fn parse_rows(text: &str, line: usize) -> Result<NodeDef, String> {
    let mut def: Option<NodeDef> = None;
    for (n, row) in text.lines().enumerate() {
        let err = |m: &str| format!("x3d4-nodes.tsv:{}: {m}", line + n);
        let cols: Vec<&str> = row.split('\t').collect();
        let [node, _, _, container, field, ty, access, default] = cols[..] else {
            return Err(err("not eight columns"));
        };
        let ty = FieldType::from_name(ty).ok_or_else(|| err("bad type"))?;
        let access = Access::from_name(access).ok_or_else(|| err("bad access"))?;
        let default = match python_as_xml(ty, default) {
            None => Value::initial(ty),
            Some(text) => parse_value(ty, &text, Encoding::Xml).map_err(|e| err(&e.message))?,
        };
        let def = match &mut def {
            Some(d) => d,
            None => def.insert(NodeDef {
                ty: NodeType::from_name(node).ok_or_else(|| err("no NodeType"))?,
                name: node.to_string(),
                container_field: container.to_string(),
                fields: Vec::new(),
                x3d: true,
                events_listed: false,
            }),
        };
        def.fields.push(FieldDef {
            name: field.to_string(),
            ty,
            access,
            default,
            extension: false,
        });
    }
    def.ok_or_else(|| format!("x3d4-nodes.tsv:{line}: no rows"))
}

/// A default value written as a Python literal (`(0, 1, 0)`, `['SERIF']`,
/// `True`, `'MAX'`) in the XML encoding of its field type; `None` for the
/// type's initial value.
fn python_as_xml(ty: FieldType, py: &str) -> Option<String> {
    let py = py.trim();
    if py == "None" || py == "[]" || py == "''" && ty.is_mf() {
        return None;
    }
    let strings = || {
        // Quoted items, each 'text' or "text", with backslash escapes.
        let mut items = Vec::new();
        let mut chars = py.chars();
        while let Some(c) = chars.next() {
            if c != '\'' && c != '"' {
                continue;
            }
            let mut item = String::new();
            while let Some(d) = chars.next() {
                match d {
                    '\\' => item.extend(chars.next()),
                    d if d == c => break,
                    d => item.push(d),
                }
            }
            items.push(item);
        }
        items
    };
    Some(match ty {
        FieldType::SFString => strings().concat(),
        FieldType::MFString => strings()
            .iter()
            .map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")))
            .collect::<Vec<_>>()
            .join(" "),
        _ => py
            .replace(['[', ']', '(', ')', ','], " ")
            .replace("True", "true")
            .replace("False", "false"),
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
            x3d: false,
            events_listed: true,
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

    /// Every node type of the X3D 4.0 table is known, with every field the
    /// table gives it, of the table's type (the access may differ where
    /// `catalogue.txt` reads X3D differently, as for the 2D sizes).
    #[test]
    fn every_x3d4_node_type_is_known_with_its_fields() {
        let table = include_str!("x3d4-nodes.tsv");
        let mut nodes = crate::hash::HashSet::default();
        for line in table.lines().skip(1) {
            let cols: Vec<&str> = line.split('\t').collect();
            let (node, field, ty) = (cols[0], cols[4], cols[5]);
            if STATEMENTS.contains(&node) {
                continue;
            }
            nodes.insert(node);
            let def = node_def(node).unwrap_or_else(|| panic!("{node} missing"));
            assert!(def.x3d, "{node}");
            let f = def
                .field(field)
                .unwrap_or_else(|| panic!("{node}.{field} missing"));
            // X3D 3's CADLayer.visible, one flag a child, as real files write it.
            if (node, field) != ("CADLayer", "visible") {
                assert_eq!(f.ty.name(), ty, "{node}.{field}");
            }
        }
        assert_eq!(nodes.len() + STATEMENTS.len(), 284);
        assert!(!node_def("Timer").unwrap().x3d);
        // Defaults from the table's Python literals.
        let font = node_def("FontStyle").unwrap();
        assert_eq!(font.field("family").unwrap().default.strings(), ["SERIF"]);
        assert_eq!(font.field("justify").unwrap().default.strings(), ["BEGIN"]);
        let ext = node_def("Extrusion").unwrap();
        assert_eq!(
            ext.field("crossSection").unwrap().default.floats(),
            [1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0]
        );
        assert_eq!(
            ext.field("spine").unwrap().default.floats(),
            [0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        );
        assert!(ext.field("beginCap").unwrap().default.as_bool());
        let arc = node_def("ArcClose2D").unwrap();
        assert_eq!(arc.field("closureType").unwrap().default.strings(), ["PIE"]);
        assert_eq!(arc.field("radius").unwrap().access, Access::InputOutput);
        assert_eq!(
            node_def("Shape")
                .unwrap()
                .field("geometry")
                .unwrap()
                .default
                .nodes(),
            []
        );
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
