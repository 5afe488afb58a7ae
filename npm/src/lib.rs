//! x3dbake for Node.js: the library built for `wasm32-unknown-unknown` and
//! called from the npm package's JavaScript (`npm/lib`) through
//! wasm-bindgen. A bake is [`x3dbake::convert`], the one call every front
//! end makes, so the bytes and messages are the command line's; the files
//! a scene names are read by a JavaScript function (`npm/lib/fetch.mjs`:
//! from disk, as [`x3dbake::FileFetch`] reads them) or from files given in
//! memory ([`x3dbake::MemoryFetch`], as the page reads them). Besides it:
//! what `inspect` prints, the messages with `-q` or `-v`, and the pieces
//! of the command line the JavaScript asks for (a URL's local path, the
//! settings' check, an event's syntax, the file column of a CSV batch).
//! Nothing here prints: a panic's message is kept for [`last_panic`].

use std::cell::RefCell;
use std::io;
use std::path::Path;
use wasm_bindgen::prelude::*;
use x3dbake::convert::{Said, convert_said};
use x3dbake::{Bake, ConvertError, Fetch, Limits, MemoryFetch, Settings, UserEvent};

// The page's own exports (web/src/lib.rs, as it is: `bake`, `Files`,
// `version`, and its host shims): the package's one module serves both
// Node.js and the page `npx x3dbake serve` serves, so that the package
// carries the library once.
#[allow(dead_code)]
#[path = "../../web/src/lib.rs"]
mod page;

#[wasm_bindgen]
extern "C" {
    /// The JavaScript side's reader of the files a scene names:
    /// `fetch(from, url)` gives `{name, bytes}`, or `{error}` with the
    /// message a failed read gives (`No such file or directory (os error
    /// 2)`), never throwing.
    pub type Host;
    #[wasm_bindgen(method)]
    fn fetch(this: &Host, from: &str, url: &str) -> Fetched;

    /// What [`Host::fetch`] gives.
    pub type Fetched;
    #[wasm_bindgen(method, getter)]
    fn name(this: &Fetched) -> Option<String>;
    #[wasm_bindgen(method, getter)]
    fn bytes(this: &Fetched) -> Option<Vec<u8>>;
    #[wasm_bindgen(method, getter)]
    fn error(this: &Fetched) -> Option<String>;
}

/// A [`Fetch`] through the JavaScript host.
struct JsFetch<'h>(&'h Host);

impl Fetch for JsFetch<'_> {
    fn fetch(&mut self, from: &str, url: &str) -> io::Result<(String, Vec<u8>)> {
        let got = self.0.fetch(from, url);
        if let Some(e) = got.error() {
            return Err(io::Error::other(e));
        }
        match (got.name(), got.bytes()) {
            (Some(name), Some(bytes)) => Ok((name, bytes)),
            _ => Err(io::Error::other("the fetch gave no name and bytes")),
        }
    }
}

/// Files given in memory, each a path and its bytes (as the page's
/// `Files`).
#[wasm_bindgen]
#[derive(Default)]
pub struct MemoryFiles(Vec<(String, Vec<u8>)>);

#[wasm_bindgen]
impl MemoryFiles {
    /// No files yet.
    #[wasm_bindgen(constructor)]
    pub fn new() -> MemoryFiles {
        MemoryFiles::default()
    }

    /// Adds a file: its path among the files given, and its bytes.
    pub fn add(&mut self, path: String, bytes: Vec<u8>) {
        self.0.push((path, bytes));
    }
}

/// Where a scene's files come from: the host, the files given, or nowhere.
enum Reader {
    Host(Host),
    Memory(MemoryFetch),
    None,
}

impl Reader {
    fn new(host: Option<Host>, files: Option<MemoryFiles>) -> Reader {
        keep_panics();
        match (files, host) {
            (Some(files), _) => Reader::Memory(MemoryFetch::new(files.0)),
            (None, Some(host)) => Reader::Host(host),
            (None, None) => Reader::None,
        }
    }

    /// As a [`Fetch`], for one call.
    fn with<T>(&mut self, f: impl FnOnce(Option<&mut dyn Fetch>) -> T) -> T {
        match self {
            Reader::Host(host) => f(Some(&mut JsFetch(host))),
            Reader::Memory(m) => f(Some(m)),
            Reader::None => f(None),
        }
    }
}

