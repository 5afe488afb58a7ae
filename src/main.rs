//! The x3dbake command line: parses arguments, runs the library, prints
//! diagnostics, writes outputs, and turns the outcome into an exit code.

mod cli;
#[cfg(target_os = "linux")]
mod huge_pages;
mod output;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: huge_pages::HugePages = huge_pages::HugePages;

use anyhow::Context as _;
use clap::Parser;
use cli::{Cli, Command, Format, Job, Target};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use x3dbake::anim::clip::{Clip, ClipOptions, clips_using};
use x3dbake::diag::{Diagnostics, MAX_KEPT, Severity};
use x3dbake::scene::Scene;
use x3dbake::scene::link::FileFetch;
use x3dbake::source::{FileId, MAX_FILE_BYTES, Sources, read_capped, read_file};
use x3dbake::write::csv::{self, CsvOptions};
use x3dbake::write::gltf;

/// How a run ended. Ordered: the worst outcome of a batch is its exit code.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    Ok = 0,
    /// The input has errors (already printed): exit 1.
    InvalidInput = 1,
    /// Usage or I/O: exit 2.
    UsageOrIo = 2,
}

/// The most samples one track may produce.
const MAX_SAMPLES: f64 = 50_000_000.0;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Interrupted (Ctrl-C, SIGTERM, SIGHUP): outputs are untouched (they are
    // renamed into place only when complete), and no temporary file is left.
    let _ = ctrlc::set_handler(|| {
        output::remove_temporaries();
        std::process::exit(130);
    });
    let outcome = match cli.command {
        Some(Command::Inspect { file, clip, common }) => inspect(
            &file,
            &cli::clip_options(&clip),
            common.quiet,
            common.verbose,
        ),
        None => match cli.bake.validate() {
            Ok(job) => run(&job),
            Err(msg) => {
                eprintln!("x3dbake: {msg}");
                Outcome::UsageOrIo
            }
        },
    };
    ExitCode::from(outcome as u8)
}

/// A scene read and checked, with its sources for rendering diagnostics.
struct Input {
    sources: Sources,
    scene: Scene,
    diags: Diagnostics,
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

fn read(path: &str) -> anyhow::Result<Input> {
    let bytes = read_bytes(path)?;
    let name = if path == "-" { "<stdin>" } else { path };
    // Plain text that can be read again (not gzip, not a pipe).
    let rereadable = path != "-" && !x3dbake::is_gzip(&bytes);
    let mut sources = Sources::new();
    let mut diags = Diagnostics::default();
    let file: FileId = x3dbake::add_file(&mut sources, name, bytes, &mut diags);
    let scene = if diags.has_errors() {
        // Not text (or not UTF-8, and kept lossily to show where).
        Scene::default()
    } else {
        let scene = x3dbake::load(&mut sources, file, Some(&mut FileFetch), &mut diags);
        // The scene is made: the text is needed again only to show a line.
        if rereadable {
            sources.release(file, Path::new(path));
        }
        scene
    };
    Ok(Input {
        sources,
        scene,
        diags,
    })
}

/// The diagnostics as text: errors in full, warnings one line each (in
/// full with --verbose, none with --quiet).
fn rendered(input: &Input, quiet: bool, verbose: bool) -> String {
    let mut out = String::new();
    let diags = &input.diags;
    for d in diags.list() {
        match d.severity {
            Severity::Error => out.push_str(&d.render(&input.sources)),
            Severity::Warning if quiet => {}
            Severity::Warning if verbose => out.push_str(&d.render(&input.sources)),
            Severity::Warning => {
                out.push_str(&d.headline(&input.sources));
                out.push('\n');
            }
        }
    }
    // Past the ones kept, a count of what was found in all.
    let (errors, warnings) = diags.counts();
    let unlisted_errors = errors - diags.errors().count();
    let unlisted_warnings = warnings - diags.warnings().count();
    if unlisted_errors > 0 || (unlisted_warnings > 0 && !quiet) {
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        out.push_str(&format!(
            "note: {} and {} in all; the first {MAX_KEPT} of each are listed\n",
            plural(errors, "error"),
            plural(warnings, "warning"),
        ));
    }
    out
}

/// A file read, checked, and its clips built; with the interpolators' forms.
struct Analysed {
    input: Input,
    clips: Vec<Clip>,
    forms: x3dbake::inspect::Forms,
}

/// Reads a file and builds its clips, with every check.
fn analyse(path: &str, opts: &ClipOptions) -> anyhow::Result<Analysed> {
    let mut input = read(path)?;
    let (mut found, mut forms) = (Vec::new(), Default::default());
    if !input.diags.has_errors() {
        let built;
        (forms, built) = x3dbake::inspect::check_and_keep(&input.scene, &mut input.diags);
        found = clips_using(&input.scene, *opts, &built, &mut input.diags);
    }
    Ok(Analysed {
        input,
        clips: found,
        forms,
    })
}

fn inspect(path: &str, opts: &ClipOptions, quiet: bool, verbose: bool) -> Outcome {
    let Analysed {
        input,
        clips: found,
        forms,
    } = match analyse(path, opts) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("x3dbake: {e:#}");
            return Outcome::UsageOrIo;
        }
    };
    eprint!("{}", rendered(&input, quiet, verbose));
    if input.diags.has_errors() {
        return Outcome::InvalidInput;
    }
    let mut text = x3dbake::inspect::report(&input.scene, &found, &forms);
    text.push_str(&format!("warnings: {}\n", input.diags.counts().1));
    write_stdout(&[text.as_bytes().into()])
}

