#!/usr/bin/env python3
"""The library's layers, and the size rules of docs/HACKING.md.

1. Layers: every folder of lib/ is a layer of its own, ranked (docs/ARCHITECTURE.md), lowest first:
     util, clock, codec, io, pdb, walk, record, event, schema, manifest, tmf, decode, state, symbols,
     helpers, reader, slices, filter, tables, report
   No object file calls (or reads) a symbol defined in a higher folder, and no file includes a
   higher folder's header (which also covers the static inline functions of headers), so no
   cycle between folders can come back.  Files of one folder may use each other.
2. The Python extension (python/libetl/_ext) uses the public API only: it includes no header of
   lib/ and names no etl__ symbol (etldump is held to it by linking tools/etldump-public-api).
3. Names: every global symbol the library defines starts with etl_ (public) or etl__ (internal),
   so none can clash with a program's own (HACKING rule 6).
4. Sizes: no file in lib/ over 800 lines (generated tables aside), none in tools/ over 600, no
   function over 120 lines.

Usage: check_layers.py INTERNAL_LIBRARY.a SOURCE_ROOT
"""
import os
import re
import subprocess
import sys

LAYERS = [
    ("util", ["util_", "version.c"]),
    ("clock", ["clock_"]),
    ("codec", ["codec_"]),
    ("io", ["io_"]),
    ("pdb", ["pdb_"]),
    ("walk", ["walk_"]),
    ("record", ["record_"]),
    ("event", ["event.c", "trace_info.c"]),
    ("schema", ["schema_"]),
    ("manifest", ["manifest_"]),
    ("tmf", ["tmf_"]),
    ("decode", ["decode_"]),
    ("state", ["state_"]),
    ("symbols", ["symbols_"]),
    ("helpers", ["helpers_"]),
    ("reader", ["reader_"]),
    ("slices", ["slices_"]),
    ("filter", ["filter_"]),
    ("tables", ["tables_"]),
    ("report", ["report_"]),
]
# headers at the top of lib/: internal.h is the util layer's (diagnostics, allocation) and the
# event view's struct, which every layer reads
ROOT_HEADERS = {"internal.h": 0}
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


def check_names(archive):
    """Global symbols of the library outside its etl_ and etl__ namespaces."""
    problems = []
    for member, (defined, _) in sorted(symbols(archive).items()):
        for sym in sorted(defined):
            if not sym.startswith("etl_") and not sym.startswith("_"):
                problems.append(f"{member} defines {sym}: not in the etl_/etl__ namespace")
    return problems


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


def folder_rank(rel):
    """The rank of a file of lib/ by its folder (lib/event.c: the event layer), or None."""
    parts = rel.split("/")
    if len(parts) == 1:
        if parts[0] in ROOT_HEADERS:
            return ROOT_HEADERS[parts[0]]
        return layer_of(parts[0])
    for rank, (name, _) in enumerate(LAYERS):
        if name == parts[0]:
            return rank
    return None


def check_includes(root):
    """No file of lib/ includes a header of a higher folder."""
    problems = []
    lib = os.path.join(root, "lib")
    for dirpath, _, names in os.walk(lib):
        for n in sorted(names):
            if not n.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, n), lib)
            rank = folder_rank(rel)
            if rank is None:
                problems.append(f"lib/{rel}: in no layer (add its folder to LAYERS)")
                continue
            for inc in re.findall(r'^#include "([^"]+)"', open(os.path.join(dirpath, n), encoding="utf-8").read(), re.M):
                if "/" not in inc and inc not in ROOT_HEADERS:
                    continue  # the public header, or a generated one
                irank = folder_rank(inc)
                if irank is not None and irank > rank:
                    problems.append(f"lib/{rel} ({LAYERS[rank][0]}) includes {inc} ({LAYERS[irank][0]})")
    return problems


def check_python(root):
    """The extension's sources include only the public header and their own, and name no etl__."""
    problems = []
    ext = os.path.join(root, "python", "libetl", "_ext")
    for n in sorted(os.listdir(ext)):
        if not n.endswith((".c", ".h")):
            continue
        text = open(os.path.join(ext, n), encoding="utf-8").read()
        for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
            if inc not in ("pyetl.h", "hmap.h"):  # its own, and the helpers it shares with etldump
                problems.append(f"python/libetl/_ext/{n} includes {inc}: the extension uses the public API only")
        for sym in sorted(set(re.findall(r"\betl__\w+", text))):
            problems.append(f"python/libetl/_ext/{n} names {sym}: the extension uses the public API only")
    return problems


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
                text = open(path, encoding="utf-8").read()
                count = text.count("\n")
                # a generated table (its first comment says GENERATED and by what) is data, not code
                if count > limit and "GENERATED by scripts/" not in text[:600]:
                    problems.append(f"{rel}: {count} lines (at most {limit})")
                for fname, at, length in functions(path) if n.endswith(".c") else []:
                    if length > MAX_FUNCTION:
                        problems.append(f"{rel}:{at}: {fname} is {length} lines (at most {MAX_FUNCTION})")
    return problems, files


def main():
    archive, root = sys.argv[1:3]
    layer_problems, members = check_layers(archive)
    layer_problems += check_includes(root) + check_python(root) + check_names(archive)
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
