//! One call from a scene to its output, for every front end: [`Settings`]
//! are the command line's options with its defaults (and a builder; JSON
//! for the page and npm, keyword arguments for Python), [`convert`] runs
//! the stages of a [`Bake`] in their order and gives the output's bytes,
//! the diagnostics as records, the clips and the files read. The command
//! line maps its flags into the same [`Settings`] and runs the stages
//! itself only to stream large outputs to disk.

use crate::anim::cascade::{DEFAULT_LOAD_TIME, UserEvent, World};
use crate::anim::clip::ClipOptions;
use crate::bake::Bake;
use crate::diag::Severity;
use crate::interp::TangentRule;
use crate::limits::Limits;
use crate::load::Fetch;
use crate::write::csv::CsvOptions;
use crate::write::gltf::{
    self, Compression, KeyOptions, Layout, Mode, Part, SampleInterpolation, Visibility,
};
use serde::{Deserialize, Serialize};

/// The largest sample rate accepted.
pub const MAX_RATE: f64 = 100_000.0;

/// The output's format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Binary glTF.
    #[default]
    Glb,
    /// glTF JSON with its buffer inside (a data URI).
    Gltf,
    /// A CSV table of the animated values at `rate`.
    Csv,
}

/// How tracks are written: exact keys where glTF holds the curve and
/// bounded fits elsewhere, or every track sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyMode {
    /// Exact where possible, fitted within the bound elsewhere.
    Exact,
    /// Every track sampled at `rate` (no bound).
    Sample,
}

/// How keys are joined (see [`KeyOptions::cubic`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Joining {
    /// LINEAR (and STEP) keys, which every player plays alike.
    Linear,
    /// Samples held (sample mode only).
    Step,
    /// CUBICSPLINE too (Blender drops its tangents).
    Cubic,
}

/// Everything a conversion is told: the command line's options for one
/// input, with its defaults (`Settings::default()`), set field by field or
/// through the builder methods, or read from JSON (snake_case names, the
/// flags' values as strings).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// The output's format.
    pub format: Format,
    /// Exact keys or samples (default: exact).
    pub mode: Option<KeyMode>,
    /// How keys are joined (default: linear).
    pub interpolation: Option<Joining>,
    /// Samples a second, for sample mode and CSV rows.
    pub rate: f64,
    /// The most samples a track may take.
    pub max_samples: Option<u64>,
    /// The bound on every track (scene units; radians for rotations).
    pub tolerance: Option<f64>,
    /// With a tolerance: keep tracks that never change their target.
    pub keep_constant: bool,
    /// Cycles of each clock in a clip.
    pub cycles: u32,
    /// How spline tangents are read ("as-written" or "c1").
    pub tangents: TangentRule,
    /// Only these clips (none: all).
    pub clips: Vec<String>,
    /// A compact file, as far as readers allow.
    pub compress: Option<Compression>,
    /// The routes' behaviour as a KHR_interactivity graph.
    pub interactive: bool,
    /// Only what a core glTF loader reads.
    pub core: bool,
    /// How nodes are shown and hidden (default: scale; extension with
    /// `interactive`).
    pub visibility: Option<Visibility>,
    /// CSV: one row a time, one column a component.
    pub wide: bool,
    /// Also the bake report (an HTML page), for glTF output.
    pub report: bool,
    /// The whole world in world time.
    pub timeline: bool,
    /// With `timeline`: the first time, seconds.
    pub start: Option<f64>,
    /// With `timeline`: the last time, seconds.
    pub end: Option<f64>,
    /// With `timeline`: the absolute time the world loads.
    pub load_time: Option<f64>,
    /// With `timeline`: a person's events, `TIME:NODE.FIELD=VALUE`.
    #[serde(deserialize_with = "events")]
    pub events: Vec<UserEvent>,
}