/// Writes to standard output; a closed pipe (`| head`) is not an error.
fn write_stdout(parts: &[std::borrow::Cow<[u8]>]) -> Outcome {
    let mut out = std::io::stdout().lock();
    let written = parts.iter().try_for_each(|p| out.write_all(p));
    match written.and_then(|()| out.flush()) {
        Ok(()) => Outcome::Ok,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Outcome::Ok,
        Err(e) => {
            eprintln!("x3dbake: cannot write to standard output: {e}");
            Outcome::UsageOrIo
        }
    }
}

/// Bakes every input; several in parallel, with a progress line on a
/// terminal. Each input's messages are printed together when it is done.
fn run(job: &Job) -> Outcome {
    let total = job.inputs.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let worst = Mutex::new(Outcome::Ok);
    let progress = total > 1 && std::io::stderr().is_terminal();
    if let Target::Dir(dir) = &job.target
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        eprintln!("x3dbake: cannot create {}: {e}", dir.display());
        return Outcome::UsageOrIo;
    }
    let workers = job
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(total);
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::SeqCst);
            let Some(path) = job.inputs.get(i) else {
                break;
            };
            let (outcome, messages) = bake_one(job, path);
            // A poisoned lock only means another worker panicked;
            // the outcome it guards is still a plain value.
            let mut w = worst.lock().unwrap_or_else(|e| e.into_inner());
            *w = (*w).max(outcome);
            let n = done.fetch_add(1, Ordering::SeqCst) + 1;
            let mut err = std::io::stderr().lock();
            if progress {
                let _ = write!(err, "\r\x1b[K");
            }
            let _ = err.write_all(messages.as_bytes());
            if progress && n < total {
                let _ = write!(err, "[{n}/{total}] {path}");
            }
        }
    };
    std::thread::scope(|s| {
        for _ in 0..workers {
            // The stack a main thread has (8 MiB): the readers recurse
            // into nested nodes, up to their limit of 500. A worker that
            // cannot be started leaves its share to this thread.
            let worker = std::thread::Builder::new().stack_size(8 << 20);
            if worker.spawn_scoped(s, work).is_err() {
                work();
            }
        }
    });
    if progress {
        eprint!("\r\x1b[K");
    }
    worst.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Bakes one input; returns its outcome and the messages to print.
