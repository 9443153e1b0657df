#!/usr/bin/env python3
"""libetl's Python API on the bundled fixtures (and, where present, corpus traces): the ways to
open inputs, reader tables, events that outlive the iteration, filters applied in C, and
to_pandas columns and types.

Usage: test_api.py SOURCE_ROOT CORPUS_DIR ETLDUMP
"""
import datetime
import gzip
import io
import os
import sys
import tempfile
import unittest
import warnings
import zipfile

import libetl

ROOT, CORPUS, ETLDUMP = sys.argv[1:4]
FIX = os.path.join(ROOT, "fixtures", "valid")
MIXED = os.path.join(FIX, "mixed64.etl")
SYSTEM = os.path.join(FIX, "system64.etl")
HAVE_CORPUS = os.path.isdir(os.path.join(CORPUS, "etl"))


def corpus(name):
    return os.path.join(CORPUS, "etl", name)


def keys(path, **kw):
    with libetl.open(path, **kw) as r:
        return [(e.file_offset, e.timestamp, e.name) for e in r]


class Inputs(unittest.TestCase):
    def test_path_bytes_file_and_pathlike_agree(self):
        import pathlib

        want = keys(MIXED)
        self.assertGreater(len(want), 10)
        with open(MIXED, "rb") as f:
            data = f.read()
        self.assertEqual(keys(data), want)
        self.assertEqual(keys(pathlib.Path(MIXED)), want)
        with open(MIXED, "rb") as f:
            self.assertEqual(keys(f), want)
        self.assertEqual(keys(io.BytesIO(data)), want)  # no descriptor: read into memory

    def test_gzip_and_zip_containers(self):
        with open(MIXED, "rb") as f:
            data = f.read()
        want = keys(MIXED)
        with tempfile.TemporaryDirectory() as d:
            gz = os.path.join(d, "t.etl.gz")
            with gzip.open(gz, "wb") as f:
                f.write(data)
            z = os.path.join(d, "t.etl.zip")
            with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as f:
                f.writestr("trace.etl", data)
                f.writestr("LogFile.txt", "not a trace")
            self.assertEqual(keys(gz), want)
            self.assertEqual(keys(z), want)
            with libetl.open(z) as r:
                self.assertEqual(r.info[0]["container"], "zip")
                self.assertEqual(r.info[0]["other_members"], ["LogFile.txt"])

    def test_several_inputs_merge_in_time_order(self):
        with libetl.open([MIXED, SYSTEM]) as r:
            events = [(e.trace_index, e.unix_ns) for e in r]
        self.assertEqual({t for t, _ in events}, {0, 1})
        self.assertEqual([t for _, t in events], sorted(t for _, t in events))
        self.assertEqual(len(events), len(keys(MIXED)) + len(keys(SYSTEM)))

    def test_not_a_trace_raises(self):
        with self.assertRaises(libetl.Error) as cm:
            libetl.open(b"this is not a trace at all, just some text" * 4)
        self.assertEqual((cm.exception.status, cm.exception.offset, cm.exception.path), ("format", 0, None))
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.etl")
            with open(bad, "wb") as f:
                f.write(b"\0" * 100)
            with self.assertRaises(libetl.Error) as cm:
                libetl.open(bad)
            self.assertEqual((cm.exception.status, cm.exception.path), ("format", bad))
            self.assertIn("not a trace", str(cm.exception))
        with self.assertRaisesRegex(TypeError, "a list of them; not int"):
            libetl.open(3)
        with self.assertRaises(OSError):
            libetl.open(os.path.join(ROOT, "no-such-file.etl"))
        with self.assertRaises(TypeError):
            libetl.open(42)


