#!/usr/bin/env python3
"""Per-type counts of the classic kernel (and KernelTraceControl) events of a
trace against the COUNT lines of PerfView's baseline for it.

Every kernel type PerfView counts must have the same count in `etldump
--stats`, except the differences docs/FORMAT-NOTES.md explains:
  - types PerfView's TraceLog folds into its own tables and never shows as
    events (FOLDED below): ours counts them, PerfView has no COUNT line;
  - PerfInfo/Sample: TraceLog drops most samples of the idle thread, so
    PerfView's count lies between our samples of non-idle threads and all of
    ours.
Exit 77 when the corpus is absent."""
import json
import os
import re
import subprocess
import sys

FOLDED = [r"Windows Kernel/FileIO/(FileCreate|FileDelete|FileRundown|Name)",
          r"Windows Kernel/Image/(KernelBase|HypercallPage)",
          r"Windows Kernel/StackWalk/.*",
          r"Windows Kernel/SystemConfig/(Platform|DPI|OpticalDisk|Opcode\(\d+\))",
          r"Windows Kernel/Thread/(DCStart|DCStop)"]


def main():
    etldump, trace, baseline = sys.argv[1:4]
    if not os.path.exists(trace) or not os.path.exists(baseline):
        print("corpus not found: skipped")
        return 77
    theirs = {}
    for line in open(baseline, encoding="utf-8", errors="replace"):
        m = re.match(r"COUNT (.*):(\d+)$", line.strip())
        if m and m.group(1).startswith(("Windows Kernel/", "KernelTraceControl/")):
            theirs[m.group(1)] = int(m.group(2))
    out = subprocess.run([etldump, "--stats", "-f", "jsonl", trace], capture_output=True).stdout
    ours = {n["name"]: n["events"] for n in json.loads(out)["event_names"]
            if n["name"].startswith(("Windows Kernel/", "KernelTraceControl/"))}
    failed = passed = 0
    explained = []
    for name in sorted(set(theirs) | set(ours)):
        t, o = theirs.get(name), ours.get(name)
        if t == o:
            passed += 1
            continue
        if t is None and any(re.fullmatch(p, name) for p in FOLDED):
            explained.append(f"{name} {o} (PerfView shows none: folded into TraceLog tables or not parsed)")
            continue
        if name == "Windows Kernel/PerfInfo/Sample" and t is not None and o is not None:
            lines = subprocess.run([etldump, "-f", "jsonl", "-p", "Windows Kernel", trace],
                                   capture_output=True).stdout.decode().splitlines()
            busy = sum(1 for l in lines if '"name":"Windows Kernel/PerfInfo/Sample"' in l
                       and json.loads(l)["fields"]["ThreadID"] != 0)
            if busy <= t <= o:
                explained.append(f"{name} {o} vs {t}: {busy} of ours on non-idle threads (idle samples dropped)")
                continue
        print(f"FAIL {name}: ours {o}, PerfView {t}")
        failed += 1
    for e in explained:
        print("explained:", e)
    print(f"kernel counts: {passed} equal, {len(explained)} explained, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
