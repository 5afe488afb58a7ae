"""x3dbake: X3D scenes and their animation to glTF 2.0, from Python.

One call, :func:`bake`, reads an X3D scene (XML, ClassicVRML, VRML97 or
X3D JSON, gzipped or not), follows its ROUTEs from the clocks through the
interpolators, and gives the scene as a ``.glb`` or ``.gltf`` with one
animation per clock (or a CSV table of the animated values): the bytes the
``x3dbake`` command writes with the same options. The files a scene names
(Inlines, EXTERNPROTOs, textures) are read beside it, or from a dict of
files held in memory.

    >>> import x3dbake
    >>> result = x3dbake.bake("scene.x3d", output="scene.glb")
    >>> [c.name for c in result.clips]
    ['Clock']

A scene with errors raises :class:`SceneError`, settings that cannot go
together :class:`UsageError`, a bake past the limits :class:`LimitError`;
all are :class:`X3DBakeError`. Nothing is printed: warnings are in
``result.diagnostics``.
"""

from __future__ import annotations

import json
import os
import secrets
from typing import Any, NamedTuple

from ._x3dbake import __version__
from ._x3dbake import convert as _convert

__all__ = [
    "bake",
    "Result",
    "Diagnostic",
    "Clip",
    "X3DBakeError",
    "UsageError",
    "SceneError",
    "LimitError",
    "__version__",
]


class X3DBakeError(Exception):
    """The base of every error x3dbake raises (besides OSError for files
    that cannot be read or written)."""


class UsageError(X3DBakeError, ValueError):
    """Settings that cannot go together (``format="csv"`` with
    ``tolerance``, ``start`` without ``timeline``), a value x3dbake does
    not know, or a clip or event naming what the scene lacks: what the
    command line calls a usage error."""


class SceneError(X3DBakeError):
    """The scene has errors, so nothing was made. ``diagnostics`` holds
    every error and warning kept (:class:`Diagnostic`), ``messages`` them as
    the command line prints them; the message is the first error,
    ``file:line:column: error: message``."""

    def __init__(
        self, message: str, diagnostics: list[Diagnostic] | None = None, messages: str = ""
    ):
        super().__init__(message)
        self.diagnostics: list[Diagnostic] = list(diagnostics or [])
        self.messages: str = messages


class LimitError(X3DBakeError):
    """A step went past x3dbake's limits: a track of more samples than
    ``max_samples`` allows, a table too large."""


class Diagnostic(NamedTuple):
    """An error or warning: ``severity`` ("error" or "warning"), the
    ``message``, and where it is (``file``, ``line``, ``column`` from 1;
    None when it has no place)."""

    severity: str
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        if self.file is None:
            return f"{self.severity}: {self.message}"
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"


class Clip(NamedTuple):
    """An animation (one clock): its ``name``, the ``clock`` driving it,
    ``duration`` in seconds, whether it ``loop``s, and its ``tracks`` as
    ``x3dbake inspect --json`` gives them (dicts: target, field, source,
    via, gltf, form, ...)."""

    name: str
    clock: str | None
    duration: float
    loop: bool
    tracks: list[dict[str, Any]]


