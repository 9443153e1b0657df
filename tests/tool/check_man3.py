#!/usr/bin/env python3
"""The section-3 pages (docs/man3/*.3) against the public header: every function they name
(in the SYNOPSIS, the NAME line and as `\\fBname\\fR ()` in the text) is declared in
include/etl.h; the pages they point to exist; groff renders them without a warning.

Usage: check_man3.py ETL_H MAN3_DIR
"""
import glob
import os
import re
import shutil
import subprocess
import sys


def main():
    header, man3 = sys.argv[1:3]
    declared = set(re.findall(r"ETL_API[^;(]*?\b(etl_\w+)\s*\(", open(header).read()))
    pages = sorted(glob.glob(os.path.join(man3, "*.3")))
    fails, checks = [], 0
    names = {os.path.basename(p)[:-2] for p in pages}
    for page in pages:
        text = open(page).read()
        base = os.path.basename(page)
        named = set(re.findall(r"\b(etl_[a-z0-9_]+)\s*\(", text.replace("\\f", " ")))
        named |= set(re.findall(r"^\.BR? (etl_[a-z0-9_]+) \(\)", text, re.M))
        name_line = re.search(r"^\.SH NAME\n(.*)$", text, re.M).group(1)
        named |= {n for n in re.findall(r"\b(etl_[a-z0-9_]+)\b", name_line)}
        for n in sorted(named):
            checks += 1
            if n not in declared:
                fails.append(f"{base}: {n} is not declared in etl.h")
        for ref in re.findall(r"^\.BR (\w+) \(3\)", text, re.M):
            checks += 1
            if ref not in names:
                fails.append(f"{base}: SEE ALSO {ref}(3) has no page")
        if shutil.which("man"):
            checks += 1
            r = subprocess.run(["man", "--warnings", "-l", page], capture_output=True, text=True,
                               env=dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8"))
            if r.returncode != 0 or r.stderr.strip():
                fails.append(f"{base}: groff: {r.stderr.strip()[:200]}")
    if "libetl" not in names:
        fails.append("no libetl(3) overview page")
    for f in fails:
        print("FAIL", f)
    print(f"man3: {checks - len(fails)} passed, {len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
