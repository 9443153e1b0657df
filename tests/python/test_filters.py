#!/usr/bin/env python3
"""One filter, one meaning (docs/FILTERS.md): the same selection through the C API
(tests/filter_count.c), etldump's options (one thread and two) and the Python package's keyword
arguments gives the same count on corpus traces, and the analyses (etldump --table,
libetl.table, libetl.dask.read_table) take the same time window and processes.

Usage: test_filters.py FILTER_COUNT ETLDUMP CORPUS_DIR   (exit 77 without the corpus)
"""
import os
import subprocess
import sys
import unittest

import libetl

FILTER_COUNT, ETLDUMP, CORPUS = sys.argv[1:4]
NET = os.path.join(CORPUS, "etl", "perfview_net.4.5.2.x86.etl")
TLG = os.path.join(CORPUS, "etl", "etwanalyzer_TraceLoggingTester.etl.gz")

# (trace, filter text, etldump's options, Python's keyword arguments, the count where known)
CASES = [
    (NET, "@provider = microsoft-windows-dotnetruntime*", ["-p", "microsoft-windows-dotnetruntime*"],
     dict(providers="microsoft-windows-dotnetruntime*"), 39302),
    (NET, "@provider = MICROSOFT-WINDOWS-DOTNETRUNTIME", ["-p", "MICROSOFT-WINDOWS-DOTNETRUNTIME"],
     dict(providers=["MICROSOFT-WINDOWS-DOTNETRUNTIME"]), 11608),
    (NET, "@time >= +5s and @time < +6s and @process = test*",
     ["--since", "+5s", "--until", "+6s", "--process", "test*"],
     dict(since="+5s", until="+6s", processes="test*"), None),
    (NET, "@time >= +5s and @time < +6s", ["--since", "5s", "--until", "6000ms"],
     dict(since="+5s", until="6s"), 14015),
    (NET, "(@id = 1-10) and @level <= 4", ["--id", "1-10", "--level", "4"], dict(ids=range(1, 11), level=4), None),
    (NET, "@pid = 3644", ["--pid", "3644"], dict(pids=3644), None),
    (NET, "@name = *gc*", ["-e", "*GC*"], dict(names="*Gc*"), None),
    (NET, "Count > 10 and @provider = *runtime", ["--filter", "Count > 10", "-p", "*RUNTIME"],
     dict(filter="Count > 10", providers="*runtime"), None),
    (TLG, "@provider = csharptraceloggingeventsource", ["-p", "CSharpTraceLoggingEventSource"],
     dict(providers="CSHARPTRACELOGGINGEVENTSOURCE"), 70),
    (TLG, "@keywords & 0x8 and not @provider = windows*", ["--keywords-any", "0x8", "--filter", "not @provider = WINDOWS*"],
     dict(filter="@keywords & 0x8 and not @provider = windows*"), None),
]


def cli_count(path, args, threads=1):
    out = subprocess.run([ETLDUMP, "-q", "--stats", f"--threads={threads}"] + args + [path], capture_output=True,
                         text=True, check=True).stdout
    return int(out.split()[1])


def c_count(path, text):
    return int(subprocess.run([FILTER_COUNT, text, path], capture_output=True, text=True, check=True).stdout)


class SameCount(unittest.TestCase):
    def test_c_cli_and_python_agree(self):
        for path, text, args, kwargs, want in CASES:
            with self.subTest(filter=text):
                c = c_count(path, text)
                py = len(libetl.to_pandas(path, columns=["time"], **kwargs))
                self.assertEqual(cli_count(path, args), c)
                self.assertEqual(cli_count(path, args, threads=2), c)
                self.assertEqual(py, c)
                with libetl.open(path, stacks=False, **kwargs) as r:
                    self.assertEqual(sum(1 for _ in r), c)
                self.assertGreater(c, 0)
                if want is not None:
                    self.assertEqual(c, want)

    def test_filter_errors_name_the_place(self):
        with self.assertRaisesRegex(ValueError, "a header number wants a number.* at character"):
            libetl.to_pandas(NET, filter="@id = x")
        with self.assertRaisesRegex(ValueError, "ids: integers from 0 to 65535"):
            libetl.to_pandas(NET, ids=[70000])
        # an expression cannot close the parenthesis it is put in, to escape the other arguments
        with self.assertRaisesRegex(ValueError, "and, or or the end is expected"):
            libetl.to_pandas(NET, providers="Nothing", filter="@id = 1) or (@id != 1")


