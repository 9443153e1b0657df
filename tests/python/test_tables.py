#!/usr/bin/env python3
"""The analysis tables from Python (libetl.table, libetl.dask.read_table) and from etldump
(--table, --tables, --report): typed columns, the same rows every way, and totals that are
the sums of the events they come from (disk bytes and samples per process, on every corpus
trace that has them).

Usage: test_tables.py ETLGEN ETLDUMP CORPUS_DIR
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from collections import Counter

import pandas as pd

import libetl

ETLGEN, ETLDUMP, CORPUS = sys.argv[1:4]
NAMES = ["processes", "threads", "images", "cpu-samples", "cpu-usage", "disk-io", "file-io", "network", "gc",
         "exceptions", "jit", "hard-faults"]


def corpus(*names):
    out = []
    for n in names:
        p = os.path.join(CORPUS, "etl", n)
        if os.path.exists(p):
            out.append(p)
    return out


class Synthetic(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.tmp.name, "tables64.etl")
        subprocess.run([ETLGEN, "tables64", cls.path], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_names(self):
        self.assertEqual(libetl.table_names(), NAMES)
        with self.assertRaises(ValueError):
            libetl.table(self.path, "disks")

    def test_typed_columns(self):
        df = libetl.table(self.path, "disk-io")
        self.assertEqual(len(df), 3)
        self.assertEqual(str(df["init_time"].dtype), "datetime64[ns, UTC]")
        self.assertEqual(str(df["pid"].dtype), "Int64")
        self.assertEqual(str(df["irp"].dtype), "UInt64")
        self.assertEqual(str(df["elapsed"].dtype), "float64")
        self.assertEqual(str(df["type"].dtype), "category")
        self.assertEqual(list(df["pid"]), [200, 100, 200])
        self.assertEqual(list(df["type"]), ["read", "read", "write"])
        self.assertEqual(df["bytes"].sum(), 4096 + 512)
        self.assertTrue(pd.isna(df["complete_time"].iloc[2]))
        self.assertEqual(df.attrs["notes"], {
            "disk I/Os issued with no completion in the trace (rows without completion)": 1,
            "disk I/O completions whose issue is not in the trace (though it logs issues)": 1})
        self.assertEqual(df["init_time"].iloc[0], pd.Timestamp("2022-06-18T04:26:40.020Z"))

    def test_every_table(self):
        want = {"processes": 2, "threads": 3, "images": 1, "cpu-samples": 6, "cpu-usage": 3, "disk-io": 3,
                "file-io": 3, "network": 2, "gc": 2, "exceptions": 1, "jit": 1}
        for name, rows in want.items():
            df = libetl.table(self.path, name)
            self.assertEqual(len(df), rows, name)
        gc = libetl.table(self.path, "gc")
        self.assertEqual(list(gc["gc_number"]), [1, 2])
        self.assertAlmostEqual(gc["pause"].iloc[0], 0.8)
        self.assertEqual(str(libetl.table(self.path, "processes")["start_is_trace_start"].dtype), "boolean")
        # the stack column is there on request
        self.assertIn("stack", libetl.table(self.path, "cpu-samples", stacks=True).columns)

    def test_events_carry_their_process(self):
        with libetl.open(self.path) as r:
            got = Counter((e.name.split("/", 1)[1], e.process_pid) for e in r
                          if e.name.startswith("Windows Kernel/PerfInfo/Sample"))
        self.assertEqual(got, Counter({("PerfInfo/Sample", 100): 3, ("PerfInfo/Sample", 200): 2,
                                       ("PerfInfo/Sample", 0): 1}))
        # pids= matches the process an event is about, not only its header's
        with libetl.open(self.path, pids=[100]) as r:
            names = Counter(e.name.split("/", 1)[1] for e in r if e.name.startswith("Windows Kernel/"))
        self.assertEqual(names["PerfInfo/Sample"], 3)
        self.assertEqual(names["DiskIO/Read"], 1)

    def test_cli_table_formats(self):
        out = subprocess.run([ETLDUMP, "-q", "--table=gc", "-f", "csv", self.path], capture_output=True,
                             check=True).stdout.decode()
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual([r["gc_number"] for r in rows], ["1", "2"])
        self.assertEqual(rows[0]["reason"], "Induced")
        self.assertEqual(rows[1]["end_time"], "")
        out = subprocess.run([ETLDUMP, "-q", "--table=disk-io", "-f", "jsonl", self.path], capture_output=True,
                             check=True).stdout.decode()
        js = [json.loads(l) for l in out.splitlines()]
        self.assertEqual([j["bytes"] for j in js], [4096, 512, None])
        text = subprocess.run([ETLDUMP, "-q", "--table=threads", self.path], capture_output=True,
                              check=True).stdout.decode().splitlines()
        self.assertEqual(text[0].split(), ["trace", "pid", "tid", "process", "name", "start_time",
                                           "start_is_trace_start", "end_time", "start_address", "start_function"])
        self.assertEqual(len(text), 4)
        # the table's notes go to stderr
        r = subprocess.run([ETLDUMP, "--table=gc", self.path], capture_output=True)
        self.assertEqual(r.returncode, 0)
        self.assertIn(b"gc: 1 GCs with no GCEnd", r.stderr)
        listed = subprocess.run([ETLDUMP, "--tables"], capture_output=True, check=True).stdout.decode()
        self.assertEqual([l.split(":")[0] for l in listed.splitlines() if not l.startswith(" ")], NAMES)
        bad = subprocess.run([ETLDUMP, "--table=disks", self.path], capture_output=True)
        self.assertEqual(bad.returncode, 2)
        self.assertIn(b"disks", bad.stderr)

    def test_html_report(self):
        out = os.path.join(self.tmp.name, "report.html")
        libetl.report(self.path, out)
        html = open(out, encoding="utf-8").read()
        self.assertTrue(html.startswith("<!DOCTYPE html>"))
        self.assertIn("worker.exe (200)", html)
        self.assertTrue(html.endswith("</html>\n"))
        self.assertEqual([f for f in os.listdir(self.tmp.name) if ".tmp" in f], [])  # no temporary left
        before = open(self.path, "rb").read()
        with self.assertRaises(ValueError):
            libetl.report(self.path, self.path)  # never over an input
        self.assertEqual(open(self.path, "rb").read(), before)
        with self.assertRaises(OSError):
            libetl.report(self.path, os.path.join(self.tmp.name, "no-such-dir", "r.html"))
        # etldump writes the same page
        cli = subprocess.run([ETLDUMP, "-q", "--report=html", self.path], capture_output=True, check=True).stdout
        self.assertEqual(cli.decode(), html)

    def test_report_writes_through_what_the_path_names(self):
        # a FIFO is written through (read by a thread), not replaced by a regular file
        import stat
        import threading
        fifo = os.path.join(self.tmp.name, "fifo")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
        reader.start()
        libetl.report(self.path, fifo)
        reader.join(30)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        self.assertTrue(got and got[0].startswith(b"<!DOCTYPE html>"))
        # a symbolic link stays one: the file it names is the report
        target = os.path.join(self.tmp.name, "target.html")
        open(target, "w").close()
        link = os.path.join(self.tmp.name, "link.html")
        os.symlink(target, link)
        libetl.report(self.path, link)
        self.assertTrue(os.path.islink(link))
        self.assertTrue(open(target, encoding="utf-8").read().startswith("<!DOCTYPE html>"))
        # a regular file keeps its mode
        kept = os.path.join(self.tmp.name, "kept.html")
        open(kept, "w").close()
        os.chmod(kept, 0o640)
        libetl.report(self.path, kept)
        self.assertEqual(stat.S_IMODE(os.stat(kept).st_mode), 0o640)
        self.assertEqual([f for f in os.listdir(self.tmp.name) if ".tmp" in f], [])

    def test_cli_report(self):
        out = subprocess.run([ETLDUMP, "-q", "--report", self.path], capture_output=True,
                             check=True).stdout.decode()
        for want in ("app.exe", "worker.exe", "data.bin", "10.0.0.2:443", "no GCEnd"):
            self.assertIn(want, out)
        bad = subprocess.run([ETLDUMP, "--report=pdf", self.path], capture_output=True)
        self.assertEqual(bad.returncode, 2)
        self.assertIn(b"text or html", bad.stderr)


class Corpus(unittest.TestCase):
    """Totals equal the sums of the raw events: per process, disk bytes are the TransferSize of
    its DiskIO Read/Write records and samples the PerfInfo/Sample records of its threads."""

    def test_totals(self):
        paths = corpus("perfview_net.4.5.2.x86.etl", "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl", "Tx_Process.etl")
        if not paths:
            self.skipTest("corpus absent")
        for path in paths:
            disk, samples = Counter(), Counter()
            with libetl.open(path) as r:
                for e in r:
                    if e.name in ("Windows Kernel/DiskIO/Read", "Windows Kernel/DiskIO/Write"):
                        disk[e.process_pid] += e.fields["TransferSize"]
                    elif e.name == "Windows Kernel/PerfInfo/Sample":
                        samples[e.process_pid] += 1
            d = libetl.table(path, "disk-io")
            d = d[d["type"].isin(["read", "write"]) & d["bytes"].notna()]
            got = Counter({(None if pd.isna(k) else int(k)): int(v)
                           for k, v in d.groupby("pid", dropna=False, observed=True)["bytes"].sum().items()})
            self.assertEqual(+got, +disk, path)
            s = libetl.table(path, "cpu-samples")
            got = Counter({(None if pd.isna(k) else int(k)): int(v) for k, v in s["pid"].value_counts(dropna=False).items()})
            self.assertEqual(got, samples, path)
            if path.endswith("perfview_net.4.5.2.x86.etl"):
                self.assertEqual(sum(samples.values()), 88809)
                self.assertEqual(samples[None], 4)  # before their thread's rundown record

    def test_many_name_globs_cost_little(self):
        # 20,001 globs over 168,298 events: each distinct name is matched once (it took minutes)
        paths = corpus("perfview_net.4.5.2.x86.etl")
        if not paths:
            self.skipTest("corpus absent")
        import time
        globs = ["Nothing/%d/*" % i for i in range(20000)] + ["Windows Kernel/DiskIO/*"]
        t = time.monotonic()
        with libetl.open(paths[0], names=globs) as r:
            many = Counter(e.name for e in r)
        took = time.monotonic() - t
        with libetl.open(paths[0], names="Windows Kernel/DiskIO/*") as r:
            one = Counter(e.name for e in r)
        self.assertEqual(many, one)
        self.assertEqual(sum(one.values()), 4786)
        self.assertLess(took, 60)  # (a bound, not a speed: seconds here, minutes before)

    def test_field_columns_are_bounded(self):
        # 10,000 field columns over 10,000 events took 30 s and 3.3 GB: at most 1,024, said
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        path = os.path.join(tmp.name, "mixed64.etl")
        subprocess.run([ETLGEN, "mixed64", path], check=True)
        df = libetl.to_pandas(path, columns=["cpu"], fields=["f%d" % i for i in range(1024)])
        self.assertEqual(df.shape[1], 1025)
        with self.assertRaisesRegex(ValueError, "at most 1024 columns"):
            libetl.to_pandas(path, columns=["cpu"], fields=["f%d" % i for i in range(1025)])

    def test_dask_read_table(self):
        try:
            import libetl.dask
        except ImportError:
            self.skipTest("dask absent")
        paths = corpus("perfview_net.4.5.2.x86.etl", "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl")
        if not paths:
            self.skipTest("corpus absent")
        got = libetl.dask.read_table(paths, "gc").compute(scheduler="synchronous")
        want = pd.concat([libetl.table(p, "gc") for p in paths], ignore_index=True)
        self.assertEqual(len(got), len(want))
        self.assertEqual(list(got.columns), ["file"] + list(want.columns))
        self.assertEqual(list(got["gc_number"].astype("Int64")), list(want["gc_number"]))
        self.assertTrue(set(got["file"]) <= set(paths))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
