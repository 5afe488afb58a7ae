//! Arguments as typed, turned into a validated job in one place.

use super::output;
use super::paths::{self, InputFile};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use x3dbake::ClipOptions;
use x3dbake::FileFetch;
use x3dbake::TangentRule;
use x3dbake::convert::{self, Joining, KeyMode, Settings};
use x3dbake::gltf;
use x3dbake::{UserEvent, World};

/// Bake X3D animation into glTF 2.0 or CSV.
///
/// x3dbake reads an X3D scene, follows its ROUTEs from TimeSensors through
/// interpolators to the fields they drive, and writes one glTF animation per
/// clock (exact keys where glTF can hold the curve, and elsewhere the fewest
/// keys within a bound of the true curve: 1e-4 rad for rotations, 1e-4 ×
/// max(1, largest value) otherwise), or a CSV table of the animated values.
#[derive(Parser)]
#[command(
    version,
    about,
    args_conflicts_with_subcommands = true,
    after_help = EXAMPLES_AND_EXIT_CODES,
    after_long_help = EXAMPLES_AND_EXIT_CODES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub bake: BakeArgs,
}

/// The end of `--help`: examples, and what the exit codes mean.
const EXAMPLES_AND_EXIT_CODES: &str = "\
Examples:
  x3dbake scene.x3d                         scene.glb in the current folder
  x3dbake scene.x3d -o out.gltf --embed     one .gltf, its buffer inside
  x3dbake scenes/ -o baked/                 every X3D file under scenes/, the same tree in baked/
  x3dbake scene.x3d -o - --rate 10 | head   CSV of the animated values on standard output
  x3dbake scene.x3d -o /dev/null --deny-warnings
                                            only check: fails when anything would be lost
  x3dbake scene.wrl --timeline --event 2:Button.touchTime=2
                                            world time, with a click at 2 s
  x3dbake inspect scene.x3d --json          what the scene animates, for scripts

Exit codes:
  0  every input baked (warnings, if any, printed)
  1  invalid input: an error in a scene, or a warning with --deny-warnings; nothing written for it
  2  usage or I/O: a flag or a path that cannot be used, a file that cannot be read or written
  129, 130, 143  stopped by SIGHUP, SIGINT (Ctrl-C) or SIGTERM; no output left half-written
A batch exits with the worst of its inputs.";

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
        reading: Reading,
        #[command(flatten)]
        common: Common,
    },
    /// Print a completion script for a shell, e.g. `x3dbake completions bash
    /// > /etc/bash_completion.d/x3dbake`.
    Completions {
        /// bash, zsh, fish, powershell or elvish.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `x3dbake man | man -l -`.
    Man,
}

#[derive(Args)]
#[command(next_help_heading = "Input")]
pub struct Reading {
    /// Read only files inside DIR (every link followed) of those a scene
    /// names (Inline, EXTERNPROTO, textures); a file outside is not read
    /// and is named in a warning. For scenes you did not write: without it
    /// a scene may read any file this process can.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

impl Reading {
    /// How the files a scene names are read: inside --root, or anywhere.
    pub fn fetch(&self) -> std::io::Result<FileFetch> {
        match &self.root {
            Some(root) => FileFetch::within(root),
            None => Ok(FileFetch::default()),
        }
    }
}

#[derive(Args)]
#[command(next_help_heading = "Messages")]
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
#[command(next_help_heading = "Keys")]
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
pub enum CliCompression {
    /// Quantised, packed and EXT_meshopt_compression (three.js, Babylon.js).
    Meshopt,
    /// Quantised and packed only (Blender too).
    Quantize,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum CliVisibility {
    Extension,
    Scale,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
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
    /// The format a file name's extension names, if any.
    fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "glb" => Some(Format::Glb),
            "gltf" => Some(Format::Gltf),
            "csv" => Some(Format::Csv),
            _ => None,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::Gltf => "gltf",
            Format::Glb => "glb",
            Format::Csv => "csv",
        }
    }
}