fn events<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<UserEvent>, D::Error> {
    Vec::<String>::deserialize(d)?
        .iter()
        .map(|e| {
            e.parse()
                .map_err(|err| serde::de::Error::custom(format!("--event {e}: {err}")))
        })
        .collect()
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            format: Format::Glb,
            mode: None,
            interpolation: None,
            rate: 30.0,
            max_samples: None,
            tolerance: None,
            keep_constant: false,
            cycles: 1,
            tangents: TangentRule::AsWritten,
            clips: Vec::new(),
            compress: None,
            interactive: false,
            core: false,
            visibility: None,
            wide: false,
            report: false,
            timeline: false,
            start: None,
            end: None,
            load_time: None,
            events: Vec::new(),
        }
    }
}

/// A field of [`Settings`] set by a builder method.
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty => $field:ident = $value:expr;)*) => {
        impl Settings {
            $(
                $(#[$doc])*
                pub fn $name(mut self, $field: $ty) -> Self {
                    self.$field = $value;
                    self
                }
            )*
        }
    };
}

setters! {
    /// The output's format.
    with_format: Format => format = format;
    /// Exact keys or samples.
    with_mode: KeyMode => mode = Some(mode);
    /// How keys are joined.
    with_interpolation: Joining => interpolation = Some(interpolation);
    /// Samples a second.
    with_rate: f64 => rate = rate;
    /// The bound on every track.
    with_tolerance: f64 => tolerance = Some(tolerance);
    /// Cycles of each clock in a clip.
    with_cycles: u32 => cycles = cycles;
    /// Only these clips.
    with_clips: Vec<String> => clips = clips;
    /// A compact file.
    with_compress: Compression => compress = Some(compress);
    /// How nodes are shown and hidden.
    with_visibility: Visibility => visibility = Some(visibility);
    /// The absolute time the world loads.
    with_load_time: f64 => load_time = Some(load_time);
    /// A person's events.
    with_events: Vec<UserEvent> => events = events;
}

impl Settings {
    /// The whole world in world time, from `start` to `end` (none: from
    /// load to the end of the last clock's first run).
    pub fn with_timeline(mut self, start: Option<f64>, end: Option<f64>) -> Self {
        (self.timeline, self.start, self.end) = (true, start, end);
        self
    }

    /// Checks the settings together, as the command line does its flags:
    /// one that cannot change the output is refused, not ignored. The
    /// message names the flags.
    pub fn check(&self) -> Result<(), String> {
        if !(self.rate > 0.0 && self.rate <= MAX_RATE) {
            return Err(format!(
                "--rate must be above 0 and at most {MAX_RATE}, not {}",
                self.rate
            ));
        }
        for (name, v) in [
            ("--start", self.start),
            ("--end", self.end),
            ("--load-time", self.load_time),
        ] {
            if v.is_some_and(|x| !x.is_finite()) {
                return Err(format!("{name} must be a finite number of seconds"));
            }
        }
        if let Some(t) = self.tolerance
            && !(t.is_finite() && t > 0.0)
        {
            return Err(format!("--tolerance must be a positive distance, not {t}"));
        }
        if let (Some(s), Some(e)) = (self.start, self.end)
            && e < s
        {
            return Err(format!("--end ({e}) is before --start ({s})"));
        }
        if self.cycles == 0 {
            return Err("--cycles must be at least 1".into());
        }
        let world_only = [
            ("--start", self.start.is_some()),
            ("--end", self.end.is_some()),
            ("--load-time", self.load_time.is_some()),
            ("--event", !self.events.is_empty()),
        ];
        if let Some((flag, _)) = world_only.iter().find(|(_, g)| *g && !self.timeline) {
            return Err(format!("{flag} is for --timeline"));
        }
        if self.format != Format::Csv && self.wide {
            return Err("--wide is for CSV output".into());
        }
        if self.format == Format::Csv {
            let given = [
                ("--mode", self.mode.is_some()),
                ("--interpolation", self.interpolation.is_some()),
                ("--tolerance", self.tolerance.is_some()),
                ("--report", self.report),
                ("--compress", self.compress.is_some()),
                ("--interactive", self.interactive),
                ("--core", self.core),
            ];
            if let Some((flag, _)) = given.iter().find(|(_, g)| *g) {
                return Err(format!(
                    "{flag} is for glTF output: CSV rows are the values at --rate"
                ));
            }
        }
        if self.timeline && !self.clips.is_empty() {
            return Err(
                "--clip chooses clips of the clip mode; --timeline plays the whole world \
                 (leave out one of them)"
                    .into(),
            );
        }
        if self.interactive && self.timeline {
            return Err("--interactive is for the clip mode, not --timeline".into());
        }
        if self.interactive && self.core {
            return Err("--interactive's graph is an extension --core leaves out".into());
        }
        if self.core && self.visibility == Some(Visibility::Extension) {
            return Err(
                "--core writes no pointer channels, and KHR_node_visibility's are: leave out \
                 --visibility extension"
                    .into(),
            );
        }
        if self.interactive && self.visibility == Some(Visibility::Scale) {
            return Err(
                "--interactive shows and hides nodes by KHR_node_visibility (its graph sets it): \
                 leave out --visibility scale"
                    .into(),
            );
        }
        if self.interpolation == Some(Joining::Step) && self.mode != Some(KeyMode::Sample) {
            return Err("--interpolation step is for --mode sample".into());
        }
        Ok(())
    }

