//! The x3dbake command line: parses arguments, runs the library, prints
//! diagnostics, and turns the outcome into an exit code.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use x3dbake::diag::Diagnostics;
use x3dbake::source::{MAX_FILE_BYTES, Sources};

/// Bake X3D animation into glTF 2.0.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Hide warnings.
    #[arg(long, short, global = true)]
    quiet: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Print the clocks, interpolators, routes and animated targets of a scene.
    Inspect {
        /// The X3D file to read.
        file: String,
        /// Cycles of each clock in a clip.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        cycles: u32,
    },
}

/// Exit codes: 0 ok, 1 invalid input, 2 usage or I/O error.
const INVALID_INPUT: u8 = 1;
const IO_ERROR: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Inspect { file, cycles } => inspect(&file, cycles, cli.quiet),
    }
}

fn inspect(path: &str, cycles: u32, quiet: bool) -> ExitCode {
    let mut sources = Sources::new();
    let bytes = match read_bytes(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("x3dbake: {e:#}");
            return ExitCode::from(IO_ERROR);
        }
    };
    let mut diags = Diagnostics::default();
    let file = x3dbake::add_file(&mut sources, path, bytes, &mut diags);
    let scene = if diags.has_errors() {
        Default::default()
    } else {
        x3dbake::load(&sources, file, &mut diags)
    };
    let mut clips = Vec::new();
    if !diags.has_errors() {
        x3dbake::inspect::check_interpolators(&scene, &mut diags);
        let opts = x3dbake::anim::clip::ClipOptions {
            cycles,
            ..Default::default()
        };
        clips = x3dbake::anim::clip::clips(&scene, opts, &mut diags);
    }
    for d in &diags.list {
        if d.severity == x3dbake::diag::Severity::Error || !quiet {
            eprint!("{}", d.render(&sources));
        }
    }
    if diags.has_errors() {
        return ExitCode::from(INVALID_INPUT);
    }
    print!("{}", x3dbake::inspect::report(&scene, &clips));
    let warnings = diags.warnings().count();
    println!("warnings: {warnings}");
    ExitCode::SUCCESS
}

/// Reads a file, with the path in any error.
fn read_bytes(path: &str) -> anyhow::Result<Vec<u8>> {
    use anyhow::Context as _;
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {path}"))?;
    anyhow::ensure!(bytes.len() <= MAX_FILE_BYTES, "{path} is larger than 4 GiB");
    Ok(bytes)
}