#[derive(Args)]
pub struct BakeArgs {
    /// X3D files to bake (`-` for standard input), or folders: every X3D
    /// file under them.
    #[arg(value_name = "INPUT")]
    pub given: Vec<String>,
    /// Where to write: a .gltf, .glb or .csv file, `-` for standard output,
    /// a device such as /dev/null (every output into it: only check), or a
    /// folder (several inputs, each as NAME.<format> in it, a tree of them
    /// as the same tree, never outside) [default: NAME.<format> in the
    /// current folder, for each input]
    #[arg(help_heading = "Output", short, long)]
    pub output: Option<PathBuf>,
    /// The output format (default: from the output's extension; CSV on
    /// standard output; GLB into a folder).
    #[arg(help_heading = "Output", long, value_enum)]
    pub format: Option<Format>,
    /// Exact keys where possible, or sample everything (glTF) [default: exact].
    #[arg(help_heading = "Keys", long, value_enum)]
    pub mode: Option<CliMode>,
    /// Samples per second: for glTF tracks in --mode sample and for CSV rows.
    #[arg(help_heading = "Keys", long, default_value_t = 30.0)]
    pub rate: f64,
    /// The most samples one track may take, its duration × --rate (glTF
    /// samples, CSV rows); past it a bake stops with an error [default:
    /// 50000000].
    #[arg(help_heading = "Keys", long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_samples: Option<u64>,
    /// How keys are joined. linear: LINEAR (and STEP) keys only, which
    /// every player (three.js, Babylon.js, Blender) plays within the bound;
    /// cubic: CUBICSPLINE too, splines exact and fewer keys where a spline
    /// fits (three.js, Babylon.js: Blender drops the tangents); step: in
    /// --mode sample, samples held. In --mode sample cubic tangents come
    /// from the curve's own derivative [default: linear].
    #[arg(help_heading = "Keys", long, value_enum)]
    pub interpolation: Option<CliInterpolation>,
    /// The bound on every track: the fewest glTF keys within this distance of
    /// the true curve at every time (scene units; radians for rotations),
    /// exact linear keys thinned too; constant tracks collapse to one key,
    /// and tracks that never leave the target's own value are dropped; at
    /// least what glTF's f32 numbers hold, 4.8e-7 × max(1, largest value)
    /// [default: exact keys where glTF holds the curve, and 1e-4 rad or
    /// 1e-4 × max(1, largest value) elsewhere].
    #[arg(help_heading = "Keys", long, value_name = "T")]
    pub tolerance: Option<f64>,
    /// With --tolerance: keep tracks that never change their target.
    #[arg(help_heading = "Keys", long, requires = "tolerance")]
    pub keep_constant: bool,
    /// Also write an HTML page (one input, glTF output; `-` for standard
    /// output) plotting, for each track, the true curve, the keys written and
    /// the error a glTF player shows against the bound, with the key counts
    /// and the warnings.
    #[arg(help_heading = "Output", long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// Only these clips (by name; repeat for several). Default: all.
    #[arg(help_heading = "Keys", long = "clip", value_name = "NAME")]
    pub clips: Vec<String>,
    /// Embed the buffer in the .gltf as a data URI instead of a .bin file.
    #[arg(help_heading = "Output", long)]
    pub embed: bool,
    /// A compact file, every channel kept: vertices welded and reordered,
    /// positions on a 14-bit grid (within 6.1e-5 of each mesh's size),
    /// normals as bytes (within 3.9e-3), uvs, colours, weights and rotation
    /// keys as 16-bit integers (rotations within 6.2e-5 rad, fitted to leave
    /// room: the bound holds), KHR_mesh_quantization; then the buffer
    /// compressed losslessly (EXT_meshopt_compression), which three.js
    /// (with its meshopt decoder) and Babylon.js read.
    /// `--compress=quantize` stops before that step: KHR_mesh_quantization
    /// alone, which Blender reads too.
    #[arg(
        help_heading = "Output",
        long,
        value_enum,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "meshopt",
        value_name = "HOW"
    )]
    pub compress: Option<CliCompression>,
    /// What the routes do when the user acts, as a KHR_interactivity
    /// behaviour graph (Babylon.js plays it): a click on a TouchSensor's
    /// shapes starts the clocks it starts, toggles what it toggles.
    #[arg(help_heading = "Output", long, conflicts_with = "timeline")]
    pub interactive: bool,
    /// Only what a core glTF 2.0 loader reads, for the `gltf` crate and
    /// Bevy (they refuse a whole file with a channel that has no node): no
    /// KHR_animation_pointer channels (materials, lights, cameras, texture
    /// transforms), each track left out named in a warning.
    #[arg(help_heading = "Output", long, conflicts_with = "interactive")]
    pub core: bool,
    /// How nodes are shown and hidden (an animated Switch's choices or
    /// `visible`, a moving mesh's cuts): a STEP scale, zero when hidden,
    /// which every player shows, or KHR_node_visibility (Babylon.js only;
    /// three.js and Blender lack it) [default: scale; extension with
    /// --interactive, whose graph sets it].
    #[arg(help_heading = "Output", long, value_enum)]
    pub visibility: Option<CliVisibility>,
    /// Flush each output to disk before it is renamed into place, and the
    /// folder after (survives a power failure or a system crash; costs the
    /// disk's write time). Without it an output still appears whole or not
    /// at all: it is written under a temporary name and renamed.
    #[arg(help_heading = "Output", long)]
    pub sync: bool,
    /// Also write FILE, in Makefile syntax (as `gcc -MD` and ninja's
    /// depfile): each output and every file its bake read (the input, its
    /// Inlines, EXTERNPROTOs and textures), so that make, ninja and build
    /// scripts bake again when any of them changes.
    #[arg(help_heading = "Output", long, value_name = "FILE")]
    pub depfile: Option<PathBuf>,
    /// How many inputs to bake at once [default: one per core].
    #[arg(help_heading = "Output", short, long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// CSV: one row per time and one column per component.
    #[arg(help_heading = "Output", long)]
    pub wide: bool,
    /// The whole scene in world time instead of each clip from its start:
    /// clocks start, stop and chain as the event cascade plays them; CSV
    /// rows, or one glTF animation `timeline` within the default bound.
    #[arg(help_heading = "World time", long)]
    pub timeline: bool,
    /// With --timeline: the absolute time (seconds since 1970) at which the
    /// world loads; world time t is SECONDS + t to the file's times and its
    /// Scripts. A clock whose startTime has come by then runs from load
    /// only if it loops (or is still in its one cycle), as in a browser;
    /// 0 reads small file times as seconds after load [default:
    /// 2000000000, 2033-05-18].
    #[arg(
        help_heading = "World time",
        long,
        value_name = "SECONDS",
        requires = "timeline",
        allow_negative_numbers = true
    )]
    pub load_time: Option<f64>,
    /// With --timeline: the first time, in seconds [default: 0].
    #[arg(
        help_heading = "World time",
        long,
        requires = "timeline",
        allow_negative_numbers = true
    )]
    pub start: Option<f64>,
    /// With --timeline: the last time, in seconds [default: the end of the
    /// last clock's first run].
    #[arg(
        help_heading = "World time",
        long,
        requires = "timeline",
        allow_negative_numbers = true
    )]
    pub end: Option<f64>,
    /// With --timeline: an event a person would cause, TIME:NODE.FIELD=VALUE
    /// (a click at 2 s: 2:Button.touchTime=2); NODE sends FIELD, or receives
    /// it. Repeatable. It goes through the routes, the event utilities and
    /// the clocks as the scene plays.
    #[arg(
        help_heading = "World time",
        long = "event",
        value_name = "EVENT",
        requires = "timeline"
    )]
    pub events: Vec<UserEvent>,
    #[command(flatten)]
    pub clip: ClipArgs,
    #[command(flatten)]
    pub reading: Reading,
    #[command(flatten)]
    pub common: Common,
}

