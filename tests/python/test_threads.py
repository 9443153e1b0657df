#!/usr/bin/env python3
"""The extension lets other threads run while C reads: to_pandas, table and report release the
GIL for their pass over the events (and take it back for damage and field values), opening
releases it while an archive unpacks.  Two threads reading get the rows of one.  A Reader that
such a call is reading refuses other use (RuntimeError) instead of racing.

Usage: test_threads.py SOURCE_ROOT CORPUS_DIR
"""
import os
import sys
import threading
import time
import unittest

import libetl
from libetl import _libetl

ROOT, CORPUS = sys.argv[1:3]
FIX = os.path.join(ROOT, "fixtures", "valid")


def big_trace():
    p = os.path.join(CORPUS, "etl", "perfview_net.4.5.2.x86.etl")
    return p if os.path.exists(p) else os.path.join(FIX, "mixed64.etl")


def damaged():
    with open(os.path.join(FIX, "mixed64.etl"), "rb") as f:
        data = bytearray(f.read())
    data[4096 + 0x48:4096 + 0x48 + 8] = b"\x12" * 8  # the first record of the second buffer
    return bytes(data)


class Threads(unittest.TestCase):
    def longest_stall(self, work):
        """Runs work() in a thread while this one counts; the longest time this thread was kept
        from running during work, and work's duration."""
        done = threading.Event()
        span = []

        def run():
            t = time.perf_counter()
            work()
            span.append(time.perf_counter() - t)
            done.set()
        th = threading.Thread(target=run)
        stamps = [time.perf_counter()]  # (the new thread may take the GIL at once)
        th.start()
        while not done.is_set():
            stamps.append(time.perf_counter())
        th.join()
        gaps = [b - a for a, b in zip(stamps, stamps[1:])]
        return max(gaps or [0.0]), span[0]

    def test_columns_let_other_threads_run(self):
        path = big_trace()
        cols = list(libetl.DEFAULT_COLUMNS)

        def work():
            for _ in range(3):
                with libetl.open(path, stacks=False) as r:
                    _libetl.columns(r, cols, None, 0)
        stall, took = self.longest_stall(work)
        # holding the GIL, the C pass (nearly all of took) would stall this thread for about took/3
        self.assertLess(stall, took / 6, (stall, took))

    def test_tables_let_other_threads_run(self):
        path = big_trace()

        def work():
            with libetl.open(path) as r:
                _libetl.table(r, "processes", False)
        stall, took = self.longest_stall(work)
        self.assertLess(stall, took / 4, (stall, took))  # (held: stall is nearly all of took)

    def test_two_threads_get_the_rows_of_one(self):
        paths = [big_trace(), os.path.join(FIX, "system64.etl")]
        want = [libetl.to_pandas(p, fields=["ProcessId", "ImageFileName"]) for p in paths]
        got = [None, None]

        def run(i):
            for _ in range(3):
                got[i] = libetl.to_pandas(paths[i], fields=["ProcessId", "ImageFileName"])
        ts = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        for w, g in zip(want, got):
            self.assertTrue(w.equals(g))
            self.assertGreater(len(g), 0)

    def test_a_busy_reader_refuses_other_use(self):
        seen = []
        reader = libetl.open(damaged(), on_damage=lambda d: seen.append(try_use(reader)))

        def try_use(r):
            out = []
            for use in (r.close, lambda: next(r), lambda: r.counts, r.processes, lambda: r.time_slices(2),
                        lambda: _libetl.columns(r, ["time"], None, 0)):
                try:
                    use()
                    out.append("ran")
                except RuntimeError as e:
                    out.append(str(e))
            return out
        cols = _libetl.columns(reader, ["time", "name"], None, 0)  # damage is reported while busy
        self.assertTrue(seen)
        for uses in seen:
            self.assertEqual(uses, ["the Reader is being read by a call in another thread"] * 6)
        self.assertGreater(cols["__rows__"], 0)
        # and usable again afterwards
        self.assertIsInstance(reader.counts, dict)
        reader.close()


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
