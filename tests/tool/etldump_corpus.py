#!/usr/bin/env python3
"""etldump acceptance over the corpus (issue: reader core).

For every .etl in CORPUS/etl: `etldump --format=jsonl` exits 0 with nothing
on stderr, emits one JSON object per record (the record count is taken from
the corpus README's independent scan, or the compressed-trace table), the
timestamps never decrease, the logfile-header event's time equals the trace
start time, and every time lies between the start and end times, except the
events listed in AFTER_END, which docs/FORMAT-NOTES.md explains.

Usage: etldump_corpus.py ETLDUMP CORPUS_DIR      (exit 77 without the corpus)
"""
import json
import os
import re
import subprocess
import sys

FT_EPOCH = 116444736000000000

# Compressed traces: no independent scan in the README (see check_corpus.c).
COMPRESSED = {
    "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl": 28693,
    "perfview_SelfDescribingSingleEvent.etl": 23,
    "perfview_net.4.5.2.x86.etl": 168298,
    "perfview_smallEtlFile_relogged.etl": 2,
}

# Containers: an archive has its extracted twin's records; gzip counts as check_corpus.c.
CONTAINERS = {
    "dotnetperf_DynamicEvents.etl.zip": "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl",
    "perfview_gcevents.etl.zip": "perfview_gcevents_PerfViewData.etl",
    "perfview_gcrundownevents.etl.zip": "perfview_gcrundownevents_PerfViewData.clrRundown.etl",
    "perfview_net.4.5.2.x86.etl.zip": "perfview_net.4.5.2.x86.etl",
    "perfview_primitive-types.etl.zip": "perfview_primitive-types.etl",
}
GZIP = {
    "etwanalyzer_TraceLoggingTester.etl.gz": 172716,
    "s4_CldFlt1-2025-12-21-121418.etlgz": 7,
    "s4_CldFlt2-2025-12-21-121418.etlgz": 2,
}

# Events timed after the trace's EndTime, exactly, and why (docs/FORMAT-NOTES.md 3).
AFTER_END = {
    "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl": 1777,   # kernel rundown at stop (Thread DCEnd, SystemConfig)
    "perfview_net.4.5.2.x86.etl": 8,                      # merge-time events (SysConfigEx) and rundown
    "perfview_SelfDescribingSingleEvent.etl": 6,          # merge-time KernelTraceControl events
    "s4_WindowsUpdate.20251008.140245.443.8.etl": 5,      # events flushed after the stop time
}


