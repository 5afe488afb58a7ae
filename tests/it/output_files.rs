//! Output files: the same bytes from the same input, atomic and
//! interrupted writes, --sync, a glTF buffer moved out of memory as it is
//! made, GLB room, large inputs and buffers in bounded memory, named
//! pipes and symbolic links.

use crate::util;
use crate::util::scenes::morph_scene;
use crate::util::{bake, bake_ok};
use std::path::PathBuf;
#[cfg(target_os = "linux")]
use std::process::{Command, Stdio};

/// Scenes of `grids` ElevationGrids of `n` × `n` heights (a glTF buffer of
/// about 1.5 MB each at 100 × 100 from 20 KB of text), and a morph of them.
fn grids_scene(grids: usize, n: usize) -> String {
    let heights = vec!["0"; n * n].join(" ");
    let mut x3d = String::from("<X3D><Scene>");
    for g in 0..grids {
        x3d.push_str(&format!(
            "<Transform translation='{}.5 0 0'><Shape><ElevationGrid xDimension='{n}' \
             zDimension='{n}' height='{heights}'/></Shape></Transform>",
            g * n
        ));
    }
    x3d.push_str(
        &morph_scene(40)
            .replace("<X3D><Scene>", "")
            .replace("</Scene></X3D>", ""),
    );
    x3d + "</Scene></X3D>"
}

