//! The pipeline, once: load → check → clips → write, limits included. The
//! command line, the fuzz targets, the benches and the examples all go
//! through it.
//! (The crate's documentation shows it at work.)

use crate::anim::build::{Events, clips_using};
use crate::anim::cascade::{World, state_at_load};
use crate::anim::check::{self, Forms};
use crate::anim::clip::{Clip, ClipOptions, timeline_clip};
use crate::diag::Diagnostics;
use crate::limits::Limits;
use crate::load::{Fetch, add_file};
use crate::scene::value::{Data, Scalar};
use crate::scene::{Dir, NodeId, Scene, SetField, Value};
use crate::script::Budget;
use crate::source::{FileId, Input, Sources, Span};
use crate::syntax::Encoding;
use crate::write::csv::{self, CsvOptions};
use crate::write::gltf::TrackFates;
use crate::write::{gltf, inspect, report};

/// Why a bake stopped where its input had no error: what was asked of it
/// cannot be given.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--clip` named a clip the scene does not have.
    #[error("no clip named `{name}` (clips: {})", .available.join(", "))]
    NoClip {
        /// The name asked for.
        name: String,
        /// The scene's clips.
        available: Vec<String>,
    },
    /// Sampling the longest clip (or the timeline) would pass
    /// [`Limits::samples_per_track`].
    #[error(
        "{seconds} s at --rate {rate} would need more than {max} samples a track (--max-samples)"
    )]
    TooManySamples {
        /// The span sampled.
        seconds: f64,
        /// Samples a second.
        rate: f64,
        /// The limit.
        max: usize,
    },
    /// The CSV table would pass [`Limits::csv_bytes`].
    #[error(transparent)]
    Csv(#[from] csv::TooLarge),
    /// The CSV table could not be written.
    #[error("cannot write the CSV table: {0}")]
    Write(#[from] std::io::Error),
}

/// One scene on its way through the pipeline, with all that was said of it.
pub struct Bake {
    /// The texts read (the input and the files it links), for messages.
    pub sources: Sources,
    /// The input's own text.
    pub file: FileId,
    /// The scene, prototypes expanded and linked files merged.
    pub scene: Scene,
    /// Errors and warnings so far. Where it has errors, later stages do
    /// nothing and nothing should be written.
    pub diags: Diagnostics,
    /// The clips, once [`Bake::animate`] has run.
    pub clips: Vec<Clip>,
    /// Each interpolator's form (exact or sampled), for the report.
    pub forms: Forms,
    /// Once a glTF document was made: the tracks it wrote otherwise than
    /// their kind's way (none, or switching triangulations).
    pub tracks: Option<TrackFates>,
    limits: Limits,
    /// The key values were freed ([`Bake::ready`]).
    released: bool,
}

impl Bake {
    /// Reads a file's bytes (gzip or not), or its mapped text, into a
    /// scene. `name` names it in messages and is where its URLs are
    /// resolved from; `encoding` is detected when not given; Inline and
    /// EXTERNPROTO files come through `fetch` (none are read without one).
    pub fn load(
        name: &str,
        input: impl Into<Input>,
        encoding: Option<Encoding>,
        fetch: Option<&mut dyn Fetch>,
        limits: Limits,
    ) -> Bake {
        let mut sources = Sources::new();
        let mut diags = Diagnostics::default();
        let file = match input.into() {
            Input::Bytes(bytes) => add_file(&mut sources, name, bytes, &mut diags),
            Input::Mapped(text) => sources.add_mapped(name, text),
        };
        let scene = if diags.has_errors() {
            // Not text (or not UTF-8, kept lossily to show where).
            Scene::default()
        } else {
            let encoding = encoding.unwrap_or_else(|| crate::syntax::detected(&sources, file));
            crate::load::load_as(&mut sources, file, encoding, fetch, &limits, &mut diags)
        };
        Bake {
            sources,
            file,
            scene,
            diags,
            clips: Vec::new(),
            forms: Forms::default(),
            tracks: None,
            limits,
            released: false,
        }
    }

    /// Checks the interpolators and builds the clips (nothing when the
    /// scene has errors).
    pub fn animate(&mut self, opts: ClipOptions) {
        self.animate_in(opts, None);
    }

    /// [`Bake::animate`], and with `world` the clocks' runs in world time
    /// as the event cascade plays them from the user's events.
    pub fn animate_in(&mut self, opts: ClipOptions, world: Option<&World>) {
        if self.released {
            self.diags.error(
                "the scene's key values were freed when its clips were readied for writing \
                 (Bake::ready): it cannot be animated again; load it again",
                None,
            );
        }
        if self.diags.has_errors() {
            return;
        }
        let checked = check::check(&self.scene, &mut self.diags);
        self.forms = checked.forms;
        let built = &checked.built;
        // (One budget for every Script call of the bake, the load's too.)
        let budget = Budget::new(&self.limits);
        let events = match world {
            Some(world) => Events::World(world, &self.sources, &budget),
            None => Events::Clips(&self.sources, &budget),
        };
        self.clips = clips_using(&self.scene, opts, built, events, &mut self.diags);
        self.take_state_at_load(world, &budget);
        // A node a Script made after the load is not the scene's (nor
        // drawn): what world time sets of it is not shown.
        let scene = &self.scene;
        for clip in &mut self.clips {
            clip.tracks.retain(|t| scene.holds(t.target));
        }
    }

    /// The scene as it stands once loaded: each field the load's events
    /// set (see [`crate::anim::cascade::state_at_load`]) takes its value
    /// there, so that the glTF's rest pose is what a browser shows at load.
    fn take_state_at_load(&mut self, world: Option<&World>, budget: &Budget) {
        let default = World::default();
        let world = world.unwrap_or(&default);
        let (sets, created) = state_at_load(&self.scene, &self.sources, world, budget);
        created.graft(&mut self.scene);
        for set in sets {
            if let Some(add) = match set.field.as_str() {
                "addChildren" => Some(true),
                "removeChildren" => Some(false),
                _ => None,
            } {
                let nodes = set.other.as_deref().map_or(&[][..], Value::nodes);
                self.change_children(set.node, nodes, add, set.span);
                continue;
            }
            let Some(def) = self.scene.find_field(set.node, &set.field, Dir::In) else {
                continue;
            };
            let def = self.scene.field_set_by(set.node, def);
            let (name, ty) = (def.name.clone(), def.ty);
            let data = match (ty.scalar(), &set.other) {
                (Scalar::Float, _) => Data::Floats(
                    set.values
                        .iter()
                        .map(|&x| x as f32)
                        .collect::<Vec<_>>()
                        .into(),
                ),
                (Scalar::Double, _) => Data::Doubles(set.values.clone()),
                (Scalar::Int, _) => Data::Ints(set.values.iter().map(|&x| x as i32).collect()),
                (Scalar::Bool, _) => Data::Bools(set.values.iter().map(|&x| x != 0.0).collect()),
                (_, Some(other)) => other.data.clone(),
                _ => continue,
            };
            self.set_field(set.node, name, Value { ty, data }, set.span);
        }
    }

    /// A field of the scene takes a value (keeping the span of the value
    /// the file gave, if any).
    fn set_field(&mut self, node: NodeId, name: String, value: Value, span: Span) {
        let span = self
            .scene
            .node(node)
            .values
            .get(&name)
            .map_or(span, |f| f.span);
        self.scene.nodes[node.0 as usize]
            .values
            .set(SetField { name, value, span });
    }

    /// A grouping node's addChildren (`add`) or removeChildren event: the
    /// nodes join its children (those not there yet), or leave them.
    fn change_children(&mut self, node: NodeId, nodes: &[NodeId], add: bool, span: Span) {
        let Some(children) = self.scene.value(node, "children") else {
            return;
        };
        let value = crate::scene::regrouped(children.nodes(), nodes, add);
        self.set_field(node, "children".to_string(), value, span);
    }

    /// Frees the scene's copy of every interpolator's keyValue once the
    /// clips are made: each interpolator built holds its values itself,
    /// and nothing reads the field again after [`Bake::animate_in`]
    /// (interpolators are built only there, the event cascade plays only
    /// there; no output or report reads it), which refuses to run after
    /// this.
    fn release_key_values(&mut self) {
        self.released = true;
        let nodes = self.scene.nodes.iter_mut();
        for node in nodes.filter(|n| check::is_interpolator(&n.type_name)) {
            match node
                .values
                .get_mut("keyValue")
                .map(|set| &mut set.value.data)
            {
                Some(Data::Floats(v)) => *v = Default::default(),
                Some(Data::Doubles(v)) => *v = Vec::new(),
                _ => {}
            }
        }
    }

    /// Keeps only the clips named (all when `names` is empty).
    pub fn keep_clips(&mut self, names: &[String]) -> Result<(), Error> {
        if let Some(missing) = names
            .iter()
            .find(|n| !self.clips.iter().any(|c| &c.name == *n))
        {
            return Err(Error::NoClip {
                name: missing.clone(),
                available: self.clips.iter().map(|c| c.name.clone()).collect(),
            });
        }
        if !names.is_empty() {
            self.clips.retain(|c| names.contains(&c.name));
        }
        Ok(())
    }

    /// Readies the clips to be written: keeps those named (all when
    /// `names` is empty) and frees the scene's copy of their key values
    /// (after which [`Bake::animate_in`] refuses to run again). With `timeline` (its start and end,
    /// each optional), the span of world time to write: from the start (0
    /// when not given) to the end (where the last clock's first run ends
    /// when not given).
    pub fn ready(
        &mut self,
        names: &[String],
        timeline: Option<(Option<f64>, Option<f64>)>,
    ) -> Result<Option<(f64, f64)>, Error> {
        self.keep_clips(names)?;
        self.release_key_values();
        Ok(timeline.map(|(start, end)| {
            let end = end.unwrap_or_else(|| csv::default_timeline_end(&self.clips));
            (start.unwrap_or(0.0), end)
        }))
    }

    /// The clips become one clip, `timeline`, of the whole scene in world
    /// time from `start` to `end` (see [`timeline_clip`]).
    pub fn play_timeline(&mut self, (start, end): (f64, f64)) {
        let clips = std::mem::take(&mut self.clips);
        self.clips = timeline_clip(&self.scene, clips, start, end)
            .into_iter()
            .collect();
    }

    /// The HTML report of a glTF document made with
    /// [`gltf::Options::record`]: each track's keys against its true
    /// curve, titled `title`, with the `messages` printed.
    pub fn report_html(
        &self,
        doc: &gltf::Document,
        title: &str,
        tolerance: Option<f64>,
        messages: &str,
    ) -> String {
        report::html(&report::Report {
            title,
            scene: &self.scene,
            clips: &self.clips,
            written: &doc.written,
            tolerance,
            messages,
        })
    }

    /// The longest clip, in seconds.
    fn longest(&self) -> f64 {
        self.clips.iter().map(|c| c.duration()).fold(0.0, f64::max)
    }

    /// Refuses sampling `seconds` (at least the longest clip) at `rate`
    /// past the limit on samples a track.
    fn check_samples(&self, seconds: f64, rate: f64) -> Result<(), Error> {
        let seconds = seconds.max(self.longest());
        let max = self.limits.samples_per_track;
        if seconds * rate > max as f64 {
            return Err(Error::TooManySamples { seconds, rate, max });
        }
        Ok(())
    }

    /// The glTF document. Images are read through `fetch`, relative to the
    /// file that names them (none without one). Errors in building it (a
    /// limit passed) go to [`Bake::diags`].
    pub fn gltf(
        &mut self,
        opts: &gltf::Options,
        fetch: Option<&mut dyn Fetch>,
    ) -> Result<gltf::Document, Error> {
        self.gltf_spilled(opts, fetch, None)
    }

    /// What `x3dbake inspect` makes of the glTF document: a default bake's,
    /// its buffer's bytes counted, not made (see
    /// [`gltf::Options::counted`]), for its diagnostics and track fates.
    pub fn count_gltf(&mut self, fetch: Option<&mut dyn Fetch>) -> Result<(), Error> {
        let counted = gltf::Options {
            counted: true,
            ..Default::default()
        };
        self.gltf_spilled(&counted, fetch, None).map(drop)
    }

    /// The same, its binary buffer moved to `spill` as it is made (see
    /// [`gltf::build`]).
    pub fn gltf_spilled(
        &mut self,
        opts: &gltf::Options,
        mut fetch: Option<&mut dyn Fetch>,
        spill: Option<gltf::Spill>,
    ) -> Result<gltf::Document, Error> {
        self.check_samples(0.0, opts.keys.rate)?;
        let (scene, sources) = (&self.scene, &self.sources);
        let mut images = |id: NodeId, url: &str| {
            let from = &sources.get(scene.node(id).span.file).name;
            let fetch = fetch.as_deref_mut().ok_or("no files are read")?;
            fetch
                .fetch(from, url)
                .map(|(_, b)| b)
                .map_err(|e| e.to_string())
        };
        let opts = gltf::Options {
            limits: self.limits,
            ..*opts
        };
        let doc = gltf::build(
            scene,
            &self.clips,
            &opts,
            &mut images,
            &mut self.diags,
            spill,
        );
        self.tracks = Some(doc.tracks.clone());
        Ok(doc)
    }

    /// The CSV table, in memory (at most [`Limits::csv_bytes`]).
    pub fn csv(&self, opts: &CsvOptions) -> Result<Vec<u8>, Error> {
        self.check_table(opts)?;
        Ok(csv::to_vec(
            &self.scene,
            &self.clips,
            opts,
            self.limits.csv_bytes,
        )?)
    }

    /// The CSV table, streamed: rows are written to `out` as they are
    /// computed (memory does not grow with the rows).
    pub fn write_csv(&self, opts: &CsvOptions, out: &mut dyn std::io::Write) -> Result<(), Error> {
        self.check_table(opts)?;
        csv::write(&self.scene, &self.clips, opts, out)?;
        Ok(())
    }

    /// Whether a table's rows (each clip, or the timeline's span, at its
    /// rate) stay within [`Limits::samples_per_track`].
    fn check_table(&self, opts: &CsvOptions) -> Result<(), Error> {
        let span = opts.timeline.map_or(0.0, |(start, end)| end - start);
        self.check_samples(span, opts.rate)
    }

    /// The plain-text account of `x3dbake inspect`.
    pub fn report(&self) -> String {
        inspect::report(&self.inspected())
    }

    fn inspected(&self) -> inspect::Inspected<'_> {
        inspect::Inspected {
            scene: &self.scene,
            clips: &self.clips,
            forms: &self.forms,
            limits: &self.limits,
            tracks: self.tracks.as_ref(),
        }
    }

    /// The same report as JSON (the schema is in docs/inspect-json.md),
    /// without the diagnostics, which [`Bake::diagnostics_json`] gives.
    pub fn report_json(&self) -> serde_json::Value {
        inspect::report_json(&self.inspected())
    }

    /// `x3dbake inspect --json`'s document for the input given as `file`:
    /// the report (none where the scene has errors), its schema and file,
    /// the diagnostics and their counts.
    pub fn inspect_json(&self, file: &str) -> serde_json::Value {
        let mut doc = if self.diags.has_errors() {
            serde_json::json!({})
        } else {
            self.report_json()
        };
        let (errors, warnings) = self.diags.counts();
        doc["schema"] = serde_json::json!("x3dbake-inspect/1");
        doc["file"] = serde_json::json!(file);
        doc["diagnostics"] = self.diagnostics_json();
        doc["errors"] = serde_json::json!(errors);
        doc["warnings"] = serde_json::json!(warnings);
        doc
    }

    /// The errors and warnings as JSON: severity, message, file, line and
    /// column (the first kept of each kind, as on the terminal).
    pub fn diagnostics_json(&self) -> serde_json::Value {
        serde_json::to_value(self.records()).expect("records serialise")
    }
}
