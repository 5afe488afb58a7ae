"""Type stubs of x3dbake: X3D scenes and their animation to glTF 2.0."""

import os
from typing import Any, Literal, NamedTuple

__version__: str

class X3DBakeError(Exception): ...
class UsageError(X3DBakeError, ValueError): ...

class SceneError(X3DBakeError):
    diagnostics: list[Diagnostic]
    messages: str
    def __init__(
        self, message: str, diagnostics: list[Diagnostic] | None = ..., messages: str = ...
    ) -> None: ...

class LimitError(X3DBakeError): ...

class Diagnostic(NamedTuple):
    severity: Literal["error", "warning"]
    message: str
    file: str | None = ...
    line: int | None = ...
    column: int | None = ...

class Clip(NamedTuple):
    name: str
    clock: str | None
    duration: float
    loop: bool
    tracks: list[dict[str, Any]]

class Result:
    data: bytes
    format: Literal["glb", "gltf", "csv"]
    diagnostics: list[Diagnostic]
    warnings: int
    errors: int
    messages: str
    clips: list[Clip]
    inspect: dict[str, Any]
    report: str | None
    read: list[str]
    def write(self, path: str | os.PathLike[str]) -> str: ...

def bake(
    source: str | os.PathLike[str] | bytes | bytearray | memoryview,
    *,
    files: dict[str, bytes] | None = None,
    format: Literal["glb", "gltf", "csv"] | None = None,
    mode: Literal["exact", "sample"] | None = None,
    interpolation: Literal["linear", "step", "cubic"] | None = None,
    rate: float = 30.0,
    max_samples: int | None = None,
    tolerance: float | None = None,
    keep_constant: bool = False,
    cycles: int = 1,
    tangents: Literal["as-written", "c1"] = "as-written",
    clips: list[str] | tuple[str, ...] = (),
    compress: Literal["meshopt", "quantize"] | bool | None = None,
    interactive: bool = False,
    core: bool = False,
    visibility: Literal["scale", "extension"] | None = None,
    wide: bool = False,
    report: bool = False,
    timeline: bool = False,
    start: float | None = None,
    end: float | None = None,
    load_time: float | None = None,
    events: list[str] | tuple[str, ...] = (),
    root: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None,
) -> Result: ...