class Tables(unittest.TestCase):
    def test_info_counts_processes(self):
        with libetl.open(SYSTEM) as r:
            info = r.info[0]
            self.assertEqual(info["file"], SYSTEM)
            self.assertEqual(info["pointer_size"], 8)
            self.assertIsInstance(info["start_time"], datetime.datetime)
            self.assertEqual(info["start_time"].tzinfo, datetime.timezone.utc)
            # the fields of etldump --info --format=jsonl, with the same values
            import json, subprocess
            j = json.loads(subprocess.run([ETLDUMP, "-i", "-f", "jsonl", SYSTEM], capture_output=True,
                                          text=True).stdout)
            for k, v in j.items():
                if k == "type":
                    continue
                self.assertIn(k, info)
                if not k.endswith("_time"):
                    self.assertEqual(info[k], v, k)
            n = sum(1 for _ in r)
            self.assertEqual(r.counts["events"], n)
            self.assertEqual(r.counts["errors"], 0)
            procs = r.processes()
        self.assertIn("new.exe", {p["image"] for p in procs})
        p = next(p for p in procs if p["image"] == "new.exe")
        self.assertEqual(p["pid"], 500)
        self.assertIsInstance(p["start"], datetime.datetime)

    def test_events_outlive_the_iteration_and_the_reader(self):
        with libetl.open(SYSTEM) as r:
            events = list(r)
        # decoded only now, after close: the reader's tables live while its events do
        names = [e.name for e in events]
        self.assertIn("Windows Kernel/Process/Start", names)
        start = events[names.index("Windows Kernel/Process/Start")]
        self.assertEqual(start.fields["ProcessID"], 500)
        self.assertEqual(start.provider, "Windows Kernel")
        sample = next(e for e in events if e.name == "Windows Kernel/PerfInfo/Sample")
        self.assertEqual(sample.stack[:2], ["new.exe!+0x1234", "new.exe!+0x2000"])
        self.assertEqual(sample.process, "new.exe")
        with self.assertRaises(ValueError):
            next(r)

    def test_event_attributes(self):
        with libetl.open(MIXED) as r:
            ev = next(iter(r))
            self.assertEqual(ev.name, "Windows Kernel/EventTrace")
            self.assertIsInstance(ev.time, datetime.datetime)
            self.assertEqual(ev.unix_ns // 1000, round(ev.time.timestamp() * 1e6))
            self.assertEqual(libetl.filetime(ev.time), ev.filetime // 10 * 10)
            d = ev.as_dict()
            self.assertEqual(d["name"], ev.name)
            self.assertEqual(d["fields"], ev.fields)
            self.assertIn("EventTrace", repr(ev))


class Pickling(unittest.TestCase):
    """Events pickle and copy (to cross processes: multiprocessing, Dask bags) as snapshots: every
    attribute's value, with no reader behind them."""

    ATTRS = [n for n in dir(libetl.Event) if not n.startswith("_") and n != "as_dict"]

    def attrs(self, e):
        return {n: getattr(e, n) for n in self.ATTRS}

    def test_every_attribute_survives(self):
        import copy
        import pickle

        paths = [(os.path.join(FIX, "stackkeys64.etl"), {}), (os.path.join(FIX, "wpp64.etl"), dict(tmf=[Wpp.TMF])),
                 (MIXED, dict(derive=True))]
        if HAVE_CORPUS:
            paths.append((corpus("perfview_net.4.5.2.x86.etl"), dict(derive=True, names="*DiskIO*")))
        for path, kw in paths:
            with self.subTest(path=os.path.basename(path)):
                with libetl.open(path, **kw) as r:
                    events = list(r)
                self.assertTrue(events)
                for e in events:
                    want = self.attrs(e)
                    for back in (pickle.loads(pickle.dumps(e)), copy.copy(e), copy.deepcopy(e),
                                 pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(e))))):
                        self.assertIs(type(back), libetl.Event)
                        self.assertEqual(self.attrs(back), want)
                        self.assertEqual(back.as_dict(), e.as_dict())
                        self.assertEqual(repr(back), repr(e))
        self.assertIn("stack", self.ATTRS)
        self.assertIn("payload", self.ATTRS)

    def test_across_processes(self):
        import multiprocessing
        import pickle

        with libetl.open(SYSTEM) as r:
            events = list(r)
        ctx = multiprocessing.get_context("spawn")  # (a fresh interpreter: nothing of this reader)
        with ctx.Pool(1) as pool:
            got = pool.map(repr, events)
            names = pool.map(_event_name, [pickle.dumps(e) for e in events])
        self.assertEqual(got, [repr(e) for e in events])
        self.assertEqual(names, [e.name for e in events])

    def test_bad_states_are_refused(self):
        import pickle

        with libetl.open(SYSTEM) as r:
            e = next(r)
        state = pickle.loads(pickle.dumps(e)).__reduce__()[1][0]
        for bad, exc in ((None, TypeError), ({}, ValueError), ({k: v for k, v in state.items() if k != "name"}, ValueError)):
            with self.assertRaises(exc):
                libetl._event_from_state(bad)


def _event_name(blob):
    import pickle

    return pickle.loads(blob).name


