"""libetl: read Windows ETW trace files (.etl) offline, fast.

A thin layer over the libetl C library (its CPython extension ``libetl._libetl``)::

    import libetl

    with libetl.open("trace.etl") as reader:
        for ev in reader:
            print(ev.time, ev.name, ev.pid, ev.fields)

    df = libetl.to_pandas("trace.etl", fields=["ProcessID", "ImageFileName"])

``libetl.dask`` reads collections of traces on a Dask cluster.  docs/PYTHON.md has the whole
guide; every public name has its docstring.
"""

from __future__ import annotations

import datetime as _dt
import os as _os
import warnings as _warnings
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from . import _libetl
from ._libetl import DamageWarning, Error, Event, FilterWarning, Frame, Reader
from ._libetl import FILETIME_UNIX_EPOCH as _FILETIME_UNIX

__all__ = [
    "open",
    "to_pandas",
    "time_slices",
    "plan_slices",
    "Reader",
    "Event",
    "Frame",
    "table",
    "table_names",
    "report",
    "Error",
    "DamageWarning",
    "FilterWarning",
    "FieldWarning",
    "HEADER_COLUMNS",
    "DEFAULT_COLUMNS",
    "filetime",
    "__version__",
]

__version__ = _libetl.library_version()

# Event.__reduce__ names this function: a pickled or copied Event comes back as a snapshot of its
# attributes (no reader needed), also where libetl reads no trace (another Dask worker).
_event_from_state = _libetl._event_from_state

#: Columns that need no decoding (to_pandas reads them at the speed of the header walk).
HEADER_COLUMNS = (
    "time", "trace_index", "cpu", "pid", "tid", "provider_id", "id", "version", "level",
    "channel", "opcode", "task", "keywords", "header", "record_size", "payload_size",
)
#: The columns to_pandas gives when none are asked for: the header ones, and the decoded names.
DEFAULT_COLUMNS = HEADER_COLUMNS + ("provider", "name", "decoder", "process")
#: Every column to_pandas knows (fields aside).
ALL_COLUMNS = DEFAULT_COLUMNS + ("unix_ns", "timestamp", "hook_id", "file_offset", "process_pid", "activity_id",
                                 "related_activity_id", "message", "stack", "derived")

_FILETIME_EPOCH = _dt.datetime(1601, 1, 1, tzinfo=_dt.timezone.utc)

TimeLike = Union[None, int, str, _dt.datetime]
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
DamageHandler = Callable[[dict], Any]

_DURATION = ("ns", "us", "ms", "s", "m", "min", "h")


def _is_duration(v: Any) -> bool:
    """A time from each trace's start, as the filter syntax writes it: "+4s", "250ms", "1.5"."""
    if not isinstance(v, str):
        return False
    t = v[1:] if v.startswith("+") else v
    for unit in sorted(_DURATION, key=len, reverse=True):
        if t.endswith(unit):
            t = t[: -len(unit)]
            break
    try:
        return float(t) >= 0
    except ValueError:
        return False


