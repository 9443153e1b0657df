#!/usr/bin/env python3
"""Runs commands alternately and prints, for each, the minimum and median wall time and CPU time.

On a shared machine whose speed moves from minute to minute, running A and B in turn N times
compares them under the same conditions (docs/PERFORMANCE.md).  With --idle S each run starts
after S seconds of sleep: what a command run once meets on a machine left idle (a virtual
machine's host may have taken back the free memory, which the next run's fresh pages then cost).
With --phases the commands run with ETLDUMP_CPU_REPORT set, and each etldump -j N run's wall time
is split as etlbench --scaling splits it (start, plan, workers, tail, end: docs/PERFORMANCE.md),
medians printed.

Usage: interleave.py [--idle S] [--phases] N LABEL COMMAND... [-- LABEL COMMAND...]...
Example: interleave.py 30 j2 build/tools/etldump -j 2 -f jsonl T.etl -- one build/tools/etldump -f jsonl T.etl
"""
import os
import re
import resource
import statistics
import subprocess
import sys
import time

REPORT = re.compile(r"wall clock: plan (\S+) workers (\S+) ends((?: \S+)+)")


def phases(stderr, t0, t1):
    """The run's start, plan, workers, tail and end in seconds from etldump's report, or None."""
    m = REPORT.search(stderr)
    if not m:
        return None
    start, ends = float(m.group(2)), [float(x) for x in m.group(3).split()]
    plan = start if m.group(1) == "-" else float(m.group(1))
    return [plan - t0, start - plan, min(ends) - start, max(ends) - min(ends), t1 - max(ends)]


def main():
    args, idle, split = sys.argv[1:], 0.0, False
    while args[:1] in (["--idle"], ["--phases"]):
        if args[0] == "--phases":
            split, args = True, args[1:]
        elif len(args) > 1:
            idle, args = float(args[1]), args[2:]
        else:
            break
    if len(args) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    n, rest, cmds = int(args[0]), args[1:], []
    while rest:
        cut = rest.index("--") if "--" in rest else len(rest)
        cmds.append(rest[:cut])
        rest = rest[cut + 1:]
    wall = {c[0]: [] for c in cmds}
    cpu = {c[0]: [] for c in cmds}
    split_at = {c[0]: [] for c in cmds}
    env = dict(os.environ, ETLDUMP_CPU_REPORT="1") if split else None
    with open(os.devnull, "w") as null:
        for _ in range(n):
            for c in cmds:
                time.sleep(idle)
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                t0 = time.monotonic()  # (CLOCK_MONOTONIC, etldump's clock: Linux)
                r = subprocess.run(c[1:], stdout=null, stderr=subprocess.PIPE if split else null, env=env,
                                   check=False)
                t1 = time.monotonic()
                wall[c[0]].append(time.perf_counter() - t)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[c[0]].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
                p = phases(r.stderr.decode(errors="replace"), t0, t1) if split else None
                if p:
                    split_at[c[0]].append(p)
    for c in cmds:
        w, u, s = wall[c[0]], cpu[c[0]], split_at[c[0]]
        line = (f"{c[0]:<12} wall min {min(w):.4f} med {statistics.median(w):.4f}   "
                f"cpu min {min(u):.4f} med {statistics.median(u):.4f}")
        if s:
            line += "   ms: " + " ".join(f"{name} {1e3 * statistics.median(x):.1f}" for name, x in
                                        zip(("start", "plan", "workers", "tail", "end"), zip(*s)))
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