    /// How clips are built.
    pub fn clip_options(&self) -> ClipOptions {
        ClipOptions {
            cycles: self.cycles,
            rule: self.tangents,
            interactive: self.interactive,
        }
    }

    /// The limits, with `max_samples`.
    pub fn limits(&self) -> Limits {
        let default = Limits::default();
        Limits {
            samples_per_track: self.max_samples.map_or(default.samples_per_track, |n| {
                usize::try_from(n).unwrap_or(usize::MAX)
            }),
            ..default
        }
    }

    /// How the glTF is written.
    pub fn gltf_options(&self) -> gltf::Options {
        let sample = self.mode == Some(KeyMode::Sample);
        gltf::Options {
            keys: KeyOptions {
                mode: if sample { Mode::Sample } else { Mode::Exact },
                rate: self.rate,
                interpolation: match self.interpolation {
                    Some(Joining::Step) => SampleInterpolation::Step,
                    Some(Joining::Cubic) => SampleInterpolation::Cubic,
                    _ => SampleInterpolation::Linear,
                },
                tolerance: self.tolerance,
                keep_constant: self.keep_constant,
                cubic: !sample && self.interpolation == Some(Joining::Cubic),
                // (--compress's room is the glTF writer's to give.)
                rotation_rounding: 0.0,
                // 0: the thread's share of the cores.
                threads: 0,
            },
            record: self.report,
            limits: self.limits(),
            compress: self.compress,
            interactive: self.interactive,
            core: self.core,
            counted: false,
            // (With `interactive` the writer shows nodes by the extension,
            // whatever this says: its graph sets it.)
            visibility: self.visibility.unwrap_or_default(),
        }
    }

    /// With `timeline`: the world the cascade plays.
    pub fn world(&self) -> Option<World> {
        self.timeline.then(|| World {
            load: self.load_time.unwrap_or(DEFAULT_LOAD_TIME),
            events: self.events.clone(),
            end: self.end,
            rate: self.rate,
        })
    }

    /// With `timeline`: its start and end as given.
    pub fn span(&self) -> Option<(Option<f64>, Option<f64>)> {
        self.timeline.then_some((self.start, self.end))
    }
}

/// A diagnostic with its place in the files: what front ends show.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Record {
    /// "error" or "warning".
    pub severity: &'static str,
    /// What is wrong, naming the X3D nodes and fields.
    pub message: String,
    /// The file, line and column (from 1), where there is a place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Bake {
    /// The diagnostics kept, as records (the first kept of each kind, as
    /// on the terminal).
    pub fn records(&self) -> Vec<Record> {
        self.diags
            .list()
            .iter()
            .map(|d| {
                let place = d.span.map(|span| {
                    let file = self.sources.get(span.file);
                    let (line, column) = file.line_col(span.start as usize);
                    (file.name.clone(), line, column)
                });
                Record {
                    severity: match d.severity {
                        Severity::Error => "error",
                        Severity::Warning => "warning",
                    },
                    message: d.message.clone(),
                    file: place.as_ref().map(|p| p.0.clone()),
                    line: place.as_ref().map(|p| p.1),
                    column: place.as_ref().map(|p| p.2),
                }
            })
            .collect()
    }
}

