"""Type stubs of the `oneshader` module (docs/python.md). maturin packs this file into the
wheel; test_stub_names_the_module_s_api checks that it names exactly the module's API."""

import os
from typing import Any, Dict, List, Optional, Sequence, Union

__version__: str
TARGETS: List[str]

class CompileError(Exception):
    """A compilation (or an `.osir` load, a link, an emit) failed; `str(e)` is the rendered
    diagnostics."""

    diagnostics: List[Diagnostic]
    code: Optional[str]
    phase: Optional[str]
    summary: str
    option: Optional[str]

class BuildError(CompileError):
    """A manifest build failed: a wrong manifest, or failed variants (`report`)."""

    report: Dict[str, Any]

class Diagnostic:
    """One error, warning or note, with its code and position."""

    severity: str
    code: str
    message: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    end_line: Optional[int]
    end_column: Optional[int]
    notes: List[str]
    rendered: str
    @property
    def is_error(self) -> bool: ...

class CompileResult:
    """What a successful compilation produced."""

    output: bytes
    text: Optional[str]
    target: str
    reflection: Optional[Dict[str, Any]]
    diagnostics: List[Diagnostic]
    stage: Optional[str]
    cache_key: str
    inputs: List[str]
    @property
    def warnings(self) -> List[Diagnostic]: ...
    @property
    def rendered(self) -> str: ...

class Module:
    """An IR module, from `load_osir` or `link`."""

    @property
    def cache_key(self) -> str: ...
    @property
    def exports(self) -> List[str]: ...
    @property
    def imports(self) -> List[str]: ...
    def text(self) -> str: ...

def compile(
    source: str,
    *,
    profile: Optional[str] = None,
    entry: Optional[str] = None,
    target: Optional[str] = None,
    args: Sequence[str] = (),
    name: str = "<string>",
    includes: Optional[Dict[str, str]] = None,
    filesystem: bool = True,
    reflect: bool = True,
) -> CompileResult: ...
def emit(
    module: Module,
    target: str = "spirv",
    *,
    args: Sequence[str] = (),
    name: str = "<module>",
    reflect: bool = True,
) -> CompileResult: ...
def load_osir(data: bytes, *, verify: bool = True, name: str = "<osir>") -> Module: ...
def save_osir(module: Module) -> bytes: ...
def link(
    modules: Sequence[Module],
    *,
    keep_exports: bool = False,
    names: Optional[Sequence[str]] = None,
) -> Module: ...
def build(
    manifest: Union[str, os.PathLike],
    *,
    jobs: Optional[int] = None,
    cache_dir: Optional[Union[str, os.PathLike]] = None,
    use_cache: bool = True,
) -> Dict[str, Any]: ...
