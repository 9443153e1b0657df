#!/usr/bin/env python3
"""A campaign of damaged traces: mutants of real traces, each read whole; how many events each
kind of damage costs, and whether every loss was said (docs/FUZZING.md, "Mutation campaigns").
Mutants of the kinds in SLICED are also read as 4 time slices, which must add up to the whole
reading (or say why not).

Each mutant is one kind of damage applied once to a corpus trace.  It is read with the Python
package; its loss is the intact trace's event count minus the mutant's (never below 0), and a
loss is *silent* when the reading reported no damage at all.  Prints a table per kind and lists
every silent loss (trace, kind, seed) so that it can be replayed.

Usage: PYTHONPATH=build/python mutation-campaign.py CORPUS_DIR N_PER_TRACE [SEED] [--max-bytes B]
"""
import os
import random
import struct
import sys
import tempfile
import warnings

import libetl

SLICED = ("timestamp", "buffer-header", "bitflip")
KINDS = ["bitflip", "bytes", "insert", "delete", "truncate", "cut-at-buffer", "buffer-header",
         "header-buffer", "record-size", "swallow", "timestamp"]


def read(path):
    """(events, damage reports), or (0, 1) when the trace is refused."""
    said = []
    try:
        with libetl.open(path, stacks=False, on_damage=said.append) as r:
            n = sum(1 for _ in r)
    except libetl.Error:
        return 0, 1
    return n, len(said)


def sliced(path, n):
    """Events of the trace read as n time slices, and whether any slice reported damage."""
    total, said = 0, 0
    bounds = libetl.time_slices(path, n)
    for i in range(len(bounds) - 1):
        got = []
        try:
            with libetl.open(path, stacks=False, since=bounds[i] or None, until=bounds[i + 1] or None,
                             times="filetime", on_damage=got.append) as r:
                total += sum(1 for _ in r)
        except libetl.Error:
            return 0, 1
        said += len(got)
    return total, said


def records(path, data):
    """(file offset, timestamp) of the records of an uncompressed trace whose header keeps its
    time 16 bytes in, and of adjacent pairs in one buffer."""
    out = []
    with libetl.open(path, stacks=False, order="file") as r:
        for e in r:
            at = e.file_offset
            if at + 24 <= len(data) and struct.unpack_from("<Q", data, at + 16)[0] == e.timestamp:
                out.append((at, e.record_size))
    return out


def buffers(data):
    out, off = [], 0
    while off + 72 <= len(data):
        size = struct.unpack_from("<I", data, off)[0]
        if size < 72 or off + size > len(data):
            break
        out.append((off, size))
        off += size
    return out


def size_at(data, at):
    m = struct.unpack_from("<I", data, at)[0]
    ht = (m >> 16) & 0xFF
    return at + 4 if (m & 0xC0000000) == 0xC0000000 and (ht <= 4 or ht in (0x10, 0x11)) else at