/// What a conversion gives.
#[derive(Clone, Debug)]
pub struct Converted {
    /// Whether the output was made: no error (warnings allowed).
    pub ok: bool,
    /// The output's bytes (.glb, .gltf with its buffer inside, or .csv);
    /// empty when not `ok`.
    pub bytes: Vec<u8>,
    /// The errors and warnings, as records.
    pub diagnostics: Vec<Record>,
    /// How many errors and warnings there were (more than are kept).
    pub counts: (usize, usize),
    /// The messages as the command line prints them.
    pub messages: String,
    /// The bake report (an HTML page), when asked for and made.
    pub report: Option<String>,
    /// What `x3dbake inspect --json` says of the scene: clocks,
    /// interpolators, routes, clips and their tracks.
    pub inspect: serde_json::Value,
    /// Every file the bake read besides the input (Inlines, EXTERNPROTOs,
    /// textures), by the names the fetch gave: for build systems.
    pub read: Vec<String>,
}

/// Why a conversion did not run.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// Settings that cannot go together, or an event naming what the
    /// scene lacks, or a clip it does not have.
    #[error("{0}")]
    Usage(String),
    /// A step failed (a table too large, too many samples).
    #[error(transparent)]
    Bake(#[from] crate::Error),
    /// The glTF document could not be laid out in memory.
    #[error("cannot lay the glTF document out: {0}")]
    Layout(#[from] std::io::Error),
}

/// A fetch that keeps the names of the files it gave.
struct Recording<'f> {
    inner: Option<&'f mut dyn Fetch>,
    read: Vec<String>,
}

impl Fetch for Recording<'_> {
    fn fetch(&mut self, from: &str, url: &str) -> std::io::Result<(String, Vec<u8>)> {
        let Some(inner) = self.inner.as_deref_mut() else {
            return Err(std::io::ErrorKind::NotFound.into());
        };
        let (name, bytes) = inner.fetch(from, url)?;
        if !self.read.contains(&name) {
            self.read.push(name.clone());
        }
        Ok((name, bytes))
    }
}

/// Converts the scene `input` (named `name`, for messages and for the
/// files it names) with `settings`; the files it names are read through
/// `fetch` (none: only the input). The result is what `x3dbake NAME -o
/// OUT` writes with the same flags: the same bytes and the same messages.
/// A scene with errors gives `ok` false and its diagnostics, not an `Err`.
pub fn convert(
    name: &str,
    input: Vec<u8>,
    fetch: Option<&mut dyn Fetch>,
    settings: &Settings,
) -> Result<Converted, ConvertError> {
    convert_within(name, input, fetch, settings, settings.limits())
}

/// [`convert`] within `limits` instead of the settings' own
/// ([`Settings::limits`]): for a caller that bounds the work more tightly,
/// as the fuzz targets do with [`Limits::small`].
pub fn convert_within(
    name: &str,
    input: Vec<u8>,
    fetch: Option<&mut dyn Fetch>,
    settings: &Settings,
    limits: Limits,
) -> Result<Converted, ConvertError> {
    run(name, input, fetch, settings, limits, &mut None)
}

/// The messages of a conversion as the command line prints them: by
/// default, with `-q` and with `-v`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Said {
    /// Without `-q` or `-v` ([`Converted::messages`]).
    pub plain: String,
    /// With `-q`: errors only.
    pub quiet: String,
    /// With `-v`: each warning with its source line.
    pub verbose: String,
}

impl Said {
    fn of(bake: &Bake) -> Said {
        Said {
            plain: bake.messages(false, false),
            quiet: bake.messages(true, false),
            verbose: bake.messages(false, true),
        }
    }

    /// The messages `-q` (`quiet`, which wins) and `-v` (`verbose`) ask for.
    pub fn with(&self, quiet: bool, verbose: bool) -> &str {
        match (quiet, verbose) {
            (true, _) => &self.quiet,
            (false, true) => &self.verbose,
            (false, false) => &self.plain,
        }
    }
}

