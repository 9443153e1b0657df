"""Type hints of the libetl package (see __init__.py and docs/PYTHON.md)."""
import datetime
import os
from types import TracebackType
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Literal, Optional, Sequence, Tuple, Type,
                    Union, final)

import pandas
from _typeshed import structseq

__version__: str

TimeLike = Union[None, int, str, datetime.datetime]
# a path: str, bytes or os.PathLike (a path-like object whose __fspath__ gives str or bytes)
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
DamageHandler = Callable[[Dict[str, Any]], Any]

HEADER_COLUMNS: Tuple[str, ...]
DEFAULT_COLUMNS: Tuple[str, ...]
ALL_COLUMNS: Tuple[str, ...]

class Error(OSError):
    offset: Optional[int]
    status: Optional[str]
    path: Optional[str]
class DamageWarning(RuntimeWarning): ...
class FilterWarning(UserWarning): ...
class FieldWarning(UserWarning): ...

@final
class Frame(structseq[Any], Tuple[int, Optional[str], Optional[str], Optional[int], Optional[str], Optional[int], str,
                                  Optional[str]]):
    __match_args__ = ("address", "module", "function", "offset", "file", "line", "kind", "module_path")
    address: int
    module: Optional[str]
    function: Optional[str]
    offset: Optional[int]
    file: Optional[str]
    line: Optional[int]
    kind: str
    module_path: Optional[str]

@final
class Event:
    name: str
    provider: str
    provider_id: str
    id: int
    version: int
    level: int
    channel: int
    opcode: int
    task: int
    keywords: int
    pid: Optional[int]
    process_pid: Optional[int]
    tid: Optional[int]
    cpu: int
    unix_ns: int
    filetime: int
    time: Optional[datetime.datetime]
    timestamp: int
    decoder: str
    fields: Dict[str, Any]
    derived: Dict[str, Any]
    undecoded_reason: Optional[str]
    decode_error: Optional[str]
    message: Optional[str]
    payload: bytes
    stack: List[str]
    frames: List[Frame]
    process: Optional[str]
    hook_id: int
    header: str
    activity_id: Optional[str]
    related_activity_id: Optional[str]
    trace_index: int
    file_offset: int
    record_size: int
    pointer_size: int
    def as_dict(self) -> Dict[str, Any]: ...

@final
class Reader(Iterator[Event]):
    def __init__(
        self,
        inputs: Any,
        manifests: Union[None, str, Sequence[str]] = ...,
        order: str = ...,
        stacks: bool = ...,
        since: Optional[int] = ...,
        until: Optional[int] = ...,
        providers: Union[None, str, Iterable[str]] = ...,
        names: Union[None, str, Iterable[str]] = ...,
        ids: Union[None, int, Iterable[int]] = ...,
        level: Optional[int] = ...,
        pids: Union[None, int, Iterable[int]] = ...,
    processes: Union[None, str, Iterable[str]] = ...,
    filter: Optional[str] = ...,
        on_damage: Optional[DamageHandler] = ...,
        keep: Any = ...,
        derive: bool = ...,
        tmf: Union[None, str, Sequence[str]] = ...,
        threads: int = ...,
        times: str = ...,
        symbols: Union[None, str, Sequence[str]] = ...,
        slice: Optional[bytes] = ...,
        builtin_manifests: bool = ...,
    ) -> None: ...
    info: List[Dict[str, Any]]
    counts: Dict[str, int]
    damage: List[Dict[str, Any]]
    def __iter__(self) -> "Reader": ...
    def __next__(self) -> Event: ...
    def __enter__(self) -> "Reader": ...
    # (returns False: exceptions are never swallowed)
    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> Literal[False]: ...
    def close(self) -> None: ...
    def processes(self) -> List[Dict[str, Any]]: ...
    def time_slices(self, n: int, trace: int = 0) -> List[int]: ...
    def plan_slices(self, n: int, trace: int = 0) -> List[Tuple[int, int, bytes]]: ...

