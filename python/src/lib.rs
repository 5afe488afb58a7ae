//! x3dbake for Python: the library's one entry, [`x3dbake::convert`], as
//! `x3dbake._x3dbake.convert`. The package `x3dbake` (python/x3dbake)
//! wraps it: keyword arguments become the JSON of [`x3dbake::Settings`]
//! (so the library checks them, as it does the command line's flags), and
//! the result becomes a `Result` or one of the package's exceptions.
//! Nothing here prints.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::path::{Path, PathBuf};
use x3dbake::{ConvertError, FileFetch, MemoryFetch, Settings};

/// An exception of the `x3dbake` package (`UsageError`, `LimitError`,
/// `X3DBakeError`) with `message`.
fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    match py
        .import("x3dbake")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((message,)))
    {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// An `OSError` for `path`: with the system's error number, Python's own
/// subclass (FileNotFoundError, PermissionError, ...).
fn os_error(py: Python<'_>, e: std::io::Error, path: &str) -> PyErr {
    let Some(code) = e.raw_os_error() else {
        return pyo3::exceptions::PyOSError::new_err(format!("cannot read {path}: {e}"));
    };
    let text = py
        .import("os")
        .and_then(|os| os.call_method1("strerror", (code,)))
        .and_then(|t| t.extract::<String>())
        .unwrap_or_else(|_| e.to_string());
    pyo3::exceptions::PyOSError::new_err((code, text, path.to_string()))
}

/// The settings from a JSON object of the keyword arguments given, checked
/// by the library. A value it refuses is named by its keyword (each
/// keyword is read alone to find it).
fn settings(py: Python<'_>, json: &str) -> PyResult<Settings> {
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| raise(py, "UsageError", format!("settings: {e}")))?;
    match serde_json::from_value::<Settings>(value.clone()) {
        Ok(s) => Ok(s),
        Err(whole) => {
            if let serde_json::Value::Object(map) = value {
                for (key, v) in map {
                    let one = serde_json::Value::Object([(key.clone(), v)].into_iter().collect());
                    if let Err(e) = serde_json::from_value::<Settings>(one) {
                        return Err(raise(py, "UsageError", format!("{key}: {e}")));
                    }
                }
            }
            Err(raise(py, "UsageError", whole.to_string()))
        }
    }
}

/// Converts one scene. `name` names it in messages and is where the files
/// it names are looked for: with `data` (its bytes) they come from
/// `files` (paths and bytes held in memory), else `name` is a path, read
/// from disk with the files it names beside it (only inside `root` when
/// given). `settings` is a JSON object of `x3dbake::Settings`. The result
/// is a dict: ok, data, diagnostics (dicts), errors, warnings, messages,
/// report, inspect (JSON text) and read. Usage errors raise
/// `x3dbake.UsageError`, failed steps (too many samples) `LimitError`; a
/// file that cannot be read an `OSError`. The GIL is released while the
/// scene is baked.
#[pyfunction]
#[pyo3(signature = (name, settings_json, data=None, files=None, root=None))]
fn convert<'py>(
    py: Python<'py>,
    name: String,
    settings_json: &str,
    data: Option<Vec<u8>>,
    files: Option<Vec<(String, Vec<u8>)>>,
    root: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let settings = settings(py, settings_json)?;
    let done = match data {
        Some(input) => {
            if root.is_some() {
                return Err(raise(
                    py,
                    "UsageError",
                    "root is for a scene read from disk: files held in memory are all there is"
                        .into(),
                ));
            }
            let mut fetch = MemoryFetch::new(files.unwrap_or_default());
            py.detach(|| x3dbake::convert(&name, input, Some(&mut fetch), &settings))
        }
        None => {
            let mut fetch = match &root {
                Some(root) => {
                    FileFetch::within(root).map_err(|e| os_error(py, e, &root.to_string_lossy()))?
                }
                None => FileFetch::default(),
            };
            let path = Path::new(&name);
            let input = py
                .detach(|| x3dbake::input::read_file(path))
                .map_err(|e| os_error(py, e, &name))?;
            py.detach(|| x3dbake::convert(&name, input, Some(&mut fetch), &settings))
        }
    };
    let done = done.map_err(|e| match e {
        ConvertError::Usage(m) => raise(py, "UsageError", m),
        ConvertError::Bake(e) => raise(py, "LimitError", e.to_string()),
        e => raise(py, "X3DBakeError", e.to_string()),
    })?;
    let out = PyDict::new(py);
    out.set_item("ok", done.ok)?;
    out.set_item("data", PyBytes::new(py, &done.bytes))?;
    let diagnostics = PyList::empty(py);
    for r in &done.diagnostics {
        let d = PyDict::new(py);
        d.set_item("severity", r.severity)?;
        d.set_item("message", &r.message)?;
        d.set_item("file", &r.file)?;
        d.set_item("line", r.line)?;
        d.set_item("column", r.column)?;
        diagnostics.append(d)?;
    }
    out.set_item("diagnostics", diagnostics)?;
    out.set_item("errors", done.counts.0)?;
    out.set_item("warnings", done.counts.1)?;
    out.set_item("messages", &done.messages)?;
    out.set_item("report", &done.report)?;
    out.set_item("inspect", done.inspect.to_string())?;
    out.set_item("read", &done.read)?;
    Ok(out)
}

/// The x3dbake library, as the package `x3dbake` calls it.
#[pymodule]
fn _x3dbake(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