/// The settings from their JSON (the library's snake_case names).
fn settings(json: &str) -> Result<Settings, String> {
    serde_json::from_str(json).map_err(|e| format!("settings: {e}"))
}

/// The settings' own check ([`Settings::check`]): a message naming the
/// flags, or none.
#[wasm_bindgen]
pub fn check(settings_json: &str) -> Option<String> {
    settings(settings_json).and_then(|s| s.check()).err()
}

/// Why a `--event` value does not parse, as the command line says it;
/// none when it does.
#[wasm_bindgen]
pub fn event_error(text: &str) -> Option<String> {
    text.parse::<UserEvent>().err().map(|e| e.to_string())
}

/// What a bake gives JavaScript.
#[wasm_bindgen(getter_with_clone)]
pub struct Outcome {
    /// Whether the output was made (no error).
    pub ok: bool,
    /// Why it did not run: "usage" (an event or `--clip` naming what the
    /// scene lacks), "bake" (a step failed: too many samples) or "layout";
    /// empty when it ran.
    pub failure: String,
    /// The failure's message.
    pub failure_message: String,
    /// The messages as the command line prints them: without `-q` or
    /// `-v`, with `-q`, with `-v` (where a step failed, what the scene
    /// said before it).
    pub messages: String,
    pub messages_quiet: String,
    pub messages_verbose: String,
    /// The errors and warnings counted (more than are kept).
    pub errors: usize,
    /// The warnings counted.
    pub warnings: usize,
    /// The diagnostics as records, JSON.
    pub diagnostics: String,
    /// What `inspect --json` says of the scene (its clips), JSON.
    pub inspect: String,
    /// The files read besides the input, JSON (an array of names).
    pub read: String,
    /// The bake report, when asked for and made.
    pub report: Option<String>,
    bytes: Vec<u8>,
}

#[wasm_bindgen]
impl Outcome {
    /// The output's bytes, taken (a second call gives none).
    pub fn take_bytes(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }
}

/// Bakes `input`, named `name`, with the settings (JSON) through
/// [`x3dbake::convert`]; the files it names through `host` or from
/// `files`.
#[wasm_bindgen]
pub fn convert(
    name: &str,
    input: Vec<u8>,
    settings_json: &str,
    host: Option<Host>,
    files: Option<MemoryFiles>,
) -> Outcome {
    let failed = |failure: &str, message: String, said: Said| Outcome {
        ok: false,
        failure: failure.into(),
        failure_message: message,
        messages: said.plain,
        messages_quiet: said.quiet,
        messages_verbose: said.verbose,
        errors: 0,
        warnings: 0,
        diagnostics: "[]".into(),
        inspect: "{}".into(),
        read: "[]".into(),
        report: None,
        bytes: Vec::new(),
    };
    let settings = match settings(settings_json) {
        Ok(s) => s,
        Err(e) => return failed("usage", e, Said::default()),
    };
    let mut reader = Reader::new(host, files);
    let (done, said) = reader.with(|fetch| convert_said(name, input, fetch, &settings));
    match done {
        Ok(c) => Outcome {
            ok: c.ok,
            failure: String::new(),
            failure_message: String::new(),
            messages: said.plain,
            messages_quiet: said.quiet,
            messages_verbose: said.verbose,
            errors: c.counts.0,
            warnings: c.counts.1,
            diagnostics: serde_json::to_string(&c.diagnostics).unwrap_or_default(),
            inspect: c.inspect.to_string(),
            read: serde_json::to_string(&c.read).unwrap_or_default(),
            report: c.report,
            bytes: c.bytes,
        },
        Err(ConvertError::Usage(m)) => failed("usage", m, said),
        Err(ConvertError::Bake(e)) => failed("bake", e.to_string(), said),
        Err(e @ ConvertError::Layout(_)) => failed("layout", e.to_string(), said),
    }
}

/// What `x3dbake inspect` gives JavaScript.
#[wasm_bindgen(getter_with_clone)]
pub struct Inspected {
    /// A step failed (`{path}: {error}`): nothing else is given.
    pub error: Option<String>,
    /// The `--json` document: the report, its schema and file, the
    /// diagnostics and their counts.
    pub json: String,
    /// The plain-text report (none where the scene has errors).
    pub text: String,
    /// The messages, with `-q` and `-v` as asked.
    pub messages: String,
    /// The errors counted.
    pub errors: usize,
    /// The warnings counted.
    pub warnings: usize,
}

