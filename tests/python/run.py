#!/usr/bin/env python3
"""Runs a Python test of the package with the interpreter the package was built for, with the
build's package first on the path.  In a sanitizer build the extension needs the sanitizer
runtimes loaded first (LD_PRELOAD, from PYETL_PRELOAD) and CPython's own lifetime allocations
are not leaks (detect_leaks=0).

Usage: run.py PYTHON PACKAGE_DIR TEST.py ARGS...
"""
import os
import subprocess
import sys


def main():
    python, package, test = sys.argv[1:4]
    env = dict(os.environ)
    env["PYTHONPATH"] = package + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    preload = env.pop("PYETL_PRELOAD", "").strip()
    if preload:
        env["LD_PRELOAD"] = preload
        opts = [o for o in env.get("ASAN_OPTIONS", "").split(":") if o and not o.startswith("detect_leaks")]
        env["ASAN_OPTIONS"] = ":".join(opts + ["detect_leaks=0"])
    return subprocess.run([python, test] + sys.argv[4:], env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
