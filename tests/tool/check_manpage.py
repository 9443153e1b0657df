#!/usr/bin/env python3
"""docs/etldump.1 documents every option of `etldump --help`, and the reverse.

Usage: check_manpage.py ETLDUMP MANPAGE
"""
import re
import subprocess
import sys


def main():
    etldump, man = sys.argv[1:3]
    helptext = subprocess.run([etldump, "--help"], capture_output=True, text=True, check=True).stdout
    in_help = set(re.findall(r"--([a-z][a-z-]+)", helptext))
    in_man = {m.replace("\\-", "-") for m in re.findall(r"\\-\\-((?:[a-z]|\\-)+)", open(man).read())}
    missing = sorted(in_help - in_man)
    extra = sorted(in_man - in_help)
    for m in missing:
        print(f"FAIL --{m} is in --help but not in the man page")
    for m in extra:
        print(f"FAIL --{m} is in the man page but not in --help")
    ok = not missing and not extra
    print(f"manpage: {1 if ok else 0} passed, {0 if ok else 1} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