def filetime(t: TimeLike) -> int: ...

def open(
    paths: Union[PathLike, Sequence[PathLike]],
    manifests: Union[None, str, Sequence[str]] = ...,
    order: str = ...,
    *,
    stacks: bool = ...,
    derive: bool = ...,
    since: TimeLike = ...,
    until: TimeLike = ...,
    providers: Union[None, str, Iterable[str]] = ...,
    names: Union[None, str, Iterable[str]] = ...,
    ids: Union[None, int, Iterable[int]] = ...,
    level: Optional[int] = ...,
    pids: Union[None, int, Iterable[int]] = ...,
    processes: Union[None, str, Iterable[str]] = ...,
    filter: Optional[str] = ...,
    on_damage: Optional[DamageHandler] = ...,
    tmf: Union[None, str, Sequence[str]] = ...,
    threads: int = ...,
    times: str = ...,
    symbols: Union[None, str, Sequence[str]] = ...,
    slice: Optional[bytes] = ...,
    builtin_manifests: bool = ...,
) -> Reader: ...

def providers(
    manifests: Union[None, str, Sequence[str]] = ..., *, builtin_manifests: bool = ...
) -> List[Dict[str, Any]]: ...

def time_slices(path: PathLike, n: int) -> List[int]: ...
def plan_slices(path: PathLike, n: int) -> List[Tuple[int, int, bytes]]: ...

def to_pandas(
    paths: Union[PathLike, Sequence[PathLike]],
    *,
    fields: Union[None, bool, Sequence[str]] = ...,
    columns: Optional[Sequence[str]] = ...,
    manifests: Union[None, str, Sequence[str]] = ...,
    order: str = ...,
    since: TimeLike = ...,
    until: TimeLike = ...,
    providers: Union[None, str, Iterable[str]] = ...,
    names: Union[None, str, Iterable[str]] = ...,
    ids: Union[None, int, Iterable[int]] = ...,
    level: Optional[int] = ...,
    pids: Union[None, int, Iterable[int]] = ...,
    processes: Union[None, str, Iterable[str]] = ...,
    filter: Optional[str] = ...,
    on_damage: Optional[DamageHandler] = ...,
    limit: int = ...,
    tmf: Union[None, str, Sequence[str]] = ...,
    derive: bool = ...,
    symbols: Union[None, str, Sequence[str]] = ...,
    slice: Optional[bytes] = ...,
    builtin_manifests: bool = ...,
) -> pandas.DataFrame: ...

def table_names() -> List[str]: ...
def table(
    paths: Union[PathLike, Sequence[PathLike]],
    name: str,
    *,
    stacks: bool = ...,
    manifests: Union[None, str, Sequence[str]] = ...,
    symbols: Union[None, str, Sequence[str]] = ...,
    on_damage: Optional[DamageHandler] = ...,
    tmf: Union[None, str, Sequence[str]] = ...,
    threads: int = ...,
    builtin_manifests: bool = ...,
    since: TimeLike = ...,
    until: TimeLike = ...,
    pids: Union[None, int, Iterable[int]] = ...,
    processes: Union[None, str, Iterable[str]] = ...,
    filter: Optional[str] = ...,
) -> pandas.DataFrame: ...
def report(
    paths: Union[PathLike, Sequence[PathLike]],
    out: PathLike,
    *,
    manifests: Union[None, str, Sequence[str]] = ...,
    symbols: Union[None, str, Sequence[str]] = ...,
    on_damage: Optional[DamageHandler] = ...,
    tmf: Union[None, str, Sequence[str]] = ...,
    threads: int = ...,
    builtin_manifests: bool = ...,
    since: TimeLike = ...,
    until: TimeLike = ...,
    pids: Union[None, int, Iterable[int]] = ...,
    processes: Union[None, str, Iterable[str]] = ...,
    filter: Optional[str] = ...,
) -> None: ...

def __getattr__(name: str) -> Any: ...
