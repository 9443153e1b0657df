#!/usr/bin/env python3
"""The shared library exports exactly the etl_* symbols of lib/libetl.sym, and
every one of them is declared in include/etl.h.

Usage: check_symbols.py LIBRARY SYMFILE HEADER
"""
import re
import subprocess
import sys


def main():
    lib, symfile, header = sys.argv[1:4]
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    exported = {line.split()[-1].split("@")[0] for line in out.splitlines() if line.split()[-1].startswith("etl")}
    listed = set(re.findall(r"^\s*(etl_\w+);", open(symfile).read(), re.M))
    declared = set(re.findall(r"\b(etl_\w+)\s*\(", open(header).read()))
    ok = True
    for name, a, b in (("exported but not in the .sym", exported, listed),
                       ("in the .sym but not exported", listed, exported),
                       ("in the .sym but not declared in etl.h", listed, declared),
                       ("declared in etl.h but not in the .sym", declared, listed)):
        extra = sorted(a - b)
        if extra:
            ok = False
            print(f"FAIL {name}: {', '.join(extra)}")
    print(f"symbols: {1 if ok else 0} passed, {0 if ok else 1} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
