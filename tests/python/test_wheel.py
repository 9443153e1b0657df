#!/usr/bin/env python3
"""The package installs as Python users install packages: from a copy of the source (no build
tree), `python -m build --wheel --no-isolation` makes one wheel (meson-python, pyproject.toml)
for the Python that runs it - the same PEP 517 hook `pip install .` and `pip wheel` call, so the
wheel is built once - and it installs with pip, offline, into a bare venv and into one that sees
Debian's pandas (--system-site-packages), and imports there with the source copy gone; each
install reads a trace to the same events as the build's package and says the project's version,
and the one with pandas converts with to_pandas too.

Usage: test_wheel.py SOURCE_ROOT      (run by run.py with the build's package on the path)
Skips (77) where meson-python, build or venv are missing (scripts/install-deps.sh installs them).
"""
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import unittest

import libetl

ROOT = sys.argv[1]
TRACE = os.path.join(ROOT, "fixtures", "valid", "system64.etl")
PY = sys.executable
TAG = "cp%d%d" % sys.version_info[:2]


def project_version():
    with open(os.path.join(ROOT, "meson.build"), encoding="utf-8") as f:
        return re.search(r"version:\s*'([^']+)'", f.read()).group(1)


def copy_source(dest):
    """The source tree without build directories, VCS data or earlier meson-python leftovers."""
    def ignore(folder, names):
        top = os.path.samefile(folder, ROOT)
        return [n for n in names
                if n in (".git", "__pycache__") or n.startswith(".mesonpy")
                or (top and n.startswith("build"))]
    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        raise AssertionError("%s exited %d:\n%s" % (" ".join(cmd), r.returncode, r.stdout[-6000:]))
    return r.stdout


def clean_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "LD_PRELOAD", "VIRTUAL_ENV"))}
    env["PIP_NO_INDEX"] = "1"           # offline: nothing may come from the network
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


CHECK = r"""
import json, os, sys
import libetl
from libetl import _libetl
n = sum(1 for _ in libetl.open(sys.argv[1]))
out = {"version": libetl.__version__, "file": libetl.__file__, "ext": _libetl.__file__, "events": n,
       "prefix": sys.prefix}
if len(sys.argv) > 2:
    out["frame_rows"] = len(libetl.to_pandas(sys.argv[1]))
print(json.dumps(out))
"""


class Wheel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="libetl-wheel-")
        cls.src = os.path.join(cls.tmp, "src")
        copy_source(cls.src)
        cls.want_events = sum(1 for _ in libetl.open(TRACE))
        builddist = os.path.join(cls.tmp, "builddist")
        run([PY, "-m", "build", "--wheel", "--no-isolation", "--outdir", builddist, cls.src], env=clean_env())
        cls.wheels = [os.path.join(builddist, w) for w in os.listdir(builddist)]
        shutil.rmtree(cls.src)          # no build tree and no source: the installs stand alone

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def install(self, which, system_site):
        wheels = self.wheels
        self.assertEqual(len(wheels), 1, wheels)
        name = os.path.basename(wheels[0])
        # for this Python (the one pip and build ran), carrying the version of meson.build
        self.assertTrue(name.startswith("libetl-%s-%s-%s-" % (project_version(), TAG, TAG)), name)
        venv = os.path.join(self.tmp, "venv-" + which)
        run([PY, "-m", "venv"] + (["--system-site-packages"] if system_site else []) + [venv])
        vpy = os.path.join(venv, "bin", "python")
        run([vpy, "-m", "pip", "install", "--no-deps", wheels[0]], env=clean_env())
        return venv, vpy

    def check(self, venv, vpy, frames):
        out = run([vpy, "-c", CHECK, TRACE] + (["frames"] if frames else []), env=clean_env(),
                  cwd=self.tmp)
        got = json.loads(out.strip().splitlines()[-1])
        self.assertEqual(got["version"], project_version())
        self.assertEqual(got["version"], libetl.__version__)
        for key in ("file", "ext"):
            self.assertTrue(os.path.realpath(got[key]).startswith(os.path.realpath(venv)), got[key])
        self.assertEqual(got["events"], self.want_events)
        if frames:
            self.assertEqual(got["frame_rows"], self.want_events)
        return got

    def test_wheel_in_a_bare_venv(self):
        venv, vpy = self.install("bare", system_site=False)
        got = self.check(venv, vpy, frames=False)
        # the library is inside the extension: it needs no libetl.so of its own
        if shutil.which("ldd"):
            self.assertNotIn("libetl.so", run(["ldd", got["ext"]]))

    def test_wheel_with_debians_pandas(self):
        venv, vpy = self.install("pandas", system_site=True)
        if importlib.util.find_spec("pandas") is None:
            self.skipTest("pandas is not installed")
        self.check(venv, vpy, frames=True)


def main():
    missing = [m for m in ("mesonpy", "build", "venv", "pip") if importlib.util.find_spec(m) is None]
    if missing:
        print("SKIP: %s not installed for %s (scripts/install-deps.sh)" % (", ".join(missing), PY))
        return 77
    if sysconfig.get_platform().startswith("linux") and shutil.which("patchelf") is None:
        print("SKIP: meson-python needs patchelf on Linux (scripts/install-deps.sh)")
        return 77
    r = unittest.main(argv=[sys.argv[0], "-v"], exit=False)
    return 0 if r.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
