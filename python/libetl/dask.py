"""Collections of traces on Dask: libetl.dask.read_etl (a dask DataFrame) and read_events (a dask Bag).

One partition per input file, and for a large file several partitions, one per time slice: the
slices come from the file's buffer headers (libetl.time_slices) and each partition reads its
slice with a reader of its own (libetl.open(..., since=, until=)).  A slice reader still reads
the records before its slice - quickly, headers only, without delivering them - for the
processes, threads, images and in-trace metadata they describe, so that every event decodes and
names its process exactly as in a whole reading: the partitions of a file together hold its
events, each once, in time order.

The tasks carry only paths and numbers, so they run unchanged on dask.distributed (a
LocalCluster or a real cluster whose workers see the same paths and have libetl installed).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple, Union

import libetl

__all__ = ["read_etl", "read_events", "read_table", "partitions"]

#: Bytes of trace per partition when a file is sliced (64 MiB).
DEFAULT_SLICE_BYTES = 64 << 20


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


def partitions(paths, slice_bytes: int = DEFAULT_SLICE_BYTES) -> List[Tuple[str, int, int]]:
    """The (path, since, until) partitions of the inputs: one per file, and for a file of more
    than slice_bytes, one per time slice (FILETIME bounds; 0 is "no bound")."""
    parts = []
    for path in _paths(paths):
        size = os.path.getsize(path)
        n = max(1, -(-size // slice_bytes)) if slice_bytes > 0 else 1
        if n == 1:
            parts.append((path, 0, 0))
            continue
        bounds = libetl.time_slices(path, n)
        parts.extend((path, bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1))
    return parts


def _read_partition(part: Tuple[str, int, int], kwargs: dict):
    path, since, until = part
    df = libetl.to_pandas(path, since=since or None, until=until or None, **kwargs)
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
):
    """A dask DataFrame of the events of one or more traces (paths: a path, a glob or a list).

    Partitions: one per file, and time slices of about slice_bytes for larger files (see
    partitions()); the rows of each are those libetl.to_pandas gives for its slice, with a
    "file" column first.  fields, columns, the filters and tmf are those of libetl.to_pandas.
    Damage in a partition goes to warnings (libetl.DamageWarning) on the worker that read it.
    """
    import dask.dataframe as dd

    kwargs = dict(fields=fields, columns=columns, manifests=manifests, providers=providers, names=names,
                  ids=ids, level=level, pids=pids, tmf=tmf)
    parts = partitions(paths, slice_bytes)
    meta = _read_partition(parts[0], dict(kwargs, limit=64)).iloc[:0]
    ddf = dd.from_map(_read_aligned, parts, kwargs=kwargs, meta_df=meta, meta=meta, enforce_metadata=False)
    for name, dtype in meta.dtypes.items():
        if str(dtype) == "category":  # each partition has its own categories
            ddf[name] = ddf[name].cat.as_unknown()
    return ddf


def _table_of(path: str, name: str, kwargs: dict):
    df = libetl.table(path, name, **kwargs)
    df.insert(0, "file", path)
    df["file"] = df["file"].astype("category")
    return df


def _table_aligned(path, table, kwargs, meta_df):
    return _align(_table_of(path, table, kwargs), meta_df)


def read_table(paths, name: str, *, stacks: bool = False, manifests=None, symbols=None, tmf=None):
    """A dask DataFrame of one analysis table (libetl.table) over many traces: one partition
    per file (a table pairs events across its whole trace, so a file is not sliced), with a
    "file" column first."""
    import dask.dataframe as dd

    kwargs = dict(stacks=stacks, manifests=manifests, symbols=symbols, tmf=tmf)
    files = _paths(paths)
    meta = _table_of(files[0], name, kwargs).iloc[:0]
    ddf = dd.from_map(_table_aligned, files, table=name, kwargs=kwargs, meta_df=meta, meta=meta,
                      enforce_metadata=False)
    for col, dtype in meta.dtypes.items():
        if str(dtype) == "category":
            ddf[col] = ddf[col].cat.as_unknown()
    return ddf


def _read_aligned(part, kwargs, meta_df):
    return _align(_read_partition(part, kwargs), meta_df)


def _events_of(part: Tuple[str, int, int], kwargs: dict) -> List[dict]:
    path, since, until = part
    out = []
    with libetl.open(path, since=since or None, until=until or None, stacks=False, **kwargs) as reader:
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
):
    """A dask Bag of event dicts (Event.as_dict() and "file"), partitioned as read_etl."""
    import dask.bag as db

    kwargs = dict(manifests=manifests, providers=providers, names=names, ids=ids, level=level, pids=pids, tmf=tmf)
    parts = partitions(paths, slice_bytes)
    return db.from_sequence(parts, npartitions=len(parts)).map_partitions(
        lambda ps: [e for p in ps for e in _events_of(p, kwargs)])
