#!/usr/bin/env python3
"""The library's layers, and the size rules of docs/HACKING.md.

1. Layers: no object file of the library calls (or reads) a symbol defined in a higher layer.
   The layers, lowest first (docs/ARCHITECTURE.md):
     util -> io, codec, clock -> walk -> record -> event -> decode, manifest -> state -> reader
   Files of one layer may use each other.
2. Sizes: no file in lib/ over 800 lines, none in tools/ over 600, no function over 120 lines.

Usage: check_layers.py INTERNAL_LIBRARY.a SOURCE_ROOT
"""
import os
import re
import subprocess
import sys

LAYERS = [
    ("util", ["util_", "version.c"]),
    ("io/codec/clock", ["io_", "codec_", "clock_"]),
    ("walk", ["walk_"]),
    ("record", ["record_"]),
    ("event", ["event.c", "trace_info.c"]),
    ("decode/manifest", ["decode_", "manifest_"]),
    ("state", ["state_"]),
    ("reader", ["reader_"]),
]
MAX_LINES = {"lib": 800, "tools": 600}
MAX_FUNCTION = 120


def layer_of(member):
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(member.startswith(p) for p in prefixes):
            return rank
    return None


def symbols(archive):
    """member -> (defined, undefined) global symbols"""
    out = subprocess.run(["nm", "-A", "-P", "-g", archive], capture_output=True, text=True, check=True).stdout
    table = {}
    for line in out.splitlines():
        m = re.match(r"^(?:.*\[)?([^\[\]:]+?)\]?:\s*(\S+)\s+(\S)", line)
        if not m:
            continue
        member, sym, kind = m.groups()
        member = os.path.basename(member)  # thin archives name members by path
        d, u = table.setdefault(member, (set(), set()))
        (u if kind == "U" else d).add(sym)
    return table


def check_layers(archive):
    table = symbols(archive)
    owner = {s: m for m, (d, _) in table.items() for s in d}
    problems, unknown = [], []
    for member, (_, undefined) in sorted(table.items()):
        rank = layer_of(member)
        if rank is None:
            unknown.append(member)
            continue
        for sym in sorted(undefined):
            other = owner.get(sym)
            if other is None:
                continue
            orank = layer_of(other)
            if orank is not None and orank > rank:
                problems.append(f"{member} ({LAYERS[rank][0]}) uses {sym} of {other} ({LAYERS[orank][0]})")
    for m in unknown:
        problems.append(f"{m}: in no layer (add it to LAYERS in {os.path.basename(__file__)})")
    return problems, len(table)


def functions(path):
    """(name, first line, lines) of each top-level function: a line '{' at column 0 after its
    signature, to the next '}' at column 0."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found, start, name = [], None, None
    for i, line in enumerate(lines):
        if line == "{" and i > 0:
            j = i - 1
            while j > 0 and lines[j][:1] in ("\t", " "):
                j -= 1
            m = re.search(r"(\w+)\s*\(", lines[j])
            start, name = j, m.group(1) if m else "?"
        elif line.startswith("}") and start is not None:
            found.append((name, start + 1, i - start + 1))
            start = None
    return found


def check_sizes(root):
    problems, files = [], 0
    for top, limit in MAX_LINES.items():
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if not n.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, root)
                files += 1
                count = sum(1 for _ in open(path, encoding="utf-8"))
                if count > limit:
                    problems.append(f"{rel}: {count} lines (at most {limit})")
                for fname, at, length in functions(path) if n.endswith(".c") else []:
                    if length > MAX_FUNCTION:
                        problems.append(f"{rel}:{at}: {fname} is {length} lines (at most {MAX_FUNCTION})")
    return problems, files


def main():
    archive, root = sys.argv[1:3]
    layer_problems, members = check_layers(archive)
    size_problems, files = check_sizes(root)
    for p in layer_problems + size_problems:
        print("FAIL " + p)
    if members < 20 or files < 20:
        print(f"FAIL only {members} objects and {files} files were looked at")
        return 1
    ok = not layer_problems and not size_problems
    print(f"layers: {members} objects, {files} files; {'ok' if ok else 'problems above'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
