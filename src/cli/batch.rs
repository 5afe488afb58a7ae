//! A batch: every input baked, several at once, each into its own output
//! (or standard output), with a progress line on a terminal.

use super::args::{Format, Job, ReportTo, Target};
use super::{Outcome, analyse, messages, output, write_stdout};
use anyhow::Context as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use x3dbake::Bake;
use x3dbake::FileFetch;
use x3dbake::csv::{self, CsvOptions};
use x3dbake::gltf;
use x3dbake::internal::par;

/// Bakes every input; several in parallel, with a progress line on a
/// terminal. Each input's messages are printed together when it is done.
pub fn run(job: &Job) -> Outcome {
    let total = job.inputs.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let worst = Mutex::new(Outcome::Ok);
    // Per input, the files its bake read (for --depfile).
    let reads: Vec<Mutex<Option<Vec<PathBuf>>>> = (0..total).map(|_| Mutex::new(None)).collect();
    let progress = total > 1 && std::io::stderr().is_terminal();
    if let Target::Dir(dir) = &job.target
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        messages::error(format!("cannot create {}: {e}", dir.display()));
        return Outcome::UsageOrIo;
    }
    // Standard output holds the inputs' tables one after another, in the
    // order given: one at a time.
    let cores = par::budget(0);
    let workers = match job.target {
        Target::Stdout => 1,
        _ => job.jobs.unwrap_or(cores).min(total),
    };
    // Each worker's share of the cores for its own threads.
    let share = (cores / workers.max(1)).max(1);
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::SeqCst);
            let Some(path) = job.inputs.get(i).map(|input| input.path.as_str()) else {
                break;
            };
            // Every step of this bake (parsing, fitting) within the
            // worker's share: workers × share stays within the cores.
            let mut read = Vec::new();
            let (outcome, messages) = par::with_share(share, || bake_one(job, i, path, &mut read));
            if outcome == Outcome::Ok {
                *reads[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(read);
            }
            // A poisoned lock only means another worker panicked;
            // the outcome it guards is still a plain value.
            let mut w = worst.lock().unwrap_or_else(|e| e.into_inner());
            *w = (*w).max(outcome);
            let n = done.fetch_add(1, Ordering::SeqCst) + 1;
            let mut err = std::io::stderr().lock();
            if progress {
                let _ = write!(err, "\r\x1b[K");
            }
            messages::eprint(&messages);
            if progress && n < total {
                let _ = write!(err, "[{n}/{total}] {}", messages::printable(path));
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
    let worst = worst.into_inner().unwrap_or_else(|e| e.into_inner());
    let Some(depfile) = &job.depfile else {
        return worst;
    };
    let reads = reads
        .into_iter()
        .map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()));
    let text = depfile_rules(job, reads);
    let file = [(depfile.clone(), vec![text.into_bytes().into()])];
    match output::write_all_atomic(&file, job.sync) {
        Ok(()) => worst,
        Err(e) => {
            messages::error(format!("{e:#}"));
            worst.max(Outcome::UsageOrIo)
        }
    }
}

/// Makefile rules, one an output written: the output, then the input and
/// the files its bake read (`--depfile`).
fn depfile_rules(job: &Job, reads: impl Iterator<Item = Option<Vec<PathBuf>>>) -> String {
    // (make's escapes: a space or # with a backslash, $ doubled.)
    let escape = |p: &Path| {
        let mut s = String::new();
        for c in p.to_string_lossy().chars() {
            match c {
                ' ' | '#' => s.extend(['\\', c]),
                '$' => s.push_str("$$"),
                c => s.push(c),
            }
        }
        s
    };
    let mut text = String::new();
    let each = job.inputs.iter().zip(&job.outputs).zip(reads);
    for ((input, output), read) in each {
        let (Some(output), Some(read)) = (output, read) else {
            continue;
        };
        text.push_str(&escape(output));
        text.push(':');
        let mut deps: Vec<&Path> = vec![Path::new(&input.path)];
        for r in &read {
            if !deps.contains(&r.as_path()) {
                deps.push(r);
            }
        }
        for dep in deps {
            text.push_str(" \\\n  ");
            text.push_str(&escape(dep));
        }
        text.push('\n');
    }
    text
}

