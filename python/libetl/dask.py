"""Collections of traces on Dask: libetl.dask.read_etl (a dask DataFrame) and read_events (a dask Bag).

One partition per input file, and for a large file several partitions, one per time slice: the
slices come from a plan of the file (libetl.plan_slices: one light reading of it, on the client)
and each partition reads its slice with a reader of its own given the slice's state
(libetl.open(..., slice=state)): the reader starts where the slice starts, and learns what the
trace before it describes - processes, threads, images, in-trace metadata - from the state, so
that every event decodes and names its process exactly as in a whole reading: the partitions of
a file together hold its events, each once, in time order.

The tasks carry paths, numbers and the states (bytes: a few hundred, more for a slice after many
process, thread and image records), so they run unchanged on dask.distributed (a LocalCluster or
a real cluster whose workers see the same paths and have libetl installed).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple, Union

import libetl

__all__ = ["read_etl", "read_events", "read_table", "partitions", "groups"]

#: Bytes of trace per partition when a file is sliced (64 MiB).
DEFAULT_SLICE_BYTES = 64 << 20
#: Slices of a zip's or gzip's trace at most: each slice's reader inflates the trace from its
#: start (a deflate stream cannot be entered midway), and inflating is about ten times faster than
#: reading, so past eight slices inflating would cost most of the work (a 43 MB trace gzipped into
#: 41 slices of 1 MiB took 6.4 s instead of 3.7 s on one worker).
ARCHIVE_MAX_SLICES = 8


def _paths(paths: Union[str, os.PathLike, Iterable]) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out = []
    for p in paths:
        p = os.fspath(p)
        if any(c in p for c in "*?["):
            import glob

            out.extend(sorted(glob.glob(p)))
        else:
            out.append(p)
    if not out:
        raise ValueError("no input")
    return out


def _is_archive(path: str) -> bool:
    with open(path, "rb") as f:
        head = f.read(4)
    return head == b"PK\x03\x04" or head[:2] == b"\x1f\x8b"


def _sized_partitions(paths, slice_bytes: int) -> List[Tuple[tuple, int]]:
    """partitions(), each with the bytes of trace it holds (a zip's or gzip's unpacked); a slice
    of a file as (path, since, until, state)."""
    parts = []
    for path in _paths(paths):
        size = os.path.getsize(path)
        if slice_bytes <= 0 or (size <= slice_bytes and not _is_archive(path)):
            parts.append(((path, 0, 0), size))
            continue
        with libetl.open(path, stacks=False) as reader:  # (an archive is unpacked once, here)
            size = sum(t["size"] for t in reader.info)
            n = max(1, -(-size // slice_bytes))
            if reader.info[0]["container"] in ("zip", "gzip"):
                n = min(n, ARCHIVE_MAX_SLICES)
            slices = reader.plan_slices(n) if n > 1 else [(0, 0, None)]
        parts.extend(((path,) + tuple(s), size // len(slices)) for s in slices)
    return parts


def _window(part: tuple) -> dict:
    """The arguments of libetl.open that read a partition: its slice's state, or its times."""
    if len(part) > 3 and part[3]:
        return {"slice": part[3]}
    return {"since": part[1] or None, "until": part[2] or None}


def partitions(paths, slice_bytes: int = DEFAULT_SLICE_BYTES) -> List[Tuple[str, int, int]]:
    """The (path, since, until) pieces of the inputs: one per file, and for a file of more than
    slice_bytes of trace (a zip's or gzip's counted unpacked), one per time slice (FILETIME
    bounds; 0 is "no bound"), an archive in ARCHIVE_MAX_SLICES at most."""
    return [part[:3] for part, _ in _sized_partitions(paths, slice_bytes)]


def groups(paths, slice_bytes: int = DEFAULT_SLICE_BYTES) -> List[List[Tuple[str, int, int]]]:
    """The partitions of read_etl and read_events: the pieces of partitions() in
    order, small files gathered until a partition holds about slice_bytes of trace (each task
    has a cost of its own: fifteen 50 KB files made fifteen tasks), a slice of a large file
    alone."""
    return [[part[:3] for part in g] for g in _groups(paths, slice_bytes)]