/// [`convert`], and the messages of the scene as far as the conversion
/// went, in each form the command line prints them: where a conversion
/// fails part way (an unknown `--clip`, a table past its limit) the
/// command line prints what the scene said before its error.
pub fn convert_said(
    name: &str,
    input: Vec<u8>,
    fetch: Option<&mut dyn Fetch>,
    settings: &Settings,
) -> (Result<Converted, ConvertError>, Said) {
    let mut bake = None;
    let done = run(name, input, fetch, settings, settings.limits(), &mut bake);
    (done, bake.as_ref().map(Said::of).unwrap_or_default())
}

/// The conversion, the scene kept in `made` once it is read.
fn run(
    name: &str,
    input: Vec<u8>,
    fetch: Option<&mut dyn Fetch>,
    settings: &Settings,
    limits: Limits,
    made: &mut Option<Bake>,
) -> Result<Converted, ConvertError> {
    settings.check().map_err(ConvertError::Usage)?;
    let opts = settings.gltf_options();
    let world = settings.world();
    let mut fetch = Recording {
        inner: fetch,
        read: Vec::new(),
    };
    let bake = made.insert(Bake::load(name, input, None, Some(&mut fetch), limits));
    if let Some(world) = &world
        && !bake.diags.has_errors()
    {
        world
            .check(&bake.scene)
            .map_err(|e| ConvertError::Usage(format!("{name}: {e}")))?;
    }
    bake.animate_in(settings.clip_options(), world.as_ref());
    let done = |bake: &Bake, bytes: Vec<u8>, report: Option<String>, read: Vec<String>| {
        let ok = !bake.diags.has_errors();
        Converted {
            ok,
            bytes: if ok { bytes } else { Vec::new() },
            diagnostics: bake.records(),
            counts: bake.diags.counts(),
            messages: bake.messages(false, false),
            report: report.filter(|_| ok),
            inspect: bake.report_json(),
            read,
        }
    };
    if bake.diags.has_errors() {
        return Ok(done(bake, Vec::new(), None, fetch.read));
    }
    let timeline = bake
        .ready(&settings.clips, settings.span())
        .map_err(|e| match e {
            crate::Error::NoClip { .. } => ConvertError::Usage(format!("{name}: --clip: {e}")),
            e => ConvertError::Bake(e),
        })?;
    if settings.format == Format::Csv {
        let opts = CsvOptions {
            rate: settings.rate,
            wide: settings.wide,
            timeline,
        };
        let mut bytes = Vec::new();
        bake.write_csv(&opts, &mut bytes)?;
        return Ok(done(bake, bytes, None, fetch.read));
    }
    if let Some(span) = timeline {
        bake.play_timeline(span);
    }
    // As the command line decides it for a .glb: past the same size the
    // buffer would move to a file (here there is none: it stays), and the
    // GLB's head gets the same room, so the bytes are the same.
    let glb = settings.format == Format::Glb;
    let spill = glb.then(|| gltf::Spill {
        open: Box::new(|| None),
        after: gltf::spill_after(bake.sources.get(bake.file).text_len()),
        room: true,
        write_back: false,
    });
    let mut doc = bake.gltf_spilled(&opts, Some(&mut fetch), spill)?;
    if bake.diags.has_errors() {
        return Ok(done(bake, Vec::new(), None, fetch.read));
    }
    let layout = if glb { Layout::Glb } else { Layout::Embedded };
    let files = doc.files(&layout)?;
    let mut bytes = Vec::new();
    for part in &files.main {
        match part {
            Part::Bytes(b) => bytes.extend_from_slice(b),
            // (No spill file was opened: the buffer stayed in memory.)
            Part::Spilled(_) => {
                return Err(std::io::Error::other("a buffer moved out of memory").into());
            }
        }
    }
    drop(files);
    let report = settings.report.then(|| {
        let messages = bake.messages(false, false);
        bake.report_html(&doc, name, settings.tolerance, &messages)
    });
    Ok(done(bake, bytes, report, fetch.read))
}
