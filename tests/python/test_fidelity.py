#!/usr/bin/env python3
"""What a decoding must not hide, through the Python package (issue 32): a record that no
layout fits goes to reader.damage; FILETIME values have a lossless form; a stack reads the same
whenever it is read.

Usage: test_fidelity.py SOURCE_ROOT CORPUS ETLGEN
"""
import datetime
import os
import subprocess
import sys
import tempfile
import unittest

import libetl

ROOT, CORPUS, ETLGEN = sys.argv[1:4]
NET = os.path.join(CORPUS, "etl", "perfview_net.4.5.2.x86.etl")
PRIMITIVES = os.path.join(CORPUS, "etl", "perfview_primitive-types.etl")


class Fidelity(unittest.TestCase):
    def test_rejected_image_is_damage(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "images32.etl")
            subprocess.run([ETLGEN, "images32", path], check=True)
            damage = []
            with libetl.open(path, on_damage=damage.append) as r:
                images = [(e.name, e.fields, e.decode_error) for e in r if "/Image/" in e.name]
        self.assertEqual([n for n, _, _ in images], ["Windows Kernel/Image/DCStart", "Windows Kernel/Image/Load",
                                                     "Windows Kernel/Image/Load"])
        self.assertEqual(images[0][1]["ProcessID"], 384)  # a rundown of another process's image
        self.assertEqual(images[1][1]["ProcessID"], 4192)  # the 32-bit program's own struct
        self.assertEqual(images[2][1], {})
        self.assertIn("no layout fits the payload", images[2][2])
        self.assertEqual(len(damage), 1)
        self.assertEqual(damage[0]["kind"], "decode")
        self.assertIn("ImageSize is above 4 GiB", damage[0]["message"])
        self.assertGreater(damage[0]["offset"], 0)

    @unittest.skipUnless(os.path.exists(PRIMITIVES), "corpus absent")
    def test_filetimes_lossless(self):
        def header_fields(**kw):
            with libetl.open(PRIMITIVES, **kw) as r:
                return next(iter(r)).fields

        dt, ft = header_fields(), header_fields(times="filetime")
        self.assertIsInstance(dt["EndTime"], datetime.datetime)
        self.assertEqual(ft["EndTime"], 132756731820557985)  # 100 ns, the last digit included
        self.assertEqual(libetl.filetime(dt["EndTime"]), 132756731820557980)  # microseconds only
        with self.assertRaises(ValueError):
            libetl.open(PRIMITIVES, times="seconds")
        df = libetl.to_pandas(PRIMITIVES, columns=["name"], fields=["EndTime", "file_time_type"])
        self.assertEqual(str(df["EndTime"].dtype), "datetime64[ns, UTC]")
        self.assertEqual(df["EndTime"][0].value, (132756731820557985 - libetl._libetl.FILETIME_UNIX_EPOCH) * 100)
        self.assertTrue(df["EndTime"][1:].isna().all())
        self.assertEqual(df["file_time_type"].notna().sum(), 5)

    @unittest.skipUnless(os.path.exists(NET), "corpus absent")
    def test_stack_reads_the_same_whenever_read(self):
        names = ["Windows Kernel/Image/*", "Windows Kernel/PerfInfo/Sample", "Microsoft-Windows-Kernel-File/*"]
        with libetl.open(NET, names=names) as r:
            during = [e.stack for e in r]
        with libetl.open(NET, names=names) as r:
            events = list(r)
        after = [e.stack for e in events]
        self.assertEqual(len(during), len(after))
        self.assertEqual(during, after)
        # the Image/Load whose last frame lies in ntdll, loaded in that process after the event
        loads = [e for e in events if e.name == "Windows Kernel/Image/Load" and e.pid == 3644 and e.stack]
        self.assertTrue(any(s.startswith("ntdll.dll!+0x") for e in loads for s in e.stack))

    @unittest.skipUnless(os.path.exists(NET), "corpus absent")
    def test_ports_are_ints_and_builtin_descriptions_decode(self):
        with libetl.open(NET, names=["Windows Kernel/TcpIp/*"], stacks=False) as r:
            tcp = [e for e in r if "dport" in e.fields]
        self.assertTrue(tcp)
        self.assertEqual(tcp[0].fields["dport"], 445)
        self.assertTrue(all(isinstance(e.fields["sport"], int) for e in tcp))
        # the .NET runtime's private provider has no metadata in this trace: built in, it decodes
        name = "Microsoft-Windows-DotNETRuntimePrivate/GC/MarkStackRoots"
        with libetl.open(NET, names=[name], stacks=False) as r:
            got = [(e.decoder, e.name) for e in r]
        self.assertEqual(len(got), 80)
        self.assertEqual(set(got), {("builtin-manifest", name)})
        with libetl.open(NET, stacks=False, builtin_manifests=False,
                         providers=["763fd754-7086-4dfe-95eb-c01a46faf4ca"]) as r:
            self.assertEqual({e.decoder for e in r}, {"none"})
        known = libetl.providers()
        self.assertIn("Microsoft-Windows-Kernel-File", {p["name"] for p in known})
        self.assertEqual({p["kind"] for p in known}, {"built-in"})
        self.assertEqual(libetl.providers(builtin_manifests=False), [])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
