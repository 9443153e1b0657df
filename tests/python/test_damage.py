#!/usr/bin/env python3
"""Damaged and hostile inputs through the Python package: libetl.Error or DamageWarnings, never a
crash, and reading goes on past the damage.  Run under the AddressSanitizer build too.

Usage: test_damage.py SOURCE_ROOT
"""
import os
import random
import sys
import tempfile
import unittest
import warnings

import libetl

ROOT = sys.argv[1]
FIX = os.path.join(ROOT, "fixtures", "valid")


def is_subsequence(part, whole):
    it = iter(whole)
    return all(any(x == y for y in it) for x in part)


def read(path_or_bytes, **kw):
    damage = []
    with libetl.open(path_or_bytes, on_damage=damage.append, **kw) as r:
        events = [(e.file_offset, e.name, e.fields, e.stack) for e in r]
    return events, damage


class Damage(unittest.TestCase):
    def fixtures(self):
        return [os.path.join(FIX, f) for f in sorted(os.listdir(FIX))]

    def test_truncated_everywhere(self):
        for path in self.fixtures():
            with open(path, "rb") as f:
                data = f.read()
            whole, _ = read(data)
            for cut in range(0, len(data), max(1, len(data) // 16)):
                with self.subTest(path=os.path.basename(path), cut=cut):
                    try:
                        events, damage = read(data[:cut])
                    except libetl.Error:
                        self.assertLess(cut, 4096 + 512)  # only a cut inside the header buffer
                        continue
                    self.assertLessEqual(len(events), len(whole))
                    # the events are the intact trace's, in the same order
                    self.assertTrue(is_subsequence([e[:2] for e in events], [e[:2] for e in whole]))

    def test_flipped_bytes_report_and_go_on(self):
        rnd = random.Random(1234)
        for path in self.fixtures():
            with open(path, "rb") as f:
                data = bytearray(f.read())
            for _ in range(10):
                bad = bytearray(data)
                for _ in range(rnd.randint(1, 16)):
                    bad[rnd.randrange(512, len(bad))] = rnd.randrange(256)
                with self.subTest(path=os.path.basename(path)):
                    try:
                        events, damage = read(bytes(bad))
                    except libetl.Error:
                        continue
                    for d in damage:
                        self.assertIn(d["kind"], ("damage", "decode"))
                        self.assertTrue(d["message"])

    def test_hostile_inputs(self):
        for data in (b"", b"\0" * 100, os.urandom(70000), b"PK\x03\x04" + os.urandom(5000),
                     b"\x1f\x8b\x08\x00" + os.urandom(5000)):
            with self.subTest(head=data[:4]):
                try:
                    read(data)
                except libetl.Error:
                    pass
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(OSError):
                libetl.open(d)

    def test_damage_goes_to_warnings_without_a_handler(self):
        with open(os.path.join(FIX, "mixed64.etl"), "rb") as f:
            data = bytearray(f.read())
        data[4096 + 0x48:4096 + 0x48 + 8] = b"\x12" * 8  # the first record of the second buffer
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with libetl.open(bytes(data)) as r:
                n = sum(1 for _ in r)
                self.assertTrue(r.damage)
        self.assertGreater(n, 0)
        self.assertTrue(any(issubclass(w.category, libetl.DamageWarning) for w in caught))

    def test_warnings_point_at_the_callers_line(self):
        with open(os.path.join(FIX, "mixed64.etl"), "rb") as f:
            data = bytearray(f.read())
        data[4096 + 0x48:4096 + 0x48 + 8] = b"\x12" * 8
        data = bytes(data)
        here = os.path.abspath(__file__)

        def files(call):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                call()
            got = [os.path.abspath(w.filename) for w in caught if issubclass(w.category, libetl.DamageWarning)]
            self.assertTrue(got)
            return got

        for call in (lambda: libetl.to_pandas(data), lambda: libetl.to_pandas(data, fields=True),
                     lambda: sum(1 for _ in libetl.open(data)), lambda: libetl.table(data, "processes")):
            # the lambda's line, in this file: not libetl's __init__.py
            self.assertEqual(set(files(call)), {here})

    def test_a_handler_that_raises_stops_the_iteration(self):
        with open(os.path.join(FIX, "mixed64.etl"), "rb") as f:
            data = bytearray(f.read())
        data[4096 + 0x48:4096 + 0x48 + 8] = b"\x12" * 8

        def boom(d):
            raise KeyError("stop here")

        with libetl.open(bytes(data), on_damage=boom) as r:
            with self.assertRaises(KeyError):
                for _ in r:
                    pass

    def test_bad_manifests(self):
        path = os.path.join(FIX, "mixed64.etl")
        with self.assertRaises(libetl.Error):
            libetl.open(path, manifests=[b"<not a manifest"])
        bad_event = (b'<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">'
                     b'<instrumentation><events><provider name="P" guid="{11111111-2222-3333-4444-555555555555}">'
                     b'<events><event value="1" task="nosuch"/></events></provider></events></instrumentation>'
                     b'</instrumentationManifest>')
        damage = []
        with libetl.open(path, manifests=[bad_event], on_damage=damage.append) as r:
            sum(1 for _ in r)
        self.assertEqual([d["kind"] for d in damage], ["manifest"])
        self.assertIn("undefined task", damage[0]["message"])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
