#!/usr/bin/env python3
"""Prints, for each section-3 page given, one line per other function its NAME line names:
"FUNCTION PAGE" (meson installs FUNCTION.3 as a `.so` link to PAGE.3, so `man FUNCTION` works).

Usage: man-links.py PAGE.3...
"""
import os
import re
import sys


def main():
    for page in sys.argv[1:]:
        base = os.path.basename(page)[:-2]
        text = open(page, encoding="utf-8").read()
        m = re.search(r"^\.SH NAME\n(.*?) \\-", text, re.M | re.S)
        if not m:
            sys.exit(f"{page}: no NAME line")
        for name in re.findall(r"\b(etl_[a-z0-9_]+)\b", m.group(1)):
            if name != base:
                print(name, base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
