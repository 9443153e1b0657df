#!/usr/bin/env python3
"""No reference or memory grows over a long run: a million events read with every attribute
(name, fields, stack, process, time, payload), in Reader and to_pandas loops; the Python heap
(tracemalloc) and the process size stay flat after a warm-up, the interned names do not gain
references, and a closed reader's memory is given back.

Usage: test_refcount.py SOURCE_ROOT
"""
import gc
import os
import resource
import sys
import tracemalloc
import unittest

import libetl

ROOT = sys.argv[1]
FIX = os.path.join(ROOT, "fixtures", "valid")
TRACES = [os.path.join(FIX, f) for f in ("system64.etl", "mixed64.etl", "stackkeys64.etl", "compressed64.etl")]


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def touch_events(limit):
    n = 0
    while n < limit:
        for path in TRACES:
            with libetl.open(path) as r:
                for ev in r:
                    (ev.name, ev.fields, ev.stack, ev.process, ev.time, ev.payload, ev.provider, ev.pid)
                    n += 1
    return n


@unittest.skipUnless(os.path.exists("/proc/self/statm"), "needs /proc")
class NoGrowth(unittest.TestCase):
    def test_a_million_events(self):
        touch_events(100_000)  # warm-up: interned names, allocator pools
        gc.collect()
        tracemalloc.start()
        base_py = tracemalloc.get_traced_memory()[0]
        base_rss = rss_kib()
        name = sys.intern("Windows Kernel/Process/Start")
        refs = sys.getrefcount(name)
        n = touch_events(1_000_000)
        gc.collect()
        grown_py = tracemalloc.get_traced_memory()[0] - base_py
        tracemalloc.stop()
        grown_rss = rss_kib() - base_rss
        self.assertGreaterEqual(n, 1_000_000)
        self.assertLess(grown_py, 256 * 1024, f"Python heap grew {grown_py} bytes over {n} events")
        self.assertLess(grown_rss, 16 * 1024, f"the process grew {grown_rss} KiB over {n} events")
        self.assertEqual(sys.getrefcount(name), refs)

    def test_events_kept_after_close_are_freed_with_them(self):
        gc.collect()
        base = rss_kib()
        for _ in range(300):
            with libetl.open(TRACES[1]) as r:
                kept = list(r)  # they keep the C reader alive past close()
            kept[5].fields
            del kept
        gc.collect()
        self.assertLess(rss_kib() - base, 16 * 1024)

    def test_to_pandas_loop(self):
        libetl.to_pandas(TRACES[1], fields=True)
        gc.collect()
        base = rss_kib()
        for _ in range(200):
            libetl.to_pandas(TRACES[1], fields=["ProcessID"])
        gc.collect()
        self.assertLess(rss_kib() - base, 16 * 1024)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