def _groups(paths, slice_bytes: int) -> List[List[tuple]]:
    """groups(), a slice of a file with its state (path, since, until, state)."""
    out: List[List[tuple]] = []
    held = 0
    for part, size in _sized_partitions(paths, slice_bytes):
        if out and held + size <= slice_bytes and part[1:3] == (0, 0) and out[-1][-1][1:3] == (0, 0):
            out[-1].append(part)
            held += size
        else:
            out.append([part])
            held = size
    return out


def _read_partition(part: tuple, kwargs: dict):
    path = part[0]
    df = libetl.to_pandas(path, **_window(part), **kwargs)
    df.insert(0, "file", path)
    df["file"] = df["file"].astype("category")
    return df


def _align(df, meta):
    """A partition in the columns and dtypes of the first one (categories are unioned by dask)."""
    out = df.copy()
    for name, dtype in meta.dtypes.items():
        if name not in out:
            out[name] = None
        if str(dtype) != str(out[name].dtype) and str(dtype) != "category":
            try:
                out[name] = out[name].astype(dtype)
            except (TypeError, ValueError):
                out[name] = out[name].astype(object)
    return out[list(meta.columns)]


def read_etl(
    paths,
    *,
    fields: Union[None, bool, Sequence[str]] = None,
    columns: Optional[Sequence[str]] = None,
    manifests=None,
    providers=None,
    names=None,
    ids=None,
    level: Optional[int] = None,
    pids=None,
    slice_bytes: int = DEFAULT_SLICE_BYTES,
    tmf=None,
    derive: bool = False,
    builtin_manifests: bool = True,
):
    """A dask DataFrame of the events of one or more traces (paths: a path, a glob or a list).

    Partitions (see groups()): time slices of about slice_bytes of the larger files, and small
    files gathered up to that size; the rows are those libetl.to_pandas gives, file by file,
    with a "file" column first, and the columns have its dtypes (a named field's from the values
    of the first events that have it).  fields, columns, the filters, tmf and derive (derived
    fields and the "derived" column) are those of libetl.to_pandas.  Damage in a partition goes
    to warnings (libetl.DamageWarning) on the worker that read it.
    """
    kwargs = dict(fields=fields, columns=columns, manifests=manifests, providers=providers, names=names,
                  ids=ids, level=level, pids=pids, tmf=tmf, derive=derive, builtin_manifests=builtin_manifests)
    parts = _groups(paths, slice_bytes)
    meta = _meta(parts[0][0], kwargs)
    ddf = _frame(_read_group, [(g, kwargs, meta) for g in parts], meta)
    for name, dtype in meta.dtypes.items():
        if str(dtype) == "category":  # each partition has its own categories
            ddf[name] = ddf[name].cat.as_unknown()
    return ddf


#: Events read at most for the dtypes of named fields, and values looked at per field.
_META_EVENTS = 100_000
_META_VALUES = 64


def _meta(part: tuple, kwargs: dict):
    """The empty frame of read_etl: the columns and dtypes to_pandas gives.  A named field's
    dtype comes from its values, so it is taken from the first events that have the field (not
    from the first rows, where it may be missing: an object column then)."""
    import pandas as pd

    meta = _read_partition(part, dict(kwargs, limit=64)).iloc[:0]
    fields = kwargs.get("fields")
    if not fields or isinstance(fields, bool):
        return meta
    fields = [fields] if isinstance(fields, str) else list(fields)
    values: dict = {f: [] for f in fields}
    opts = {k: kwargs[k] for k in ("manifests", "providers", "names", "ids", "level", "pids", "tmf", "derive",
                                   "builtin_manifests")}
    with libetl.open(part[0], stacks=False, **_window(part), **opts) as reader:
        for i, ev in enumerate(reader):
            have = dict(ev.derived, **ev.fields) if opts["derive"] else ev.fields  # (as to_pandas looks)
            for f in fields:
                v = have.get(f)
                if v is not None and len(values[f]) < _META_VALUES:
                    values[f].append(v)
            if i >= _META_EVENTS or all(len(v) >= _META_VALUES for v in values.values()):
                break
    for f, vs in values.items():
        if vs:
            meta[f] = pd.Series(libetl._typed_objects(vs + [None], pd), dtype=None).iloc[:0]
    return meta


