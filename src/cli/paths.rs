//! Where a run reads and writes: folders given as inputs walked for X3D
//! files, each input's output named inside `-o DIR/`, and every path the
//! run writes checked against every file it reads and every other path it
//! writes, before anything is written.

use std::fs;
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};
use x3dbake::internal::hash::HashMap;

/// One input file: as given (or found under a folder given), and the folder
/// its place in a batch's output tree is taken from.
#[derive(Debug, Clone)]
pub struct InputFile {
    /// The path to read (`-`: standard input).
    pub path: String,
    /// The folder given that it was found under; None for a file given.
    walked_from: Option<PathBuf>,
}

impl InputFile {
    pub fn is_stdin(&self) -> bool {
        self.path == "-"
    }
}

/// The extensions of X3D files, each also gzipped (`.gz` after it).
const EXTENSIONS: [&str; 7] = ["x3d", "x3dv", "wrl", "x3dj", "x3dz", "x3dvz", "wrz"];

/// Extensions of files looked into when a folder is walked: taken when
/// their first bytes say X3D or VRML.
const SNIFFED: [&str; 4] = ["json", "xml", "gz", "vrml"];

/// The inputs given, a folder replaced by every X3D file under it (in name
/// order, hidden entries and linked folders skipped): by extension, and
/// for `.json`, `.xml`, `.vrml` and other `.gz` files by their first bytes.
pub fn expand(given: &[String]) -> Result<Vec<InputFile>, String> {
    let mut inputs = Vec::new();
    for g in given {
        if g != "-" && Path::new(g).is_dir() {
            let before = inputs.len();
            walk(Path::new(g), Path::new(g), &mut inputs)
                .map_err(|e| format!("cannot read the folder {g}: {e}"))?;
            if inputs.len() == before {
                return Err(format!(
                    "no X3D file under {g} (.x3d .x3dv .wrl .x3dj .x3dz .x3dvz .wrz, gzipped too)"
                ));
            }
        } else {
            inputs.push(InputFile {
                path: g.clone(),
                walked_from: None,
            });
        }
    }
    Ok(inputs)
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<InputFile>) -> std::io::Result<()> {
    let mut entries: Vec<fs::DirEntry> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(fs::DirEntry::file_name);
    for e in entries {
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = e.path();
        let kind = e.file_type()?;
        if kind.is_dir() {
            walk(root, &path, out)?;
        } else if (kind.is_file() || kind.is_symlink() && path.is_file()) && is_x3d(&path) {
            out.push(InputFile {
                path: path.to_string_lossy().into_owned(),
                walked_from: Some(root.to_path_buf()),
            });
        }
    }
    Ok(())
}

/// True for a file an X3D browser would read: an X3D extension, or a
/// sniffed one whose first bytes are X3D.
fn is_x3d(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let inner = name.strip_suffix(".gz").unwrap_or(&name);
    let ext = inner.rsplit_once('.').map_or("", |(_, e)| e);
    if EXTENSIONS.contains(&ext) {
        return true;
    }
    let sniffed = name.rsplit_once('.').map_or("", |(_, e)| e);
    SNIFFED.contains(&sniffed) && looks_like_x3d(path)
}

/// The first 4 KiB (decompressed when gzipped) hold an X3D or VRML header,
/// an `<X3D` element or an `"X3D"` JSON member.
fn looks_like_x3d(path: &Path) -> bool {
    let mut head = Vec::with_capacity(4096);
    let Ok(file) = fs::File::open(path) else {
        return false;
    };
    let mut raw = Vec::with_capacity(4096);
    if file.take(4096).read_to_end(&mut raw).is_err() {
        return false;
    }
    if x3dbake::input::is_gzip(&raw) {
        let Ok(file) = fs::File::open(path) else {
            return false;
        };
        let _ = flate2::read::GzDecoder::new(file)
            .take(4096)
            .read_to_end(&mut head);
    } else {
        head = raw;
    }
    let text = String::from_utf8_lossy(&head);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    text.starts_with("#X3D")
        || text.starts_with("#VRML V2")
        || text.contains("<X3D")
        || text.starts_with('{') && text.contains("\"X3D\"")
}

