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
import bisect
import os
import random
import struct
import sys
import tempfile
import warnings

import libetl

SLICED = ("timestamp", "buffer-header", "bitflip")
KINDS = ["bitflip", "bytes", "insert", "delete", "truncate", "cut-at-buffer", "buffer-header",
         "header-buffer", "record-size", "swallow", "timestamp", "dup-buffer", "overwrite-buffer",
         "swap-buffers", "misaligned"]

# What each kind may cost at most (docs/ROBUSTNESS.md, "What damage costs"), from the damaged
# bytes' place: "buffers" - the events of the buffers the damaged bytes lie in; "after" - the
# events at or after the cut; "one" - one event; "none".  A loss past its bound fails the
# campaign even when it was said.
BOUNDS = {"bitflip": "buffers", "bytes": "buffers", "insert": "buffers", "delete": "buffers",
          "truncate": "after", "cut-at-buffer": "after", "buffer-header": "buffers", "header-buffer": "one",
          "record-size": "buffers", "swallow": "none", "timestamp": "none", "dup-buffer": "none",
          "overwrite-buffer": "buffers", "swap-buffers": "none", "misaligned": "buffers"}

# The header buffer's own header: damage there that the repairs of one field do not undo (bytes
# inserted or deleted) leaves a file that is not known for a trace, refused with the offset.
IDENTITY = 0x48


def read(path):
    """(events, damage reports), or (0, -1) when the trace is refused."""
    said = []
    try:
        with libetl.open(path, stacks=False, on_damage=said.append) as r:
            n = sum(1 for _ in r)
    except libetl.Error:
        return 0, -1
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
    """The mutant's bytes and the range [lo, hi) of the intact file its damage touches (for the
    bound), or None when the trace has nothing of that kind to damage."""
    d, touched = mutate_bytes(kind, data, recs, bufs, rnd)
    return (d, touched) if d is not None else None


def buffer_ops(kind, data, bufs, rnd):
    """Buffers copied in again, over another, swapped, or bytes inserted in a count not a multiple
    of 8: (bytes, touched range)."""
    if len(bufs) < 4:
        return None, None
    a, b = rnd.sample(range(1, len(bufs)), 2)
    (ao, asz), (bo, bsz) = bufs[a], bufs[b]
    if kind == "misaligned":
        i = ao + rnd.randrange(72, asz)
        k = rnd.choice([1, 3, 5, 13, 27])
        return data[:i] + bytes(rnd.randrange(256) for _ in range(k)) + data[i:], (ao, ao + asz)
    if kind == "dup-buffer":
        return data[:bo] + data[ao:ao + asz] + data[bo:], (bo, bo)
    if asz != bsz:
        return None, None
    d = bytearray(data)
    if kind == "overwrite-buffer":
        d[bo:bo + bsz] = data[ao:ao + asz]
        return bytes(d), (bo, bo + bsz)
    d[ao:ao + asz], d[bo:bo + bsz] = data[bo:bo + bsz], data[ao:ao + asz]  # swap-buffers
    return bytes(d), (ao, ao)


def mutate_bytes(kind, data, recs, bufs, rnd):
    if kind in ("dup-buffer", "overwrite-buffer", "swap-buffers", "misaligned"):
        return buffer_ops(kind, data, bufs, rnd)
    d = bytearray(data)
    n = len(d)
    touched = None
    if kind == "bitflip":
        i = rnd.randrange(n)
        d[i] ^= 1 << rnd.randrange(8)
        touched = (i, i + 1)
    elif kind == "bytes":
        i = rnd.randrange(n - 8)
        d[i:i + 8] = bytes(rnd.randrange(256) for _ in range(8))
        touched = (i, i + 8)
    elif kind == "insert":
        i = rnd.randrange(n)
        d[i:i] = bytes(rnd.randrange(256) for _ in range(rnd.choice([1, 8, 24, 512, 1000])))
        touched = (i, i + 1)
    elif kind == "delete":
        i = rnd.randrange(n - 1024)
        k = rnd.choice([1, 8, 24, 512, 1000])
        del d[i:i + k]
        touched = (i, i + k)
    elif kind == "truncate":
        i = rnd.randrange(bufs[0][1], n)
        del d[i:]
        touched = (i, n)
    elif kind == "cut-at-buffer":
        if len(bufs) < 2:
            return None, None
        i = bufs[rnd.randrange(1, len(bufs))][0]
        del d[i:]
        touched = (i, n)
    elif kind == "buffer-header":
        if len(bufs) < 2:
            return None, None
        off = bufs[rnd.randrange(1, len(bufs))][0]
        i = off + rnd.randrange(72)
        d[i] ^= 1 << rnd.randrange(8)
        touched = (i, i + 1)
    elif kind == "header-buffer":
        field = rnd.choice([0, 0x30, 0x36, 0x48 + 4, 0x48 + 0x20])
        width = 2 if field in (0x36, 0x48 + 4) else 4
        old = int.from_bytes(d[field:field + width], "little")
        new = rnd.choice([72, 8, old + 8, old - 8, old ^ (1 << rnd.randrange(8 * width))]) % (1 << (8 * width))
        d[field:field + width] = new.to_bytes(width, "little")
        touched = (field, field + width)
    elif kind in ("record-size", "swallow", "timestamp"):
        if not recs:
            return None, None
        k = rnd.randrange(len(recs))
        at, size = recs[k]
        touched = (at, at + 1)
        if kind == "timestamp":
            i = at + 16 + rnd.randrange(8)
            d[i] ^= 1 << rnd.randrange(8)
        elif kind == "record-size":
            f = size_at(d, at)
            new = rnd.choice([0, 8, size + 8, size - 8, 0xFFFF, size ^ (1 << rnd.randrange(16))])
            d[f:f + 2] = (new % 0x10000).to_bytes(2, "little")
        else:
            if k + 1 >= len(recs) or recs[k + 1][0] != at + ((size + 7) & ~7):
                return None, None
            f = size_at(d, at)
            total = ((size + 7) & ~7) + recs[k + 1][1]
            if total > 0xFFFF:
                return None, None
            d[f:f + 2] = total.to_bytes(2, "little")
    return bytes(d), touched