class Result:
    """What :func:`bake` made.

    Attributes:
        data: the output's bytes (.glb, .gltf with its buffer inside, or
            .csv).
        format: "glb", "gltf" or "csv".
        diagnostics: the warnings kept (:class:`Diagnostic`), the first of
            each kind, as the command line shows them.
        warnings, errors: how many there were (more than are kept).
        messages: the diagnostics as the command line prints them.
        clips: the animations (:class:`Clip`), as ``x3dbake inspect`` lists
            them.
        inspect: what ``x3dbake inspect --json`` says of the scene (a dict
            of the same JSON document).
        report: the bake report (an HTML page) with ``report=True``, else
            None.
        read: the files the bake read besides the scene (Inlines,
            EXTERNPROTOs, textures), by the names it found them under.
    """

    __slots__ = (
        "data",
        "format",
        "diagnostics",
        "warnings",
        "errors",
        "messages",
        "clips",
        "inspect",
        "report",
        "read",
        "_source",
    )

    def __init__(self, raw: dict[str, Any], name: str, format: str, source: str | None):
        self.data: bytes = raw["data"]
        self.format: str = format
        self.diagnostics: list[Diagnostic] = _diagnostics(raw)
        self.warnings: int = raw["warnings"]
        self.errors: int = raw["errors"]
        self.messages: str = raw["messages"]
        # As `x3dbake inspect --json` gives it: the document's head, then
        # what the bake found.
        self.inspect: dict[str, Any] = {
            "schema": "x3dbake-inspect/1",
            "file": name,
            "errors": raw["errors"],
            "warnings": raw["warnings"],
            "diagnostics": [
                {k: v for k, v in d.items() if v is not None} for d in raw["diagnostics"]
            ],
            **json.loads(raw["inspect"]),
        }
        self.clips: list[Clip] = [
            Clip(
                c.get("name", ""),
                c.get("clock"),
                float(c.get("duration", 0.0)),
                bool(c.get("loop", False)),
                list(c.get("tracks", [])),
            )
            for c in self.inspect.get("clips", [])
        ]
        self.report: str | None = raw["report"]
        self.read: list[str] = list(raw["read"])
        self._source = source

    def __repr__(self) -> str:
        return (
            f"<x3dbake.Result {self.format}, {len(self.data)} bytes, "
            f"{len(self.clips)} clips, {self.warnings} warnings>"
        )

    def write(self, path: str | os.PathLike[str]) -> str:
        """Writes ``data`` to ``path``, whole or not at all: into a hidden
        temporary file beside it, renamed into place when complete. The
        scene and the files it read are never written over (a link to one
        is the file). A destination that is not a regular file (a device
        such as /dev/null) is written into directly. Returns the path."""
        path = os.fspath(path)
        for f in ([self._source] if self._source else []) + self.read:
            if os.path.exists(path) and os.path.exists(f) and os.path.samefile(path, f):
                raise UsageError(f"{path} is an input ({f}): not written over")
        if os.path.exists(path) and not os.path.isfile(path):
            with open(path, "wb") as out:
                out.write(self.data)
            return path
        folder, name = os.path.split(os.path.abspath(path))
        temp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(self.data)
            os.replace(temp, path)
        except BaseException:
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise
        return path


def _diagnostics(raw: dict[str, Any]) -> list[Diagnostic]:
    return [
        Diagnostic(d["severity"], d["message"], d["file"], d["line"], d["column"])
        for d in raw["diagnostics"]
    ]