class Wpp(unittest.TestCase):
    """WPP messages with TMF files (issue 21): open(..., tmf=...) and Event.message."""

    WPP = os.path.join(FIX, "wpp64.etl")
    TMF = os.path.join(ROOT, "fixtures", "tmf")

    def messages(self, **kw):
        with libetl.open(self.WPP, **kw) as r:
            return [e for e in r if e.header == "message"]

    def test_decoded_with_tmf(self):
        evs = self.messages(tmf=self.TMF)
        self.assertEqual([e.decoder for e in evs], ["tmf", "tmf", "tmf", "none", "none"])
        self.assertEqual(evs[1].name, "WppDemo/OpenFile")
        self.assertEqual(evs[1].message, "[OpenFile] opened a.txt (4096 bytes) at 0xFFFF95820BE02120")
        self.assertEqual(evs[1].fields, {"name": "a.txt", "size": 4096, "handle": 0xFFFF95820BE02120})  # pointers are ints
        self.assertEqual(evs[2].as_dict()["message"],
                         "[OpenFile] ERROR: open failed with status STATUS_NO_SUCH_FILE (0xC000000F) at IRQL DPC")
        self.assertIsNone(evs[3].message)
        self.assertIn("do not fit the TMF", evs[3].undecoded_reason)
        df = libetl.to_pandas(self.WPP, tmf=[self.TMF], columns=["name", "decoder"])
        self.assertEqual(list(df[df.decoder == "tmf"].name), ["WppDemo/DriverEntry", "WppDemo/OpenFile",
                                                              "WppDemo/OpenFile"])

    def test_helper_threads_same_events(self):
        path = os.path.join(FIX, "compressed64.etl")
        self.assertEqual(keys(path, threads=2), keys(path))
        with self.assertRaises(ValueError):
            libetl.open(path, threads=100)

    def test_without_tmf_and_bad_paths(self):
        self.assertTrue(all(e.decoder == "none" and e.message is None for e in self.messages()))
        with self.assertRaises(libetl.Error):
            libetl.open(self.WPP, tmf=os.path.join(self.TMF, "missing.tmf"))
        with self.assertRaises(TypeError):
            libetl.open(self.WPP, tmf=[b"bytes"])


