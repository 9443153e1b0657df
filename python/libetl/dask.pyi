"""Type hints of libetl.dask (see dask.py and docs/PYTHON.md)."""
from typing import Any, List, Optional, Sequence, Tuple, Union

import dask.bag
import dask.dataframe

DEFAULT_SLICE_BYTES: int
ARCHIVE_MAX_SLICES: int

def partitions(paths: Any, slice_bytes: int = ...) -> List[Tuple[str, int, int]]: ...
def groups(paths: Any, slice_bytes: int = ...) -> List[List[Tuple[str, int, int]]]: ...
def read_etl(
    paths: Any,
    *,
    fields: Union[None, bool, Sequence[str]] = ...,
    columns: Optional[Sequence[str]] = ...,
    manifests: Any = ...,
    providers: Any = ...,
    names: Any = ...,
    ids: Any = ...,
    level: Optional[int] = ...,
    pids: Any = ...,
    slice_bytes: int = ...,
    tmf: Any = ...,
    derive: bool = ...,
    builtin_manifests: bool = ...,
) -> dask.dataframe.DataFrame: ...
def read_events(
    paths: Any,
    *,
    manifests: Any = ...,
    providers: Any = ...,
    names: Any = ...,
    ids: Any = ...,
    level: Optional[int] = ...,
    pids: Any = ...,
    slice_bytes: int = ...,
    tmf: Any = ...,
    builtin_manifests: bool = ...,
) -> dask.bag.Bag: ...
def read_table(
    paths: Any,
    name: str,
    *,
    stacks: bool = ...,
    manifests: Any = ...,
    symbols: Any = ...,
    tmf: Any = ...,
    builtin_manifests: bool = ...,
    since: Any = ...,
    until: Any = ...,
    pids: Any = ...,
    processes: Any = ...,
    filter: Optional[str] = ...,
) -> dask.dataframe.DataFrame: ...