fn bake_one(job: &Job, path: &str) -> (Outcome, String) {
    let fail = |e: anyhow::Error| (Outcome::UsageOrIo, format!("x3dbake: {e:#}\n"));
    // Errors in the input, found reading it or building the glTF document.
    let invalid = |input: &Input| {
        let errors = input.diags.has_errors();
        errors.then(|| {
            (
                Outcome::InvalidInput,
                rendered(input, job.quiet, job.verbose),
            )
        })
    };
    let dest = match &job.target {
        Target::File(p) => Some(p.clone()),
        Target::Dir(d) => Some(cli::output_in(d, path, job.format)),
        Target::Stdout => None,
    };
    if let Some(dest) = &dest
        && path != "-"
        && output::same_file(Path::new(path), dest)
    {
        return fail(anyhow::anyhow!(
            "the output {} is the input: refusing to overwrite it",
            dest.display()
        ));
    }
    let Analysed {
        mut input,
        clips: mut found,
        ..
    } = match analyse(path, &job.clip_opts) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    if let Some(invalid) = invalid(&input) {
        return invalid;
    }
    if !job.clips.is_empty() {
        if let Some(missing) = job
            .clips
            .iter()
            .find(|n| !found.iter().any(|c| &c.name == *n))
        {
            let names: Vec<&str> = found.iter().map(|c| c.name.as_str()).collect();
            let mut msg = rendered(&input, job.quiet, job.verbose);
            msg.push_str(&format!(
                "x3dbake: {path}: no clip named `{missing}` (clips: {})\n",
                names.join(", ")
            ));
            return (Outcome::UsageOrIo, msg);
        }
        found.retain(|c| job.clips.contains(&c.name));
    }
    let rate = job.gltf_opts.rate;
    let longest = found.iter().map(|c| c.duration()).fold(0.0, f64::max);
    let span = job
        .timeline
        .map_or(longest, |(s, e)| e.unwrap_or(longest) - s.unwrap_or(0.0));
    if span.max(longest) * rate > MAX_SAMPLES {
        let msg = format!(
            "{path}: {} s at --rate {rate} would need more than {MAX_SAMPLES} samples a track",
            span.max(longest)
        );
        return fail(anyhow::anyhow!(msg));
    }
    // The glTF document outlives the files: a GLB or .bin writes its buffer.
    let mut doc = None;
    let files = match job.format {
        Format::Csv => {
            let timeline = job.timeline.map(|(start, end)| {
                let end = end.unwrap_or_else(|| csv::default_timeline_end(&found));
                (start.unwrap_or(0.0), end)
            });
            let opts = CsvOptions {
                rate,
                wide: job.wide,
                timeline,
            };
            let bytes = match csv::to_vec(&input.scene, &found, &opts, csv::MAX_BYTES) {
                Ok(b) => b,
                Err(e) => return fail(anyhow::anyhow!("{path}: {e}")),
            };
            vec![(dest.clone(), vec![bytes.into()])]
        }
        Format::Gltf | Format::Glb => {
            let (scene, sources) = (&input.scene, &input.sources);
            // Images are read relative to the file that names them.
            let mut images = |id: x3dbake::scene::NodeId, url: &str| {
                let from = &sources.get(scene.node(id).span.file).name;
                x3dbake::scene::link::Fetch::fetch(&mut FileFetch, from, url)
                    .ok()
                    .map(|(_, b)| b)
            };
            let doc = doc.insert(gltf::build(
                scene,
                &found,
                &job.gltf_opts,
                &mut images,
                &mut input.diags,
            ));
            if let Some(invalid) = invalid(&input) {
                return invalid;
            }
            match gltf_files(doc, job, dest.as_deref(), path) {
                Ok(f) => f,
                Err(e) => return fail(e),
            }
        }
    };
    let messages = rendered(&input, job.quiet, job.verbose);
    let outcome = match dest {
        None => files
            .iter()
            .map(|(_, parts)| write_stdout(parts))
            .max()
            .unwrap_or(Outcome::Ok),
        Some(_) => {
            let files: Vec<(PathBuf, output::Parts)> = files
                .into_iter()
                .filter_map(|(p, b)| Some((p?, b)))
                .collect();
            match output::write_all_atomic(&files) {
                Ok(()) => Outcome::Ok,
                Err(e) => return (Outcome::UsageOrIo, format!("{messages}x3dbake: {e:#}\n")),
            }
        }
    };
    (outcome, messages)
}

/// The files of a glTF output: a .glb, a .gltf with its buffer embedded,
/// or a .gltf and a .bin beside it. `None` as a path is standard output.
#[allow(clippy::type_complexity)]
fn gltf_files<'a>(
    doc: &'a mut gltf::Document,
    job: &Job,
    dest: Option<&Path>,
    input: &str,
) -> anyhow::Result<Vec<(Option<PathBuf>, output::Parts<'a>)>> {
    let dest_buf = dest.map(Path::to_path_buf);
    Ok(match job.format {
        Format::Glb => {
            doc.set_buffer_uri(None);
            let parts = x3dbake::write::glb::parts(&doc.json(), &doc.bin)
                .context("cannot build the GLB")?;
            vec![(dest_buf, parts)]
        }
        _ if job.embed || doc.bin.is_empty() || dest.is_none() => {
            let uri = (!doc.bin.is_empty()).then(|| doc.data_uri());
            doc.set_buffer_uri(uri);
            vec![(dest_buf, vec![doc.json().into_bytes().into()])]
        }
        _ => {
            // dest is Some here: standard output took the arm above.
            let out = dest.expect("a file output");
            let bin_path = out.with_extension("bin");
            let bin_name = bin_path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .with_context(|| format!("cannot name a .bin beside {}", out.display()))?;
            anyhow::ensure!(
                !output::same_file(Path::new(input), &bin_path),
                "the buffer {} would overwrite the input",
                bin_path.display()
            );
            doc.set_buffer_uri(Some(uri_escape(&bin_name)));
            vec![
                (dest_buf, vec![doc.json().into_bytes().into()]),
                (Some(bin_path), vec![doc.bin.as_slice().into()]),
            ]
        }
    })
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
