#!/usr/bin/env python3
"""The EVENT lines of PerfView's baseline for the classic kernel events
(Windows Kernel, KernelTraceControl, MSNT_SystemTrace) against etldump's
decoding, field by field.

Every such EVENT line is matched, in order, with our event of the same name;
the time must agree to the microsecond and every field PerfView shows must
hold the same value, allowing for PerfView's formatting (see
perfview_baseline.py: thousands separators, 20-character cuts, signed
readings) and for the differences below, each with its reason (recorded in
docs/FORMAT-NOTES.md section 9):

  PID / TID   TraceEvent's kernel parsers report the process and thread a
              record is about, from its payload (ProcessID, ThreadID,
              StackProcess, IssuingThreadId...), not from the header; where
              it knows none it shows -1 (our header has none, or another).
              Through a thread, its PID must be our process_pid
              (etl_reader_event_pid), except for events before their
              thread's first record, which TraceEvent finds by reading ahead.
  FileName    PerfView turns kernel paths into drive paths (\\SystemRoot\\ and
              \\Device\\HarddiskVolumeN\\ through the trace's VolumeMapping
              records); compared after the same rewriting.
  COMPUTED    fields PerfView computes (build times from time stamps, file
              names from file keys, elapsed times from pairs of events...)
              and that no payload holds.
  RENAMED     the same payload bytes under PerfView's name.
  DISPLAYED   values PerfView shows as its own enum names (listed with the
              number that the payload holds).
  PAYLOAD     a few fields where the payload holds a value PerfView does not
              show (ImageID's ProcessID: the payload has the header's pid,
              PerfView shows 0).

An event we deliver undecoded fails, unless RAW lists its kind with the
reason.  Usage: perfview_kernel_events.py ETLDUMP TRACE BASELINE
Exit 77 where the trace or baseline is absent.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perfview_baseline import as_int, matches, parse_baseline  # noqa: E402

PROVIDERS = {"Windows Kernel", "KernelTraceControl", "MSNT_SystemTrace"}

PID_FIELDS = ("ProcessID", "ProcessId", "PID", "StackProcess")
TID_FIELDS = ("ThreadID", "TThreadId", "StackThread", "IssuingThreadId")

# (event name or "*", PerfView's field): why no payload holds it
COMPUTED = {
    ("*", "BuildTime"): "from TimeDateStamp",
    ("*", "ElapsedTimeMSec"): "from the matching completion event",
    ("*", "DiskServiceTimeMSec"): "from the disk queue",
    ("Windows Kernel/DiskIO/Read", "FileName"): "from the file key",
    ("Windows Kernel/DiskIO/Write", "FileName"): "from the file key",
    ("Windows Kernel/Memory/HardFault", "FileName"): "from the file key",
    ("*", "FileKey"): "the FileObject under another name, resolved through rundown",
    ("Windows Kernel/DiskIO/Read", "Priority"): "from IrpFlags",
    ("Windows Kernel/DiskIO/Write", "Priority"): "from IrpFlags",
    ("Windows Kernel/PerfInfo/Sample", "ExecutingDPC"): "from the DPC/ISR tables",
    ("Windows Kernel/PerfInfo/Sample", "ExecutingISR"): "from the DPC/ISR tables",
    ("Windows Kernel/PerfInfo/Sample", "Priority"): "from the thread table",
    ("Windows Kernel/PerfInfo/Sample", "ProcessorNumber"): "the header's CPU",
    ("Windows Kernel/PerfInfo/Sample", "Rank"): "from the thread table",
    ("*", "ParentThreadID"): "from the thread table",
    ("*", "ParentProcessID"): "from the process table",
    ("Windows Kernel/EventTrace", "MaxFileSize"): "MaximumFileSize in MB times 2^20",
    ("Windows Kernel/EventTrace", "UtcOffsetMinutes"): "from TimeZoneInformation.Bias",
    ("Windows Kernel/SystemConfig/Services", "ProcessName"): "from the process table (payload: '')",
    ("Windows Kernel/UdpIp/Recv", "dsize"): "TraceEvent's own field past the payload",
    ("Windows Kernel/UdpIp/Send", "dsize"): "TraceEvent's own field past the payload",
}

# (event name prefix, PerfView's field) -> our field
RENAMED = {
    ("Windows Kernel/Process/", "PageDirectoryBase"): "DirectoryTableBase",
    ("Windows Kernel/Process/PerfCtr", "MemoryCount"): "PageFaultCount",
    ("Windows Kernel/Thread/", "StartAddr"): "Affinity",  # version 3+ holds the affinity there
    ("Windows Kernel/SystemConfig/Services", "ProcessID"): "ProcessId",
}

# PerfView's enum names for numbers: (field, number) -> name
DISPLAYED = {
    ("Flags", 0): "None", ("Flags", 2): "Wow64", ("Flags", 4): "Protected",
    ("IrpFlags", 0x60000): "None",  # the I/O priority bits only: PerfView's IrpFlags enum has no name for them
    ("IrpFlags", 0x60043): "Nocache, MountComple...",  # cut by PerfView at 20 characters
    ("IrpFlags", 0x20043): "Nocache, MountComple...",
}

HEADER_KEYS = {"PID", "TID", "PName", "ProceNum", "DataLen"}

RAW = {
    "KernelTraceControl/MetaData/EventInfo": "a TRACE_EVENT_INFO that describes other events (used to decode them)",
    "KernelTraceControl/MetaData/EventMapInfo": "an EVENT_MAP_INFO that describes other events' maps",
}


def derived_matches(k, ours, theirs):
    """A derived value against PerfView's: elapsed times to its 3 decimals, build times in its
    yy/MM/dd HH:mm:ss form (UTC), file names as text (PerfView cuts them at 20 characters)."""
    if k == "ElapsedTimeMSec":
        try:
            return abs(float(ours) - float(theirs.replace(",", ""))) <= 0.0006
        except ValueError:
            return False
    if k == "BuildTime":
        iso = str(ours)  # 2012-07-26T02:42:02.0000000Z
        short = f"{iso[2:4]}/{iso[5:7]}/{iso[8:10]} {iso[11:19]}"
        return theirs.startswith(short)
    return matches(ours, theirs)


def volume_map(events):
    """NtPath -> DosPath from the trace's SysConfig/VolumeMapping records, and \\SystemRoot\\."""
    m = {}
    for e in events:
        if e.get("name") == "Windows Kernel/SysConfig/VolumeMapping":
            f = e.get("fields", {})
            if f.get("NtPath") and f.get("DosPath"):
                m[f["NtPath"]] = f["DosPath"]
    return sorted(m.items(), key=lambda kv: -len(kv[0]))


