//! The x3dbake command line: parses arguments, runs the library, prints
//! diagnostics, writes outputs, and turns the outcome into an exit code.

mod output;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use x3dbake::anim::clip::{ClipOptions, clips};
use x3dbake::diag::{Diagnostics, Severity};
use x3dbake::interp::TangentRule;
use x3dbake::scene::Scene;
use x3dbake::source::{FileId, MAX_FILE_BYTES, Sources};
use x3dbake::write::gltf::{self, Mode, SampleInterpolation};

/// Bake X3D animation into glTF 2.0.
///
/// x3dbake reads an X3D scene, follows its ROUTEs from TimeSensors through
/// interpolators to the fields they drive, and writes one glTF animation per
/// clock: exact keys where glTF can hold the curve, samples where not.
#[derive(Parser)]
#[command(version, about, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    bake: BakeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Print the clocks, interpolators, routes, clips and tracks of a scene.
    Inspect {
        /// The X3D file to read.
        file: String,
        #[command(flatten)]
        clip: ClipArgs,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Args)]
struct Common {
    /// Hide warnings.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args)]
struct ClipArgs {
    /// Cycles of each clock in a clip.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    cycles: u32,
    /// How spline tangents are read: as the X3D text writes them, or the C1
    /// reading (velocity continuous in time at keys with unequal intervals).
    #[arg(long, value_enum, default_value_t = Tangents::AsWritten)]
    tangents: Tangents,
}

#[derive(Clone, Copy, ValueEnum)]
enum Tangents {
    AsWritten,
    C1,
}

#[derive(Clone, Copy, ValueEnum)]
enum CliMode {
    /// Exact keys where glTF can hold the curve (LINEAR, STEP, CUBICSPLINE),
    /// samples where it cannot.
    Exact,
    /// Every track sampled at --rate.
    Sample,
}

#[derive(Clone, Copy, ValueEnum)]
enum CliInterpolation {
    Linear,
    Step,
    Cubic,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    /// glTF JSON with a .bin beside it (or embedded with --embed).
    Gltf,
    /// Binary glTF.
    Glb,
}

#[derive(Args)]
struct BakeArgs {
    /// The X3D file to bake.
    input: Option<String>,
    /// Where to write: a .gltf or .glb file.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// The output format (default: from the output's extension).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Exact keys where possible, or sample everything.
    #[arg(long, value_enum, default_value_t = CliMode::Exact)]
    mode: CliMode,
    /// Samples per second for sampled tracks.
    #[arg(long, default_value_t = 30.0)]
    rate: f64,
    /// Interpolation of sampled keys in --mode sample (cubic: tangents from
    /// the curve's own derivative).
    #[arg(long, value_enum, default_value_t = CliInterpolation::Linear)]
    interpolation: CliInterpolation,
    /// Embed the buffer in the .gltf as a data URI instead of a .bin file.
    #[arg(long)]
    embed: bool,
    #[command(flatten)]
    clip: ClipArgs,
    #[command(flatten)]
    common: Common,
}

/// Exit codes: 0 ok, 1 invalid input, 2 usage or I/O error.
const INVALID_INPUT: u8 = 1;
const USAGE_OR_IO: u8 = 2;

/// The most samples one track may produce.
const MAX_SAMPLES: f64 = 50_000_000.0;

enum Failure {
    /// The input has errors (already printed).
    Input,
    /// Usage or I/O.
    Other(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Inspect { file, clip, common }) => inspect(&file, &clip, common.quiet),
        None => bake(&cli.bake),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input) => ExitCode::from(INVALID_INPUT),
        Err(Failure::Other(e)) => {
            eprintln!("x3dbake: {e:#}");
            ExitCode::from(USAGE_OR_IO)
        }
    }
}

fn clip_options(c: &ClipArgs) -> ClipOptions {
    ClipOptions {
        cycles: c.cycles,
        rule: match c.tangents {
            Tangents::AsWritten => TangentRule::AsWritten,
            Tangents::C1 => TangentRule::C1,
        },
    }
}

/// A scene read and checked, with its sources for rendering diagnostics.
struct Input {
    sources: Sources,
    scene: Scene,
    diags: Diagnostics,
}

fn read(path: &str) -> Result<Input, Failure> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {path}"))?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(other(format!("{path} is larger than 4 GiB")));
    }
    let mut sources = Sources::new();
    let mut diags = Diagnostics::default();
    let file: FileId = x3dbake::add_file(&mut sources, path, bytes, &mut diags);
    let scene = if diags.has_errors() {
        Scene::default()
    } else {
        x3dbake::load(&sources, file, &mut diags)
    };
    Ok(Input {
        sources,
        scene,
        diags,
    })
}