def mutate(kind, data, recs, bufs, rnd):
    d = bytearray(data)
    n = len(d)
    if kind == "bitflip":
        i = rnd.randrange(n)
        d[i] ^= 1 << rnd.randrange(8)
    elif kind == "bytes":
        i = rnd.randrange(n - 8)
        d[i:i + 8] = bytes(rnd.randrange(256) for _ in range(8))
    elif kind == "insert":
        i = rnd.randrange(n)
        d[i:i] = bytes(rnd.randrange(256) for _ in range(rnd.choice([1, 8, 24, 512, 1000])))
    elif kind == "delete":
        i = rnd.randrange(n - 1024)
        del d[i:i + rnd.choice([1, 8, 24, 512, 1000])]
    elif kind == "truncate":
        del d[rnd.randrange(bufs[0][1], n):]
    elif kind == "cut-at-buffer":
        if len(bufs) < 2:
            return None
        del d[bufs[rnd.randrange(1, len(bufs))][0]:]
    elif kind == "buffer-header":
        if len(bufs) < 2:
            return None
        off = bufs[rnd.randrange(1, len(bufs))][0]
        i = off + rnd.randrange(72)
        d[i] ^= 1 << rnd.randrange(8)
    elif kind == "header-buffer":
        field = rnd.choice([0, 0x30, 0x36, 0x48 + 4, 0x48 + 0x20])
        width = 2 if field in (0x36, 0x48 + 4) else 4
        old = int.from_bytes(d[field:field + width], "little")
        new = rnd.choice([72, 8, old + 8, old - 8, old ^ (1 << rnd.randrange(8 * width))]) % (1 << (8 * width))
        d[field:field + width] = new.to_bytes(width, "little")
    elif kind in ("record-size", "swallow", "timestamp"):
        if not recs:
            return None
        k = rnd.randrange(len(recs))
        at, size = recs[k]
        if kind == "timestamp":
            i = at + 16 + rnd.randrange(8)
            d[i] ^= 1 << rnd.randrange(8)
        elif kind == "record-size":
            f = size_at(d, at)
            new = rnd.choice([0, 8, size + 8, size - 8, 0xFFFF, size ^ (1 << rnd.randrange(16))])
            d[f:f + 2] = (new % 0x10000).to_bytes(2, "little")
        else:
            if k + 1 >= len(recs) or recs[k + 1][0] != at + ((size + 7) & ~7):
                return None
            f = size_at(d, at)
            total = ((size + 7) & ~7) + recs[k + 1][1]
            if total > 0xFFFF:
                return None
            d[f:f + 2] = total.to_bytes(2, "little")
    return bytes(d)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    max_bytes = 4 << 20
    if "--max-bytes" in sys.argv:
        max_bytes = int(sys.argv[sys.argv.index("--max-bytes") + 1])
        args.remove(str(max_bytes))
    corpus, per = args[0], int(args[1])
    seed = int(args[2]) if len(args) > 2 else 1
    warnings.simplefilter("ignore")
    traces = sorted(f for f in os.listdir(os.path.join(corpus, "etl")) if f.endswith(".etl") and
                    os.path.getsize(os.path.join(corpus, "etl", f)) <= max_bytes)
    stats = {k: [0, 0, 0, 0, 0] for k in KINDS}  # mutants, with loss, events lost, max, silent
    silent = []
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "mutant.etl")
    for t in traces:
        src = os.path.join(corpus, "etl", t)
        data = open(src, "rb").read()
        intact, _ = read(src)
        recs, bufs = records(src, data), buffers(data)
        for i in range(per):
            kind = KINDS[i % len(KINDS)]
            rnd = random.Random(f"{seed}/{t}/{i}")
            m = mutate(kind, data, recs, bufs, rnd)
            if m is None:
                continue
            with open(path, "wb") as f:
                f.write(m)
            n, said = read(path)
            if kind in SLICED:  # the slices of the mutant must add up to its whole reading
                parts, said_parts = sliced(path, 4)
                if parts != n and not said_parts:
                    silent.append((t, kind + " (slices)", i, n - parts))
            lost = max(0, intact - n)
            s = stats[kind]
            s[0] += 1
            s[1] += lost > 0
            s[2] += lost
            s[3] = max(s[3], lost)
            if lost and not said:
                s[4] += 1
                silent.append((t, kind, i, lost))
    print(f"seed {seed}, {len(traces)} traces of at most {max_bytes} bytes, {per} mutants each")
    print("| kind | mutants | with loss | events lost | most in one | silent |")
    print("|---|---|---|---|---|---|")
    for k in KINDS:
        s = stats[k]
        print(f"| {k} | {s[0]} | {s[1]} | {s[2]} | {s[3]} | {s[4]} |")
    for t, kind, i, lost in silent:
        print(f"silent: {t} {kind} mutant {i}: {lost} events lost")
    os.remove(path) if os.path.exists(path) else None
    os.rmdir(tmp)
    return 1 if silent else 0


if __name__ == "__main__":
    sys.exit(main())