def dos_path(path, vmap):
    for nt, dos in vmap:
        if path.lower().startswith(nt.lower()):
            return dos + path[len(nt):]
    if path.startswith("\\Windows\\"):
        # image paths logged relative to the boot volume
        for nt, dos in vmap:
            if nt.lower() == "\\systemroot\\":
                return dos[: -len("Windows\\")] + path[1:] if dos.lower().endswith("windows\\") else path
    return path


def main():
    etldump, trace, baseline = sys.argv[1:4]
    if not os.path.exists(trace) or not os.path.exists(baseline):
        print("trace or baseline not found: skipped")
        return 77
    info = json.loads(subprocess.run([etldump, "--info", "--format=jsonl", trace], capture_output=True,
                                     check=True).stdout.splitlines()[0])
    start_ns = (info["start_filetime"] - 116444736000000000) * 100
    ours, every = {}, []
    # --no-maps: the numbers behind the names libetl gives flags and enums (compared through
    # DISPLAYED, PerfView's own enum names; the names themselves are checked by check_decode)
    # --derive: the fields PerfView computes that libetl derives too are compared (derived_matches)
    for line in subprocess.run([etldump, "--format=jsonl", "--no-maps", "--derive", trace],
                               capture_output=True).stdout.splitlines():
        e = json.loads(line)
        every.append(e)
        if e.get("name", "").split("/")[0] in PROVIDERS:
            ours.setdefault(e["name"], []).append(e)
    vmap = volume_map(every)
    # thread -> process, from our Thread records (PerfView attributes I/O by the issuing thread)
    tpid, named_at = {}, {}
    for e in every:
        f = e.get("fields", {})
        if e.get("name", "").startswith("Windows Kernel/Thread/") and "ThreadID" in f and "ProcessID" in f:
            tpid[f["ThreadID"]] = f["ProcessID"]
            named_at.setdefault(f["ThreadID"], e["unix_ns"])
    events, _ = parse_baseline(baseline, PROVIDERS)
    failures, passed, seen, explained = [], 0, {}, {}
    used = set()

    def note(kind, what):
        explained.setdefault(kind, set()).add(what)

    for t_ms, name, fields in events:
        i = seen.get(name, 0)
        seen[name] = i + 1
        # ours of the same name at the same time (to the microsecond PerfView prints), first unused:
        # PerfView leaves some events out (idle-thread samples), so order alone does not pair them
        cpu = as_int(dict(fields).get("ProceNum", ""))
        near = [x for x in ours.get(name, []) if id(x) not in used and
                abs((x["unix_ns"] - start_ns) / 1e6 - t_ms) <= 0.0015]
        e = next((x for x in near if x["cpu"] == cpu), near[0] if near else None)
        if e is None:
            failures.append(f"{name} #{i} at {t_ms} ms: no such event of ours")
            continue
        used.add(id(e))
        short = name.split("/", 1)[1] if "/" in name else name
        if e.get("decoder") == "none":
            if not [k for k, _ in fields if k not in HEADER_KEYS]:
                note("undecoded by PerfView too (no fields shown)", f"{name} ({e.get('undecoded_reason')})")
                passed += 1
            elif name in RAW:
                note("delivered raw", f"{name}: {RAW[name]}")
                passed += 1
            else:
                failures.append(f"{name} #{i}: not decoded ({e.get('undecoded_reason')})")
            continue
        bad = []
        if abs((e["unix_ns"] - start_ns) / 1e6 - t_ms) > 0.0015:
            bad.append(f"time {(e['unix_ns'] - start_ns) / 1e6:.3f} != {t_ms}")
        of = e.get("fields", {})
        for k, v in fields:
            if k == "PName":
                continue  # process names: the process table (covered by the sawbuck and system tests)
            if k in ("PID", "TID"):
                head = e.get(k.lower())
                pay = [of[f] for f in (PID_FIELDS if k == "PID" else TID_FIELDS) if f in of]
                if matches(head, v) or (head is None and v == "-1"):
                    continue
                if any(matches(p, v) for p in pay):
                    note("PID/TID from the payload", f"{short}.{k}")
                    continue
                if k == "PID" and matches(e.get("process_pid"), v):
                    # the library's attribution (etl_reader_event_pid) is TraceEvent's
                    note("PID = our process_pid (through the payload's thread)", short)
                    continue
                tids = [of.get(f) for f in TID_FIELDS if of.get(f) in tpid]
                if k == "PID" and e.get("process_pid") is None and \
                        any(named_at[t] > e["unix_ns"] and matches(tpid[t], v) for t in tids):
                    # TraceEvent reads ahead; the reader attributes at the event's time and the
                    # cpu-samples and disk-io tables count such rows in their notes
                    note("PID of a thread whose first record (its rundown) comes after the event: "
                         "none for libetl, counted in the tables' notes", short)
                    continue
                if k == "PID" and any(matches(tpid.get(t), v) for t in tids):
                    bad.append(f"PID: our process_pid {e.get('process_pid')} but PerfView {v!r}, "
                               "the process of the payload's thread")
                    continue
                if k == "TID" and name == "Windows Kernel/DiskIO/FlushBuffers" and \
                        matches(of.get("HighResResponseTime"), v):
                    note("PerfView's TID is another field", "DiskIO/FlushBuffers.TID = HighResResponseTime")
                    continue
                if v == "-1":
                    note("PID/TID unknown to PerfView (-1)", f"{short}.{k}")
                    continue
                bad.append(f"{k}: ours {head} (payload {pay}) theirs {v!r}")
                continue
            if k == "ProceNum":
                if not matches(e["cpu"], v):
                    bad.append(f"cpu {e['cpu']} != {v}")
                continue
            if k == "DataLen":
                if not matches(e["payload_size"], v):
                    bad.append(f"payload size {e['payload_size']} != {v}")
                continue
            why = COMPUTED.get((name, k)) or COMPUTED.get(("*", k))
            ours_k = k
            for (prefix, theirs_k), mine_k in RENAMED.items():
                if name.startswith(prefix) and k == theirs_k and k not in of:
                    ours_k = mine_k
                    note("renamed by PerfView", f"{short}.{k} = {mine_k}")
            if k == "context" and name.startswith(("Windows Kernel/UdpIp/", "Windows Kernel/TcpIp/")) and \
                    as_int(v) == (as_int(of.get("PID")) or 0) | (as_int(of.get("size")) or 0) << 32:
                note("TraceEvent reads the first 8 bytes (PID, size) as an address 'context'", short)
                continue
            der = e.get("derived", {})
            if k in der and (why or ours_k not in of):
                if k == "BuildTime" and der[k] is None and v.startswith("70/01/01 00:00:00") \
                        and of.get("TimeDateStamp") == "0x0":
                    note("no build time (TimeDateStamp 0): libetl says none, PerfView 1970", f"{short}.{k}")
                    continue
                if derived_matches(k, der[k], v):
                    note("derived by libetl too (--derive)", f"{short}.{k}")
                    continue
                bad.append(f"derived {k}: ours {der[k]!r} theirs {v!r}")
                continue
            if ours_k not in of:
                if why:
                    note("computed by PerfView", f"{short}.{k} ({why})")
                    continue
                bad.append(f"field {k} missing")
                continue
            val = of[ours_k]
            if matches(val, v):
                continue
            if v.endswith("...") and as_int(val) is not None and re.match(r"^-?[\d,]+\.\.\.$", v):
                # a number with separators, cut: compare the digits, signed or not
                digits = v[:-3].replace(",", "")
                n = as_int(val)
                if str(n).startswith(digits) or str(n - (1 << 64)).startswith(digits):
                    continue
            if k == "FileName" and isinstance(val, str):
                d = dos_path(val, vmap)
                if matches(d, v):
                    note("paths rewritten to drive letters by PerfView", short)
                    continue
            num = as_int(val)
            if num is not None and DISPLAYED.get((k, num)) == v:
                note("numbers shown as PerfView's enum names", f"{k}={num}:{v}")
                continue
            if name == "KernelTraceControl/ImageID" and k == "ProcessID" and v == "0":
                note("payload value PerfView does not show", f"ImageID.ProcessID (payload {val}, PerfView 0)")
                continue
            if why:
                note("computed by PerfView", f"{short}.{k} ({why})")
                continue
            bad.append(f"{k}: ours {val!r} theirs {v!r}")
        if bad:
            failures.append(f"{name} #{i}: " + "; ".join(bad))
        else:
            passed += 1
    for kind in sorted(explained):
        print(f"explained ({kind}): " + ", ".join(sorted(explained[kind])))
    for f in failures:
        print("FAIL", f)
    print(f"perfview kernel events: {passed} equal, {len(failures)} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
