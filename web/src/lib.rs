//! x3dbake in a page: the library built for `wasm32-unknown-unknown` and
//! called from `web/app.js` through wasm-bindgen. The files a user gives
//! (a scene, the Inlines, EXTERNPROTOs and textures beside it) are held in
//! memory ([`x3dbake::MemoryFetch`]); the settings are the command line's
//! options, as JSON; the result is the bytes `x3dbake FILE -o OUT` writes
//! with the same flags, the messages it prints and the bake report.
//! Nothing leaves the page.

use serde::Deserialize;
use wasm_bindgen::prelude::*;
use x3dbake::MemoryFetch;

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
    let settings = s.library()?;
    let done =
        x3dbake::convert(main, input, Some(&mut fetch), &settings).map_err(|e| e.to_string())?;
    Ok(Baked {
        ok: done.ok,
        bytes: done.bytes,
        messages: done.messages,
        report: done.report.unwrap_or_default(),
    })
}

impl Settings {
    /// The library's settings: a value the page shows by default is the
    /// flag left out (as the command line without it).
    fn library(&self) -> Result<x3dbake::Settings, String> {
        let mut json = serde_json::json!({
            "format": self.format,
            "rate": self.rate,
            "tolerance": self.tolerance,
            "keep_constant": self.keep_constant,
            "cycles": self.cycles,
            "tangents": self.tangents,
            "clips": self.clips,
            "interactive": self.interactive,
            "core": self.core,
            "wide": self.wide,
            "report": self.report && self.format != "csv",
            "timeline": self.timeline,
            "start": self.start,
            "end": self.end,
            "load_time": self.load_time,
            "events": self.events,
            "compress": self.compress.then_some("meshopt"),
        });
        for (key, value, default) in [
            ("mode", &self.mode, "exact"),
            ("interpolation", &self.interpolation, "linear"),
            ("visibility", &self.visibility, "scale"),
        ] {
            if value != default {
                json[key] = serde_json::json!(value);
            }
        }
        serde_json::from_value(json).map_err(|e| format!("settings: {e}"))
    }
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