/// Bakes one input; returns its outcome and the messages to print.
/// `read` gets the files the bake read besides the input, once its output
/// is written.
fn bake_one(job: &Job, index: usize, path: &str, read: &mut Vec<PathBuf>) -> (Outcome, String) {
    let fail = |e: anyhow::Error| (Outcome::UsageOrIo, format!("error: {e:#}\n"));
    // Errors in the input, found reading it or building the glTF document.
    let invalid = |bake: &Bake| {
        let errors = bake.diags.has_errors();
        errors.then(|| {
            (
                Outcome::InvalidInput,
                messages::rendered(bake, job.quiet, job.verbose),
            )
        })
    };
    let dest = job.outputs[index].clone();
    // What the scene reads (Inline, EXTERNPROTO, textures) is never
    // written over either: checked once all is read, before writing.
    let mut fetch = match job.reading.fetch() {
        Ok(f) => f,
        Err(e) => return fail(anyhow::anyhow!("cannot read the --root folder: {e}")),
    };
    let unread = |fetch: &FileFetch| {
        let mut writes = job.writes[index].clone();
        let depfile = job.depfile.iter();
        writes.extend(depfile.map(|d| super::paths::Write::new("--depfile", d.clone())));
        super::paths::check(fetch.read(), &writes)
            .map_err(|e| (Outcome::UsageOrIo, format!("error: {path}: {e}\n")))
    };
    let limits = job.gltf_opts.limits;
    let mut bake = match analyse(path, job.clip_opts, job.world.as_ref(), limits, &mut fetch) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    if let Some(invalid) = invalid(&bake) {
        return invalid;
    }
    let timeline = match bake.ready(&job.clips, job.timeline) {
        Ok(t) => t,
        Err(e) => {
            let mut msg = messages::rendered(&bake, job.quiet, job.verbose);
            msg.push_str(&format!("error: {path}: --clip: {e}\n"));
            return (Outcome::UsageOrIo, msg);
        }
    };
    // The glTF document outlives the files: a GLB or .bin writes its buffer.
    let mut doc = None;
    let files = match job.format {
        Format::Csv => {
            let opts = CsvOptions {
                rate: job.gltf_opts.keys.rate,
                wide: job.wide,
                timeline,
            };
            let messages = messages::rendered(&bake, job.quiet, job.verbose);
            if let Some(denied) = denied(job, &bake, path, &messages) {
                return denied;
            }
            if let Err(refused) = unread(&fetch) {
                return refused;
            }
            if let Err(msg) = make_parent(job, dest.as_deref(), &messages) {
                return (Outcome::UsageOrIo, msg);
            }
            // Streamed: rows are written as they are computed.
            let written = match &dest {
                None => {
                    let mut out =
                        std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
                    // Several inputs in one table: a file column, the header once.
                    let mut w: Box<dyn Write> = if !job.one_input() {
                        Box::new(csv::FileColumn::new(&mut out, path, index == 0))
                    } else {
                        Box::new(&mut out)
                    };
                    let result = bake.write_csv(&opts, &mut w).and_then(|()| Ok(w.flush()?));
                    drop(w);
                    match result.and_then(|()| Ok(out.flush()?)) {
                        Err(x3dbake::Error::Write(e))
                            if e.kind() == std::io::ErrorKind::BrokenPipe =>
                        {
                            Ok(())
                        }
                        r => r.map_err(|e| anyhow::anyhow!("{path}: {e}")),
                    }
                }
                Some(d) => output::write_streamed(d, job.sync, |w| {
                    bake.write_csv(&opts, w)
                        .map_err(|e| anyhow::anyhow!("{path}: {e}"))
                }),
            };
            return match written {
                Ok(()) => {
                    read.extend_from_slice(fetch.read());
                    (Outcome::Ok, messages)
                }
                Err(e) => (Outcome::UsageOrIo, format!("{messages}error: {e:#}\n")),
            };
        }
        Format::Gltf | Format::Glb => {
            // World time: one clip of the whole scene.
            if let Some(span) = timeline {
                bake.play_timeline(span);
            }
            // A buffer to be written whole to a file (a .glb or a .bin) is
            // moved out of memory as it is made once larger than a quarter
            // of the input's text (at least 2 MiB, at most 64 MiB), into a
            // file that becomes the output where it can (a GLB's with room
            // for its head); an embedded one is not (docs/performance.md).
            let input = bake.sources.get(bake.file).text_len();
            let glb = job.format == Format::Glb;
            let spill = (glb || !job.embed && dest.is_some()).then(|| {
                let near = dest.clone();
                // The file it becomes: the .glb, or the .bin beside a .gltf.
                let becomes = dest.as_ref().map(|d| {
                    if glb {
                        d.clone()
                    } else {
                        d.with_extension("bin")
                    }
                });
                gltf::Spill {
                    open: Box::new(move || output::spill_file(near.as_deref())),
                    after: gltf::spill_after(input),
                    room: glb,
                    // A file replaced on ext4 is flushed whole at the rename
                    // (its "auto_da_alloc"): started as it is written, that
                    // is done on the writer's thread.
                    write_back: job.sync || becomes.is_some_and(|b| output::replaces(&b)),
                }
            });
            let doc = match bake.gltf_spilled(&job.gltf_opts, Some(&mut fetch), spill) {
                Ok(d) => doc.insert(d),
                Err(e) => return fail(anyhow::anyhow!("{path}: {e}")),
            };
            if let Some(invalid) = invalid(&bake) {
                return invalid;
            }
            if let Err(refused) = unread(&fetch) {
                return refused;
            }
            match gltf_files(doc, job, dest.as_deref()) {
                Ok(f) => f,
                Err(e) => return fail(e),
            }
        }
    };
    let messages = messages::rendered(&bake, job.quiet, job.verbose);
    if let Some(denied) = denied(job, &bake, path, &messages) {
        return denied;
    }
    let outcome = match dest {
        None => files
            .iter()
            .map(|(_, parts)| write_stdout(parts))
            .max()
            .unwrap_or(Outcome::Ok),
        Some(_) => {
            let files: Vec<(PathBuf, gltf::Parts)> = files
                .into_iter()
                .filter_map(|(p, b)| Some((p?, b)))
                .collect();
            if let Err(msg) = make_parent(job, dest.as_deref(), &messages) {
                return (Outcome::UsageOrIo, msg);
            }
            match output::write_all_atomic(&files, job.sync) {
                Ok(()) => {
                    read.extend_from_slice(fetch.read());
                    Outcome::Ok
                }
                Err(e) => return (Outcome::UsageOrIo, format!("{messages}error: {e:#}\n")),
            }
        }
    };
    if let (Some(to), Some(doc)) = (&job.report, &doc) {
        let all = messages::rendered(&bake, false, false);
        let html = bake.report_html(doc, path, job.gltf_opts.keys.tolerance, &all);
        match to {
            ReportTo::Stdout => {
                let written = write_stdout(&[html.as_bytes().into()]);
                return (outcome.max(written), messages);
            }
            ReportTo::File(page) => {
                let page = [(page.clone(), vec![html.into_bytes().into()])];
                if let Err(e) = output::write_all_atomic(&page, job.sync) {
                    return (Outcome::UsageOrIo, format!("{messages}error: {e:#}\n"));
                }
            }
        }
    }
    // The process ends after its one input: the scene and the document
    // are left to it rather than freed block by block (1.4 ms of the 10
    // MB bigscene bake; docs/performance.md).
    if job.one_input() {
        std::mem::forget(bake);
        std::mem::forget(doc);
    }
    (outcome, messages)
}