/// Prints the diagnostics (warnings unless quiet); fails on errors.
fn report(input: &Input, quiet: bool) -> Result<(), Failure> {
    for d in &input.diags.list {
        if d.severity == Severity::Error || !quiet {
            eprint!("{}", d.render(&input.sources));
        }
    }
    if input.diags.has_errors() {
        Err(Failure::Input)
    } else {
        Ok(())
    }
}

fn inspect(path: &str, clip: &ClipArgs, quiet: bool) -> Result<(), Failure> {
    let mut input = read(path)?;
    let mut found = Vec::new();
    if !input.diags.has_errors() {
        x3dbake::inspect::check_interpolators(&input.scene, &mut input.diags);
        found = clips(&input.scene, clip_options(clip), &mut input.diags);
    }
    report(&input, quiet)?;
    print!("{}", x3dbake::inspect::report(&input.scene, &found));
    println!("warnings: {}", input.diags.warnings().count());
    Ok(())
}

fn bake(args: &BakeArgs) -> Result<(), Failure> {
    let Some(path) = &args.input else {
        return Err(other("no input file: x3dbake INPUT -o OUTPUT (see --help)"));
    };
    let Some(out) = &args.output else {
        return Err(other("no output: give -o OUTPUT.gltf or -o OUTPUT.glb"));
    };
    let format = match args.format {
        Some(f) => f,
        None => match out.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("glb") => Format::Glb,
            Some(e) if e.eq_ignore_ascii_case("gltf") => Format::Gltf,
            _ => {
                let msg = format!(
                    "cannot tell the format of {}: use .gltf, .glb or --format",
                    out.display()
                );
                return Err(other(msg));
            }
        },
    };
    if !(args.rate > 0.0 && args.rate <= 100_000.0) {
        return Err(other(format!(
            "--rate must be above 0 and at most 100000, not {}",
            args.rate
        )));
    }
    if output::same_file(Path::new(path), out) {
        return Err(other(format!(
            "the output {} is the input: refusing to overwrite it",
            out.display()
        )));
    }
    let mut input = read(path)?;
    let mut found = Vec::new();
    if !input.diags.has_errors() {
        x3dbake::inspect::check_interpolators(&input.scene, &mut input.diags);
        found = clips(&input.scene, clip_options(&args.clip), &mut input.diags);
    }
    let longest = found.iter().map(|c| c.duration()).fold(0.0, f64::max);
    if longest * args.rate > MAX_SAMPLES {
        report(&input, args.common.quiet)?;
        return Err(other(format!(
            "a clip of {longest} s at --rate {} would need more than {MAX_SAMPLES} samples a track",
            args.rate
        )));
    }
    let opts = gltf::Options {
        mode: match args.mode {
            CliMode::Exact => Mode::Exact,
            CliMode::Sample => Mode::Sample,
        },
        rate: args.rate,
        interpolation: match args.interpolation {
            CliInterpolation::Linear => SampleInterpolation::Linear,
            CliInterpolation::Step => SampleInterpolation::Step,
            CliInterpolation::Cubic => SampleInterpolation::Cubic,
        },
    };
    let mut doc = if input.diags.has_errors() {
        None
    } else {
        Some(gltf::build(&input.scene, &found, &opts, &mut input.diags))
    };
    report(&input, args.common.quiet)?;
    // No errors were reported, so the document was built.
    let doc = doc.as_mut().expect("built when there are no errors");
    let files = match format {
        Format::Glb => {
            doc.set_buffer_uri(None);
            let mut bytes = Vec::new();
            x3dbake::write::glb::write(&doc.json(), &doc.bin, &mut bytes)
                .context("cannot build the GLB")?;
            vec![(out.clone(), bytes)]
        }
        Format::Gltf if args.embed || doc.bin.is_empty() => {
            let uri = (!doc.bin.is_empty()).then(|| doc.data_uri());
            doc.set_buffer_uri(uri);
            vec![(out.clone(), doc.json().into_bytes())]
        }
        Format::Gltf => {
            let bin_path = out.with_extension("bin");
            let Some(bin_name) = bin_path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
            else {
                return Err(other(format!(
                    "cannot name a .bin beside {}",
                    out.display()
                )));
            };
            if output::same_file(Path::new(path), &bin_path) {
                return Err(other(format!(
                    "the buffer {} would overwrite the input",
                    bin_path.display()
                )));
            }
            doc.set_buffer_uri(Some(uri_escape(&bin_name)));
            vec![
                (out.clone(), doc.json().into_bytes()),
                (bin_path, doc.bin.clone()),
            ]
        }
    };
    output::write_all_atomic(&files)?;
    Ok(())
}

/// A usage or I/O failure with a message.
fn other(msg: impl std::fmt::Display) -> Failure {
    Failure::Other(anyhow::anyhow!("{msg}"))
}

/// A file name as a relative URI: characters outside the unreserved set
/// percent-encoded.
fn uri_escape(name: &str) -> String {
    name.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