/// Where outputs go.
#[derive(Debug, Clone)]
pub enum Target {
    File(PathBuf),
    Stdout,
    Dir(PathBuf),
    /// A device, pipe or socket (`/dev/null`): every output written into it.
    Stream(PathBuf),
}

/// Where the HTML report goes.
#[derive(Debug, Clone)]
pub enum ReportTo {
    File(PathBuf),
    Stdout,
}

/// A validated bake.
pub struct Job {
    pub inputs: Vec<InputFile>,
    /// Each input's output file, in the order of the inputs (none on
    /// standard output).
    pub outputs: Vec<Option<PathBuf>>,
    /// Every file the run writes beside the outputs' own (a .gltf's .bin,
    /// the report, temporary files), for checking against what a scene
    /// reads.
    pub writes: Vec<Vec<paths::Write>>,
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
    pub report: Option<ReportTo>,
    /// Outputs flushed to disk before they are renamed into place.
    pub sync: bool,
    /// Where the Makefile rules of what each bake read go.
    pub depfile: Option<PathBuf>,
    /// Where the files a scene names may be read from.
    pub reading: Reading,
}

impl Job {
    /// Whether the run bakes one input: the process is that bake's (one
    /// heap for its threads; its scene and document left to the exit).
    pub fn one_input(&self) -> bool {
        self.inputs.len() == 1
    }
}

