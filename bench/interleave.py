#!/usr/bin/env python3
"""Runs commands alternately and prints, for each, the minimum and median wall time and CPU time.

On a shared machine whose speed moves from minute to minute, running A and B in turn N times
compares them under the same conditions (docs/PERFORMANCE.md).  With --idle S each run starts
after S seconds of sleep: what a command run once meets on a machine left idle (a virtual
machine's host may have taken back the free memory, which the next run's fresh pages then cost).

Usage: interleave.py [--idle S] N LABEL COMMAND... [-- LABEL COMMAND...]...
Example: interleave.py 30 j2 build/tools/etldump -j 2 -f jsonl T.etl -- one build/tools/etldump -f jsonl T.etl
"""
import os
import resource
import statistics
import subprocess
import sys
import time


def main():
    args, idle = sys.argv[1:], 0.0
    if args[:1] == ["--idle"] and len(args) > 1:
        idle, args = float(args[1]), args[2:]
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
    with open(os.devnull, "w") as null:
        for _ in range(n):
            for c in cmds:
                time.sleep(idle)
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                subprocess.run(c[1:], stdout=null, stderr=null, check=False)
                wall[c[0]].append(time.perf_counter() - t)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[c[0]].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    for c in cmds:
        w, u = wall[c[0]], cpu[c[0]]
        print(f"{c[0]:<12} wall min {min(w):.4f} med {statistics.median(w):.4f}   "
              f"cpu min {min(u):.4f} med {statistics.median(u):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