def per_buffer(path, bufs):
    """The intact trace's events per buffer (by their file offset: a compressed buffer's events
    carry its own)."""
    counts = [0] * len(bufs)
    starts = [o for o, _ in bufs]
    with libetl.open(path, stacks=False, order="file") as r:
        for e in r:
            k = bisect.bisect_right(starts, e.file_offset) - 1
            if 0 <= k < len(counts):
                counts[k] += 1
    return counts


def bound(kind, touched, bufs, counts):
    """The most events the mutant may lose (BOUNDS)."""
    how = BOUNDS[kind]
    if how == "none" or not bufs:
        return 0
    if how == "one":
        return 1
    lo, hi = touched
    if how == "after":
        return sum(c for (o, s), c in zip(bufs, counts) if o + s > lo)
    # the buffers the range lies in (a range that ends at a buffer's start touches the one before)
    return sum(c for (o, s), c in zip(bufs, counts) if o < max(hi, lo + 1) and o + s > lo)


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
    stats = {k: [0, 0, 0, 0, 0, 0, 0] for k in KINDS}  # mutants, with loss, lost, max, silent, over, extra
    silent, over = [], []
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "mutant.etl")
    for t in traces:
        src = os.path.join(corpus, "etl", t)
        data = open(src, "rb").read()
        intact, _ = read(src)
        recs, bufs = records(src, data), buffers(data)
        counts = per_buffer(src, bufs)
        for i in range(per):
            kind = KINDS[i % len(KINDS)]
            rnd = random.Random(f"{seed}/{t}/{i}")
            mt = mutate(kind, data, recs, bufs, rnd)
            if mt is None:
                continue
            m, touched = mt
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
            most = bound(kind, touched, bufs, counts)
            if said < 0 and touched[0] < IDENTITY:
                most = intact  # the file's identity damaged past repair: refused, said
            if lost > most:
                s[5] += 1
                over.append((t, kind, i, lost, most))
            # events a copy of a buffer would deliver twice: none (a damaged record can read as
            # one event more, said)
            extra = n - intact if kind in ("dup-buffer", "swap-buffers") else 0
            if extra > 0:
                s[6] += 1
                over.append((t, kind, i, -extra, 0))
    print(f"seed {seed}, {len(traces)} traces of at most {max_bytes} bytes, {per} mutants each")
    print("| kind | bound | mutants | with loss | events lost | most in one | silent | past the bound |")
    print("|---|---|---|---|---|---|---|---|")
    for k in KINDS:
        s = stats[k]
        print(f"| {k} | {BOUNDS[k]} | {s[0]} | {s[1]} | {s[2]} | {s[3]} | {s[4]} | {s[5] + s[6]} |")
    for t, kind, i, lost in silent:
        print(f"silent: {t} {kind} mutant {i}: {lost} events lost")
    for t, kind, i, lost, most in over:
        print(f"past the bound: {t} {kind} mutant {i}: " +
              (f"{lost} events lost, at most {most}" if lost >= 0 else f"{-lost} events delivered twice"))
    os.remove(path) if os.path.exists(path) else None
    os.rmdir(tmp)
    return 1 if silent or over else 0


if __name__ == "__main__":
    sys.exit(main())
