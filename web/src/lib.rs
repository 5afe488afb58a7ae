//! x3dbake in a page: the library built for `wasm32-unknown-unknown` and
//! called from `web/app.js` through wasm-bindgen. The files a user gives
//! (a scene, the Inlines, EXTERNPROTOs and textures beside it) are held in
//! memory ([`x3dbake::MemoryFetch`]); the settings are the command line's
//! options, as JSON; the result is the bytes `x3dbake FILE -o OUT` writes
//! with the same flags, the messages it prints and the bake report.
//! Nothing leaves the page.

use serde::Deserialize;
use wasm_bindgen::prelude::*;
use x3dbake::csv::CsvOptions;
use x3dbake::gltf::{self, KeyOptions, Layout, Mode, Part, SampleInterpolation, Visibility};
use x3dbake::{Bake, ClipOptions, DEFAULT_LOAD_TIME, Limits, MemoryFetch, TangentRule, World};

mod host;

/// The files given to the page, each a path and its bytes.
#[wasm_bindgen]
#[derive(Default)]
pub struct Files(Vec<(String, Vec<u8>)>);

#[wasm_bindgen]
impl Files {
    /// No files yet.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Files {
        Files::default()
    }

    /// Adds a file: its path among the files given, and its bytes.
    pub fn add(&mut self, path: String, bytes: Vec<u8>) {
        self.0.push((path, bytes));
    }
}

/// The command line's options, as the page sets them (names as the
/// flags', in camelCase; absent: the flag's default).
#[derive(Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
struct Settings {
    /// "glb", "gltf" (the buffer embedded) or "csv".
    format: String,
    mode: String,
    interpolation: String,
    rate: f64,
    tolerance: Option<f64>,
    keep_constant: bool,
    cycles: u32,
    tangents: String,
    clips: Vec<String>,
    compress: bool,
    interactive: bool,
    /// Core glTF only (`--core`).
    core: bool,
    visibility: String,
    wide: bool,
    /// The bake report (`--report`).
    report: bool,
    timeline: bool,
    start: Option<f64>,
    end: Option<f64>,
    load_time: Option<f64>,
    events: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            format: "glb".into(),
            mode: "exact".into(),
            interpolation: "linear".into(),
            rate: 30.0,
            tolerance: None,
            keep_constant: false,
            cycles: 1,
            tangents: "as-written".into(),
            clips: Vec::new(),
            compress: false,
            interactive: false,
            core: false,
            visibility: "scale".into(),
            wide: false,
            report: false,
            timeline: false,
            start: None,
            end: None,
            load_time: None,
            events: Vec::new(),
        }
    }
}

/// What a bake gives the page.
#[wasm_bindgen(getter_with_clone)]
pub struct Baked {
    /// Whether the output was made (no error).
    pub ok: bool,
    /// The output's bytes (.glb, .gltf with its buffer inside, or .csv).
    pub bytes: Vec<u8>,
    /// The messages, as the command line prints them.
    pub messages: String,
    /// The bake report (an HTML page), for glTF output with `report`.
    pub report: String,
}

fn failed(messages: String) -> Baked {
    Baked {
        ok: false,
        bytes: Vec::new(),
        messages,
        report: String::new(),
    }
}

/// Bakes `main`, one of `files`, with `settings` (JSON).
#[wasm_bindgen]
pub fn bake(files: Files, main: &str, settings: &str) -> Baked {
    match run(files, main, settings) {
        Ok(b) => b,
        Err(message) => failed(format!("error: {message}\n")),
    }
}