/// `x3dbake inspect FILE`: every stage of a default bake run (the glTF
/// document made and dropped, for its warnings), the clips as the
/// settings' `cycles` and `tangents` say; `path` is the file as given,
/// `name` as messages name it (`<stdin>` for `-`).
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn inspect(
    name: &str,
    path: &str,
    input: Vec<u8>,
    settings_json: &str,
    host: Option<Host>,
    files: Option<MemoryFiles>,
    quiet: bool,
    verbose: bool,
) -> Inspected {
    let fail = |error: String| Inspected {
        error: Some(error),
        json: String::new(),
        text: String::new(),
        messages: String::new(),
        errors: 0,
        warnings: 0,
    };
    let settings = match settings(settings_json) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut reader = Reader::new(host, files);
    let mut bake = reader.with(|fetch| Bake::load(name, input, None, fetch, Limits::default()));
    bake.animate_in(settings.clip_options(), None);
    if !bake.diags.has_errors()
        && let Err(e) = reader.with(|fetch| bake.count_gltf(fetch))
    {
        return fail(format!("{path}: {e}"));
    }
    let (errors, warnings) = bake.diags.counts();
    let doc = bake.inspect_json(path);
    let mut json = serde_json::to_string_pretty(&doc).unwrap_or_default();
    json.push('\n');
    Inspected {
        error: None,
        json,
        text: if bake.diags.has_errors() {
            String::new()
        } else {
            bake.report()
        },
        messages: bake.messages(quiet, verbose),
        errors,
        warnings,
    }
}

/// The `--json` document of an inspect that failed (`error`: the
/// message), as the command line writes it.
#[wasm_bindgen]
pub fn inspect_error_json(path: &str, error: &str) -> String {
    let doc = serde_json::json!({
        "schema": "x3dbake-inspect/1",
        "file": path,
        "error": error,
        "errors": 1,
        "warnings": 0,
        "diagnostics": [],
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// A CSV table with a first column naming its file, for one table of
/// several inputs on standard output (the header only with `header`).
#[wasm_bindgen]
pub fn file_column(csv: &[u8], file: &str, header: bool) -> Vec<u8> {
    use std::io::Write as _;
    let mut out = Vec::with_capacity(csv.len() + csv.len() / 4);
    let mut w = x3dbake::csv::FileColumn::new(&mut out, file, header);
    let _ = w.write_all(csv).and_then(|()| w.flush());
    drop(w);
    out
}

/// Where a URL in the file `from` points, as [`x3dbake::FileFetch`] takes
/// it: a path (relative to `from`'s folder), or why it is not read.
#[wasm_bindgen(getter_with_clone)]
pub struct Resolved {
    /// The path to read.
    pub path: Option<String>,
    /// Why nothing is read (another scheme than `file:`).
    pub error: Option<String>,
}

/// `url` in the file `from` as a path to read: `file:` dropped, `%xx`
/// decoded, joined to `from`'s folder as `FileFetch` joins it; a URL of
/// another scheme is refused as it refuses it.
#[wasm_bindgen]
pub fn resolve(from: &str, url: &str) -> Resolved {
    match x3dbake::local_name(url).map_err(|e| e.to_string()) {
        Ok(local) => {
            let base = Path::new(from).parent().unwrap_or(Path::new(""));
            Resolved {
                path: Some(base.join(local).to_string_lossy().into_owned()),
                error: None,
            }
        }
        Err(e) => Resolved {
            path: None,
            error: Some(e),
        },
    }
}

thread_local! {
    /// The message of the last panic, for JavaScript to throw.
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A panic (a bug: the command line never panics either) keeps its
/// message and place for [`last_panic`]; nothing is printed. (Set at each
/// call: the page's start prints to the console instead.)
fn keep_panics() {
    std::panic::set_hook(Box::new(|info| {
        let text = format!("x3dbake: {info}");
        PANIC.with(|p| *p.borrow_mut() = Some(text));
    }));
}

/// The last panic's message, taken.
#[wasm_bindgen]
pub fn last_panic() -> Option<String> {
    PANIC.with(|p| p.borrow_mut().take())
}
