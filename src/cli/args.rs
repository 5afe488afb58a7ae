//! Arguments as typed, turned into a validated job in one place.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use x3dbake::anim::cascade::{UserEvent, World};
use x3dbake::anim::clip::ClipOptions;
use x3dbake::interp::TangentRule;
use x3dbake::write::gltf::{self, Mode, SampleInterpolation};

/// Bake X3D animation into glTF 2.0 or CSV.
///
/// x3dbake reads an X3D scene, follows its ROUTEs from TimeSensors through
/// interpolators to the fields they drive, and writes one glTF animation per
/// clock (exact keys where glTF can hold the curve, and elsewhere the fewest
/// keys within a bound of the true curve: 1e-4 rad for rotations, 1e-4 ×
/// max(1, largest value) otherwise), or a CSV table of the animated values.
#[derive(Parser)]
#[command(version, about, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub bake: BakeArgs,
}

#[derive(Subcommand)]
pub enum Command {
    /// Print the clocks, interpolators, routes, clips and tracks of a scene.
    Inspect {
        /// The X3D file to read (`-` for standard input).
        file: String,
        /// One JSON document on standard output (schema:
        /// docs/inspect-json.md), diagnostics included.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        clip: ClipArgs,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Args)]
pub struct Common {
    /// Hide warnings.
    #[arg(long, short, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Show each warning with its source line, not only its first line.
    #[arg(long, short)]
    pub verbose: bool,
    /// Treat warnings as errors: an input with any (content that does not
    /// reach the output, readings of doubtful input) fails with exit 1 and
    /// nothing is written for it.
    #[arg(long)]
    pub deny_warnings: bool,
}

#[derive(Args)]
pub struct ClipArgs {
    /// Cycles of each clock in a clip.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub cycles: u32,
    /// How spline tangents are read: as the X3D text writes them, or the C1
    /// reading (velocity continuous in time at keys with unequal intervals).
    #[arg(long, value_enum, default_value_t = Tangents::AsWritten)]
    pub tangents: Tangents,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Tangents {
    AsWritten,
    C1,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliMode {
    /// Exact keys where glTF can hold the curve (LINEAR, STEP, CUBICSPLINE);
    /// elsewhere (squad, HSV colour, normals, eased chains) the fewest
    /// CUBICSPLINE or LINEAR keys within the bound of the true curve at every
    /// time: 1e-4 rad for rotations, 1e-4 × max(1, largest value) otherwise,
    /// or --tolerance.
    Exact,
    /// Every track sampled at --rate (no bound).
    Sample,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum CliInterpolation {
    Linear,
    Step,
    Cubic,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum Format {
    /// glTF JSON with a .bin beside it (or embedded with --embed).
    Gltf,
    /// Binary glTF.
    Glb,
    /// A CSV table of the animated values.
    Csv,
}

impl Format {
    fn extension(self) -> &'static str {
        match self {
            Format::Gltf => "gltf",
            Format::Glb => "glb",
            Format::Csv => "csv",
        }
    }
}

#[derive(Args)]
pub struct BakeArgs {
    /// X3D files to bake (`-` for standard input).
    pub inputs: Vec<String>,
    /// Where to write: a .gltf, .glb or .csv file, `-` for standard output,
    /// or a folder (several inputs are baked into a folder, each as
    /// NAME.glb or NAME.<--format>) [default: NAME.glb in the current
    /// folder, for each input].
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// The output format (default: from the output's extension; CSV on
    /// standard output; GLB into a folder).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Exact keys where possible, or sample everything (glTF) [default: exact].
    #[arg(long, value_enum)]
    pub mode: Option<CliMode>,
    /// Samples per second: for glTF tracks in --mode sample and for CSV rows.
    #[arg(long, default_value_t = 30.0)]
    pub rate: f64,
    /// The most samples one track may take, its duration × --rate (glTF
    /// samples, CSV rows); past it a bake stops with an error [default:
    /// 50000000].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_samples: Option<u64>,
    /// Interpolation of sampled keys in --mode sample (cubic: tangents from
    /// the curve's own derivative) [default: linear].
    #[arg(long, value_enum)]
    pub interpolation: Option<CliInterpolation>,
    /// The bound on every track: the fewest glTF keys within this distance of
    /// the true curve at every time (scene units; radians for rotations),
    /// exact linear keys thinned too; constant tracks collapse to one key,
    /// and tracks that never leave the target's own value are dropped
    /// [default: exact keys where glTF holds the curve, and 1e-4 rad or
    /// 1e-4 × max(1, largest value) elsewhere].
    #[arg(long, value_name = "T")]
    pub tolerance: Option<f64>,
    /// With --tolerance: keep tracks that never change their target.
    #[arg(long, requires = "tolerance")]
    pub keep_constant: bool,
    /// Also write an HTML page (one input, glTF output) plotting, for each
    /// track, the true curve, the keys written and the error between them
    /// against the bound, with the key counts and the warnings.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// Only these clips (by name; repeat for several). Default: all.
    #[arg(long = "clip", value_name = "NAME")]
    pub clips: Vec<String>,
    /// Embed the buffer in the .gltf as a data URI instead of a .bin file.
    #[arg(long)]
    pub embed: bool,
    /// Flush each output to disk before it is renamed into place, and the
    /// folder after (survives a power failure or a system crash; costs the
    /// disk's write time). Without it an output still appears whole or not
    /// at all: it is written under a temporary name and renamed.
    #[arg(long)]
    pub sync: bool,
    /// How many inputs to bake at once [default: one per core].
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// CSV: one row per time and one column per component.
    #[arg(long)]
    pub wide: bool,
    /// The whole scene in world time instead of each clip from its start:
    /// clocks start, stop and chain as the event cascade plays them; CSV
    /// rows, or one glTF animation `timeline` within the default bound.
    #[arg(long)]
    pub timeline: bool,
    /// With --timeline: the first time, in seconds [default: 0].
    #[arg(long, requires = "timeline", allow_negative_numbers = true)]
    pub start: Option<f64>,
    /// With --timeline: the last time, in seconds [default: the end of the
    /// last clock's first run].
    #[arg(long, requires = "timeline", allow_negative_numbers = true)]
    pub end: Option<f64>,
    /// With --timeline: an event a person would cause, TIME:NODE.FIELD=VALUE
    /// (a click at 2 s: 2:Button.touchTime=2); NODE sends FIELD, or receives
    /// it. Repeatable. It goes through the routes, the event utilities and
    /// the clocks as the scene plays.
    #[arg(long = "event", value_name = "EVENT", requires = "timeline")]
    pub events: Vec<UserEvent>,
    #[command(flatten)]
    pub clip: ClipArgs,
    #[command(flatten)]
    pub common: Common,
}

/// Where outputs go.
#[derive(Debug, Clone)]
pub enum Target {
    File(PathBuf),
    Stdout,
    Dir(PathBuf),
}

/// A validated bake.
pub struct Job {
    pub inputs: Vec<String>,
    /// Into a folder: each input's output file, in the order of the inputs.
    pub outputs: Vec<PathBuf>,
    pub target: Target,
    pub format: Format,
    pub clip_opts: ClipOptions,
    pub gltf_opts: gltf::Options,
    pub embed: bool,
    pub wide: bool,
    pub timeline: Option<(Option<f64>, Option<f64>)>,
    /// With --timeline: the events and end the cascade plays.
    pub world: Option<World>,
    pub clips: Vec<String>,
    /// Inputs baked at once (None: one per core).
    pub jobs: Option<usize>,
    pub quiet: bool,
    pub verbose: bool,
    /// Warnings fail the input (exit 1, nothing written).
    pub deny_warnings: bool,
    /// Where the HTML report goes.
    pub report: Option<PathBuf>,
    /// Outputs flushed to disk before they are renamed into place.
    pub sync: bool,
}

pub fn clip_options(c: &ClipArgs) -> ClipOptions {
    ClipOptions {
        cycles: c.cycles,
        rule: match c.tangents {
            Tangents::AsWritten => TangentRule::AsWritten,
            Tangents::C1 => TangentRule::C1,
        },
    }
}

/// The largest sample rate accepted.
pub const MAX_RATE: f64 = 100_000.0;

impl BakeArgs {
    /// Checks the arguments together; the message says what to change.
    pub fn validate(self) -> Result<Job, String> {
        if self.inputs.is_empty() {
            return Err("no input file: x3dbake INPUT... -o OUTPUT (see --help)".into());
        }
        if self.inputs.iter().filter(|i| *i == "-").count() > 1 {
            return Err("standard input (-) can be read only once".into());
        }
        // Without -o: NAME.glb in the current folder, for each input.
        let out = match self.output {
            Some(out) => out,
            None if self.inputs.iter().any(|i| i == "-") => {
                return Err(
                    "standard input needs -o (a file, a folder, or - for standard output)".into(),
                );
            }
            None if self.inputs.len() > 1 => PathBuf::from("./"),
            None => output_in(Path::new(""), &self.inputs[0], Format::Glb),
        };
        if !(self.rate > 0.0 && self.rate <= MAX_RATE) {
            return Err(format!(
                "--rate must be above 0 and at most {MAX_RATE}, not {}",
                self.rate
            ));
        }
        for (name, v) in [("--start", self.start), ("--end", self.end)] {
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
        let is_dir = out.is_dir()
            || out
                .to_string_lossy()
                .ends_with(['/', std::path::MAIN_SEPARATOR]);
        let several = self.inputs.len() > 1;
        let target = if out == Path::new("-") {
            Target::Stdout
        } else if is_dir {
            Target::Dir(out)
        } else if several && out.extension().is_some() {
            return Err(format!(
                "{} inputs cannot all be written to {}: give a folder (-o DIR/)",
                self.inputs.len(),
                out.display()
            ));
        } else if several {
            Target::Dir(out)
        } else {
            Target::File(out)
        };
        let format = match (&target, self.format) {
            (_, Some(f)) => f,
            (Target::Stdout, None) => Format::Csv,
            (Target::Dir(_), None) => Format::Glb,
            (Target::File(p), None) => match p
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase)
            {
                Some(e) if e == "glb" => Format::Glb,
                Some(e) if e == "gltf" => Format::Gltf,
                Some(e) if e == "csv" => Format::Csv,
                _ => {
                    return Err(format!(
                        "cannot tell the format of {}: use .gltf, .glb, .csv or --format",
                        p.display()
                    ));
                }
            },
        };
        if format == Format::Gltf && matches!(target, Target::Stdout) && !self.embed {
            return Err("a .gltf on standard output needs --embed (or use --format glb)".into());
        }
        if format != Format::Csv && self.wide {
            return Err("--wide is for CSV output".into());
        }
        if several && matches!(target, Target::Stdout) && format != Format::Csv {
            return Err(
                "several glTF documents cannot share standard output: give a folder (-o DIR/)"
                    .into(),
            );
        }
        if several && matches!(target, Target::Stdout) && self.wide {
            return Err(
                "several wide tables cannot share standard output (their columns differ): \
                 give a folder (-o DIR/), or leave out --wide for one long table with a file column"
                    .into(),
            );
        }
        // Flags that cannot change this output are refused, not ignored.
        let glb_or_csv = |flag: &str| format!("{flag} is for .gltf output (not .glb or CSV)");
        if self.embed && format != Format::Gltf {
            return Err(glb_or_csv("--embed"));
        }
        if format == Format::Csv {
            let given = [
                ("--mode", self.mode.is_some()),
                ("--interpolation", self.interpolation.is_some()),
                ("--tolerance", self.tolerance.is_some()),
                ("--report", self.report.is_some()),
            ];
            if let Some((flag, _)) = given.iter().find(|(_, g)| *g) {
                return Err(format!(
                    "{flag} is for glTF output: CSV rows are the values at --rate"
                ));
            }
        }
        if self.report.is_some() && several {
            return Err("--report is for one input (its page plots that input's tracks)".into());
        }
        let mode = self.mode.unwrap_or(CliMode::Exact);
        if self.interpolation.is_some() && mode != CliMode::Sample {
            return Err("--interpolation is for --mode sample".into());
        }
        let outputs = match &target {
            Target::Dir(dir) => {
                let outputs = outputs_in(dir, &self.inputs, format);
                let mut names = outputs.clone();
                names.sort();
                if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
                    return Err(format!(
                        "two inputs would both be written to {}",
                        w[0].display()
                    ));
                }
                outputs
            }
            _ => Vec::new(),
        };
        Ok(Job {
            inputs: self.inputs,
            outputs,
            target,
            format,
            clip_opts: clip_options(&self.clip),
            gltf_opts: gltf::Options {
                mode: match mode {
                    CliMode::Exact => Mode::Exact,
                    CliMode::Sample => Mode::Sample,
                },
                rate: self.rate,
                interpolation: match self.interpolation.unwrap_or(CliInterpolation::Linear) {
                    CliInterpolation::Linear => SampleInterpolation::Linear,
                    CliInterpolation::Step => SampleInterpolation::Step,
                    CliInterpolation::Cubic => SampleInterpolation::Cubic,
                },
                tolerance: self.tolerance,
                keep_constant: self.keep_constant,
                record: self.report.is_some(),
                limits: x3dbake::Limits {
                    samples_per_track: self
                        .max_samples
                        .map_or(x3dbake::Limits::default().samples_per_track, |n| {
                            usize::try_from(n).unwrap_or(usize::MAX)
                        }),
                    ..Default::default()
                },
            },
            report: self.report,
            sync: self.sync,
            embed: self.embed,
            jobs: self.jobs.map(usize::from),
            wide: self.wide,
            timeline: self.timeline.then_some((self.start, self.end)),
            world: self.timeline.then_some(World {
                events: self.events,
                end: self.end,
                rate: self.rate,
            }),
            clips: self.clips,
            quiet: self.common.quiet,
            deny_warnings: self.common.deny_warnings,
            verbose: self.common.verbose,
        })
    }
}

/// The output files of inputs baked into a folder: NAME.<format> each,
/// in the folder itself when the inputs share one folder, else under the
/// inputs' own folders relative to the folder they all lie in (so that a
/// tree of scenes is baked into the same tree).
fn outputs_in(dir: &Path, inputs: &[String], format: Format) -> Vec<PathBuf> {
    let folder = |i: &String| -> PathBuf {
        let parent = Path::new(i).parent().unwrap_or(Path::new(""));
        std::path::absolute(parent).unwrap_or_else(|_| parent.to_path_buf())
    };
    let folders: Vec<PathBuf> = inputs
        .iter()
        .map(|i| if i == "-" { PathBuf::new() } else { folder(i) })
        .collect();
    // The longest folder every input lies in.
    let mut common: Option<PathBuf> = None;
    for f in folders.iter().filter(|f| !f.as_os_str().is_empty()) {
        common = Some(match common {
            None => f.clone(),
            Some(c) => c
                .components()
                .zip(f.components())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    inputs
        .iter()
        .zip(&folders)
        .map(|(input, f)| {
            let below = common
                .as_ref()
                .and_then(|c| f.strip_prefix(c).ok())
                .unwrap_or(Path::new(""));
            output_in(&dir.join(below), input, format)
        })
        .collect()
}

/// The output file of an input baked into a folder.
pub fn output_in(dir: &Path, input: &str, format: Format) -> PathBuf {
    let stem = if input == "-" {
        "stdin".to_string()
    } else {
        let name = Path::new(input)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // scene.x3d, scene.x3dv.gz → scene
        name.split('.')
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or("scene")
            .to_string()
    };
    dir.join(format!("{stem}.{}", format.extension()))
}
