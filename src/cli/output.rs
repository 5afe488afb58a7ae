//! Writing output files atomically: every file of one output is first
//! written beside its destination under a temporary name, and only when all
//! are complete are they renamed into place. On any error the temporary
//! files are removed and what was at the destinations is untouched.
//!
//! That is what a reader of the destination ever sees: the old file or the
//! whole new one, whatever happens to x3dbake. With `sync` the files are
//! also flushed to disk before the rename and their folder after it, so
//! that the new outputs survive a power failure or a system crash too
//! (without it, a crash soon after may leave them empty or missing, as with
//! most tools that write files).

use anyhow::{Context as _, Result};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use x3dbake::gltf::Parts;

/// Temporary files being written, removed by [`remove_temporaries`] when
/// the process is interrupted.
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn temporaries() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A poisoned lock only means a writer panicked; the list is still valid.
    TEMPORARIES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes every temporary file still being written (on Ctrl-C, SIGTERM or
/// SIGHUP: see main), so that an interrupted bake leaves nothing behind.
pub fn remove_temporaries() {
    for t in temporaries().drain(..) {
        let _ = fs::remove_file(t);
    }
}

/// An unnamed file to move a glTF buffer to as it is made (see
/// `gltf::build`): in `near`'s folder, on the output's file system, where it
/// can become the output itself (see [`write_all_atomic`]; so it has a
/// new file's permissions), else in the temporary folder. None where
/// neither takes one (the buffer then stays in memory).
#[cfg(target_os = "linux")]
pub fn spill_file(near: Option<&Path>) -> Option<fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let near = near.map(followed);
    let folder = near.as_deref().map(folder_of);
    let unnamed = |dir: &Path| {
        fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_TMPFILE)
            .mode(0o666)
            .open(dir)
            .ok()
    };
    folder
        .and_then(unnamed)
        .or_else(|| unnamed(&std::env::temp_dir()))
}

#[cfg(not(target_os = "linux"))]
pub fn spill_file(_: Option<&Path>) -> Option<fs::File> {
    None
}

/// A temporary file beside its destination, listed for
/// [`remove_temporaries`] while it exists: removed when dropped, unless
/// [`Temporary::commit`] renamed it into place. While it is written it is
/// held under an exclusive lock, which tells a later run that it is not
/// left over (see [`remove_stale`]).
struct Temporary {
    path: PathBuf,
    dest: PathBuf,
    committed: bool,
    held: Option<fs::File>,
}

impl Temporary {
    fn new(dest: &Path) -> Temporary {
        remove_stale(dest);
        let path = temp_path(dest);
        temporaries().push(path.clone());
        Temporary {
            path,
            dest: dest.to_path_buf(),
            committed: false,
            held: None,
        }
    }

    /// Creates the file, locked.
    fn create(&mut self) -> std::io::Result<fs::File> {
        let file = fs::File::create(&self.path)?;
        self.hold(&file)?;
        Ok(file)
    }

    /// Locks the file (open as `file`) until it is renamed or removed.
    fn hold(&mut self, file: &fs::File) -> std::io::Result<()> {
        let held = file.try_clone()?;
        held.lock()?;
        self.held = Some(held);
        Ok(())
    }

    /// Renames it into place; with `sync`, flushes the folder's entry of
    /// it to disk.
    fn commit(mut self, sync: bool) -> Result<()> {
        let context = || format!("cannot write {}", self.dest.display());
        fs::rename(&self.path, &self.dest).with_context(context)?;
        self.committed = true;
        if sync {
            sync_folder(&self.dest).with_context(context)?;
        }
        Ok(())
    }
}

/// Folders already cleared of stale temporary files in this run.
static CLEARED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes, once a run for each folder written into, the temporary files
/// that runs killed outright (SIGKILL, a crash) left there: named as
/// [`temp_path`] names them, of a process that is gone, and not locked by
/// a writer. Only on Linux, where /proc tells which processes live.
fn remove_stale(dest: &Path) {
    if !cfg!(target_os = "linux") || !Path::new("/proc/self").exists() {
        return;
    }
    let folder = folder_of(dest).to_path_buf();
    {
        let mut cleared = CLEARED.lock().unwrap_or_else(|e| e.into_inner());
        if cleared.contains(&folder) {
            return;
        }
        cleared.push(folder.clone());
    }
    let Ok(entries) = fs::read_dir(&folder) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = stale_pid(&name.to_string_lossy()) else {
            continue;
        };
        if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let path = e.path();
        let unlocked = fs::File::open(&path).is_ok_and(|f| f.try_lock().is_ok());
        if unlocked {
            let _ = fs::remove_file(&path);
        }
    }
}

