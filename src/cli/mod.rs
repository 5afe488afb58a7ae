//! The command line: parses arguments, runs the library's pipeline
//! ([`x3dbake::Bake`]), prints diagnostics, writes outputs, and turns the
//! outcome into an exit code.

mod args;
mod batch;
mod messages;
mod output;
mod paths;

use anyhow::Context as _;
use args::{Cli, Command};
use clap::Parser;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use x3dbake::ClipOptions;
use x3dbake::FileFetch;
use x3dbake::World;
use x3dbake::input::{Input, MAX_FILE_BYTES, read_capped, read_file};
use x3dbake::internal::sys::mapped::Mapped;
use x3dbake::{Bake, Limits};

/// How a run ended. Ordered: the worst outcome of a batch is its exit code.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    Ok = 0,
    /// The input has errors (already printed): exit 1.
    InvalidInput = 1,
    /// Usage or I/O: exit 2.
    UsageOrIo = 2,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // A bake's job is made (its inputs found) before any thread starts.
    let job = cli.command.is_none().then(|| cli.bake.validate());
    // One scene (one input, or inspect): its threads are helpers, best
    // served by one heap that keeps what it frees (see the function); a
    // batch's workers keep the allocator as it is.
    let one_scene = match (&cli.command, &job) {
        (Some(Command::Inspect { .. }), _) => true,
        (None, Some(Ok(job))) => job.one_input(),
        _ => false,
    };
    if one_scene {
        x3dbake::internal::sys::tune_allocator();
    }
    // The node catalogue indexed while the input is found and mapped (a
    // bake and inspect read X3D; completions and the manual page do not).
    if matches!(cli.command, None | Some(Command::Inspect { .. })) {
        x3dbake::internal::scene::catalogue::warm_up();
    }
    // Only a bake writes files (inspect, completions and the manual page
    // print): its temporaries are removed when it is interrupted.
    if cli.command.is_none() {
        on_interrupt();
    }
    let outcome = match cli.command {
        Some(Command::Inspect {
            file,
            json,
            clip,
            reading,
            common,
        }) => inspect(&file, json, args::clip_options(&clip), &reading, &common),
        Some(Command::Completions { shell }) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut cmd, "x3dbake", &mut text);
            write_stdout(&[text.into()])
        }
        Some(Command::Man) => {
            let mut text = Vec::new();
            match clap_mangen::Man::new(<Cli as clap::CommandFactory>::command()).render(&mut text)
            {
                Ok(()) => write_stdout(&[text.into()]),
                Err(e) => {
                    messages::error(format!("cannot make the manual page: {e}"));
                    Outcome::UsageOrIo
                }
            }
        }
        None => match job.expect("made for a bake") {
            Ok(job)
                if matches!(job.target, args::Target::Stdout)
                    && job.format == args::Format::Glb
                    && std::io::stdout().is_terminal() =>
            {
                messages::usage(
                    "a .glb is binary: send standard output to a file or a pipe, or give -o \
                     FILE.glb",
                );
                Outcome::UsageOrIo
            }
            Ok(job) => batch::run(&job),
            Err(msg) => {
                messages::usage(&msg);
                Outcome::UsageOrIo
            }
        },
    };
    ExitCode::from(outcome as u8)
}

/// Interrupted (Ctrl-C, SIGTERM, SIGHUP): outputs are untouched (they are
/// renamed into place only when complete), no temporary file is left, and
/// the exit code is a shell's for that signal, 128 + its number (130, 143,
/// 129).
#[cfg(unix)]
fn on_interrupt() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                output::remove_temporaries();
                std::process::exit(128 + signal);
            }
        });
    }
}

#[cfg(windows)]
fn on_interrupt() {
    let _ = ctrlc::set_handler(|| {
        output::remove_temporaries();
        std::process::exit(130);
    });
}

fn read_bytes(path: &str) -> anyhow::Result<Vec<u8>> {
    let bytes = if path == "-" {
        read_capped(std::io::stdin().lock()).context("cannot read standard input")?
    } else {
        read_file(Path::new(path)).with_context(|| format!("cannot read {path}"))?
    };
    // A regular file may have grown since it was sized.
    anyhow::ensure!(bytes.len() <= MAX_FILE_BYTES, "{path} is larger than 4 GiB");
    Ok(bytes)
}

