#!/usr/bin/env python3
"""The section-3 pages (docs/man3/*.3) against the public header: every function they name
(in the SYNOPSIS, the NAME line and as `\\fBname\\fR ()` in the text) is declared in
include/etl.h; the pages they point to exist; groff renders them without a warning.  With
the build's docs folder and the project's version: every page built from them says that version
on its .TH line, and every function a NAME line names has a page there, itself or a `.so` link
to the page that documents it (what meson installs).

Usage: check_man3.py ETL_H MAN3_DIR [BUILT_DOCS_DIR VERSION]
"""
import glob
import os
import re
import shutil
import subprocess
import sys


def check_built(built, version, pages, fails):
    """The built pages' versions and the links of every function a NAME line names; the checks made."""
    checks = 0
    for page in pages + [os.path.join(os.path.dirname(pages[0]), "..", "etldump.1")]:
        base = os.path.basename(page)
        text = open(os.path.join(built, base)).read()
        checks += 1
        if not re.search(r'^\.TH \S+ [13] "[^"]*" "libetl %s"' % re.escape(version), text, re.M):
            fails.append(f"{base}: its built page does not say libetl {version}")
        if not base.endswith(".3"):
            continue
        name_line = re.search(r"^\.SH NAME\n(.*?) \\-", open(page).read(), re.M | re.S).group(1)
        for n in re.findall(r"\b(etl_[a-z0-9_]+)\b", name_line):
            checks += 1
            path = os.path.join(built, n + ".3")
            if not os.path.exists(path):
                fails.append(f"{base}: {n} has no page (man {n} would fail)")
            elif n + ".3" != base and open(path).read().strip() != ".so man3/" + base:
                fails.append(f"{n}.3: not a link to {base}")
    return checks


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
    if len(sys.argv) > 4:
        checks += check_built(sys.argv[3], sys.argv[4], pages, fails)
    for f in fails:
        print("FAIL", f)
    print(f"man3: {checks - len(fails)} passed, {len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