def _names(value: Any, what: str) -> list[str]:
    """A list of strings from a list, a tuple or one string."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    try:
        items = list(value)
    except TypeError:
        raise UsageError(f"{what}: a list of strings, not {type(value).__name__}") from None
    for v in items:
        if not isinstance(v, str):
            raise UsageError(f"{what}: a list of strings, not one holding {type(v).__name__}")
    return items


_EXTENSIONS = {".glb": "glb", ".gltf": "gltf", ".csv": "csv"}


def bake(
    source: str | os.PathLike[str] | bytes | bytearray | memoryview,
    *,
    files: dict[str, bytes] | None = None,
    format: str | None = None,
    mode: str | None = None,
    interpolation: str | None = None,
    rate: float = 30.0,
    max_samples: int | None = None,
    tolerance: float | None = None,
    keep_constant: bool = False,
    cycles: int = 1,
    tangents: str = "as-written",
    clips: list[str] | tuple[str, ...] = (),
    compress: str | bool | None = None,
    interactive: bool = False,
    core: bool = False,
    visibility: str | None = None,
    wide: bool = False,
    report: bool = False,
    timeline: bool = False,
    start: float | None = None,
    end: float | None = None,
    load_time: float | None = None,
    events: list[str] | tuple[str, ...] = (),
    root: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None,
) -> Result:
    """Bakes an X3D scene into glTF 2.0 or CSV, as ``x3dbake SOURCE -o
    OUTPUT`` with the same options does (the same bytes, the same
    warnings).

    Args:
        source: a path (str or os.PathLike) to read: the files it names
            (Inline, EXTERNPROTO, textures) are read beside it. Or the
            scene's bytes: then the files it names come from ``files``.
            With ``files``, a str names one of them.
        files: paths (as the scene names them, "/" between folders) and
            their bytes, held in memory: the scene's Inlines, EXTERNPROTOs
            and textures. A bytes ``source`` takes the name of the entry it
            equals, else "scene.x3d".
        format: "glb", "gltf" (the buffer inside, as ``--embed``) or "csv";
            None: from ``output``'s extension, else "glb".
        mode: "exact" (exact keys where glTF holds the curve, fits within
            the bound elsewhere: the default) or "sample" (every track
            sampled at ``rate``).
        interpolation: "linear" (default), "step" (sample mode) or "cubic".
        rate: samples a second, for sample mode and CSV rows.
        max_samples: the most samples a track may take (50 000 000).
        tolerance: the bound for every track (scene units, radians for
            rotations): the fewest keys within it.
        keep_constant: with ``tolerance``, keep tracks that never change.
        cycles: cycles of each clock in a clip.
        tangents: "as-written" or "c1": how spline tangents are read.
        clips: only these clips.
        compress: True or "meshopt" (quantised and EXT_meshopt_compression),
            "quantize" (KHR_mesh_quantization only), None: none.
        interactive: the routes' behaviour as a KHR_interactivity graph.
        core: only what a core glTF loader reads.
        visibility: "scale" (default) or "extension" (KHR_node_visibility).
        wide: CSV, one row a time and one column a component.
        report: also the bake report, an HTML page (``Result.report``).
        timeline: the whole world in world time, from ``start`` to ``end``.
        start, end: with ``timeline``, seconds.
        load_time: with ``timeline``, the absolute time the world loads.
        events: with ``timeline``, a person's events,
            ``"TIME:NODE.FIELD=VALUE"`` (``"2:Button.touchTime=2"``).
        root: read only files inside this folder (a path ``source``).
        output: also write the result there (see :meth:`Result.write`).

    Returns:
        a :class:`Result`.

    Raises:
        SceneError: the scene has errors.
        UsageError: settings that cannot go together, or a value not
            known.
        LimitError: a track or table past the limits.
        OSError: the source cannot be read, or the output written.
    """
    out = os.fspath(output) if output is not None else None
    if format is None:
        ext = os.path.splitext(out)[1].lower() if out is not None else ""
        format = _EXTENSIONS.get(ext, "glb")
    elif out is not None:
        ext = os.path.splitext(out)[1].lower()
        if ext in _EXTENSIONS and _EXTENSIONS[ext] != format:
            raise UsageError(f"output {out} is a .{_EXTENSIONS[ext]} file, but format is {format!r}")
    if compress is True:
        compress = "meshopt"
    elif compress is False:
        compress = None
    settings = {
        "format": format,
        "mode": mode,
        "interpolation": interpolation,
        "rate": rate,
        "max_samples": max_samples,
        "tolerance": tolerance,
        "keep_constant": keep_constant,
        "cycles": cycles,
        "tangents": tangents,
        "clips": _names(clips, "clips"),
        "compress": compress,
        "interactive": interactive,
        "core": core,
        "visibility": visibility,
        "wide": wide,
        "report": report,
        "timeline": timeline,
        "start": start,
        "end": end,
        "load_time": load_time,
        "events": _names(events, "events"),
    }
    try:
        settings_json = json.dumps(settings, allow_nan=True)
    except (TypeError, ValueError) as e:
        raise UsageError(f"settings: {e}") from None

    source_path = None
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        held = _held(files)
        name = next((p for p, b in held if b == data), "scene.x3d")
        raw = _convert(name, settings_json, data, held, _path(root))
    elif isinstance(source, (str, os.PathLike)):
        name = os.fsdecode(os.fspath(source))
        if files is not None:
            held = _held(files)
            data = next((b for p, b in held if p == name), None)
            if data is None:
                raise FileNotFoundError(2, f"{name} is not among the files given", name)
            raw = _convert(name, settings_json, data, held, _path(root))
        else:
            source_path = name
            raw = _convert(name, settings_json, None, None, _path(root))
    else:
        raise TypeError(f"source: a path or bytes, not {type(source).__name__}")

    if not raw["ok"]:
        diagnostics = _diagnostics(raw)
        first = next((d for d in diagnostics if d.severity == "error"), None)
        message = str(first) if first else raw["messages"].strip() or "the scene has errors"
        raise SceneError(message, diagnostics, raw["messages"])
    result = Result(raw, name, format, source_path)
    if out is not None:
        result.write(out)
    return result


def _held(files: dict[str, bytes] | None) -> list[tuple[str, bytes]]:
    if files is None:
        return []
    if not isinstance(files, dict):
        raise TypeError(f"files: a dict of paths and bytes, not {type(files).__name__}")
    held = []
    for path, data in files.items():
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"files[{path!r}]: bytes, not {type(data).__name__}")
        held.append((os.fsdecode(os.fspath(path)), bytes(data)))
    return held


def _path(root: str | os.PathLike[str] | None) -> str | None:
    return None if root is None else os.fsdecode(os.fspath(root))