/// Reads a file (`-`: standard input), checks it and builds its clips,
/// within `limits`.
fn analyse(
    path: &str,
    opts: ClipOptions,
    world: Option<&World>,
    limits: Limits,
    fetch: &mut FileFetch,
) -> anyhow::Result<Bake> {
    let name = if path == "-" { "<stdin>" } else { path };
    // A large plain file is mapped, any other read.
    let mapped = (path != "-")
        .then(|| Mapped::open(Path::new(path)))
        .flatten();
    let input = match mapped {
        Some(text) => Input::Mapped(text),
        None => Input::Bytes(read_bytes(path)?),
    };
    // Plain text that can be read again (not gzip, not a pipe).
    let rereadable = match &input {
        Input::Bytes(bytes) => path != "-" && !x3dbake::input::is_gzip(bytes),
        Input::Mapped(_) => true,
    };
    let mut bake = Bake::load(name, input, None, Some(fetch), limits);
    // The scene is made: the text is needed again only to show a line.
    if rereadable && !bake.diags.has_errors() {
        bake.sources.release(bake.file, Path::new(path));
    }
    // An event naming what the scene lacks is a usage error, like an
    // unknown --clip: the flag is wrong, not the scene.
    if let Some(world) = world
        && !bake.diags.has_errors()
    {
        world
            .check(&bake.scene)
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    }
    bake.animate_in(opts, world);
    Ok(bake)
}

/// `x3dbake inspect`: the report on standard output, the diagnostics on
/// standard error; with --deny-warnings a warning fails it (the report is
/// still printed, for a script to read). It runs every stage a default
/// bake runs, the glTF document made (its buffer's bytes counted, not
/// made) and dropped, so that it gives the same warnings and errors as
/// `x3dbake FILE` would.
fn inspect(
    path: &str,
    json: bool,
    opts: ClipOptions,
    reading: &args::Reading,
    common: &args::Common,
) -> Outcome {
    let analysed = reading
        .fetch()
        .map_err(|e| anyhow::anyhow!("cannot read the --root folder: {e}"))
        .and_then(|mut fetch| {
            let bake = analyse(path, opts, None, Limits::default(), &mut fetch)?;
            Ok((bake, fetch))
        })
        .and_then(|(mut bake, mut fetch)| {
            if !bake.diags.has_errors() {
                bake.count_gltf(Some(&mut fetch))
                    .map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
            }
            Ok(bake)
        });
    let bake = match analysed {
        Ok(x) => x,
        Err(e) if json => {
            // Still one document: the error in it.
            let doc = serde_json::json!({
                "schema": "x3dbake-inspect/1",
                "file": path,
                "error": format!("{e:#}"),
                "errors": 1,
                "warnings": 0,
                "diagnostics": [],
            });
            return write_json(&doc).max(Outcome::UsageOrIo);
        }
        Err(e) => {
            messages::error(format!("{e:#}"));
            return Outcome::UsageOrIo;
        }
    };
    // The process ends after the report: the scene is left to it rather
    // than freed block by block (docs/performance.md).
    let bake = std::mem::ManuallyDrop::new(bake);
    if json {
        // Everything in the document, diagnostics too; errors still make
        // exit 1.
        let doc = bake.inspect_json(path);
        let (errors, warnings) = bake.diags.counts();
        let written = write_json(&doc);
        return match (errors, warnings) {
            (0, 0) => written,
            (0, _) if !common.deny_warnings => written,
            _ => written.max(Outcome::InvalidInput),
        };
    }
    messages::eprint(&messages::rendered(&bake, common.quiet, common.verbose));
    if bake.diags.has_errors() {
        return Outcome::InvalidInput;
    }
    let mut text = bake.report();
    let warnings = bake.diags.counts().1;
    text.push_str(&format!("warnings: {warnings}\n"));
    let written = write_stdout(&[messages::printable(&text).as_bytes().into()]);
    if common.deny_warnings && warnings > 0 {
        messages::error(format!("{path}: {warnings} warnings with --deny-warnings"));
        return written.max(Outcome::InvalidInput);
    }
    written
}

/// One JSON document, pretty, on standard output.
fn write_json(doc: &serde_json::Value) -> Outcome {
    let mut text = serde_json::to_string_pretty(doc).unwrap_or_default();
    text.push('\n');
    write_stdout(&[text.as_bytes().into()])
}

/// Writes to standard output; a closed pipe (`| head`) is not an error.
fn write_stdout(parts: &[x3dbake::gltf::Part]) -> Outcome {
    let mut out = std::io::stdout().lock();
    let written = parts.iter().try_for_each(|p| p.write_all(&mut out));
    match written.and_then(|()| out.flush()) {
        Ok(()) => Outcome::Ok,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Outcome::Ok,
        Err(e) => {
            messages::error(format!("cannot write to standard output: {e}"));
            Outcome::UsageOrIo
        }
    }
}