/// An input's name with its X3D extension (and `.gz`) taken off:
/// `scene.x3dv.gz` → `scene`, `my.scene.x3d` → `my.scene`; another
/// extension taken off as it is (`scene.json` → `scene`).
pub fn stem(input: &str) -> String {
    if input == "-" {
        return "stdin".into();
    }
    let name = Path::new(input)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let inner = strip_suffix_ignoring_case(&name, ".gz").unwrap_or(&name);
    let stem = match inner.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => inner,
    };
    if stem.is_empty() {
        "scene".into()
    } else {
        stem.into()
    }
}

fn strip_suffix_ignoring_case<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = s.len().checked_sub(suffix.len())?;
    (s.is_char_boundary(cut) && s[cut..].eq_ignore_ascii_case(suffix)).then(|| &s[..cut])
}

/// The output files of inputs baked into the folder `dir`, each
/// `STEM.EXT` inside it, never outside:
/// - a file's folder relative to the folder all inputs share (the inputs of
///   one folder go into `dir` itself, a tree of them into the same tree);
/// - a walked folder's files keep their place under it;
/// - two inputs of one folder and one stem (`a.x3d`, `a.wrl`) keep their
///   whole names (`a.x3d.glb`, `a.wrl.glb`);
/// - any other two outputs at one path are refused, naming both inputs.
pub fn outputs_in(dir: &Path, inputs: &[InputFile], ext: &str) -> Result<Vec<PathBuf>, String> {
    // Each input's place: its folder, and the folder its layout starts at.
    let places: Vec<Option<(PathBuf, PathBuf)>> = inputs
        .iter()
        .map(|i| {
            (!i.is_stdin()).then(|| {
                let folder = normal(Path::new(&i.path).parent().unwrap_or(Path::new("")));
                let base = i.walked_from.as_deref().map_or(folder.clone(), normal);
                (folder, base)
            })
        })
        .collect();
    let mut common: Option<PathBuf> = None;
    for (_, base) in places.iter().flatten() {
        common = Some(match common {
            None => base.clone(),
            Some(c) => c
                .components()
                .zip(base.components())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    let below: Vec<PathBuf> = places
        .iter()
        .map(|p| match (p, &common) {
            (Some((folder, _)), Some(c)) => {
                let rel = folder.strip_prefix(c).unwrap_or(folder);
                // Only names: never `..`, a root or a drive.
                rel.components()
                    .filter_map(|c| match c {
                        Component::Normal(n) => Some(n),
                        _ => None,
                    })
                    .collect()
            }
            _ => PathBuf::new(),
        })
        .collect();
    let mut outputs: Vec<PathBuf> = inputs
        .iter()
        .zip(&below)
        .map(|(i, b)| dir.join(b).join(format!("{}.{ext}", stem(&i.path))))
        .collect();
    // Inputs of one folder and one stem keep their whole names.
    let mut order: Vec<usize> = (0..outputs.len()).collect();
    order.sort_by(|&a, &b| outputs[a].cmp(&outputs[b]));
    let mut clashing = vec![false; outputs.len()];
    for w in order.windows(2) {
        if outputs[w[0]] == outputs[w[1]] {
            clashing[w[0]] = true;
            clashing[w[1]] = true;
        }
    }
    for (i, out) in outputs.iter_mut().enumerate() {
        if clashing[i] {
            let name = Path::new(&inputs[i].path)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "stdin".into());
            out.set_file_name(format!("{name}.{ext}"));
        }
    }
    let mut order: Vec<usize> = (0..outputs.len()).collect();
    order.sort_by(|&a, &b| outputs[a].cmp(&outputs[b]));
    if let Some(w) = order.windows(2).find(|w| outputs[w[0]] == outputs[w[1]]) {
        let (a, b) = (w[0].min(w[1]), w[0].max(w[1]));
        return Err(format!(
            "{} and {} would both be written to {}",
            inputs[a].path,
            inputs[b].path,
            outputs[a].display()
        ));
    }
    Ok(outputs)
}

/// A path made absolute, `.` and `..` taken lexically (links are not
/// followed: the output tree mirrors the names given).
fn normal(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// What a run writes, named for messages (`-o`, `--report`, the buffer
/// beside a .gltf), and where.
#[derive(Debug, Clone)]
pub struct Write {
    pub what: String,
    pub path: PathBuf,
}

impl Write {
    pub fn new(what: &str, path: PathBuf) -> Write {
        Write {
            what: what.into(),
            path,
        }
    }
}

/// One file as the file system knows it: the same for every path that
/// reaches it (a symbolic or hard link included), or, for a file not
/// made yet, its folder's real path and its name.
#[derive(Debug, PartialEq, Eq, Hash)]
enum Identity {
    /// Its device and inode.
    #[cfg(unix)]
    Inode(u64, u64),
    /// Its real path (elsewhere than Unix), or for a file not made yet
    /// its folder's real path and its name.
    Path(PathBuf),
}

fn identity(path: &Path) -> Identity {
    if let Ok(m) = fs::metadata(path) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            return Identity::Inode(m.dev(), m.ino());
        }
        #[cfg(not(unix))]
        {
            let _ = m;
            if let Ok(p) = fs::canonicalize(path) {
                return Identity::Path(p);
            }
        }
    }
    // Not there yet: where it would be made (a dangling link's target, in
    // its folder as it really is).
    let path = match fs::read_link(path) {
        Ok(to) => path.parent().unwrap_or(Path::new("")).join(to),
        Err(_) => path.to_path_buf(),
    };
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let real = fs::canonicalize(folder).unwrap_or_else(|_| normal(folder));
    Identity::Path(real.join(path.file_name().unwrap_or_default()))
}

/// True for a destination that is a device, a pipe or a socket: written
/// into, never replaced, so any number of outputs may go there.
pub fn is_stream(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Refuses a run that would write over a file it reads or write one file
/// twice: every write against every read file and every other write, the
/// same file through any link. The message names both and says what to do.
pub fn check(reads: &[PathBuf], writes: &[Write]) -> Result<(), String> {
    // By identity, so that a batch of many files checks in linear time.
    let reads: HashMap<Identity, &PathBuf> = reads.iter().map(|r| (identity(r), r)).collect();
    let mut written: HashMap<Identity, &Write> = HashMap::default();
    for w in writes.iter().filter(|w| !is_stream(&w.path)) {
        let id = identity(&w.path);
        if let Some(r) = reads.get(&id) {
            return Err(format!(
                "{} {} is the input {}: refusing to overwrite it",
                w.what,
                w.path.display(),
                r.display()
            ));
        }
        if let Some(other) = written.get(&id) {
            return Err(format!(
                "{} {} and {} {} are the same file: give each its own name",
                other.what,
                other.path.display(),
                w.what,
                w.path.display()
            ));
        }
        written.insert(id, w);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given(paths: &[&str]) -> Vec<InputFile> {
        paths
            .iter()
            .map(|p| InputFile {
                path: p.to_string(),
                walked_from: None,
            })
            .collect()
    }

    #[test]
    fn stems_drop_the_x3d_extension_and_gzip_only() {
        for (input, want) in [
            ("a/scene.x3d", "scene"),
            ("scene.x3dv.gz", "scene"),
            ("my.scene.wrl", "my.scene"),
            ("scene.X3D.GZ", "scene"),
            (".x3d", ".x3d"),
            ("-", "stdin"),
        ] {
            assert_eq!(stem(input), want, "{input}");
        }
    }

    /// `..` in an input never takes an output out of the folder: the
    /// inputs' folders are made absolute and `..` resolved before the
    /// folder they share is found.
    #[test]
    fn outputs_stay_inside_the_folder() {
        let out = outputs_in(
            Path::new("build"),
            &given(&["../assets/m.x3d", "sub/l.x3d"]),
            "glb",
        )
        .unwrap();
        let cwd = std::env::current_dir().unwrap();
        let here = cwd.file_name().unwrap().to_string_lossy();
        assert_eq!(out[0], Path::new("build/assets/m.glb"));
        assert_eq!(out[1], Path::new(&format!("build/{here}/sub/l.glb")));
        for o in &out {
            assert!(o.components().all(|c| c != Component::ParentDir), "{o:?}");
        }
    }

    #[test]
    fn one_stem_in_one_folder_keeps_whole_names_and_a_true_clash_names_both() {
        let out = outputs_in(
            Path::new("o"),
            &given(&["d/a.x3d", "d/a.wrl", "d/b.x3d"]),
            "glb",
        );
        let out = out.unwrap();
        assert_eq!(out[0], Path::new("o/a.x3d.glb"));
        assert_eq!(out[1], Path::new("o/a.wrl.glb"));
        assert_eq!(out[2], Path::new("o/b.glb"));
        let err = outputs_in(Path::new("o"), &given(&["d/a.x3d", "d/./a.x3d"]), "glb");
        assert_eq!(
            err.unwrap_err(),
            "d/a.x3d and d/./a.x3d would both be written to o/a.x3d.glb"
        );
    }

    #[test]
    fn a_write_is_refused_over_a_read_file_through_links_and_over_another_write() {
        let dir = tempfile::tempdir().unwrap();
        let scene = dir.path().join("scene.x3d");
        fs::write(&scene, "<X3D/>").unwrap();
        let w = Write::new;
        let reads = vec![scene.clone()];
        let err = check(&reads, &[w("--report", scene.clone())]).unwrap_err();
        assert!(err.contains("is the input"), "{err}");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&scene, dir.path().join("soft.x3d")).unwrap();
            fs::hard_link(&scene, dir.path().join("hard.x3d")).unwrap();
            for link in ["soft.x3d", "hard.x3d"] {
                let err = check(&reads, &[w("-o", dir.path().join(link))]);
                assert!(err.is_err(), "{link}");
            }
        }
        let out = dir.path().join("out.glb");
        let again = dir.path().join("sub/../out.glb");
        fs::create_dir(dir.path().join("sub")).unwrap();
        let err = check(&reads, &[w("-o", out.clone()), w("--report", again)]).unwrap_err();
        assert!(err.contains("are the same file"), "{err}");
        assert!(
            check(
                &reads,
                &[w("-o", out), w("--report", dir.path().join("r.html"))]
            )
            .is_ok()
        );
        #[cfg(unix)]
        assert!(
            check(
                &reads,
                &[
                    w("-o", PathBuf::from("/dev/null")),
                    w("--report", PathBuf::from("/dev/null"))
                ]
            )
            .is_ok()
        );
    }

    #[test]
    fn a_folder_is_walked_for_x3d_files_by_extension_and_content() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir_all(d.join("sub/deeper")).unwrap();
        fs::create_dir_all(d.join(".hidden")).unwrap();
        fs::write(d.join("a.x3d"), "<X3D/>").unwrap();
        fs::write(d.join("sub/b.WRL"), "#VRML V2.0 utf8").unwrap();
        fs::write(d.join("sub/deeper/c.json"), "{\"X3D\": {}}").unwrap();
        fs::write(d.join("sub/other.json"), "{\"not\": 1}").unwrap();
        fs::write(d.join("readme.txt"), "<X3D/>").unwrap();
        fs::write(d.join(".hidden/h.x3d"), "<X3D/>").unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, b"#X3D V3.0 utf8").unwrap();
        fs::write(d.join("z.gz"), gz.finish().unwrap()).unwrap();
        let root = d.to_string_lossy().into_owned();
        let found = expand(std::slice::from_ref(&root)).unwrap();
        let names: Vec<String> = found
            .iter()
            .map(|f| f.path[root.len() + 1..].to_string())
            .collect();
        assert_eq!(names, ["a.x3d", "sub/b.WRL", "sub/deeper/c.json", "z.gz"]);
        let out = outputs_in(Path::new("o"), &found, "glb").unwrap();
        let want = ["o/a.glb", "o/sub/b.glb", "o/sub/deeper/c.glb", "o/z.glb"];
        assert_eq!(out, want.map(PathBuf::from));
        let empty = d.join("sub/deeper/none");
        fs::create_dir(&empty).unwrap();
        let err = expand(&[empty.to_string_lossy().into_owned()]).unwrap_err();
        assert!(err.starts_with("no X3D file under"), "{err}");
    }
}
