//! CSV tables of animated values (RFC 4180), long or wide, per clip or as a
//! whole-scene timeline in world time.

use super::shortest;
use crate::anim::clip::{Clip, Track, world_value};
use crate::hash::{HashMap, HashSet};
use crate::interp::rotation;
use crate::par;
use crate::scene::{FieldType, NodeId, Scene};
use glam::DQuat;
use std::cmp::Ordering;
use std::io::{self, Write};

/// What table to write.
#[derive(Clone, Copy, Debug)]
pub struct CsvOptions {
    /// Rows per second.
    pub rate: f64,
    /// One row per time and a column per component, instead of one row per
    /// value.
    pub wide: bool,
    /// Bake the whole scene in world time from `start` to `end` seconds
    /// (clip column `timeline`) instead of each clip from its start.
    pub timeline: Option<(f64, f64)>,
}

/// One animated field: its column names and how to get its values.
struct Column<'a> {
    node: String,
    field: &'a str,
    ty: Option<FieldType>,
    /// The tracks that write it, with their clips (one unless timeline).
    sources: Vec<(&'a Clip, &'a Track)>,
}

/// The header of the long form.
pub const LONG_HEADER: &str = "clip,time,node,field,index,c0,c1,c2,c3";

/// A CSV cell: quoted when it holds a comma, a quote or a line break.
fn cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The text of a row's numbers, one after another, without an allocation
/// a number.
#[derive(Default)]
struct Cells {
    text: String,
    ends: Vec<usize>,
}

impl Cells {
    fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }
    fn push(&mut self, v: impl std::fmt::Display) {
        use std::fmt::Write as _;
        let _ = write!(self.text, "{v}");
        self.ends.push(self.text.len());
    }
    fn push_float(&mut self, x: impl shortest::Float) {
        shortest::push(&mut self.text, x);
        self.ends.push(self.text.len());
    }
    fn len(&self) -> usize {
        self.ends.len()
    }
    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }
}

/// A value in X3D's form and order: rotations as axis then angle; numbers
/// in their shortest round-trip form at the field's precision.
fn x3d_components(ty: Option<FieldType>, values: &[f64], out: &mut Cells) {
    out.clear();
    let Some(ty) = ty else {
        values.iter().for_each(|&v| out.push_float(v));
        return;
    };
    if ty.single() == FieldType::SFRotation {
        for q in values.chunks_exact(4) {
            let r = rotation::to_axis_angle(DQuat::from_slice(q));
            r.iter().for_each(|&x| out.push_float(x as f32 + 0.0));
        }
        return;
    }
    match ty.single() {
        FieldType::SFBool => values.iter().for_each(|&v| out.push(v != 0.0)),
        FieldType::SFInt32 => values.iter().for_each(|&v| out.push(v as i64)),
        FieldType::SFDouble | FieldType::SFTime => {
            values.iter().for_each(|v| out.push_float(v + 0.0))
        }
        // `+ 0.0` turns −0 into 0.
        _ => values.iter().for_each(|&v| out.push_float(v as f32 + 0.0)),
    }
}

fn components_per_element(ty: Option<FieldType>) -> usize {
    ty.map_or(1, |t| t.components())
}

/// Times from `start` to `end` at `rate`, the end included.
fn grid(start: f64, end: f64, rate: f64) -> impl Iterator<Item = f64> {
    let n = ((end - start) * rate).ceil().max(0.0) as u64;
    (0..=n).map(move |i| if i == n { end } else { start + i as f64 / rate })
}

