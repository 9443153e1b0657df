#!/usr/bin/env python3
"""Stack frames with names through the Python package (issue 33): Event.frames as libetl.Frame
objects, Event.stack as etldump writes it, open(..., symbols=...) for PDB files (a DLL and PDB
built by clang-cl and lld-link, when they are installed), .NET methods from the trace's CLR
events, and the corpus trace whose JIT-compiled frames the trace's rundown names.

Usage: test_frames.py ETLGEN ETLDUMP CORPUS
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import libetl

ETLGEN, ETLDUMP, CORPUS = sys.argv[1:4]
NET = os.path.join(CORPUS, "etl", "perfview_net.4.5.2.x86.etl")
J = 0x7FF800010000


def tool(name):
    return shutil.which(name) or (sorted(glob.glob(f"/usr/bin/{name}-[0-9]*")) or [None])[-1]


def trace(tmp, name, lines):
    spec = os.path.join(tmp, name + ".tsv")
    with open(spec, "w") as f:
        f.write("\n".join("\t".join(str(x) for x in l) for l in lines) + "\n")
    path = os.path.join(tmp, name + ".etl")
    subprocess.run([ETLGEN, "profile64", path, spec], check=True)
    return path


class Frames(unittest.TestCase):
    def test_dotnet_methods(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = trace(tmp, "dotnet", [
                ["process", 300, "dotnet.exe"], ["module", 300, "0x1111", r"C:\app\MyApp.dll"],
                ["method", 300, 2, hex(J), "0x100", "0x1111", "MyApp.Worker", "Run", "void  (int32)"],
                ["sample", 300, 7, 5, f"{hex(J + 0x10)},{hex(J + 0x400)}"]])
            with libetl.open(path) as r:
                ev = next(e for e in r if e.stack)
                frames, stack = ev.frames, ev.stack
        self.assertEqual(stack, ["MyApp.dll!MyApp.Worker.Run+0x10", "0x%x" % (J + 0x400)])
        f = frames[0]
        self.assertIsInstance(f, libetl.Frame)
        self.assertEqual((f.address, f.module, f.function, f.offset, f.kind, f.module_path),
                         (J + 0x10, "MyApp.dll", "MyApp.Worker.Run", 0x10, "method", r"C:\app\MyApp.dll"))
        self.assertEqual((f.file, f.line), (None, None))
        g = frames[1]
        self.assertEqual((g.kind, g.module, g.function, g.offset), ("address", None, None, None))

    @unittest.skipUnless(os.path.exists(NET), "corpus absent")
    def test_corpus_jit_frames_match_etldump(self):
        with libetl.open(NET) as r:
            stacks = [e.stack for e in r if e.stack]
        out = subprocess.run([ETLDUMP, "-f", "jsonl", NET], capture_output=True, text=True).stdout
        want = [json.loads(l)["stack"] for l in out.splitlines() if '"stack"' in l]
        self.assertEqual(stacks, want)
        methods = sum(1 for s in stacks for f in s if "!+0x" not in f and not f.startswith("0x"))
        self.assertEqual(methods, 38785)

    @unittest.skipUnless(tool("clang-cl") and tool("lld-link") and tool("llvm-pdbutil"), "no clang-cl, lld-link")
    def test_pdb_functions_and_lines(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "x.c"), "w") as f:
                f.write("static volatile int s;\n__declspec(noinline) int one(int a) { s = a; return a + 1; }\n"
                        "__declspec(dllexport) int two(int a) { return one(a) * 2; }\n")
            subprocess.run([tool("clang-cl"), "/nologo", "/Zi", "/O1", "/c", "x.c", "/Fox.obj"], cwd=tmp, check=True,
                           capture_output=True)
            subprocess.run([tool("lld-link"), "/dll", "/debug", "/noentry", "/nodefaultlib", "x.obj", "/out:x.dll",
                            "/pdb:x.pdb"], cwd=tmp, check=True, capture_output=True)
            summary = subprocess.run([tool("llvm-pdbutil"), "dump", "--summary", os.path.join(tmp, "x.pdb")],
                                     capture_output=True, text=True).stdout
            guid = next(l.split(":", 1)[1].strip().strip("{}") for l in summary.splitlines() if "GUID:" in l)
            age = next(int(l.split(":", 1)[1]) for l in summary.splitlines() if l.strip().startswith("Age:"))
            path = trace(tmp, "native", [
                ["process", 100, "app.exe"],
                ["image", 100, "0x180000000", "0x10000", r"C:\app\x.dll", guid, age, r"C:\b\x.pdb"],
                ["sample", 100, 7, 5, "0x180001002"]])
            with libetl.open(path, symbols=[tmp]) as r:
                ev = next(e for e in r if e.stack)
                f, stack = ev.frames[0], ev.stack
            with libetl.open(path) as r:
                plain = next(e for e in r if e.stack).frames[0]
        self.assertEqual((f.kind, f.module, f.function, f.offset), ("symbol", "x.dll", "one", 2))
        self.assertEqual((os.path.basename(f.file), f.line), ("x.c", 2))
        self.assertEqual(stack, ["x.dll!one+0x2"])
        self.assertEqual((plain.kind, plain.function, plain.offset), ("image", None, 0x1002))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