class Filters(unittest.TestCase):
    def all_events(self, path):
        with libetl.open(path) as r:
            return [(e.file_offset, e.timestamp, e.name, e.provider, e.id, e.level, e.process_pid, e.unix_ns)
                    for e in r]

    def test_filters_match_python_side_filtering(self):
        every = self.all_events(SYSTEM)
        cases = [
            (dict(names="Windows Kernel/Process/*"), lambda e: e[2].startswith("Windows Kernel/Process/")),
            (dict(providers="Windows Kernel"), lambda e: e[3] == "Windows Kernel"),
            (dict(ids=[65535]), lambda e: e[4] == 65535),
            (dict(level=0), lambda e: e[5] <= 0),
            # the process the event is about: the header's pid, else the payload's thread's (issue 34)
            (dict(pids=[500]), lambda e: e[6] == 500),
        ]
        for kw, pred in cases:
            with self.subTest(kw=kw):
                got = [x[:2] for x in self.all_events_kw(SYSTEM, kw)]
                want = [x[:2] for x in every if pred(x)]
                self.assertTrue(want)
                self.assertEqual(got, want)

    def all_events_kw(self, path, kw):
        with libetl.open(path, **kw) as r:
            return [(e.file_offset, e.timestamp) for e in r]

    def test_time_window(self):
        every = self.all_events(SYSTEM)
        times = sorted({e[7] for e in every})
        mid = times[len(times) // 2]
        since = datetime.datetime.fromtimestamp(mid / 1e9, datetime.timezone.utc)
        got = self.all_events_kw(SYSTEM, dict(since=libetl.filetime(since)))
        self.assertEqual(got, [x[:2] for x in every if x[7] >= since.timestamp() * 1e9 - 1000])


class Pandas(unittest.TestCase):
    def test_header_columns_and_types(self):
        import pandas as pd

        df = libetl.to_pandas(SYSTEM)
        with libetl.open(SYSTEM) as r:
            events = list(r)
        self.assertEqual(len(df), len(events))
        self.assertEqual(list(df.columns), list(libetl.DEFAULT_COLUMNS))
        self.assertEqual(str(df["time"].dtype), "datetime64[ns, UTC]")
        self.assertEqual(list(df["time"].astype("int64")), [e.unix_ns for e in events])
        self.assertEqual(list(df["name"].astype(object)), [e.name for e in events])
        self.assertEqual([None if pd.isna(x) else int(x) for x in df["pid"]], [e.pid for e in events])
        self.assertEqual(str(df["name"].dtype), "category")

    def test_typed_fields(self):
        df = libetl.to_pandas(SYSTEM, fields=["ProcessID", "ImageFileName"], columns=["name"])
        starts = df[df["name"] == "Windows Kernel/Process/Start"]
        self.assertEqual(str(df["ProcessID"].dtype), "Int64")
        self.assertEqual(str(df["ImageFileName"].dtype), "string")
        self.assertEqual(list(starts["ProcessID"]), [500, 500])  # pid 500 is reused
        self.assertEqual(list(starts["ImageFileName"]), ["new.exe", "reuse.exe"])
        whole = libetl.to_pandas(SYSTEM, fields=True, columns=["name"])
        self.assertEqual(whole["fields"][starts.index[0]]["ProcessID"], 500)

    def test_event_columns_equal_the_events(self):
        # process_pid, activity ids, WPP messages, stacks and derived fields: the column of each is
        # what the Event says, event for event
        import pandas as pd

        cols = ["name", "process_pid", "activity_id", "related_activity_id", "message", "stack", "derived"]
        cases = [(os.path.join(FIX, "wpp64.etl"), dict(tmf=[Wpp.TMF])),
                 (os.path.join(FIX, "stackkeys64.etl"), {}), (os.path.join(FIX, "showcase64.etl"), {}),
                 (MIXED, dict(derive=True))]
        if HAVE_CORPUS:
            cases.append((corpus("perfview_net.4.5.2.x86.etl"), dict(derive=True)))
        seen = dict.fromkeys(cols[1:], 0)
        for path, kw in cases:
            with self.subTest(path=os.path.basename(path)):
                df = libetl.to_pandas(path, columns=cols, **kw)
                with libetl.open(path, **kw) as r:
                    events = list(r)
                self.assertEqual(len(df), len(events))
                self.assertEqual(str(df["message"].dtype), "string")
                self.assertEqual(str(df["process_pid"].dtype), "Int64")
                for col in cols:
                    got = [None if not isinstance(v, (list, dict)) and pd.isna(v) else v for v in df[col]]
                    want = [getattr(e, col) for e in events]
                    self.assertEqual(got, want, col)
                    if col in seen:
                        seen[col] += sum(1 for v in want if v not in (None, [], {}))
        # every column met values, not only empty cells
        self.assertTrue(all(seen.values()) if HAVE_CORPUS else seen["message"] and seen["stack"], seen)
        with self.assertRaises(ValueError):
            libetl.to_pandas(MIXED, columns=["nope"])

    def test_derived_field_columns(self):
        if not HAVE_CORPUS:
            self.skipTest("corpus not present")
        path = corpus("perfview_net.4.5.2.x86.etl")
        df = libetl.to_pandas(path, names="Windows Kernel/DiskIO/Read", fields=["ElapsedTimeMSec", "FileName"],
                              derive=True)
        # PerfView's first DiskIO/Read (as test_derived_fields_are_opt_in)
        self.assertAlmostEqual(df["ElapsedTimeMSec"][0], 10.9469)
        self.assertEqual(df["FileName"][0], "C:\\Windows\\System32\\wow64.dll")
        self.assertEqual(str(df["ElapsedTimeMSec"].dtype), "Float64")

    def test_a_field_no_event_has_is_said(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            df = libetl.to_pandas(SYSTEM, fields=["ProcessID", "processid", "ImageFile", "Zzzz"], columns=["name"])
        said = {str(w.message).split("'")[1]: str(w.message) for w in caught
                if issubclass(w.category, libetl.FieldWarning)}
        self.assertEqual(sorted(said), ["ImageFile", "Zzzz", "processid"])  # ProcessID exists: no word
        self.assertIn("closest: ProcessID", said["processid"])
        self.assertIn("closest: ImageFileName", said["ImageFile"])
        self.assertIn("other names", said["Zzzz"])
        self.assertTrue(df["processid"].isna().all())
        # pointed at this line, not at libetl
        self.assertEqual({os.path.abspath(w.filename) for w in caught}, {os.path.abspath(__file__)})
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            libetl.to_pandas(SYSTEM, fields=["ProcessID"], columns=["name"])  # found: no warning

    @unittest.skipUnless(HAVE_CORPUS, "corpus not present")
    def test_corpus_filters_and_limit(self):
        path = corpus("perfview_net.4.5.2.x86.etl")
        df = libetl.to_pandas(path, names="Windows Kernel/Process/*", columns=["name", "pid"])
        self.assertTrue(len(df) > 0)
        self.assertTrue(all(n.startswith("Windows Kernel/Process/") for n in df["name"]))
        self.assertEqual(len(libetl.to_pandas(path, limit=1000, columns=["cpu"])), 1000)

    @unittest.skipUnless(HAVE_CORPUS, "corpus not present")
    def test_derived_fields_are_opt_in(self):
        path = corpus("perfview_net.4.5.2.x86.etl")
        with libetl.open(path, names=["Windows Kernel/DiskIO/Read"]) as r:
            self.assertEqual(next(iter(r)).derived, {})
        with libetl.open(path, names=["Windows Kernel/DiskIO/Read"], derive=True) as r:
            ev = next(iter(r))
            # PerfView's first DiskIO/Read: ElapsedTimeMSec=10.947, FileName=C:\Windows\System32\...
            self.assertAlmostEqual(ev.derived["ElapsedTimeMSec"], 10.9469)
            self.assertEqual(ev.derived["FileName"], "C:\\Windows\\System32\\wow64.dll")
            self.assertNotIn("ElapsedTimeMSec", ev.fields)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