fn columns<'a>(scene: &Scene, clips: &'a [Clip], timeline: bool) -> Vec<Vec<Column<'a>>> {
    let make = |pairs: Vec<(&'a Clip, &'a Track)>| {
        let mut cols: Vec<Column<'a>> = Vec::new();
        let mut at: HashMap<(NodeId, &str), usize> = HashMap::default();
        for (clip, t) in pairs {
            match at.get(&(t.target, t.field.as_str())) {
                Some(&i) => cols[i].sources.push((clip, t)),
                None => {
                    at.insert((t.target, &t.field), cols.len());
                    cols.push(Column {
                        node: scene.display_name(t.target),
                        field: &t.field,
                        ty: t.ty,
                        sources: vec![(clip, t)],
                    });
                }
            }
        }
        cols.sort_by(by_node_then_field);
        cols
    };
    if timeline {
        vec![make(
            clips
                .iter()
                .flat_map(|c| c.tracks.iter().map(move |t| (c, t)))
                .collect(),
        )]
    } else {
        clips
            .iter()
            .map(|c| make(c.tracks.iter().map(|t| (c, t)).collect()))
            .collect()
    }
}

/// The columns' order: by node name, then field name (the sort is stable:
/// same-named nodes keep the order of their tracks).
fn by_node_then_field(a: &Column<'_>, b: &Column<'_>) -> Ordering {
    (&a.node, a.field).cmp(&(&b.node, b.field))
}

/// The value of a column at time `t`: in the clip, or in world time the
/// last event sent to the field (see `world_value`), or the target's own
/// value before any.
fn value_at(scene: &Scene, col: &Column<'_>, t: f64, timeline: bool, out: &mut Vec<f64>) {
    if !timeline {
        let (clip, track) = col.sources[0];
        clip.eval(track, t, out);
        return;
    }
    if !world_value(col.sources.iter().copied(), t, out) {
        col.sources[0].1.initial_value(scene, out);
    }
}

/// A table past its limit of bytes.
#[derive(Debug, thiserror::Error)]
#[error(
    "the CSV table would be larger than {max} bytes at --rate {rate}; fewer rows come from a \
     lower --rate, or a shorter --start to --end"
)]
pub struct TooLarge {
    /// The limit passed.
    pub max: usize,
    /// The rate the table was sampled at.
    pub rate: f64,
}

/// A writer that puts a first column `file`, holding one file's name, on
/// every row of the table written through it, with its header row (when
/// `header`) or without (a table appended to another's).
pub struct FileColumn<W: Write> {
    out: W,
    prefix: Vec<u8>,
    header: bool,
    row: usize,
    start: bool,
    quoted: bool,
    buf: Vec<u8>,
}

impl<W: Write> FileColumn<W> {
    /// Rows written through it go to `out` with `file` in front.
    pub fn new(out: W, file: &str, header: bool) -> Self {
        FileColumn {
            out,
            prefix: format!("{},", cell(file)).into_bytes(),
            header,
            row: 0,
            start: true,
            quoted: false,
            buf: Vec::new(),
        }
    }
}