pub fn clip_options(c: &ClipArgs) -> ClipOptions {
    ClipOptions {
        cycles: c.cycles,
        rule: tangent_rule(c.tangents),
        interactive: false,
    }
}

fn tangent_rule(t: Tangents) -> TangentRule {
    match t {
        Tangents::AsWritten => TangentRule::AsWritten,
        Tangents::C1 => TangentRule::C1,
    }
}

impl BakeArgs {
    /// The flags as the library's settings, for output of `format`.
    fn settings(&self, format: Format) -> Settings {
        Settings {
            format: match format {
                Format::Glb => convert::Format::Glb,
                Format::Gltf => convert::Format::Gltf,
                Format::Csv => convert::Format::Csv,
            },
            mode: self.mode.map(|m| match m {
                CliMode::Exact => KeyMode::Exact,
                CliMode::Sample => KeyMode::Sample,
            }),
            interpolation: self.interpolation.map(|i| match i {
                CliInterpolation::Linear => Joining::Linear,
                CliInterpolation::Step => Joining::Step,
                CliInterpolation::Cubic => Joining::Cubic,
            }),
            rate: self.rate,
            max_samples: self.max_samples,
            tolerance: self.tolerance,
            keep_constant: self.keep_constant,
            cycles: self.clip.cycles,
            tangents: tangent_rule(self.clip.tangents),
            clips: self.clips.clone(),
            compress: self.compress.map(|c| match c {
                CliCompression::Meshopt => gltf::Compression::Meshopt,
                CliCompression::Quantize => gltf::Compression::Quantize,
            }),
            interactive: self.interactive,
            core: self.core,
            visibility: self.visibility.map(|v| match v {
                CliVisibility::Extension => gltf::Visibility::Extension,
                CliVisibility::Scale => gltf::Visibility::Scale,
            }),
            wide: self.wide,
            report: self.report.is_some(),
            timeline: self.timeline,
            start: self.start,
            end: self.end,
            load_time: self.load_time,
            events: self.events.clone(),
        }
    }