def _read_group(group: Sequence[tuple], kwargs: dict, meta_df):
    import pandas as pd

    frames = [_read_partition(part, kwargs) for part in group]
    if len(frames) == 1:
        return _align(frames[0], meta_df)
    df = pd.concat([_align(f, meta_df) for f in frames], ignore_index=True)
    for name, dtype in meta_df.dtypes.items():  # (categories of differing sets concatenate as objects)
        if str(dtype) == "category" and str(df[name].dtype) != "category":
            df[name] = df[name].astype("category")
    return df


def _frame(fn: Callable, args: List[tuple], meta):
    """A dask DataFrame of one partition per fn(*args).  (Delayed tasks, not dd.from_map: Dask
    2022.12's from_map hands its inputs to the workers of a threads cluster still wrapped for
    serialisation.)"""
    import dask
    import dask.dataframe as dd

    return dd.from_delayed([dask.delayed(fn, pure=True)(*a) for a in args], meta=meta, verify_meta=False)


def _table_of(path: str, name: str, kwargs: dict):
    df = libetl.table(path, name, **kwargs)
    df.insert(0, "file", path)
    df["file"] = df["file"].astype("category")
    return df


def _table_aligned(path, table, kwargs, meta_df):
    return _align(_table_of(path, table, kwargs), meta_df)


def read_table(paths, name: str, *, stacks: bool = False, manifests=None, symbols=None, tmf=None,
               builtin_manifests: bool = True, since=None, until=None, pids=None, processes=None,
               filter: Optional[str] = None):
    """A dask DataFrame of one analysis table (libetl.table) over many traces: one partition
    per file (a table pairs events across its whole trace, so a file is not sliced), with a
    "file" column first.  since/until, pids, processes and filter select rows as in
    libetl.table() (a time from the start, "+4s", counts from each file's own start)."""
    kwargs = dict(stacks=stacks, manifests=manifests, symbols=symbols, tmf=tmf, builtin_manifests=builtin_manifests,
                  since=since, until=until, pids=pids, processes=processes, filter=filter)
    files = _paths(paths)
    meta = _table_of(files[0], name, kwargs).iloc[:0]
    ddf = _frame(_table_aligned, [(f, name, kwargs, meta) for f in files], meta)
    for col, dtype in meta.dtypes.items():
        if str(dtype) == "category":
            ddf[col] = ddf[col].cat.as_unknown()
    return ddf


def _events_of(part: tuple, kwargs: dict) -> List[dict]:
    path = part[0]
    out = []
    with libetl.open(path, stacks=False, **_window(part), **kwargs) as reader:
        for ev in reader:
            d = ev.as_dict()
            d["file"] = path
            out.append(d)
    return out


def read_events(
    paths,
    *,
    manifests=None,
    providers=None,
    names=None,
    ids=None,
    level: Optional[int] = None,
    pids=None,
    slice_bytes: int = DEFAULT_SLICE_BYTES,
    tmf=None,
    builtin_manifests: bool = True,
):
    """A dask Bag of event dicts (Event.as_dict() and "file"), partitioned as read_etl (groups())."""
    import dask.bag as db

    kwargs = dict(manifests=manifests, providers=providers, names=names, ids=ids, level=level, pids=pids, tmf=tmf,
                  builtin_manifests=builtin_manifests)
    parts = _groups(paths, slice_bytes)
    return db.from_sequence(parts, npartitions=len(parts)).map_partitions(
        lambda gs: [e for g in gs for p in g for e in _events_of(p, kwargs)])