/// The process id in a name [`temp_path`] made: `.NAME.x3dbake-PID.tmp`.
fn stale_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, pid) = rest.rsplit_once(".x3dbake-")?;
    pid.parse().ok()
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.path);
        }
        temporaries().retain(|t| *t != self.path);
    }
}

/// True when writing `dest` would replace a file (through a link, the file
/// it names).
pub fn replaces(dest: &Path) -> bool {
    fs::metadata(followed(dest)).is_ok_and(|m| m.is_file())
}

/// Files to write, each a destination and its bytes: all written, then all
/// renamed into place (flushed to disk first with `sync`). A file whose
/// glTF buffer was moved out as it was made, into room left for what
/// precedes it, is finished in that file, which is then named (see
/// [`in_place`]); the others are written whole. A destination that is not
/// a file (a device such as /dev/null, a named pipe) is written into
/// directly.
pub fn write_all_atomic(files: &[(PathBuf, Parts)], sync: bool) -> Result<()> {
    let mut temps = Vec::new();
    for (named, bytes) in files {
        let context = || format!("cannot write {}", named.display());
        let dest = &followed(named);
        if let Some(mut stream) = stream_at(dest).with_context(context)? {
            bytes
                .iter()
                .try_for_each(|part| part.write_all(&mut stream))
                .with_context(context)?;
            continue;
        }
        let mut temp = Temporary::new(dest);
        if in_place(bytes, &mut temp, sync).with_context(context)? {
            temps.push(temp);
            continue;
        }
        let mut write = || -> std::io::Result<()> {
            let mut f = temp.create()?;
            write_parts(&mut f, bytes, sync)?;
            if sync {
                f.sync_all()?;
            }
            Ok(())
        };
        write().with_context(context)?;
        temps.push(temp);
    }
    temps.into_iter().try_for_each(|t| t.commit(sync))
}

/// One file written as it is made: through a buffer into a temporary file
/// beside `dest`, renamed into place only when `write` has finished (a
/// failure or an interrupt leaves what was at `dest`); flushed to disk
/// first with `sync`. A destination that is not a file is written into
/// directly.
pub fn write_streamed(
    dest: &Path,
    sync: bool,
    write: impl FnOnce(&mut dyn std::io::Write) -> Result<()>,
) -> Result<()> {
    let context = || format!("cannot write {}", dest.display());
    let dest = &followed(dest);
    if let Some(stream) = stream_at(dest).with_context(context)? {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, stream);
        write(&mut out)?;
        return out.flush().with_context(context);
    }
    let mut temp = Temporary::new(dest);
    let file = temp.create().with_context(context)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    write(&mut out)?;
    let file = out
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(context)?;
    if sync {
        file.sync_all().with_context(context)?;
    }
    drop(file);
    temp.commit(sync)
}

/// Where a symbolic link leads (a link such as /dev/stdout to
/// /proc/self/fd/1 included), so that the file it names is written rather
/// than the link replaced by a file; any other path as it is.
fn followed(dest: &Path) -> PathBuf {
    match fs::symlink_metadata(dest) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(dest).unwrap_or_else(|_| {
            // A link to nothing yet: the path it names (relative to its
            // folder), made.
            let to = fs::read_link(dest).unwrap_or_default();
            dest.parent().unwrap_or(Path::new("")).join(to)
        }),
        _ => dest.to_path_buf(),
    }
}

/// `dest` opened for writing when it exists and is not a file or a folder
/// (a device such as /dev/null, a named pipe, a socket): renaming a
/// temporary file onto it would replace it. None for a file (or nothing).
fn stream_at(dest: &Path) -> std::io::Result<Option<fs::File>> {
    match fs::metadata(dest) {
        Ok(m) if !m.is_file() && !m.is_dir() => {
            fs::OpenOptions::new().write(true).open(dest).map(Some)
        }
        _ => Ok(None),
    }
}