class MatchedNothing(unittest.TestCase):
    def test_a_pattern_that_matched_nothing_is_warned_of(self):
        import warnings
        for read in (lambda: len(libetl.to_pandas(NET, columns=["time"], providers=["Microsft-Windows-*", "PerfView"])),
                     lambda: sum(1 for _ in libetl.open(NET, stacks=False, providers=["Microsft-Windows-*", "PerfView"]))):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                self.assertEqual(read(), 108)  # (PerfView's events)
            said = [str(w.message) for w in caught if issubclass(w.category, libetl.FilterWarning)]
            self.assertEqual(len(said), 1, said)
            self.assertTrue(said[0].startswith("no provider matched 'Microsft-Windows-*' (closest: 'Microsoft-Windows-"),
                            said[0])


class Analyses(unittest.TestCase):
    """Test.x86.exe (3644) runs a core flat out: a second of it is about 1000 ms of samples."""

    ARGS = ["--since", "+5s", "--until", "+6s", "--process", "test*"]

    def test_table_takes_the_window_and_the_process(self):
        out = subprocess.run([ETLDUMP, "--table=cpu-samples", "-f", "csv"] + self.ARGS + [NET], capture_output=True,
                             text=True, check=True).stdout.splitlines()
        df = libetl.table(NET, "cpu-samples", since="+5s", until="+6s", processes="test*")
        self.assertEqual(len(out) - 1, 955)
        self.assertEqual(len(df), 955)
        self.assertEqual(set(df["pid"]), {3644})
        self.assertAlmostEqual(float(df["weight"].sum()), 955.0)
        self.assertEqual(len(libetl.table(NET, "cpu-samples", pids=3644, filter="@time >= +5s and @time < +6s")), 955)
        with self.assertRaisesRegex(ValueError, "and, or or the end is expected"):  # (filter= stays in its parentheses)
            libetl.table(NET, "cpu-samples", pids=3644, filter="@time >= +5s) or (@pid != 3644")
        # windows side by side: each sample in one of them
        halves = [libetl.table(NET, "cpu-samples", since=a, until=b, pids=3644) for a, b in (("+5s", "+5.5s"),
                                                                                         ("+5.5s", "+6s"))]
        self.assertEqual(sum(len(h) for h in halves), 955)

    def test_report_states_the_selection(self):
        out = subprocess.run([ETLDUMP, "--report"] + self.ARGS + [NET], capture_output=True, text=True,
                             check=True).stdout
        self.assertIn('selection: (@process = "test*") and (@time >= "+5s") and (@time < "+6s")', out)
        self.assertIn("1 processes in the selection", out)
        line = next(l for l in out.splitlines() if "Test.x86.exe (3644)" in l)
        self.assertEqual(line.split()[:2], ["955", "955.000"])

    def test_dask_read_table(self):
        try:
            import dask  # noqa: F401
        except ImportError:
            self.skipTest("dask is not installed")
        ddf = libetl.dask.read_table([NET], "cpu-samples", since="+5s", until="+6s", processes="test*")
        self.assertEqual(len(ddf.compute()), 955)


if __name__ == "__main__":
    if not os.path.exists(NET) or not os.path.exists(TLG):
        print("SKIP: the corpus is not there")
        sys.exit(77)
    unittest.main(argv=sys.argv[:1], verbosity=1)
