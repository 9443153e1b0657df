#!/usr/bin/env python3
"""What the machine gives two busy threads: a command alone against two copies of it at once.

Runs, N times in turn: the command alone, two copies of it started together, and each extra
command given after '--' (etldump -j 2, say). Prints the minimum and median wall time of each
and the throughput of the pair against one alone (2 x alone / pair): the ceiling of any
two-thread speed-up on this machine at these minutes (docs/PERFORMANCE.md, "-j 2").

Usage: pair.py N COMMAND... [-- LABEL COMMAND...]...
Example: pair.py 25 build/tools/etldump -f jsonl T.etl -- j2 build/tools/etldump -j 2 -f jsonl T.etl
"""
import os
import statistics
import subprocess
import sys
import time


def timed(cmds, null):
    t = time.perf_counter()
    procs = [subprocess.Popen(c, stdout=null) for c in cmds]
    for p in procs:
        p.wait()
    return time.perf_counter() - t


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    n, rest = int(sys.argv[1]), sys.argv[2:]
    cut = rest.index("--") if "--" in rest else len(rest)
    one, rest = rest[:cut], rest[cut + 1:]
    extra = []
    while rest:
        cut = rest.index("--") if "--" in rest else len(rest)
        extra.append((rest[0], rest[1:cut]))
        rest = rest[cut + 1:]
    runs = {"alone": [], "pair": []}
    runs.update({label: [] for label, _ in extra})
    with open(os.devnull, "w") as null:
        for _ in range(n):
            runs["alone"].append(timed([one], null))
            runs["pair"].append(timed([one, one], null))
            for label, cmd in extra:
                runs[label].append(timed([cmd], null))
    alone = min(runs["alone"])
    for label, t in runs.items():
        line = "%-10s wall min %.4f med %.4f" % (label, min(t), statistics.median(t))
        if label == "pair":
            line += "   two at once: %.2fx one alone's throughput" % (2 * alone / min(t))
        elif label != "alone":
            line += "   %.2fx faster than alone" % (alone / min(t))
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