fn run(files: Files, main: &str, settings: &str) -> Result<Baked, String> {
    let s: Settings = serde_json::from_str(settings).map_err(|e| format!("settings: {e}"))?;
    let mut fetch = MemoryFetch::new(files.0);
    let input = fetch
        .get(main)
        .ok_or_else(|| format!("{main} is not among the files given"))?
        .to_vec();
    let clip_opts = ClipOptions {
        cycles: s.cycles.clamp(1, 10_000),
        rule: match s.tangents.as_str() {
            "c1" => TangentRule::C1,
            _ => TangentRule::AsWritten,
        },
        interactive: s.interactive,
    };
    let events = s
        .events
        .iter()
        .map(|e| e.parse().map_err(|err| format!("--event {e}: {err}")))
        .collect::<Result<Vec<_>, String>>()?;
    let world = s.timeline.then(|| World {
        load: s.load_time.unwrap_or(DEFAULT_LOAD_TIME),
        events,
        end: s.end,
        rate: s.rate,
    });
    let opts = gltf::Options {
        keys: KeyOptions {
            mode: if s.mode == "sample" {
                Mode::Sample
            } else {
                Mode::Exact
            },
            rate: s.rate,
            interpolation: match s.interpolation.as_str() {
                "step" => SampleInterpolation::Step,
                "cubic" => SampleInterpolation::Cubic,
                _ => SampleInterpolation::Linear,
            },
            tolerance: s.tolerance,
            keep_constant: s.keep_constant,
            cubic: s.mode != "sample" && s.interpolation == "cubic",
            rotation_rounding: 0.0,
            threads: 0,
        },
        record: s.report,
        limits: Limits::default(),
        compress: s.compress.then_some(gltf::Compression::Meshopt),
        interactive: s.interactive,
        core: s.core,
        visibility: if s.visibility == "extension" {
            Visibility::Extension
        } else {
            Visibility::Scale
        },
    };
    let mut bake = Bake::load(main, input, None, Some(&mut fetch), opts.limits);
    if let Some(world) = &world
        && !bake.diags.has_errors()
    {
        world
            .check(&bake.scene)
            .map_err(|e| format!("{main}: {e}"))?;
    }
    bake.animate_in(clip_opts, world.as_ref());
    if bake.diags.has_errors() {
        return Ok(failed(bake.messages(false, false)));
    }
    let timeline = bake
        .ready(&s.clips, s.timeline.then_some((s.start, s.end)))
        .map_err(|e| format!("{main}: --clip: {e}"))?;
    if s.format == "csv" {
        let opts = CsvOptions {
            rate: s.rate,
            wide: s.wide,
            timeline,
        };
        let mut bytes = Vec::new();
        bake.write_csv(&opts, &mut bytes)
            .map_err(|e| format!("{main}: {e}"))?;
        return Ok(Baked {
            ok: true,
            bytes,
            messages: bake.messages(false, false),
            report: String::new(),
        });
    }
    if let Some(span) = timeline {
        bake.play_timeline(span);
    }
    // As the command line decides it for a .glb: past the same size the
    // buffer would move to a file (here there is none: it stays), and the
    // GLB's head gets the same room, so the bytes are the same.
    let glb = s.format != "gltf";
    let spill = glb.then(|| gltf::Spill {
        open: Box::new(|| None),
        after: gltf::spill_after(bake.sources.get(bake.file).text_len()),
        room: true,
        write_back: false,
    });
    let mut doc = bake
        .gltf_spilled(&opts, Some(&mut fetch), spill)
        .map_err(|e| format!("{main}: {e}"))?;
    if bake.diags.has_errors() {
        return Ok(failed(bake.messages(false, false)));
    }
    let layout = if glb { Layout::Glb } else { Layout::Embedded };
    let files = doc
        .files(&layout)
        .map_err(|e| format!("cannot lay the glTF document out: {e}"))?;
    let mut bytes = Vec::new();
    for part in &files.main {
        match part {
            Part::Bytes(b) => bytes.extend_from_slice(b),
            Part::Spilled(_) => return Err("a buffer moved out of memory".into()),
        }
    }
    drop(files);
    let messages = bake.messages(false, false);
    let report = if s.report {
        bake.report_html(&doc, main, s.tolerance, &messages)
    } else {
        String::new()
    };
    Ok(Baked {
        ok: true,
        bytes,
        messages,
        report,
    })
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console)]
    fn error(message: &str);
}

/// A panic (a bug: the command line never panics either) is written to
/// the console with its message and place before the module stops.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| error(&format!("x3dbake: {info}"))));
}

/// The version of x3dbake the page runs.
#[wasm_bindgen]
pub fn version() -> String {
    x3dbake::VERSION.to_string()
}