/// With --deny-warnings, an input with warnings: its outcome and message
/// (nothing is written).
fn denied(job: &Job, bake: &Bake, path: &str, messages: &str) -> Option<(Outcome, String)> {
    let warnings = bake.diags.counts().1;
    if !job.deny_warnings || warnings == 0 {
        return None;
    }
    let s = if warnings == 1 { "" } else { "s" };
    Some((
        Outcome::InvalidInput,
        format!(
            "{messages}error: {path}: {warnings} warning{s} with --deny-warnings: nothing written\n"
        ),
    ))
}

/// A tree baked into a folder: the input's folder under it, made.
fn make_parent(job: &Job, dest: Option<&Path>, messages: &str) -> Result<(), String> {
    match dest.and_then(Path::parent) {
        Some(parent) if matches!(job.target, Target::Dir(_)) => std::fs::create_dir_all(parent)
            .map_err(|e| format!("{messages}error: cannot create {}: {e}\n", parent.display())),
        _ => Ok(()),
    }
}

/// The files of a glTF output: a .glb, a .gltf with its buffer embedded,
/// or a .gltf and a .bin beside it. `None` as a path is standard output.
fn gltf_files<'a>(
    doc: &'a mut gltf::Document,
    job: &Job,
    dest: Option<&Path>,
) -> anyhow::Result<Vec<(Option<PathBuf>, gltf::Parts<'a>)>> {
    let layout = match (job.format, dest) {
        (Format::Glb, _) => gltf::Layout::Glb,
        (_, Some(out)) if !job.embed => {
            let bin_name = out
                .with_extension("bin")
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .with_context(|| format!("cannot name a .bin beside {}", out.display()))?;
            gltf::Layout::Beside { bin_name }
        }
        _ => gltf::Layout::Embedded,
    };
    let files = doc
        .files(&layout)
        .context("cannot lay the glTF document out in files")?;
    let mut out = vec![(dest.map(Path::to_path_buf), files.main)];
    if let (Some(bin), Some(dest)) = (files.bin, dest) {
        out.push((Some(dest.with_extension("bin")), bin));
    }
    Ok(out)
}
