#!/usr/bin/env python3
"""The package's type hints: stubtest finds the stubs (__init__.pyi, dask.pyi) true to the
modules at run time, and `mypy --strict` accepts code that uses the API as documented (a `with`
block that returns needs no return after it: Reader.__exit__ never swallows) and refuses what
the API refuses (libetl.open(3)).

Usage: test_typing.py      (run by run.py with the build's package on the path)
mypy's cache is MYPY_CACHE_DIR where the environment gives it (meson: in the build).
Skips (77) where mypy is not installed (Debian's python3-mypy; scripts/install-deps.sh).
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

CONFIG = """[mypy]
strict = True
# pandas has no type information of its own (pandas-stubs gives it): DataFrames are Any then
[mypy-pandas.*]
ignore_missing_imports = True
"""

GOOD = """
import datetime
import os
from typing import Any, Dict, List

import libetl
import libetl.dask


def count(path: str) -> int:
    with libetl.open(path) as reader:
        return sum(1 for _ in reader)


def first(paths: List[os.PathLike[str]]) -> str:
    with libetl.open(paths, stacks=False, since=datetime.datetime(2022, 1, 1)) as reader:
        for ev in reader:
            frames: List[libetl.Frame] = ev.frames
            return ev.name + str(len(frames)) + str(ev.pid)
    return ""


def on_damage(d: Dict[str, Any]) -> None:
    print(d["message"])


df = libetl.to_pandas(b"x.etl", fields=["A"], on_damage=on_damage)
ddf = libetl.dask.read_etl(["x.etl"], fields=["A"])
bag = libetl.dask.read_events("x.etl")
try:
    libetl.report("x.etl", "r.html")
except libetl.Error as e:
    print(e.offset, e.status, e.path)
"""

BAD = """
import libetl
libetl.open(3)
libetl.to_pandas("x.etl", fields=[1])
"""


def run(args, cwd):
    r = subprocess.run([sys.executable, "-m"] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return r.returncode, r.stdout


class Typing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="libetl-typing-")
        for name, text in (("mypy.ini", CONFIG), ("good.py", GOOD), ("bad.py", BAD)):
            with open(os.path.join(cls.tmp.name, name), "w") as f:
                f.write(text)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_stubs_match_the_modules(self):
        for module in ("libetl", "libetl.dask"):
            rc, out = run(["mypy.stubtest", "--mypy-config-file", "mypy.ini", module], self.tmp.name)
            self.assertEqual(rc, 0, out)
            self.assertIn("Success", out)

    def test_documented_use_passes_strict(self):
        rc, out = run(["mypy", "--config-file", "mypy.ini", "good.py"], self.tmp.name)
        self.assertEqual(rc, 0, out)

    def test_misuse_is_refused(self):
        rc, out = run(["mypy", "--config-file", "mypy.ini", "bad.py"], self.tmp.name)
        self.assertEqual(rc, 1, out)
        self.assertIn('bad.py:3: error: Argument 1 to "open" has incompatible type "int"', out)
        self.assertIn('bad.py:4: error: List item 0 has incompatible type "int"', out)


def main():
    if importlib.util.find_spec("mypy") is None:
        print("SKIP: mypy is not installed for %s (python3-mypy)" % sys.executable)
        return 77
    r = unittest.main(argv=[sys.argv[0], "-v"], exit=False)
    return 0 if r.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
