#!/usr/bin/env python3
"""Golden outputs over the corpus traces: every format of every trace in
../shared/corpus/etl, compared with the digests committed in
fixtures/expected/corpus-goldens.txt (the outputs themselves run to hundreds
of megabytes, so the file holds their SHA-256, byte and line counts).

Each trace is read from inside the corpus folder by its bare name, so the
"file" fields do not depend on where the corpus lives.  When an output
changes on purpose, `meson compile -C build update-golden` rewrites the
digests; `git diff` then shows which traces and formats moved, and
`etldump -f FORMAT TRACE` before and after shows how.

Usage: corpus_goldens.py ETLDUMP CORPUS_DIR GOLDEN_FILE [--update]
Exit 77 (skipped) when the corpus is absent.
"""
import hashlib
import os
import subprocess
import sys

FORMATS = ["text", "jsonl", "csv", "xml", "chrome",
           # frames as module!+offset only: the output before frames had names (issue 33)
           "text-no-symbols", "jsonl-no-symbols"]


def digest(etldump, folder, name, fmt):
    args = ["-f", fmt] if not fmt.endswith("-no-symbols") else ["-f", fmt.split("-")[0], "--no-symbols"]
    r = subprocess.run([etldump, "-q"] + args + [name], cwd=folder, capture_output=True)
    lines = r.stdout.count(b"\n")
    return f"{name} {fmt} exit={r.returncode} bytes={len(r.stdout)} lines={lines} " \
           f"sha256={hashlib.sha256(r.stdout).hexdigest()}"


def main():
    etldump, corpus, golden = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    update = "--update" in sys.argv
    folder = os.path.join(corpus, "etl")
    if not os.path.isdir(folder):
        print("corpus not found: skipped")
        return 77
    names = sorted(os.listdir(folder))
    got = [digest(etldump, folder, n, f) for n in names for f in FORMATS]
    if update:
        with open(golden, "w", encoding="utf-8") as f:
            f.write("# etldump -q -f FORMAT TRACE over ../shared/corpus/etl (tests/tool/corpus_goldens.py)\n")
            f.write("\n".join(got) + "\n")
        print(f"wrote {len(got)} digests to {golden}")
        return 0
    want = [l for l in open(golden, encoding="utf-8").read().splitlines() if l and not l.startswith("#")]
    want_by_key = {tuple(l.split()[:2]): l for l in want}
    failed = 0
    for line in got:
        key = tuple(line.split()[:2])
        if want_by_key.get(key) != line:
            failed += 1
            print(f"FAIL {key[0]} {key[1]}\n  got  {line}\n  want {want_by_key.get(key)}")
    missing = set(want_by_key) - {tuple(l.split()[:2]) for l in got}
    for key in sorted(missing):
        failed += 1
        print(f"FAIL {key[0]} {key[1]}: in the goldens, not in the corpus")
    print(f"corpus goldens: {len(got) - failed} equal, {failed} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
