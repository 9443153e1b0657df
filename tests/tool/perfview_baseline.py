#!/usr/bin/env python3
"""Compares etldump's decoding of a trace with PerfView's TraceEvent baseline.

Every EVENT line of the baseline whose provider is selected is matched, in
order, with our events of the same name; time (ms from the trace start),
PID, TID, processor, payload length and every field must agree, allowing
only for the baseline's formatting:
  - numbers with thousands separators, True/False, 'yy/MM/dd HH:mm:ss.fff' times;
  - values cut to 20 characters and ending in '...';
  - TraceEvent reads 16-, 32- and 64-bit unsigned integers as signed;
  - a character field (UINT8/UINT16 shown as text) printed as its code;
and for the differences listed in EXPLAINED (each with its reason, see
docs/FORMAT-NOTES.md).  COUNT lines are checked too.

Usage: perfview_baseline.py ETLDUMP TRACE BASELINE PROVIDER...
Exit 77 where the trace or baseline is absent.
"""
import json
import os
import re
import subprocess
import sys

# (event name, field) -> how to compare, and why
EXPLAINED = {
    # TraceEvent renders SYSTEMTIME milliseconds wrongly (".03" for 799 ms, whose bytes are 1F 03);
    # the value equals the event's own FILETIME field, to the millisecond.
    ("solar_system/PrimitiveTypesTest", "system_time_type"): "seconds",
}


def perfview_time(iso):
    m = re.match(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z?$", iso)
    if not m:
        return None
    y, mo, d, h, mi, s, frac = m.groups()
    return f"{y[2:]}/{mo}/{d} {h}:{mi}:{s}" + (frac or "")


def candidates(v):
    if isinstance(v, bool):
        return ["True" if v else "False"]
    if isinstance(v, int):
        out = [str(v)]
        for bits in (16, 32, 64):
            if (1 << (bits - 1)) <= v < (1 << bits):
                out.append(str(v - (1 << bits)))
        return out
    if isinstance(v, float):
        return [repr(v), str(v), f"{v:g}"]
    if isinstance(v, str):
        out = [v]
        t = perfview_time(v)
        if t:
            out.append(t)
        if len(v) == 1:
            out.append(str(ord(v)))
        return out
    return [json.dumps(v)]


def their_text(t):
    if re.match(r"^-?\d{1,3}(,\d{3})+$", t):
        t = t.replace(",", "")
    return t


def matches(ours, theirs, how=None):
    cut = theirs.endswith("...")
    t = their_text(theirs[:-3] if cut else theirs)
    for c in candidates(ours):
        if how == "seconds":
            c, t2 = c[:17], t[:17]
        else:
            t2 = t
        if c == t2 or (cut and c.startswith(t2)):
            return True
    return False


def parse_baseline(path, providers):
    events, counts = [], {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r"^EVENT ([\d,.]+): (.*?) PID=(.*)$", line)
        if m:
            name = m.group(2)
            if name.split("/")[0] not in providers:
                continue
            parts = ("PID=" + m.group(3)).split("; ")
            fields = []
            for p in parts:
                if "=" in p:
                    k, v = p.split("=", 1)
                    fields.append((k, v))
            events.append((float(m.group(1).replace(",", "")), name, fields))
            continue
        m = re.match(r"^COUNT (.*):(\d+)$", line)
        if m and m.group(1).split("/")[0] in providers:
            counts[m.group(1)] = int(m.group(2))
    return events, counts


def main():
    etldump, trace, baseline = sys.argv[1:4]
    providers = set(sys.argv[4:])
    if not os.path.exists(trace) or not os.path.exists(baseline):
        print("trace or baseline not found: skipped")
        return 77
    info = json.loads(subprocess.run([etldump, "--info", "--format=jsonl", trace], capture_output=True,
                                     check=True).stdout.splitlines()[0])
    start_ns = (info["start_filetime"] - 116444736000000000) * 100
    ours = {}
    for line in subprocess.run([etldump, "--format=jsonl", trace], capture_output=True).stdout.splitlines():
        e = json.loads(line)
        ours.setdefault(e.get("name"), []).append(e)
    events, counts = parse_baseline(baseline, providers)
    failures, passed, seen = [], 0, {}
    for t_ms, name, fields in events:
        i = seen.get(name, 0)
        seen[name] = i + 1
        mine = ours.get(name, [])
        if i >= len(mine):
            failures.append(f"{name} #{i}: no such event of ours")
            continue
        e = mine[i]
        bad = []
        if abs((e["unix_ns"] - start_ns) / 1e6 - t_ms) > 0.0015:
            bad.append(f"time {(e['unix_ns'] - start_ns) / 1e6:.3f} != {t_ms}")
        ofields = e.get("fields", {})
        for k, v in fields:
            if k == "PID":
                ok = matches(e.get("pid"), v)
            elif k == "TID":
                ok = matches(e.get("tid"), v)
            elif k == "ProceNum":
                ok = matches(e["cpu"], v)
            elif k == "DataLen":
                ok = matches(e["payload_size"], v)
            elif k == "PName":
                continue  # process names come from the kernel rundown (issue 6)
            elif k not in ofields:
                bad.append(f"field {k} missing")
                continue
            else:
                ok = matches(ofields[k], v, EXPLAINED.get((name, k)))
            if not ok:
                bad.append(f"{k}: ours {ofields.get(k, e.get(k.lower()))!r} theirs {v!r}")
        if bad:
            failures.append(f"{name} #{i}: " + "; ".join(bad))
        else:
            passed += 1
    for name, n in counts.items():
        if len(ours.get(name, [])) != n:
            failures.append(f"COUNT {name}: ours {len(ours.get(name, []))} theirs {n}")
        else:
            passed += 1
    for f in failures:
        print("FAIL", f)
    print(f"perfview baseline: {passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