/// Finishes a file in the file its glTF buffer was moved to as it was made,
/// when the parts before the buffer fill exactly the room left before it
/// (a GLB's head, nothing before a .bin), and names it `path`: the buffer,
/// most of the output, is then never copied. False, the parts to be
/// written as usual, when they do not fit or the file cannot be named
/// there (it is on another file system, or /proc is missing), and
/// elsewhere than Linux.
#[cfg(target_os = "linux")]
fn in_place(parts: &Parts, temp: &mut Temporary, sync: bool) -> std::io::Result<bool> {
    use x3dbake::gltf::Part;
    let mut spilled = parts.iter().filter_map(|p| match p {
        Part::Spilled(s) => Some(*s),
        Part::Bytes(_) => None,
    });
    let (Some(s), None) = (spilled.next(), spilled.next()) else {
        return Ok(false);
    };
    let before = parts.iter().take_while(|p| matches!(p, Part::Bytes(_)));
    if before.map(Part::len).sum::<usize>() as u64 != s.at {
        return Ok(false);
    }
    let mut offset = 0;
    for part in parts {
        if let Part::Bytes(bytes) = part {
            std::os::unix::fs::FileExt::write_all_at(&s.file, bytes, offset)?;
            if sync {
                x3dbake::internal::sys::start_write_back(&s.file, offset, bytes.len() as u64);
            }
        }
        offset += part.len() as u64;
    }
    if sync {
        s.file.sync_all()?;
    }
    temp.hold(&s.file)?;
    x3dbake::internal::sys::link_unnamed(&s.file, &temp.path)
}

#[cfg(not(target_os = "linux"))]
fn in_place(_: &Parts, _: &mut Temporary, _: bool) -> std::io::Result<bool> {
    Ok(false)
}

/// Writes the parts. With `sync`, in pieces of a few megabytes, on Linux
/// asking the kernel to start writing each piece to disk as soon as it is
/// in the page cache: the closing `fsync` then waits for little more than
/// the last piece instead of for the whole file (a hint only; `fsync`
/// still decides).
fn write_parts(f: &mut fs::File, parts: &Parts, sync: bool) -> std::io::Result<()> {
    const PIECE: usize = 4 << 20;
    let mut offset = 0;
    for part in parts {
        if sync {
            part.write_to(f, PIECE, |f, at, len| {
                x3dbake::internal::sys::start_write_back(f, (offset + at) as u64, len as u64);
            })?;
        } else {
            part.write_all(f)?;
        }
        offset += part.len();
    }
    Ok(())
}

/// Flushes the folder holding `path` to disk (its entries: a file renamed
/// into it). Only where a folder can be opened as a file (Unix).
#[cfg(unix)]
fn sync_folder(path: &Path) -> std::io::Result<()> {
    fs::File::open(folder_of(path))?.sync_all()
}

/// The folder holding `path` (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(not(unix))]
fn sync_folder(_: &Path) -> std::io::Result<()> {
    Ok(())
}

pub fn temp_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dest.with_file_name(format!(".{name}.x3dbake-{}.tmp", std::process::id()))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::unix::fs::{FileExt as _, MetadataExt as _};
    use x3dbake::gltf::{Part, Spilled};

    /// A buffer moved to a file beside the destination, 8 bytes after 4 KiB
    /// of room.
    fn spilled(dest: &Path) -> Spilled {
        let file = spill_file(Some(dest)).expect("an unnamed file");
        file.write_all_at(b"BUFFER..", 4096).unwrap();
        Spilled {
            file,
            at: 4096,
            len: 8,
        }
    }

    /// Parts whose head fills the room make the buffer's file the output
    /// (the same inode: the buffer is not copied), replacing what was
    /// there; a head that does not fill it is written with the buffer
    /// copied after it. Either way nothing else is left in the folder.
    #[test]
    fn a_buffer_file_becomes_the_output_when_its_head_fills_the_room() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("a.glb");
        for head in [4096, 100] {
            std::fs::write(&dest, "before").unwrap();
            let s = spilled(&dest);
            let parts = vec![
                vec![b'h'; head].into(),
                Part::Spilled(&s),
                b"tail"[..].into(),
            ];
            write_all_atomic(&[(dest.clone(), parts)], false).unwrap();
            let mut want = vec![b'h'; head];
            want.extend(b"BUFFER..tail");
            assert!(fs::read(&dest).unwrap() == want, "head {head}");
            let same = fs::metadata(&dest).unwrap().ino() == s.file.metadata().unwrap().ino();
            assert_eq!(same, head == 4096, "head {head}");
            let names: Vec<_> = fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names, ["a.glb"]);
        }
    }
}