def _quoted(v: str) -> str:
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _time_term(v: TimeLike, op: str) -> Optional[str]:
    """since= or until= as a filter term (docs/FILTERS.md): a time from the trace's start as it is,
    an absolute one as UTC text to 100 ns."""
    if v is None:
        return None
    if _is_duration(v):
        return f"@time {op} {_quoted(str(v))}"
    ft = filetime(v)
    day = _FILETIME_EPOCH + _dt.timedelta(seconds=ft // 10_000_000)
    return f"@time {op} {day.strftime('%Y-%m-%dT%H:%M:%S')}.{ft % 10_000_000:07d}Z"


def _selection(since: TimeLike, until: TimeLike, pids: Any, processes: Any, filter: Optional[str]) -> Optional[str]:
    """The filter text of an analysis's selection (table(), report()): its time window and the
    processes, and filter= (of which they apply the same terms)."""
    terms = [t for t in (_time_term(since, ">="), _time_term(until, "<")) if t]
    rest = _libetl.filter_text(pids=pids, processes=processes, filter=filter)  # (as open() makes them)
    return " and ".join(terms + ([rest] if rest else [])) or None


def filetime(t: TimeLike) -> int:
    """A time as a FILETIME (100 ns since 1601-01-01 UTC): an int is taken as one already, a
    datetime (naive ones are UTC) or an ISO 8601 text is converted exactly; None is 0."""
    if t is None:
        return 0
    if isinstance(t, bool):
        raise TypeError("a time is None, a FILETIME int, a datetime or an ISO 8601 text")
    if isinstance(t, int):
        return t
    if isinstance(t, str):
        t = _dt.datetime.fromisoformat(t.replace("Z", "+00:00"))
    if not isinstance(t, _dt.datetime):
        raise TypeError("a time is None, a FILETIME int, a datetime or an ISO 8601 text")
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    d = t - _FILETIME_EPOCH
    ft = (d.days * 86400 + d.seconds) * 10_000_000 + d.microseconds * 10
    ns = getattr(t, "nanosecond", 0)  # a pandas Timestamp
    return ft + ns // 100


def _inputs(paths: Any, keep: list) -> list:
    """The inputs as the C reader takes them: path text, bytes, or (fd, name)."""
    if isinstance(paths, (str, bytes, bytearray, memoryview, _os.PathLike)) or hasattr(paths, "read"):
        paths = [paths]
    elif not hasattr(paths, "__iter__"):
        raise TypeError("paths is a path, bytes, a binary file object, or a list of them; "
                        f"not {type(paths).__name__}")
    out = []
    for p in paths:
        if isinstance(p, (bytes, bytearray, memoryview)):
            out.append(bytes(p))
        elif isinstance(p, _os.PathLike) or isinstance(p, str):
            out.append(_os.fsdecode(p))
        elif hasattr(p, "read"):
            out.append(_file_input(p, keep))
        else:
            raise TypeError(f"an input is a path, bytes or a binary file object, not {type(p).__name__}")
    return out


def _file_input(f: Any, keep: list):
    """A file object: read through its descriptor when it has one that seeks, else its bytes."""
    try:
        fd = f.fileno()
        if f.seekable():
            keep.append(f)  # the descriptor must stay open as long as the reader
            return (fd, getattr(f, "name", "(file)") if isinstance(getattr(f, "name", None), str) else "(file)")
    except (AttributeError, OSError, ValueError):
        pass
    data = f.read()
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("a file object input must be opened in binary mode")
    return bytes(data)


def _manifests(manifests: Any) -> Optional[list]:
    if manifests is None:
        return None
    if isinstance(manifests, (str, _os.PathLike, bytes)):
        manifests = [manifests]
    return [m if isinstance(m, bytes) else _os.fsdecode(m) for m in manifests]


def open(
    paths: Union[PathLike, Sequence[PathLike]],
    manifests: Union[None, str, Sequence[str]] = None,
    order: str = "time",
    *,
    stacks: bool = True,
    derive: bool = False,
    since: TimeLike = None,
    until: TimeLike = None,
    providers: Union[None, str, Iterable[str]] = None,
    names: Union[None, str, Iterable[str]] = None,
    ids: Union[None, int, Iterable[int]] = None,
    level: Optional[int] = None,
    pids: Union[None, int, Iterable[int]] = None,
    processes: Union[None, str, Iterable[str]] = None,
    filter: Optional[str] = None,
    on_damage: Optional[DamageHandler] = None,
    tmf: Union[None, str, Sequence[str]] = None,
    threads: int = 0,
    times: str = "datetime",
    symbols: Union[None, str, Sequence[str]] = None,
    slice: Optional[bytes] = None,
    builtin_manifests: bool = True,
) -> Reader:
    """Opens one trace or several (merged in time order) and returns a Reader: an iterator of
    Event objects, and a context manager that closes the inputs.

    paths: a path (.etl, .etl.zip, .gz), bytes holding a trace, a binary file object, or a
    list of them.  manifests: provider manifests (files or folders) for events their traces do
    not describe themselves; they win over the descriptions built into libetl (the Windows
    kernel, .NET runtime, HTTP, TCP/IP and packet-capture providers: providers()), which
    builtin_manifests=False turns off.  order: "time" (all CPUs and inputs merged by time) or "file".
    stacks: attach call stacks (Event.stack; costs a pass over traces with stack records).
    derive: give kernel events derived fields (Event.derived: elapsed times, file names through
    file keys, build times, drive-letter paths), computed as PerfView computes them.
    threads: helper threads (0 to 64) that decompress compressed buffers ahead of the reading
    thread; the events are the same.
    tmf: WPP trace message format files (a .tmf file or a folder of GUID.tmf files, or a list):
    WPP events then decode, with Event.message the formatted text (docs/WPP.md).
    times: how FILETIME values of Event.fields and Event.derived come: "datetime" (aware
    datetimes, which keep microseconds) or "filetime" (ints, 100 ns since 1601: nothing lost).
    Event.filetime and Event.unix_ns give the event's own time exactly either way.
    symbols: where PDB files are looked for, for the function names of Event.stack and
    Event.frames: folders (flat or a symbol store) or _NT_SYMBOL_PATH-style strings (local
    stores only; nothing is downloaded); an .etl.zip's symbols/ folder is used as well.  .NET
    methods are named from the trace's own CLR events without them.

    Filters, applied in C before an event becomes an object, with the meaning of etldump's
    options (docs/FILTERS.md): since/until (a datetime, an ISO 8601 text, a FILETIME int, or a
    time from each trace's start like "+4s"; events in [since, until)), providers (GUIDs, names
    or globs), names (event name globs, "Windows Kernel/Process/*"), processes (image name
    globs), ids, level (at most), pids, and filter (an expression of the filter syntax, and'ed
    with the others).  Globs ignore ASCII case.
    slice: a time slice's state from plan_slices() (instead of since/until): the slice's events,
    as since/until would give them, without reading the trace before the slice.

    Damage (a bad buffer or record, a payload that contradicts its schema) is never silent:
    each one is a dict in reader.damage and goes to on_damage(dict), or without it to
    warnings.warn as a libetl.DamageWarning; reading goes on.  libetl.Error is raised when an
    input cannot be read at all.
    """
    keep: list = []
    relative = [t for t in (_time_term(since, ">=") if _is_duration(since) else None,
                            _time_term(until, "<") if _is_duration(until) else None) if t]
    if relative:
        filter = " and ".join(relative + ([f"({filter})"] if filter else []))
    reader = Reader(
        _inputs(paths, keep),
        manifests=_manifests(manifests),
        order=order,
        stacks=stacks,
        derive=derive,
        since=None if _is_duration(since) else filetime(since),
        until=None if _is_duration(until) else filetime(until),
        providers=providers,
        names=names,
        ids=ids,
        level=level,
        pids=pids,
        processes=processes,
        filter=filter,
        on_damage=on_damage,
        keep=keep,
        tmf=_manifests(tmf),
        threads=threads,
        times=times,
        symbols=_manifests(symbols),
        slice=slice,
        builtin_manifests=builtin_manifests,
    )
    return reader


def providers(manifests: Union[None, str, Sequence[str]] = None, *, builtin_manifests: bool = True) -> list:
    """The providers that decode: those of the manifests given (files or folders), then those
    built into libetl, each a dict with "guid", "name", "kind" ("given" or "built-in"),
    "events" (the event descriptions it holds), "source" (the file, or the repository and file
    a built-in one was made from) and "license" (a built-in one's)."""
    return _libetl.providers(_manifests(manifests), builtin_manifests)


def plan_slices(path: PathLike, n: int) -> list:
    """The time slices of time_slices(path, n), each a tuple (since, until, state): open(path,
    slice=state) reads the events of [since, until) as open(path, since=since, until=until)
    does, without reading the trace before since - state (bytes: a few hundred, more with the
    records before the slice that describe processes, threads, images and metadata) says what
    that part describes and where each CPU's buffers take up.  The plan reads the trace once,
    lightly; states can be sent to other processes or machines that read the same file."""
    with Reader(_inputs(path, []), stacks=False) as r:
        return r.plan_slices(n)


def time_slices(path: PathLike, n: int) -> list:
    """At most n + 1 FILETIME bounds that cut the trace at path into time slices of about equal
    bytes (from its buffers' flush times, or their records' times where those are not in the
    trace's clock, as in relogged traces); bounds[0] is 0 and the last bound 0 means "no end".
    Reading each [bounds[i], bounds[i+1]) with open(path, since=..., until=...) gives every
    event exactly once, decoded as in a whole reading."""
    with Reader(_inputs(path, []), stacks=False) as r:
        return r.time_slices(n)


def _column(kind: tuple, rows: int, pd: Any, np: Any):
    tag = kind[0]
    if tag == "times":  # ns since 1970, and a null mask: datetime64[ns, UTC] with NaT
        ns = np.frombuffer(kind[1], dtype="int64")
        mask = np.frombuffer(kind[2], dtype="uint8").astype(bool)
        col = pd.to_datetime(ns, unit="ns", utc=True)
        return col.where(~mask) if mask.any() else col
    if tag == "masked" and kind[2] in ("uint64", "bool"):
        values = np.frombuffer(kind[1], dtype="int64")
        mask = np.frombuffer(kind[3], dtype="uint8").astype(bool)
        if kind[2] == "bool":
            return pd.arrays.BooleanArray(values != 0, mask)
        return pd.arrays.IntegerArray(values.view("uint64"), mask)
    if tag == "array":
        return np.frombuffer(kind[1], dtype=kind[2])
    if tag == "text":  # (a WPP message: text of its own per event)
        return pd.array(kind[1], dtype="string")
    if tag == "filetime":  # FILETIMEs (100 ns since 1601) as datetime64[ns, UTC], nothing lost
        ns = np.array([-1 if v is None else (v - _FILETIME_UNIX) * 100 for v in kind[1]], dtype="int64")
        col = pd.to_datetime(ns, unit="ns", utc=True)
        return col.where(ns != -1) if (ns == -1).any() else col
    if tag == "masked":
        values = np.frombuffer(kind[1], dtype=kind[2]).astype("int64")
        mask = np.frombuffer(kind[3], dtype="uint8").astype(bool)
        return pd.arrays.IntegerArray(values, mask)
    if tag == "categorical":
        codes = np.frombuffer(kind[1], dtype="int32")
        return pd.Categorical.from_codes(codes, categories=pd.Index(kind[2], dtype=object))
    return _typed_objects(kind[1], pd)


def _typed_objects(values: list, pd: Any):
    """Decoded field values as a typed column where they share a type (nullable where some
    event lacks the field), else as objects."""
    kinds = {type(v) for v in values if v is not None}
    if kinds == {bool}:
        return pd.array(values, dtype="boolean")
    if kinds == {int} and all(v is None or -(2**63) <= v < 2**63 for v in values):
        return pd.array(values, dtype="Int64")
    if kinds <= {int, float} and float in kinds:
        return pd.array([None if v is None else float(v) for v in values], dtype="Float64")
    if kinds == {str}:
        return pd.array(values, dtype="string")
    if kinds == {_dt.datetime}:
        return pd.to_datetime(values, utc=True)
    series = pd.Series(values, dtype=object)
    return series.array


def table_names() -> list:
    """The analysis tables there are (docs/TABLES.md)."""
    return list(_libetl.TABLES)


def table(
    paths: Union[PathLike, Sequence[PathLike]],
    name: str,
    *,
    stacks: bool = False,
    manifests: Union[None, str, Sequence[str]] = None,
    symbols: Union[None, str, Sequence[str]] = None,
    on_damage: Optional[DamageHandler] = None,
    tmf: Union[None, str, Sequence[str]] = None,
    threads: int = 0,
    builtin_manifests: bool = True,
    since: TimeLike = None,
    until: TimeLike = None,
    pids: Union[None, int, Iterable[int]] = None,
    processes: Union[None, str, Iterable[str]] = None,
    filter: Optional[str] = None,
):
    """An analysis table of one trace or several (merged) as a pandas DataFrame, built column by
    column in C from one pass over the events (docs/TABLES.md lists the tables and their columns:
    "processes", "threads", "images", "cpu-samples", "cpu-usage", "disk-io", "file-io",
    "network", "gc", "exceptions", "jit", "hard-faults").

    Integer columns are nullable (UInt64 for addresses, Int64 else), times datetime64[ns, UTC]
    (NaT where unknown), durations float64 in ms (NaN where unknown), text categorical.
    stacks: cpu-samples with a "stack" column.  df.attrs["notes"] holds what could not be paired
    (an I/O without its completion, a GC without its end) as {text: count}.
    since/until, pids, processes and filter select rows as etldump --table does: the time window
    and the processes (docs/TABLES.md says which row falls in a window; filter's other terms are
    left out).  The other arguments are those of libetl.open().
    """
    import numpy as np
    import pandas as pd

    if name not in _libetl.TABLES:
        raise ValueError(f"no table {name!r}: the tables are {', '.join(_libetl.TABLES)}")
    with open(paths, manifests, on_damage=on_damage, tmf=tmf, threads=threads, symbols=symbols,
              builtin_manifests=builtin_manifests) as reader:
        raw = _libetl.table(reader, name, stacks, _selection(since, until, pids, processes, filter))
    rows = raw.pop("__rows__")
    notes = dict(raw.pop("__notes__"))
    data = {}
    for col, kind in raw.items():
        if kind[0] == "masked" and kind[2] == "int64":
            values = np.frombuffer(kind[1], dtype="int64")
            mask = np.frombuffer(kind[3], dtype="uint8").astype(bool)
            data[col] = pd.arrays.IntegerArray(values.copy(), mask)
        else:
            data[col] = _column(kind, rows, pd, np)
    df = pd.DataFrame(data, index=pd.RangeIndex(rows))
    df.attrs["notes"] = notes
    return df


def to_pandas(
    paths: Union[PathLike, Sequence[PathLike]],
    *,
    fields: Union[None, bool, Sequence[str]] = None,
    columns: Optional[Sequence[str]] = None,
    manifests: Union[None, str, Sequence[str]] = None,
    order: str = "time",
    since: TimeLike = None,
    until: TimeLike = None,
    providers: Union[None, str, Iterable[str]] = None,
    names: Union[None, str, Iterable[str]] = None,
    ids: Union[None, int, Iterable[int]] = None,
    level: Optional[int] = None,
    pids: Union[None, int, Iterable[int]] = None,
    processes: Union[None, str, Iterable[str]] = None,
    filter: Optional[str] = None,
    on_damage: Optional[DamageHandler] = None,
    limit: int = 0,
    tmf: Union[None, str, Sequence[str]] = None,
    derive: bool = False,
    symbols: Union[None, str, Sequence[str]] = None,
    slice: Optional[bytes] = None,
    builtin_manifests: bool = True,
):
    """The events of one trace or several (merged) as a pandas DataFrame, built column by column
    in C: no Python object per event for the header columns.

    columns: names from libetl.ALL_COLUMNS (default DEFAULT_COLUMNS; HEADER_COLUMNS need no
    decoding and read fastest).  "time" is a datetime64[ns, UTC] column; provider_id, provider,
    name, decoder, process, header, activity_id and related_activity_id are categoricals; pid,
    tid and process_pid are nullable (the headers of some kernel records carry none;
    process_pid is Event.process_pid, the process the event is about).  "message" is a WPP
    event's formatted message (string; with tmf=), "stack" its frames as Event.stack gives them
    (lists of str; symbols= names functions), "derived" Event.derived (dicts; with derive=True).
    fields: True for one "fields" column of dicts; a list of field names for one typed column
    each (Int64, Float64, boolean, string or datetime where every value shares a type,
    missing where an event has no such field; with derive=True a name may be a derived field's).
    A named field no event read has gives a FieldWarning naming the closest names there are.
    The other arguments are those of libetl.open(); limit stops after that many rows.
    """
    import numpy as np
    import pandas as pd

    cols = list(DEFAULT_COLUMNS if columns is None else columns)
    if fields is not None and not isinstance(fields, bool):
        fields = [fields] if isinstance(fields, str) else list(fields)
    with open(paths, manifests, order, stacks="stack" in cols, since=since, until=until, providers=providers,
              names=names, ids=ids, level=level, pids=pids, processes=processes, filter=filter,
              on_damage=on_damage, tmf=tmf, derive=derive,
              symbols=symbols, slice=slice, builtin_manifests=builtin_manifests) as reader:
        raw = _libetl.columns(reader, cols, fields, limit)
    rows = raw.pop("__rows__")
    _warn_missing_fields(raw.pop("__missing_fields__", ()), raw.pop("__field_names__", ()))
    data = {}
    for name, kind in raw.items():
        col = _column(kind, rows, pd, np)
        if name == "time":
            col = pd.to_datetime(col, unit="ns", utc=True)
        data[name] = col
    return pd.DataFrame(data, index=pd.RangeIndex(rows))


class FieldWarning(UserWarning):
    """A field asked for (to_pandas(fields=[...])) that no event read has: its column is all
    missing.  The message names the closest names the events do have."""


def _warn_missing_fields(missing: Sequence[str], names: Sequence[str]) -> None:
    import difflib

    for field in missing:
        close = difflib.get_close_matches(field, names, n=3, cutoff=0.6)
        if not close:  # (case or a prefix, where the spelling is further off)
            low = field.lower()
            close = [n for n in names if n.lower() == low or n.lower().startswith(low)][:3]
        hint = f"; closest: {', '.join(close)}" if close else (
            f"; the events have {len(names)} other names" if names else "; no event read was decoded")
        _warnings.warn(f"field {field!r} is in no event read: its column is all missing{hint}",
                       FieldWarning, stacklevel=3)


def report(
    paths: Union[PathLike, Sequence[PathLike]],
    out: PathLike,
    *,
    manifests: Union[None, str, Sequence[str]] = None,
    symbols: Union[None, str, Sequence[str]] = None,
    on_damage: Optional[DamageHandler] = None,
    tmf: Union[None, str, Sequence[str]] = None,
    threads: int = 0,
    builtin_manifests: bool = True,
    since: TimeLike = None,
    until: TimeLike = None,
    pids: Union[None, int, Iterable[int]] = None,
    processes: Union[None, str, Iterable[str]] = None,
    filter: Optional[str] = None,
) -> None:
    """Writes the HTML report of one trace or several (merged) to the file out: one
    self-contained page (no network, no external file) with the traces' overview, the processes'
    lifetimes, CPU over time and a flame graph of the sampled stacks, disk and file I/O, network
    and .NET GCs and exceptions (docs/REPORT.md), as etldump --report=html writes it.  The file
    is made only once the report is complete, and never over one of the inputs.  since/until,
    pids, processes and filter select as for table(), and the page states the selection.  The
    other arguments are those of libetl.open()."""
    with open(paths, manifests, on_damage=on_damage, tmf=tmf, threads=threads, symbols=symbols,
              builtin_manifests=builtin_manifests) as reader:
        _libetl.report(reader, out, _selection(since, until, pids, processes, filter))


def __getattr__(name: str) -> Any:
    """libetl.dask, imported on first use (so that importing libetl does not import dask)."""
    if name == "dask":
        import importlib

        return importlib.import_module(".dask", __name__)
    raise AttributeError(f"module 'libetl' has no attribute {name!r}")
