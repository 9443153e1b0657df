#!/usr/bin/env python3
"""The extension module is multi-phase (PEP 489) with its state in the module object and heap
types: a second instance made from the same spec is independent and works; the module works in
a subinterpreter (twice, and after the main interpreter's use; numpy does not, so the
subinterpreter reads events and raw columns, not DataFrames) and after importlib.reload; Event
cannot be made from Python.

Usage: test_module.py SOURCE_ROOT
"""
import importlib
import importlib.util
import os
import sys
import tempfile
import unittest

import libetl
from libetl import _libetl

ROOT = sys.argv[1]
TRACE = os.path.join(ROOT, "fixtures", "valid", "system64.etl")
HEAPTYPE = 1 << 9


def count(module):
    r = module.Reader([TRACE])
    try:
        return sum(1 for _ in r)
    finally:
        r.close()


class Module(unittest.TestCase):
    def test_a_second_instance_is_its_own(self):
        spec = importlib.util.find_spec("libetl._libetl")
        other = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(other)
        self.assertIsNot(other, _libetl)
        for name in ("Reader", "Event", "Frame", "Error", "DamageWarning"):
            self.assertIsNot(getattr(other, name), getattr(_libetl, name), name)
        self.assertEqual(count(other), count(_libetl))
        r = other.Reader([TRACE])
        ev = next(r)
        self.assertIsInstance(ev, other.Event)
        self.assertNotIsInstance(ev, _libetl.Event)
        self.assertEqual(ev.name, next(_libetl.Reader([TRACE])).name)
        r.close()
        with self.assertRaises(other.Error) as caught:
            other.Reader([os.path.join(ROOT, "meson.build")])
        self.assertNotIsInstance(caught.exception, _libetl.Error)
        with self.assertRaises(TypeError):  # the other instance's Reader is not this one's
            _libetl.columns(other.Reader([TRACE]), ["time"], None, 0)
        del other, r, ev

    def test_names_are_interned_per_instance(self):
        # one str per name within a module object (its state's table), none shared with another
        spec = importlib.util.find_spec("libetl._libetl")
        other = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(other)
        a = [e.name for e in _libetl.Reader([TRACE])]
        b = [e.name for e in other.Reader([TRACE])]
        self.assertEqual(a, b)
        name = next(n for n in a if a.count(n) > 1)
        first, second = [i for i, n in enumerate(a) if n == name][:2]
        self.assertIs(a[first], a[second])
        self.assertIs(b[first], b[second])
        self.assertIsNot(a[first], b[first])
        del other

    def test_heap_types(self):
        for t in (libetl.Reader, libetl.Event, libetl.Frame):
            self.assertTrue(t.__flags__ & HEAPTYPE, t)
            self.assertEqual(t.__module__, "libetl")
        with self.assertRaises(TypeError):
            libetl.Event()
        with self.assertRaises(TypeError):
            class Mine(libetl.Reader):
                pass
        with self.assertRaises(TypeError):
            libetl.Reader.extra = 1

    def test_reload(self):
        before = count(_libetl)
        importlib.reload(libetl)
        self.assertEqual(sum(1 for _ in libetl.open(TRACE)), before)
        self.assertEqual(len(libetl.to_pandas(TRACE)), before)

    def test_subinterpreters(self):
        try:
            import _testcapi
        except ImportError:
            self.skipTest("no _testcapi")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            code = ("import sys; sys.path[:0] = %r\n"
                    "import libetl\n"
                    "n = sum(1 for _ in libetl.open(%r))\n"
                    "rows = libetl._libetl.columns(libetl.open(%r), ['time', 'name'])['__rows__']\n"
                    "open(%r, 'a').write('%%d %%d\\n' %% (n, rows))\n") % (sys.path, TRACE, TRACE, out)
            for _ in range(2):
                self.assertEqual(_testcapi.run_in_subinterp(code), 0)
            n = count(_libetl)  # the main interpreter's module still works
            with open(out) as f:
                self.assertEqual(f.read().split(), [str(n)] * 4)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