def readme_counts(corpus):
    counts = {}
    with open(os.path.join(corpus, "README.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"- `([^`]+)`: .*Scan: \d+ buffers, (\d+) records", line)
            if m:
                counts[m.group(1)] = int(m.group(2))
    counts.update(COMPRESSED)
    counts.update(GZIP)
    for archive, twin in CONTAINERS.items():
        counts[archive] = counts[twin]
    return counts


def main():
    etldump, corpus = sys.argv[1], sys.argv[2]
    etl_dir = os.path.join(corpus, "etl")
    if not os.path.isdir(etl_dir):
        print("corpus not found: skipped")
        return 77
    counts = readme_counts(corpus)
    failures = []
    for archive, twin in CONTAINERS.items():
        if twin in AFTER_END:
            AFTER_END[archive] = AFTER_END[twin]
    files = sorted(os.listdir(etl_dir))
    total_events = decoded_events = 0
    for name in files:
        path = os.path.join(etl_dir, name)

        def fail(msg):
            failures.append(f"{name}: {msg}")

        info_run = subprocess.run([etldump, "--info", "--format=jsonl", path], capture_output=True)
        run = subprocess.run([etldump, "--format=jsonl", path], capture_output=True)
        if run.returncode != 0 or run.stderr or info_run.returncode != 0:
            fail(f"exit {run.returncode}, stderr {run.stderr[:200]!r}")
            continue
        # --threads: one reader iterates, workers decode copies of its events with readers that
        # learn the trace's state from them (etl_reader_observe): the same bytes as one thread
        threaded = subprocess.run([etldump, "--threads=2", "--format=jsonl", path], capture_output=True)
        if threaded.returncode != 0 or threaded.stderr or threaded.stdout != run.stdout:
            fail(f"--threads=2: exit {threaded.returncode}, output "
                 f"{'differs' if threaded.stdout != run.stdout else 'equal'}, stderr {threaded.stderr[:200]!r}")
        # --threads in time slices (forced where a plan of them gives a whole reading's order, on
        # traces too small for them to be chosen): each worker reads slices with a reader given
        # the slice's state - the same bytes again
        sliced = subprocess.run([etldump, "--threads=2", "--format=jsonl", path], capture_output=True,
                                env=dict(os.environ, ETLDUMP_SLICES="4"))
        if sliced.returncode != 0 or sliced.stderr or sliced.stdout != run.stdout:
            fail(f"--threads=2 in 4 slices: exit {sliced.returncode}, output "
                 f"{'differs' if sliced.stdout != run.stdout else 'equal'}, stderr {sliced.stderr[:200]!r}")
        # --stats and --providers with workers: their tallies merged give one thread's
        summ = ["--stats", "--providers", "--format=jsonl", path]
        one, two = (subprocess.run([etldump] + j + summ, capture_output=True) for j in ([], ["--threads=2"]))
        if two.returncode != one.returncode or two.stdout != one.stdout or two.stderr != one.stderr:
            fail(f"--stats --threads=2: exit {two.returncode}, output "
                 f"{'differs' if two.stdout != one.stdout else 'equal'}, stderr {two.stderr[:200]!r}")
        info = json.loads(info_run.stdout)
        start = (info["start_filetime"] - FT_EPOCH) * 100
        end = (info["end_filetime"] - FT_EPOCH) * 100
        lines = run.stdout.decode("utf-8").splitlines()
        if name not in counts:
            fail("no expected record count")
        elif len(lines) != counts[name]:
            fail(f"{len(lines)} lines, expected {counts[name]} records")
        last = None
        after = 0
        for i, line in enumerate(lines):
            ev = json.loads(line)
            total_events += 1
            decoded_events += ev.get("decoder", "none") != "none"
            t = ev["unix_ns"]
            if last is not None and t < last:
                fail(f"line {i + 1}: time goes back ({t} < {last})")
                break
            last = t
            if i == 0:
                if not (ev["header"] == "system" and ev.get("hook_id") == 0 and t == start):
                    fail("the first event is not the logfile header at the start time")
            if t < start:
                fail(f"line {i + 1}: before the start time")
                break
            if t > end and info["end_filetime"] != 0:   # 0: the logger never finalized the file
                after += 1
        if after != AFTER_END.get(name, 0):
            fail(f"{after} events after the end time, expected {AFTER_END.get(name, 0)}")
        if name == "perfview_net.4.5.2.x86.etl":
            # stacks: every StackWalk record (229 full, 12,172 compressed: StackKeyKernel/User,
            # resolved through KeyDelete/KeyRundown) names an event by (EventTimeStamp,
            # StackThread); each of the 9,666 events so named has a stack, and no other kernel
            # event has; 1,070 EVENT_HEADER events have stack extended items.  A sample's stack
            # starts at its instruction pointer, except for 2 whose trace has only a user part.
            evs = [json.loads(l) for l in lines]
            kern = [e for e in evs if "stack" in e and e["header"] != "event"]
            clr = [e for e in evs if "stack" in e and e["header"] == "event"]
            named = {(e["fields"]["EventTimeStamp"], e["fields"]["StackThread"]) for e in evs
                     if e.get("kernel_group") == "StackWalk" and e["opcode"] in (32, 37, 38)}
            if len(named) != 9666 or len(kern) != 9666 or len(clr) != 1070:
                fail(f"{len(kern)} kernel and {len(clr)} CLR events with stacks, {len(named)} named by "
                     f"stack records; expected 9666, 1070, 9666")
            # ports are numbers, as every integer of jsonl is (they were strings before 0.2)
            tcp = [e for e in evs if e.get("kernel_group") == "TcpIp" and "dport" in e.get("fields", {})]
            if not tcp or any(not isinstance(e["fields"]["dport"], int) or not isinstance(e["fields"]["sport"], int)
                              for e in tcp) or tcp[0]["fields"]["dport"] != 445:
                fail(f"TcpIp ports: {tcp[:1] and tcp[0]['fields']}")
            ktimes = {(e["timestamp"]) for e in kern}
            if {t for t, _ in named} - ktimes:
                fail(f"{len({t for t, _ in named} - ktimes)} stack records name no event with a stack")
            first = next((e for e in kern if e["name"] == "Windows Kernel/PerfInfo/Sample"), None)
            if not first or first["stack"][0] != "ntoskrnl.exe!+0x%x" % (
                    int(first["fields"]["InstructionPointer"], 16) - 0xfffff80021489000):
                fail(f"first sample's stack {first and first['stack'][:2]}")
            # (frames as image offsets: the offset's low bits are the address's)
            plain = subprocess.run([etldump, "--format=jsonl", "--no-symbols", "-e", "*/PerfInfo/Sample", path],
                                   capture_output=True).stdout.decode().splitlines()
            samples = [e for e in map(json.loads, plain) if "stack" in e]
            at_ip = 0
            for e in samples:
                ip, f = int(e["fields"]["InstructionPointer"], 16), e["stack"][0]
                if (int(f, 16) == ip) if f.startswith("0x") else (int(f.split("!+")[1], 16) & 0xfff) == (ip & 0xfff):
                    at_ip += 1
            if len(samples) != 6806 or at_ip != 6804:
                fail(f"{len(samples)} samples with stacks, {at_ip} at their IP; expected 6806, 6804")
            # .NET frames: named from the trace's CLR method events (issue 33): of the 343,465
            # frames, 39,215 lie in no image; 38,785 of them are in a method the trace describes
            frames = [f for e in evs for f in e.get("stack", [])]
            bare = sum(f.startswith("0x") for f in frames)
            methods = sum(1 for f in frames if "!+0x" not in f and not f.startswith("0x"))
            if (len(frames), bare, methods) != (343465, 430, 38785):
                fail(f"{len(frames)} frames, {bare} bare addresses, {methods} in .NET methods; "
                     f"expected 343465, 430, 38785")
            if "Test.x86.exe!Test.Program.Main+0x" not in " ".join(f for f in frames if "Main" in f):
                fail("no frame in Test.Program.Main")
    # decoded with nothing given (issue 65: the built-in descriptions): at least 99.5 % of the events
    share = decoded_events / total_events if total_events else 0
    print(f"decoded with no manifest given: {decoded_events} of {total_events} events ({100 * share:.2f} %)")
    if total_events and share < 0.995:
        failures.append(f"corpus: {100 * share:.2f} % of the events decoded with no manifest, expected 99.5 % or more")
    passed = len(files) - len({f.split(':')[0] for f in failures})
    for f in failures:
        print("FAIL", f)
    print(f"etldump corpus: {passed} passed, {len(files) - passed} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
