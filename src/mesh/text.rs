//! Text with its FontStyle, as triangles in the z = 0 plane drawn from the
//! outlines of the Liberation fonts x3dbake ships (`fonts/`, SIL Open Font
//! License): Serif, Sans and Mono for FontStyle's SERIF, SANS and
//! TYPEWRITER. Glyph outlines are read with ttf-parser and filled with
//! lyon's tessellator (non-zero rule, so counters such as the hole of an
//! `o` stay open), curves flattened to 1/500 of the font size.

use super::{Mesh, Primitive};
use crate::scene::{NodeId, Scene};
use glam::{Vec2, Vec3};
use lyon_tessellation::path::{Path, math::point};
use lyon_tessellation::{BuffersBuilder, FillOptions, FillRule, FillTessellator, VertexBuffers};

/// The fonts, by family (SERIF, SANS, TYPEWRITER) and style (PLAIN, BOLD,
/// ITALIC, BOLDITALIC).
const FONTS: [[&[u8]; 4]; 3] = [
    [
        include_bytes!("../../fonts/LiberationSerif-Regular.ttf"),
        include_bytes!("../../fonts/LiberationSerif-Bold.ttf"),
        include_bytes!("../../fonts/LiberationSerif-Italic.ttf"),
        include_bytes!("../../fonts/LiberationSerif-BoldItalic.ttf"),
    ],
    [
        include_bytes!("../../fonts/LiberationSans-Regular.ttf"),
        include_bytes!("../../fonts/LiberationSans-Bold.ttf"),
        include_bytes!("../../fonts/LiberationSans-Italic.ttf"),
        include_bytes!("../../fonts/LiberationSans-BoldItalic.ttf"),
    ],
    [
        include_bytes!("../../fonts/LiberationMono-Regular.ttf"),
        include_bytes!("../../fonts/LiberationMono-Bold.ttf"),
        include_bytes!("../../fonts/LiberationMono-Italic.ttf"),
        include_bytes!("../../fonts/LiberationMono-BoldItalic.ttf"),
    ],
];