/// The peak resident size (kB) of a bake of `path` to a GLB on standard
/// output, read when the GLB starts coming (the document is made then, and
/// the process cannot end before its pipe is read), and the GLB's length.
#[cfg(target_os = "linux")]
fn peak_before_output_kb(path: &str) -> (u64, usize) {
    use std::io::Read as _;
    use std::os::fd::AsRawFd as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
        .args([path, "-o", "-", "--format", "glb", "--quiet"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut ready = libc::pollfd {
        fd: out.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, for the pipe we hold.
    assert_eq!(
        unsafe { libc::poll(&mut ready, 1, 120_000) },
        1,
        "no output"
    );
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let peak = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut glb = Vec::new();
    out.read_to_end(&mut glb).unwrap();
    assert!(child.wait().unwrap().success());
    (peak, glb.len())
}

/// A glTF buffer past 16 MiB is moved to a file as it is made: the
/// .glb, the .bin beside a .gltf and a GLB on standard output hold the
/// bytes of the buffer an embedded .gltf has from memory, with and without
/// --sync, new or replacing a file, and nothing is left beside them. The
/// GLB's JSON fills the room its buffer's file left before the buffer,
/// which starts on a 4 KiB page.
#[test]
fn a_buffer_moved_out_of_memory_writes_the_same_bytes() {
    let (dir, path) = util::scene_file("grids.x3d", &grids_scene(4, 200));
    let out = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let run = |args: &[&str]| {
        let o = util::run(&[&[path.as_str()], args].concat());
        assert!(o.status.success(), "{}", util::stderr(&o));
        o.stdout
    };
    run(&["-o", &out("e.gltf"), "--embed"]);
    let (_, buffers, _) = gltf::import(out("e.gltf")).unwrap();
    let bin = &buffers[0].0;
    assert!(bin.len() > 16 << 20, "{} bytes", bin.len());
    // A GLB's BIN chunk: after the header and the JSON chunk.
    let bin_chunk = |glb: &[u8]| {
        let json = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let len = u32::from_le_bytes(glb[20 + json..24 + json].try_into().unwrap()) as usize;
        assert_eq!(glb.len(), 28 + json + len);
        assert_eq!((28 + json) % 4096, 0, "the buffer starts on a page");
        glb[28 + json..].to_vec()
    };
    for sync in ["--quiet", "--sync"] {
        run(&["-o", &out("a.glb"), sync]);
        let glb = std::fs::read(out("a.glb")).unwrap();
        assert!(bin_chunk(&glb) == *bin, "{sync} .glb");
        util::assert_validator_clean(&[out("a.glb").into()]);
        assert!(
            run(&["-o", "-", "--format", "glb", "--quiet"]) == glb,
            "{sync} stdout"
        );
        run(&["-o", &out("a.gltf"), sync]);
        assert!(std::fs::read(out("a.bin")).unwrap() == *bin, "{sync} .bin");
    }
    let names = util::names_in(dir.path());
    assert_eq!(names, ["a.bin", "a.glb", "a.gltf", "e.gltf", "grids.x3d"]);
}

/// A GLB whose JSON outgrows the room its buffer's file left for it (the
/// room is judged by the JSON made when the buffer first passes its size:
/// here the grids' few nodes, before 800 animated Transforms) is written
/// with the JSON unpadded and the buffer copied after it: the same buffer
/// bytes, a valid GLB.
#[test]
fn a_glb_whose_json_outgrows_its_room_is_written_whole() {
    let mut text = grids_scene(3, 200).replace("</Scene></X3D>", "");
    for i in 0..800 {
        text.push_str(&format!(
            "<Transform DEF='T{i}'/><PositionInterpolator DEF='P{i}' key='0 0.3 1' \
             keyValue='0 0 0 {i} 1 0 0 0 {i}'/><TimeSensor DEF='C{i}' cycleInterval='{}'/>\
             <ROUTE fromNode='C{i}' fromField='fraction_changed' toNode='P{i}' toField='set_fraction'/>\
             <ROUTE fromNode='P{i}' fromField='value_changed' toNode='T{i}' toField='translation'/>",
            1 + i % 7
        ));
    }
    text.push_str("</Scene></X3D>");
    let (dir, path) = util::scene_file("many.x3d", &text);
    let out = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    for args in [
        [&path, "-o", &out("e.gltf"), "--embed"],
        [&path, "-o", &out("a.glb"), "--quiet"],
    ] {
        let o = util::run(&args);
        assert!(o.status.success(), "{}", util::stderr(&o));
    }
    let (_, buffers, _) = gltf::import(out("e.gltf")).unwrap();
    let glb = std::fs::read(out("a.glb")).unwrap();
    let (json, bin) = util::document_json(&glb);
    assert!(
        bin.len() > 8 << 20 && bin == buffers[0].0,
        "{} bytes",
        bin.len()
    );
    // Unpadded: the JSON chunk is the JSON text to a multiple of 4 bytes.
    let chunk = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let text = serde_json::to_string(&json).unwrap();
    assert!(chunk > 200_000, "{chunk}");
    assert_eq!(
        chunk,
        glb[20..20 + chunk]
            .trim_ascii_end()
            .len()
            .next_multiple_of(4)
    );
    assert!(text.len() <= chunk);
    util::assert_validator_clean(&[out("a.glb").into()]);
}

/// A bake never holds its glTF buffer whole: three times the grids (42 MB
/// more of buffer, 2 MB more of numbers read) raise its peak by a few
/// megabytes, not by the buffer.
#[cfg(target_os = "linux")]
#[test]
fn a_large_gltf_buffer_is_never_whole_in_memory() {
    let (_a, small) = util::scene_file("small.x3d", &grids_scene(20, 100));
    let (_b, large) = util::scene_file("large.x3d", &grids_scene(60, 100));
    let (small_peak, small_len) = peak_before_output_kb(&small);
    let (large_peak, large_len) = peak_before_output_kb(&large);
    let more = (large_len - small_len) as u64 / 1000;
    assert!(more > 40_000, "{more} kB");
    assert!(
        large_peak < small_peak + more / 6,
        "peaks {small_peak} and {large_peak} kB, buffers {small_len} and {large_len} bytes"
    );
}

/// A large input is mapped and its pages let go as it is read, so that
/// the text is never held beside its numbers: reading 24 MB of text for
/// 12 MB of floats (metadata, which the bake reads and does not write)
/// peaks far below reading the same file into memory (as it is while
/// another process has it open for writing: no lease), and bakes to the
/// same GLB.
#[cfg(target_os = "linux")]
#[test]
fn a_large_input_is_not_held_beside_its_numbers() {
    let floats = "1.5     ".repeat(3_000_000);
    // Triangles enough that the GLB fills the pipe: the bake waits for
    // its reader, so its peak can be read.
    let faces = "0 1 2 -1 ".repeat(3_000);
    let text = format!(
        "<X3D><Scene><WorldInfo><MetadataFloat name='m' value='{floats}'/></WorldInfo>\
         <Shape><IndexedFaceSet coordIndex='{faces}'><Coordinate point='0 0 0 1 0 0 0 1 0'/>\
         </IndexedFaceSet></Shape></Scene></X3D>"
    );
    let (_dir, path) = util::scene_file("long.x3d", &text);
    let (mapped, mapped_glb) = peak_before_output_kb(&path);
    let writer = std::fs::OpenOptions::new().append(true).open(&path);
    let (read, read_glb) = peak_before_output_kb(&path);
    drop(writer);
    assert!(
        mapped + text.len() as u64 / 3000 < read,
        "peaks {mapped} and {read} kB, text {} bytes",
        text.len()
    );
    assert_eq!(mapped_glb, read_glb);
}

/// A destination that is not a file (a named pipe here; /dev/null alike)
/// is written into, never replaced by a file renamed onto it: a CSV, a GLB
/// and a GLB whose buffer was moved out of memory come through whole.
#[cfg(unix)]
#[test]
fn an_output_into_a_named_pipe_is_written_through_it() {
    use std::io::Read as _;
    use std::os::unix::fs::FileTypeExt as _;
    let (dir, small) = util::scene_file("a.x3d", &morph_scene(3));
    let large = dir.path().join("grids.x3d");
    std::fs::write(&large, grids_scene(3, 200)).unwrap();
    let pipe = dir.path().join("pipe");
    // (mkfifo(1): libc is a dependency on Linux only, and this runs on
    // every Unix.)
    let made = std::process::Command::new("mkfifo").arg(&pipe).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", pipe.display());
    let large = large.to_str().unwrap();
    for (input, format) in [(small.as_str(), "csv"), (&small, "glb"), (large, "glb")] {
        let reader = {
            let pipe = pipe.clone();
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                std::fs::File::open(pipe)
                    .unwrap()
                    .read_to_end(&mut bytes)
                    .unwrap();
                bytes
            })
        };
        let o = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
            .args([input, "-o", pipe.to_str().unwrap(), "--format", format])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // Before the reader is joined: a replaced pipe leaves it waiting.
        let kind = std::fs::metadata(&pipe).unwrap().file_type();
        assert!(kind.is_fifo(), "{input} {format}: the pipe was replaced");
        let through_pipe = reader.join().unwrap();
        let stdout = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
            .args([input, "-o", "-", "--format", format])
            .output()
            .unwrap()
            .stdout;
        assert!(
            through_pipe.len() > 100 && through_pipe == stdout,
            "{input} {format}"
        );
    }
}

/// An output through a symbolic link (as /dev/stdout is one) writes the
/// file the link names, atomically beside it, and leaves the link a link;
/// a link to nothing yet makes the file it names.
#[cfg(unix)]
#[test]
fn an_output_through_a_symbolic_link_writes_what_it_names() {
    let (dir, path) = util::scene_file("a.x3d", &morph_scene(3));
    let real = tempfile::tempdir().unwrap();
    let link = dir.path().join("out.csv");
    let target = real.path().join("table.csv");
    std::fs::write(&target, "before").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let dangling = dir.path().join("later.csv");
    std::os::unix::fs::symlink(real.path().join("later.csv"), &dangling).unwrap();
    let stdout = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
        .args([&path, "-o", "-", "--format", "csv"])
        .output()
        .unwrap()
        .stdout;
    for (l, t) in [(&link, target), (&dangling, real.path().join("later.csv"))] {
        let o = Command::new(env!("CARGO_BIN_EXE_x3dbake"))
            .args([&path, "-o", l.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(
            std::fs::symlink_metadata(l)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(std::fs::read(t).unwrap() == stdout, "{}", l.display());
    }
}

#[test]
fn the_same_input_gives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for scene in util::fixtures("scenes", "x3d") {
        let input = scene.to_string_lossy().into_owned();
        let (a, b) = (dir.path().join("a.glb"), dir.path().join("b.glb"));
        for flags in [
            &["--mode", "sample", "--interpolation", "cubic"][..],
            &["--compress"],
        ] {
            bake(&input, &a, flags);
            bake(&input, &b, flags);
            assert_eq!(
                std::fs::read(&a).unwrap(),
                std::fs::read(&b).unwrap(),
                "{input} {flags:?}"
            );
        }
    }
}

#[test]
fn a_failed_bake_leaves_the_previous_output_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.gltf");
    std::fs::write(&out, b"previous").unwrap();
    std::fs::write(dir.path().join("out.bin"), b"previous bin").unwrap();
    let o = bake("fixtures/errors/malformed_xml.x3d", &out, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), b"previous");
    assert_eq!(
        std::fs::read(dir.path().join("out.bin")).unwrap(),
        b"previous bin"
    );
    let names = util::names_in(dir.path());
    assert_eq!(names.len(), 2, "no temporary files left: {names:?}");
    // An output folder that does not exist: an I/O error, nothing written.
    let o = bake(
        "fixtures/scenes/bouncing_box.x3d",
        &dir.path().join("no/such/out.glb"),
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(util::stderr(&o).contains("cannot write"));
    // The input itself is never overwritten.
    let copy = dir.path().join("in.x3d");
    std::fs::copy(util::root().join("fixtures/scenes/bouncing_box.x3d"), &copy).unwrap();
    let o = bake(&copy.to_string_lossy(), &copy, &["--format", "glb"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(util::stderr(&o).contains("is the input"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["-"],
        vec!["fixtures/scenes/bouncing_box.x3d", "-o", "x.txt"],
        vec![
            "fixtures/scenes/bouncing_box.x3d",
            "-o",
            "x.glb",
            "--rate",
            "0",
        ],
        vec![
            "fixtures/scenes/bouncing_box.x3d",
            "-o",
            "x.glb",
            "--rate",
            "1e9",
            "--cycles",
            "10000",
        ],
        vec![
            "fixtures/scenes/bouncing_box.x3d",
            "-o",
            "x.glb",
            "--mode",
            "fast",
        ],
    ] {
        let o = util::run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", util::stderr(&o));
    }
}

/// Bytes a running process has read and written so far (Linux's
/// /proc/PID/io `rchar` + `wchar`); None once it is gone.
#[cfg(target_os = "linux")]
fn io_bytes(pid: u32) -> Option<u64> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    let field = |name: &str| -> Option<u64> {
        io.lines()
            .find_map(|l| l.strip_prefix(name))?
            .trim()
            .parse()
            .ok()
    };
    Some(field("rchar:")? + field("wchar:")?)
}

/// Runs `command` and waits until it has read and written `bytes` bytes,
/// or ended; returns the child.
#[cfg(target_os = "linux")]
fn run_until_io(command: &mut std::process::Command, bytes: u64) -> std::process::Child {
    let mut child = command.spawn().unwrap();
    while child.try_wait().unwrap().is_none() {
        match io_bytes(child.id()) {
            Some(b) if b < bytes => std::thread::yield_now(),
            _ => break,
        }
    }
    child
}

#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_bake_leaves_the_previous_output_untouched() {
    use std::fmt::Write as _;
    let dir = tempfile::tempdir().unwrap();
    // A scene that takes a while: a 3 000-point morph with 300 keys.
    let (points, keys) = (3000, 300);
    let mut text = String::from("<X3D><Scene><Shape><IndexedFaceSet coordIndex='");
    for i in (0..points - 2).step_by(3) {
        write!(text, "{} {} {} -1 ", i, i + 1, i + 2).unwrap();
    }
    text.push_str("'><Coordinate DEF='C' point='");
    for i in 0..points {
        write!(text, "{i} 0 0 ").unwrap();
    }
    text.push_str("'/></IndexedFaceSet></Shape><TimeSensor DEF='T' loop='true'/><CoordinateInterpolator DEF='I' key='");
    for k in 0..keys {
        write!(text, "{} ", k as f64 / (keys - 1) as f64).unwrap();
    }
    text.push_str("' keyValue='");
    for k in 0..keys {
        for i in 0..points {
            write!(text, "{i} {k} {} ", (i * k) % 7).unwrap();
        }
    }
    text.push_str(
        "'/><ROUTE fromNode='T' fromField='fraction_changed' toNode='I' toField='set_fraction'/>",
    );
    text.push_str(
        "<ROUTE fromNode='I' fromField='value_changed' toNode='C' toField='point'/></Scene></X3D>",
    );
    let input = dir.path().join("big.x3d");
    std::fs::write(&input, text).unwrap();
    let out = dir.path().join("out.glb");
    let previous = b"a previous output, to be kept".to_vec();
    let bin = env!("CARGO_BIN_EXE_x3dbake");
    // How many bytes a whole bake writes at least (the .glb; the scene is
    // mapped, not read), then kills at points through that work: counted
    // in bytes, not in time, so that a loaded machine moves no point (and
    // not as seen while it runs: a busy machine may not look before it
    // ends).
    let full_glb = dir.path().join("full.glb");
    let mut full = std::process::Command::new(bin);
    full.args([
        input.as_os_str(),
        "-o".as_ref(),
        full_glb.as_os_str(),
        "--quiet".as_ref(),
    ]);
    assert!(full.status().unwrap().success());
    let whole = std::fs::read(&full_glb).unwrap();
    let total = whole.len() as u64;
    assert!(total > 10_000_000, "{total} bytes written");
    let (mut kept, mut temps) = (0, 0);
    for step in 0..12 {
        std::fs::write(&out, &previous).unwrap();
        // Half the bakes flush to disk before the rename (--sync).
        let mut command = std::process::Command::new(bin);
        command.args([
            input.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "--quiet".as_ref(),
        ]);
        if step % 4 >= 2 {
            command.arg("--sync");
        }
        let mut child = run_until_io(&mut command, total * step / 12);
        // SIGTERM (what CI runners and `kill` send) for even steps, SIGKILL
        // (which no program can clean up after) for odd ones.
        if step % 2 == 0 {
            let pid = child.id().to_string();
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &pid])
                .status();
        } else {
            let _ = child.kill();
        }
        let status = child.wait().unwrap();
        assert_ne!(
            status.code(),
            Some(2),
            "step {step}: a usage error, not a kill"
        );
        // Either the old bytes or the whole new output (a kill after the
        // rename), never a part.
        let now = std::fs::read(&out).unwrap();
        let new = now == whole;
        assert!(
            now == previous || new,
            "killed at step {step} ({status}): {} bytes, neither the old output nor the new",
            now.len()
        );
        assert!(
            new || !status.success(),
            "step {step}: exit 0 but the old output"
        );
        kept += usize::from(now == previous);
        // No temporary file is left but by a SIGKILL during the write.
        let names = util::names_in(dir.path());
        let left = names.len() - 3;
        assert!(
            left == 0 || step % 2 == 1,
            "step {step}: SIGTERM left a temporary file"
        );
        temps += left;
        for n in &names {
            if n.ends_with(".tmp") {
                std::fs::remove_file(dir.path().join(n)).unwrap();
            }
        }
    }
    assert!(kept >= 6, "only {kept} of 12 kills came before the end");
    eprintln!("interrupted bakes: {kept} of 12 killed mid-way, {temps} left a temporary file");
}

#[test]
fn sync_writes_the_same_bytes_flushed() {
    let dir = tempfile::tempdir().unwrap();
    let scene = util::root().join("fixtures/scenes/bouncing_box.x3d");
    let scene = scene.to_str().unwrap();
    // Each form plain and with --sync, in folders of their own (a .gltf
    // names its .bin).
    let (plain, synced) = (dir.path().join("plain"), dir.path().join("synced"));
    std::fs::create_dir(&plain).unwrap();
    std::fs::create_dir(&synced).unwrap();
    for name in ["a.glb", "a.gltf", "a.csv"] {
        bake_ok(scene, &plain.join(name), &[]);
        bake_ok(scene, &synced.join(name), &["--sync"]);
    }
    for name in ["a.glb", "a.gltf", "a.bin", "a.csv"] {
        let read = |p: PathBuf| std::fs::read(p).unwrap();
        let same = read(plain.join(name)) == read(synced.join(name));
        assert!(same, "{name} differs with --sync");
    }
    // Into a folder, two inputs at once: the same bytes, no temporary left.
    let folder = dir.path().join("folder");
    let other = util::root().join("fixtures/scenes/morph.x3d");
    let o = bake(scene, &folder, &[other.to_str().unwrap(), "--sync"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let names = util::names_in(&folder);
    assert_eq!(names, ["bouncing_box.glb", "morph.glb"]);
    let same = std::fs::read(folder.join("bouncing_box.glb")).unwrap()
        == std::fs::read(plain.join("a.glb")).unwrap();
    assert!(same, "a .glb baked into a folder with --sync differs");
}