    /// Checks the arguments together; the message says what to change.
    pub fn validate(self) -> Result<Job, String> {
        if self.given.is_empty() {
            return Err("no input file: x3dbake INPUT... -o OUTPUT (see --help)".into());
        }
        if self.given.iter().filter(|i| *i == "-").count() > 1 {
            return Err("standard input (-) can be read only once".into());
        }
        if let Some(root) = &self.reading.root
            && !root.is_dir()
        {
            return Err(format!("--root {} is not a folder", root.display()));
        }
        let walked = self.given.iter().any(|g| g != "-" && Path::new(g).is_dir());
        let inputs = paths::expand(&self.given)?;
        let several = inputs.len() > 1 || walked;
        let target = match &self.output {
            Some(out) if out == Path::new("-") => Target::Stdout,
            Some(out) if paths::is_stream(out) => Target::Stream(out.clone()),
            Some(out)
                if out.is_dir()
                    || out
                        .to_string_lossy()
                        .ends_with(['/', std::path::MAIN_SEPARATOR]) =>
            {
                Target::Dir(out.clone())
            }
            Some(out) if several && Format::of(out).is_some() => {
                return Err(format!(
                    "{} inputs cannot all be written to {}: give a folder (-o DIR/)",
                    inputs.len(),
                    out.display()
                ));
            }
            Some(out) if several => Target::Dir(out.clone()),
            Some(out) => Target::File(out.clone()),
            None if inputs.iter().any(InputFile::is_stdin) => {
                return Err(
                    "standard input needs -o (a file, a folder, or - for standard output)".into(),
                );
            }
            // Without -o: NAME.<format> in the current folder, for each input.
            None if several => Target::Dir(PathBuf::from(".")),
            None => Target::File(PathBuf::from(format!(
                "{}.{}",
                paths::stem(&inputs[0].path),
                self.format.unwrap_or(Format::Glb).extension()
            ))),
        };
        let format = match (&target, self.format) {
            (Target::File(p), Some(f)) => match Format::of(p) {
                Some(named) if named != f => {
                    return Err(format!(
                        "-o {} names a .{} file but --format is {}: make them agree",
                        p.display(),
                        named.extension(),
                        f.extension()
                    ));
                }
                _ => f,
            },
            (_, Some(f)) => f,
            (Target::Stdout, None) => Format::Csv,
            (Target::Dir(_) | Target::Stream(_), None) => Format::Glb,
            (Target::File(p), None) => Format::of(p).ok_or_else(|| {
                format!(
                    "cannot tell the format of {}: use .gltf, .glb, .csv or --format",
                    p.display()
                )
            })?,
        };
        let streamed = matches!(target, Target::Stdout | Target::Stream(_));
        if format == Format::Gltf && streamed && !self.embed {
            return Err(format!(
                "a .gltf on {} needs --embed (or use --format glb): its .bin cannot go there",
                match &target {
                    Target::Stream(p) => p.display().to_string(),
                    _ => "standard output".into(),
                }
            ));
        }
        let settings = self.settings(format);
        settings.check()?;
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
        if self.depfile.is_some() && matches!(target, Target::Stdout | Target::Stream(_)) {
            return Err("--depfile names the outputs' files: give -o FILE or -o DIR/".into());
        }
        if self.depfile.is_some() && inputs.iter().any(InputFile::is_stdin) {
            return Err("--depfile names the inputs' files: standard input has none".into());
        }
        if self.report.is_some() && several {
            return Err("--report is for one input (its page plots that input's tracks)".into());
        }
        if self.sync && matches!(target, Target::Stdout | Target::Stream(_)) {
            return Err("--sync is for outputs written to files (not a stream or device)".into());
        }
        let report = match self.report {
            Some(p) if p == Path::new("-") && matches!(target, Target::Stdout) => {
                return Err(
                    "--report - and -o - cannot both go to standard output: give one a file".into(),
                );
            }
            Some(p) if p == Path::new("-") => Some(ReportTo::Stdout),
            Some(p) => Some(ReportTo::File(p)),
            None => None,
        };
        let outputs: Vec<Option<PathBuf>> = match &target {
            Target::Dir(dir) => paths::outputs_in(dir, &inputs, format.extension())?
                .into_iter()
                .map(Some)
                .collect(),
            Target::File(p) | Target::Stream(p) => vec![Some(p.clone()); inputs.len()],
            Target::Stdout => vec![None; inputs.len()],
        };
        // Every file written, checked against every input and every other
        // file written, before anything is.
        let writes: Vec<Vec<paths::Write>> = outputs
            .iter()
            .map(|o| {
                let mut w = Vec::new();
                if let Some(o) = o {
                    w.push(paths::Write::new("the output", o.clone()));
                    if format == Format::Gltf && !self.embed {
                        w.push(paths::Write::new(
                            "the glTF buffer",
                            o.with_extension("bin"),
                        ));
                    }
                }
                if let Some(ReportTo::File(r)) = &report {
                    w.push(paths::Write::new("--report", r.clone()));
                }
                w
            })
            .collect();
        let reads: Vec<PathBuf> = inputs
            .iter()
            .filter(|i| !i.is_stdin())
            .map(|i| PathBuf::from(&i.path))
            .collect();
        let mut all: Vec<paths::Write> = writes.iter().flatten().cloned().collect();
        all.extend(
            self.depfile
                .iter()
                .map(|d| paths::Write::new("--depfile", d.clone())),
        );
        paths::check(&reads, &all)?;
        let temporaries: Vec<paths::Write> = all
            .iter()
            .filter(|w| !paths::is_stream(&w.path))
            .map(|w| paths::Write::new("a temporary file", output::temp_path(&w.path)))
            .collect();
        paths::check(&reads, &temporaries)?;
        Ok(Job {
            inputs,
            outputs,
            writes,
            target,
            format,
            clip_opts: settings.clip_options(),
            gltf_opts: settings.gltf_options(),
            world: settings.world(),
            timeline: settings.span(),
            report,
            sync: self.sync,
            depfile: self.depfile,
            reading: self.reading,
            embed: self.embed,
            jobs: self.jobs.map(usize::from),
            wide: self.wide,
            clips: self.clips,
            quiet: self.common.quiet,
            deny_warnings: self.common.deny_warnings,
            verbose: self.common.verbose,
        })
    }
}