/// A FontStyle's fields (its defaults without one).
struct Style {
    family: usize,
    style: usize,
    size: f32,
    spacing: f32,
    /// Major and minor justification: BEGIN/FIRST, MIDDLE, END.
    justify: [Justify; 2],
    horizontal: bool,
    left_to_right: bool,
    top_to_bottom: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Justify {
    First,
    Begin,
    Middle,
    End,
}

impl Justify {
    fn of(word: &str) -> Justify {
        match word.to_ascii_uppercase().as_str() {
            "BEGIN" => Justify::Begin,
            "MIDDLE" => Justify::Middle,
            "END" => Justify::End,
            _ => Justify::First,
        }
    }
}

fn style(scene: &Scene, text: NodeId) -> Style {
    let fs = scene.child(text, "fontStyle");
    let strings = |f: &str| -> Vec<String> {
        fs.and_then(|s| scene.value(s, f))
            .map(|v| v.strings().to_vec())
            .unwrap_or_default()
    };
    let number = |f: &str, default: f32| {
        fs.and_then(|s| scene.floats(s, f).first().copied())
            .unwrap_or(default)
    };
    let flag = |f: &str| fs.is_none_or(|s| scene.flag(s, f));
    let family = strings("family")
        .iter()
        .find_map(|f| match f.to_ascii_uppercase().as_str() {
            "SERIF" => Some(0),
            "SANS" => Some(1),
            "TYPEWRITER" => Some(2),
            _ => None,
        })
        .unwrap_or(0);
    let style = match strings("style").first().map(|s| s.to_ascii_uppercase()) {
        Some(s) if s == "BOLD" => 1,
        Some(s) if s == "ITALIC" => 2,
        Some(s) if s == "BOLDITALIC" => 3,
        _ => 0,
    };
    let justify = strings("justify");
    let major = justify.first().map_or(Justify::First, |j| Justify::of(j));
    let minor = justify.get(1).map_or(Justify::First, |j| Justify::of(j));
    Style {
        family,
        style,
        size: number("size", 1.0),
        spacing: number("spacing", 1.0),
        justify: [major, minor],
        horizontal: flag("horizontal"),
        left_to_right: flag("leftToRight"),
        top_to_bottom: flag("topToBottom"),
    }
}

/// A glyph placed on its line: where it starts, how far the next one is,
/// and its triangles in font units.
struct Placed {
    at: f32,
    step: f32,
    tris: Triangles,
}

/// A glyph's triangles in font units, shared by every place it stands.
type Triangles = std::rc::Rc<Vec<[Vec2; 3]>>;

/// Collects a glyph's outline as a lyon path, in font units.
struct Outline(lyon_tessellation::path::path::Builder, bool);

impl ttf_parser::OutlineBuilder for Outline {
    fn move_to(&mut self, x: f32, y: f32) {
        if self.1 {
            self.0.end(true);
        }
        self.0.begin(point(x, y));
        self.1 = true;
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.0.line_to(point(x, y));
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        self.0.quadratic_bezier_to(point(x1, y1), point(x, y));
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        self.0
            .cubic_bezier_to(point(x1, y1), point(x2, y2), point(x, y));
    }
    fn close(&mut self) {
        if self.1 {
            self.0.end(true);
            self.1 = false;
        }
    }
}

/// One glyph's triangles in font units, and its advance.
fn glyph(face: &ttf_parser::Face, c: char, tolerance: f32) -> (Vec<[Vec2; 3]>, f32) {
    let id = face.glyph_index(c).unwrap_or(ttf_parser::GlyphId(0));
    let advance = face.glyph_hor_advance(id).unwrap_or(0) as f32;
    let mut outline = Outline(Path::builder(), false);
    if face.outline_glyph(id, &mut outline).is_none() {
        return (Vec::new(), advance); // a space
    }
    if outline.1 {
        outline.0.end(true);
    }
    let path = outline.0.build();
    let mut buffers: VertexBuffers<Vec2, u32> = VertexBuffers::new();
    let options = FillOptions::tolerance(tolerance).with_fill_rule(FillRule::NonZero);
    let made = FillTessellator::new().tessellate_path(
        &path,
        &options,
        &mut BuffersBuilder::new(&mut buffers, |v: lyon_tessellation::FillVertex| {
            let p = v.position();
            Vec2::new(p.x, p.y)
        }),
    );
    if made.is_err() {
        return (Vec::new(), advance);
    }
    let tris = buffers
        .indices
        .chunks_exact(3)
        .map(|t| {
            let [a, b, c] = [0, 1, 2].map(|k| buffers.vertices[t[k] as usize]);
            // Every triangle counter-clockwise, facing +z.
            if (b - a).perp_dot(c - a) < 0.0 {
                [a, c, b]
            } else {
                [a, b, c]
            }
        })
        .collect();
    (tris, advance)
}

/// The Text node's mesh: each string a line (a column when not
/// horizontal), laid out as FontStyle says, `length` and `maxExtent`
/// applied along the lines.
pub(super) fn text(scene: &Scene, id: NodeId) -> Mesh {
    let strings = scene
        .value(id, "string")
        .map(|v| v.strings().to_vec())
        .unwrap_or_default();
    let st = style(scene, id);
    let mut m = Mesh::new(Primitive::Triangles);
    let Ok(face) = ttf_parser::Face::parse(FONTS[st.family][st.style], 0) else {
        return m;
    };
    let em = face.units_per_em() as f32;
    let scale = st.size / em;
    let (ascent, descent) = (
        face.ascender() as f32 * scale,
        face.descender() as f32 * scale,
    );
    // Each line's glyphs with their offsets and steps along the line, in
    // scene units before `length` and `maxExtent`, and the line's length.
    // Each character is tessellated once, however often it stands.
    let mut shapes: crate::hash::HashMap<char, (Triangles, f32)> = Default::default();
    let lines: Vec<(Vec<Placed>, f32)> = strings
        .iter()
        .map(|s| {
            let mut at = 0.0;
            let mut glyphs = Vec::new();
            for c in s.chars() {
                let (tris, advance) = shapes
                    .entry(c)
                    .or_insert_with(|| {
                        let (tris, advance) = glyph(&face, c, em / 500.0);
                        (std::rc::Rc::new(tris), advance)
                    })
                    .clone();
                let step = if st.horizontal {
                    advance * scale
                } else {
                    st.size
                };
                glyphs.push(Placed { at, step, tris });
                at += step;
            }
            (glyphs, at)
        })
        .collect();
    let lengths = scene.floats(id, "length");
    let mut extents: Vec<f32> = lines
        .iter()
        .enumerate()
        .map(|(k, (_, natural))| match lengths.get(k) {
            Some(&l) if l > 0.0 => l,
            _ => *natural,
        })
        .collect();
    let max_extent = scene
        .floats(id, "maxExtent")
        .first()
        .copied()
        .unwrap_or(0.0);
    let longest = extents.iter().copied().fold(0.0, f32::max);
    if max_extent > 0.0 && longest > max_extent {
        extents.iter_mut().for_each(|e| *e *= max_extent / longest);
    }
    let step = st.spacing * st.size;
    let count = lines.len();
    // Line k's place across the lines (y for horizontal text, x for
    // vertical), before the minor justification.
    let across = |k: usize| -> f32 {
        let k = k as f32;
        match (st.horizontal, st.top_to_bottom, st.left_to_right) {
            (true, true, _) => -k * step,
            (true, false, _) => k * step,
            (false, _, true) => k * step,
            (false, _, false) => -k * step,
        }
    };
    let last = count.saturating_sub(1);
    let minor_shift = if st.horizontal {
        // Baselines: the block runs from the first line's ascent to the
        // last line's descent (lines going down), or the other way up.
        let (top, bottom) = if st.top_to_bottom {
            (ascent, across(last) + descent)
        } else {
            (across(last) + ascent, descent)
        };
        match st.justify[1] {
            Justify::First => 0.0,
            Justify::Begin if st.top_to_bottom => -top,
            Justify::Begin => -bottom,
            Justify::End if st.top_to_bottom => -bottom,
            Justify::End => -top,
            Justify::Middle => -(top + bottom) / 2.0,
        }
    } else {
        let (lo, hi) = (
            across(0).min(across(last)),
            across(0).max(across(last)) + st.size,
        );
        match st.justify[1] {
            Justify::First | Justify::Begin => 0.0,
            Justify::End => -(hi - lo),
            Justify::Middle => -(hi - lo) / 2.0,
        }
    };
    for (k, (glyphs, natural)) in lines.iter().enumerate() {
        let squeeze = if *natural > 0.0 {
            extents[k] / natural
        } else {
            1.0
        };
        let extent = extents[k];
        // The line runs from 0 to ±extent along its direction; the major
        // justification moves its start.
        let forward = if st.horizontal {
            st.left_to_right
        } else {
            !st.top_to_bottom
        };
        let sign = if forward { 1.0 } else { -1.0 };
        let start = match st.justify[0] {
            Justify::First | Justify::Begin => 0.0,
            Justify::Middle => -sign * extent / 2.0,
            Justify::End => -sign * extent,
        };
        // A line is stretched by spreading its glyphs evenly (its last one
        // ending at the extent), and squeezed by narrowing them (as X_ITE
        // does; the text allows either).
        let narrow = squeeze.min(1.0);
        let gap = if squeeze > 1.0 && glyphs.len() > 1 {
            (extent - natural) / (glyphs.len() - 1) as f32
        } else {
            0.0
        };
        for (i, g) in glyphs.iter().enumerate() {
            let at = if gap > 0.0 {
                g.at + i as f32 * gap
            } else {
                g.at * narrow
            };
            let along = start + sign * at;
            for t in g.tris.iter() {
                let base = m.positions.len() as u32;
                for p in t {
                    // Glyph units: x along the line (squeezed), y up.
                    let (gx, gy) = (p.x * scale, p.y * scale);
                    let pos = if st.horizontal {
                        // Right to left, glyphs still read left to right:
                        // each starts at its place minus its own width.
                        let x = if forward {
                            along + gx * narrow
                        } else {
                            along - (g.step - gx) * narrow
                        };
                        Vec2::new(x, across(k) + minor_shift + gy)
                    } else {
                        let y = if forward {
                            along + gy
                        } else {
                            along - st.size + gy
                        };
                        Vec2::new(across(k) + minor_shift + gx * narrow, y)
                    };
                    m.positions.push(pos.extend(0.0));
                    m.normals.push(Vec3::Z);
                    m.uvs.push(pos / st.size.max(f32::MIN_POSITIVE));
                }
                m.indices.extend([base, base + 1, base + 2]);
            }
        }
    }
    m
}