impl<W: Write> Write for FileColumn<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.clear();
        for &b in bytes {
            if self.start {
                self.start = false;
                match self.row {
                    0 if self.header => self.buf.extend_from_slice(b"file,"),
                    0 => {}
                    _ => self.buf.extend_from_slice(&self.prefix),
                }
            }
            if self.row > 0 || self.header {
                self.buf.push(b);
            }
            match b {
                b'"' => self.quoted = !self.quoted,
                b'\n' if !self.quoted => {
                    self.row += 1;
                    self.start = true;
                }
                _ => {}
            }
        }
        self.out.write_all(&self.buf)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The table in memory, or an error when it would pass `max` bytes (the
/// table is made in memory, so that the output appears whole or not at
/// all, and its rows grow with --rate and the span of the clips; found as
/// it is written: nothing more is made once it is passed).
pub fn to_vec(
    scene: &Scene,
    clips: &[Clip],
    opts: &CsvOptions,
    max: usize,
) -> Result<Vec<u8>, TooLarge> {
    struct Capped(Vec<u8>, usize);
    impl Write for Capped {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            if self.0.len() + b.len() > self.1 {
                return Err(io::Error::other("full"));
            }
            self.0.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut out = Capped(Vec::new(), max);
    write(scene, clips, opts, &mut out).map_err(|_| TooLarge {
        max,
        rate: opts.rate,
    })?;
    Ok(out.0)
}

/// Writes the table.
pub fn write(
    scene: &Scene,
    clips: &[Clip],
    opts: &CsvOptions,
    mut out: impl Write,
) -> io::Result<()> {
    let timeline = opts.timeline.is_some();
    let tables = columns(scene, clips, timeline);
    let (mut v, mut comps) = (Vec::new(), Cells::default());
    let mut line = String::new();
    if opts.wide {
        let mut header = vec!["clip".to_string(), "time".to_string()];
        let mut all: Vec<(String, &str, usize, usize)> = Vec::new();
        let mut listed: HashSet<(String, &str)> = HashSet::default();
        for cols in &tables {
            for c in cols {
                // Elements per value: sampled once at the start.
                value_at(
                    scene,
                    c,
                    opts.timeline.map_or(0.0, |r| r.0),
                    timeline,
                    &mut v,
                );
                let per = components_per_element(c.ty).max(1);
                let elements = (v.len() / per).max(1);
                if listed.insert((c.node.clone(), c.field)) {
                    all.push((c.node.clone(), c.field, elements, per));
                }
            }
        }
        for (node, field, elements, per) in &all {
            for i in 0..*elements {
                for k in 0..*per {
                    header.push(cell(&format!("{node}.{field}[{i}].c{k}")));
                }
            }
        }
        writeln!(out, "{}", header.join(","))?;
        for (ti, cols) in tables.iter().enumerate() {
            let (name, start, end) = table_span(clips, ti, opts);
            // This table's column for each of the header's fields, if any.
            let by_name: HashMap<(&str, &str), &Column> = cols
                .iter()
                .map(|c| ((c.node.as_str(), c.field), c))
                .collect();
            let found: Vec<Option<&Column>> = all
                .iter()
                .map(|(node, field, _, _)| by_name.get(&(node.as_str(), *field)).copied())
                .collect();
            let name = cell(&name);
            for t in grid(start, end, opts.rate) {
                line.clear();
                push_clip_time(&mut line, &name, t);
                for ((_, _, elements, per), col) in all.iter().zip(&found) {
                    let width = elements * per;
                    comps.clear();
                    if let Some(c) = col {
                        value_at(scene, c, t, timeline, &mut v);
                        x3d_components(c.ty, &v, &mut comps);
                    }
                    for i in 0..width {
                        line.push(',');
                        if i < comps.len() {
                            line.push_str(comps.get(i));
                        }
                    }
                }
                line.push('\n');
                out.write_all(line.as_bytes())?;
            }
        }
        return Ok(());
    }
    writeln!(out, "{LONG_HEADER}")?;
    for (ti, cols) in tables.iter().enumerate() {
        let (name, start, end) = table_span(clips, ti, opts);
        let name = cell(&name);
        let nodes: Vec<String> = cols.iter().map(|c| cell(&c.node)).collect();
        let mut prefix = String::new();
        let mut halves: [(Cells, String); 2] = Default::default();
        for t in grid(start, end, opts.rate) {
            for (c, node) in cols.iter().zip(&nodes) {
                value_at(scene, c, t, timeline, &mut v);
                prefix.clear();
                push_clip_time(&mut prefix, &name, t);
                for part in [",", node, ",", c.field, ","] {
                    prefix.push_str(part);
                }
                // An element's numbers in `v` (a rotation's quaternion: 4).
                let stride = if c.ty.map(|t| t.single()) == Some(FieldType::SFRotation) {
                    4
                } else {
                    components_per_element(c.ty).max(1)
                };
                let elements = v.len().div_ceil(stride);
                if elements < PARALLEL_ELEMENTS {
                    line.clear();
                    long_rows(c.ty, &v, 0, &prefix, &mut comps, &mut line);
                    out.write_all(line.as_bytes())?;
                    continue;
                }
                // A large value: its two halves formatted at once.
                let half = elements / 2 * stride;
                let [(ca, ta), (cb, tb)] = &mut halves;
                ta.clear();
                tb.clear();
                par::join(
                    || long_rows(c.ty, &v[..half], 0, &prefix, ca, ta),
                    || long_rows(c.ty, &v[half..], half / stride, &prefix, cb, tb),
                );
                out.write_all(ta.as_bytes())?;
                out.write_all(tb.as_bytes())?;
            }
        }
    }
    Ok(())
}

/// A row's first two cells: the clip (its cell) and the time.
fn push_clip_time(out: &mut String, clip: &str, t: f64) {
    out.push_str(clip);
    out.push(',');
    shortest::push(out, t);
}

/// A value of at least this many elements is formatted on two threads.
const PARALLEL_ELEMENTS: usize = 4096;

/// The long rows of `values` (elements `first`, `first` + 1, …), each
/// `prefix` (clip, time, node and field) then the element's index and its
/// numbers, appended to `line`.
fn long_rows(
    ty: Option<FieldType>,
    values: &[f64],
    first: usize,
    prefix: &str,
    comps: &mut Cells,
    line: &mut String,
) {
    x3d_components(ty, values, comps);
    let per = components_per_element(ty).max(1);
    for i in 0..comps.len().div_ceil(per) {
        line.push_str(prefix);
        line.push_str(itoa::Buffer::new().format(first + i));
        for k in 0..4 {
            line.push(',');
            if k < per && i * per + k < comps.len() {
                line.push_str(comps.get(i * per + k));
            }
        }
        line.push('\n');
    }
}

/// A table's clip name and time span.
fn table_span(clips: &[Clip], i: usize, opts: &CsvOptions) -> (String, f64, f64) {
    match opts.timeline {
        Some((start, end)) => ("timeline".to_string(), start, end),
        None => (clips[i].name.clone(), 0.0, clips[i].duration()),
    }
}

/// The default span of a whole-scene timeline: from 0 to the end of the last
/// clock's first run (one cycle of looping clocks).
pub fn default_timeline_end(clips: &[Clip]) -> f64 {
    clips
        .iter()
        .map(|c| c.world_start_of_run(f64::INFINITY).max(c.world_start) + c.duration())
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_file_column_goes_before_every_row_and_the_header_once() {
        use std::io::Write as _;
        let table = b"clip,time\nA,0\n\"B\nC\",1\n";
        let through = |file: &str, header: bool| {
            let mut out = Vec::new();
            let mut w = super::FileColumn::new(&mut out, file, header);
            // In pieces that cut rows and quotes.
            for piece in table.chunks(3) {
                w.write_all(piece).unwrap();
            }
            out
        };
        assert_eq!(
            through("a.x3d", true),
            b"file,clip,time\na.x3d,A,0\na.x3d,\"B\nC\",1\n"
        );
        assert_eq!(
            through("dir/b,c.x3d", false),
            b"\"dir/b,c.x3d\",A,0\n\"dir/b,c.x3d\",\"B\nC\",1\n"
        );
    }

    use super::*;

    #[test]
    fn cells_are_quoted_per_rfc_4180() {
        assert_eq!(cell("plain"), "plain");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn grid_ends_on_the_end() {
        let g: Vec<f64> = grid(0.0, 1.0, 4.0).collect();
        assert_eq!(g, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        let g: Vec<f64> = grid(0.0, 1.1, 2.0).collect();
        assert_eq!(g, vec![0.0, 0.5, 1.0, 1.1]);
    }

    #[test]
    fn rotations_and_numbers_in_x3d_form() {
        let mut cells = Cells::default();
        let mut form = |ty: FieldType, values: &[f64]| -> Vec<String> {
            x3d_components(Some(ty), values, &mut cells);
            (0..cells.len()).map(|i| cells.get(i).to_string()).collect()
        };
        let q = rotation::from_axis_angle(&[0.0, 1.0, 0.0, 0.3]).to_array();
        assert_eq!(form(FieldType::SFRotation, &q), ["0", "1", "0", "0.3"]);
        assert_eq!(form(FieldType::SFFloat, &[0.1f32 as f64]), ["0.1"]);
        assert_eq!(form(FieldType::SFBool, &[1.0]), ["true"]);
        assert_eq!(form(FieldType::SFInt32, &[-3.0]), ["-3"]);
    }
}
