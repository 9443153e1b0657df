#!/usr/bin/env python3
"""libetl.dask on a dask.distributed LocalCluster of two worker processes: read_etl gives the rows
of to_pandas (file by file, time slices included), and a trace cut into time slices gives the
same events as read whole; read_events gives the event dicts of the Python reader.

Usage: test_dask.py SOURCE_ROOT CORPUS_DIR
"""
import os
import sys
import unittest
import warnings

import libetl
import libetl.dask

ROOT, CORPUS = sys.argv[1:3]
FIX = os.path.join(ROOT, "fixtures", "valid")


def inputs():
    paths = [os.path.join(FIX, f) for f in ("mixed64.etl", "system64.etl", "compressed64.etl")]
    for f in ("perfview_net.4.5.2.x86.etl", "Tx_Process.etl", "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl"):
        p = os.path.join(CORPUS, "etl", f)
        if os.path.exists(p):
            paths.append(p)
    return paths


def rows(df):
    cols = [c for c in df.columns if c != "file"]
    out = df[cols].astype(object).where(df[cols].notna(), None)
    return [tuple(r) for r in out.itertuples(index=False)]


class OnACluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from distributed import Client, LocalCluster

        warnings.simplefilter("ignore", ResourceWarning)
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        cls.client = Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()

    def test_read_etl_equals_to_pandas(self):
        import pandas as pd

        paths = inputs()
        # the corpus traces are cut into several slices each; without the corpus, the fixtures
        slice_bytes = (64 << 10) if len(paths) > 3 else (8 << 10)
        parts = libetl.dask.partitions(paths, slice_bytes)
        self.assertGreater(len(parts), len(paths))  # some file was sliced
        groups = libetl.dask.groups(paths, slice_bytes)
        self.assertEqual([p for g in groups for p in g], parts)
        ddf = libetl.dask.read_etl(paths, fields=["ProcessID"], slice_bytes=slice_bytes)
        self.assertEqual(ddf.npartitions, len(groups))
        got = ddf.compute()
        want = pd.concat([libetl.to_pandas(p, fields=["ProcessID"]) for p in paths], ignore_index=True)
        self.assertEqual(len(got), len(want))
        self.assertEqual(list(got["file"].astype(str)), [p for p in paths for _ in range(len(libetl.to_pandas(p, columns=["cpu"])))])
        self.assertEqual(rows(got.reset_index(drop=True)), rows(want))

    def test_dtypes_are_those_of_to_pandas(self):
        # ProcessID and ImageFileName first appear past the first 64 rows of these traces: the
        # meta took them as objects
        fields = ["ProcessID", "ImageFileName", "FileName", "NoSuchField"]
        for path in inputs():
            with self.subTest(path=os.path.basename(path)):
                import warnings as w

                with w.catch_warnings():
                    w.simplefilter("ignore", libetl.FieldWarning)
                    want = libetl.to_pandas(path, fields=fields)
                    ddf = libetl.dask.read_etl(path, fields=fields, slice_bytes=1 << 40)
                    got = ddf.compute()
                for col in want.columns:
                    if str(want[col].dtype) == "category":
                        continue
                    self.assertEqual(str(ddf.dtypes[col]), str(want[col].dtype), col)
                    self.assertEqual(str(got[col].dtype), str(want[col].dtype), col)

    def test_an_archive_is_sliced_by_its_unpacked_size(self):
        zipped = os.path.join(CORPUS, "etl", "perfview_net.4.5.2.x86.etl.zip")
        if not os.path.exists(zipped):
            self.skipTest("corpus absent")
        plain = zipped[:-4]
        slice_bytes = 1 << 20  # the zip is 3.4 MiB, its trace 4.2 MiB: 5 slices, not 4
        self.assertEqual(len(libetl.dask.partitions(zipped, slice_bytes)),
                         len(libetl.dask.partitions(plain, slice_bytes)))
        self.assertEqual(len(libetl.dask.partitions(zipped, slice_bytes)), 5)
        # a small archive whose trace is large is sliced too, in ARCHIVE_MAX_SLICES at most
        self.assertGreater(len(libetl.dask.partitions(zipped, 4 << 20)), 1)
        self.assertEqual(len(libetl.dask.partitions(zipped, 64 << 10)), libetl.dask.ARCHIVE_MAX_SLICES)
        self.assertGreater(len(libetl.dask.partitions(plain, 64 << 10)), libetl.dask.ARCHIVE_MAX_SLICES)

    def test_small_files_are_grouped(self):
        import shutil
        import tempfile

        src = os.path.join(FIX, "system64.etl")
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i in range(15):
                paths.append(os.path.join(tmp, "t%02d.etl" % i))
                shutil.copy(src, paths[-1])
            size = os.path.getsize(src)
            gs = libetl.dask.groups(paths, 5 * size)
            self.assertEqual([len(g) for g in gs], [5, 5, 5])
            ddf = libetl.dask.read_etl(paths, slice_bytes=5 * size)
            self.assertEqual(ddf.npartitions, 3)
            got = ddf.compute()
            import pandas as pd

            want = pd.concat([libetl.to_pandas(p) for p in paths], ignore_index=True)
            self.assertEqual(rows(got.reset_index(drop=True)), rows(want))
            self.assertEqual(list(got["file"].astype(str)), [p for p in paths for _ in range(len(want) // 15)])
            self.assertEqual(len(libetl.dask.read_events(paths, slice_bytes=5 * size).compute()), len(want))

    def test_slices_equal_whole(self):
        for path in inputs():
            with self.subTest(path=os.path.basename(path)):
                bounds = libetl.time_slices(path, 5)
                whole = libetl.to_pandas(path, fields=True)
                parts = [libetl.to_pandas(path, fields=True, since=bounds[i] or None, until=bounds[i + 1] or None)
                         for i in range(len(bounds) - 1)]
                import pandas as pd

                joined = pd.concat(parts, ignore_index=True)
                self.assertEqual(rows(joined), rows(whole))

    def test_planned_slices_equal_windows(self):
        import pandas as pd

        for path in inputs():
            with self.subTest(path=os.path.basename(path)):
                plan = libetl.plan_slices(path, 5)
                self.assertEqual([s[0] for s in plan] + [plan[-1][1]], libetl.time_slices(path, 5))
                for since, until, state in plan:
                    self.assertIsInstance(state, bytes)
                    windowed = libetl.to_pandas(path, fields=True, since=since or None, until=until or None)
                    planned = libetl.to_pandas(path, fields=True, slice=state)
                    self.assertEqual(rows(planned), rows(windowed))
                joined = pd.concat([libetl.to_pandas(path, slice=s) for _, _, s in plan], ignore_index=True)
                self.assertEqual(rows(joined), rows(libetl.to_pandas(path)))
        path = inputs()[0]
        state = libetl.plan_slices(path, 3)[-1][2]
        with self.assertRaisesRegex(ValueError, "not with since"):
            libetl.open(path, slice=state, since=1)
        with self.assertRaisesRegex(ValueError, "at byte"):
            libetl.open(path, slice=state[:50])
        with self.assertRaisesRegex(ValueError, "another file"):
            libetl.open(inputs()[1], slice=state)

    def test_damaged_timestamp_loses_no_row(self):
        # issue 38: one bit of one timestamp of Tx_HTTP_Server.etl cut the slices short (1,511 rows
        # of 2,042); the damaged trace is made here from the corpus one
        import struct
        import tempfile

        src = os.path.join(CORPUS, "etl", "Tx_HTTP_Server.etl")
        if not os.path.exists(src):
            self.skipTest("corpus absent")
        data = bytearray(open(src, "rb").read())
        events = list(libetl.open(src, times="filetime"))
        at = events[1000].file_offset + 16
        (ts,) = struct.unpack_from("<Q", data, at)
        self.assertEqual(ts, events[1000].timestamp)
        struct.pack_into("<Q", data, at, ts ^ (1 << 40))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "damaged.etl")
            with open(path, "wb") as f:
                f.write(data)
            ddf = libetl.dask.read_etl([path], slice_bytes=64 << 10)
            self.assertGreater(ddf.npartitions, 2)
            self.assertEqual(len(ddf.compute()), 2042)
            bounds = libetl.time_slices(path, 4)
            until = bounds[3]
            with libetl.open(path, until=until, times="filetime") as r:
                windowed = sum(1 for _ in r)
            with libetl.open(path, times="filetime") as r:
                filtered = sum(1 for e in r if e.filetime < until)
            self.assertEqual(windowed, filtered)

    def test_read_events(self):
        paths = inputs()[:3]
        bag = libetl.dask.read_events(paths, slice_bytes=16 << 10)
        got = bag.compute()
        want = []
        for p in paths:
            with libetl.open(p, stacks=False) as r:
                want += [dict(e.as_dict(), file=p) for e in r]
        self.assertEqual(len(got), len(want))
        self.assertEqual([(e["file"], e["unix_ns"], e["name"], e["fields"]) for e in got],
                         [(e["file"], e["unix_ns"], e["name"], e["fields"]) for e in want])


class OnThreads(unittest.TestCase):
    """A cluster of threads in one process (the GIL is released while C reads) gives the rows of
    one of processes."""

    def test_same_rows_as_processes(self):
        from distributed import Client, LocalCluster

        warnings.simplefilter("ignore", ResourceWarning)
        paths = inputs()
        slice_bytes = (64 << 10) if len(paths) > 3 else (8 << 10)
        got = {}
        for procs in (True, False):
            with LocalCluster(n_workers=1 if not procs else 2, threads_per_worker=2 if not procs else 1,
                              processes=procs, dashboard_address=None) as cluster, Client(cluster):
                ddf = libetl.dask.read_etl(paths, fields=["ProcessID"], slice_bytes=slice_bytes)
                got[procs] = ddf.compute()
        self.assertGreater(len(got[True]), 0)
        self.assertEqual(rows(got[False].reset_index(drop=True)), rows(got[True].reset_index(drop=True)))
        self.assertEqual(list(got[False].dtypes.astype(str)), list(got[True].dtypes.astype(str)))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
