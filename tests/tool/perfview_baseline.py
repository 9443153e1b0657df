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

# PerfView's CLR parser names some events differently from the manifest's task/opcode messages.
NAME_ALIASES = {
    "Microsoft-Windows-DotNETRuntime/GC/GenerationRange": "Microsoft-Windows-DotNETRuntime/GC/GCGenerationRange",
    "Microsoft-Windows-DotNETRuntime/GarbageCollection/IncreaseMemoryPressure":
        "Microsoft-Windows-DotNETRuntime/GC/IncreaseMemoryPressure",
    "Microsoft-Windows-DotNETRuntime/GC/BulkSurvivingObjectRanges":
        "Microsoft-Windows-DotNETRuntime/GC/GCBulkSurvivingObjectRanges",
}

# Map entries PerfView's CLR parser knows and the corpus manifest's maps lack:
# (field, our number, PerfView's text).
MAP_TEXTS = {
    ("Type", 3, "PinnedObjectHeap"), ("StartupMode", 0, "None"), ("AssemblyFlags", 0, "None"),
    ("AssemblyFlags", 16, "ReadyToRun"), ("ModuleFlags", None, "Manifest, ReadyToRun"),
    ("Reason", 0, "AllocSmall"), ("GlobalMechanisms", 4, "Promotion"), ("ReasonCode", 0, "START_BIND"),
    ("ReasonCode", 9, "REJECT_IL_SIG"),
}

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


def as_int(t):
    """An integer in any of the spellings used: 12, 1,234, -5, 0x1F, 0x001f."""
    if not isinstance(t, str):
        return t if isinstance(t, int) and not isinstance(t, bool) else None
    u = t.replace(",", "") if re.match(r"^-?\d{1,3}(,\d{3})+$", t) else t
    try:
        if re.match(r"^0x[0-9a-fA-F]+$", u):
            return int(u, 16)
        if re.match(r"^-?\d+$", u):
            return int(u)
    except ValueError:
        pass
    return None


def their_text(t):
    if re.match(r"^-?\d{1,3}(,\d{3})+$", t):
        t = t.replace(",", "")
    return t


def matches(ours, theirs, how=None, alt=None):
    if alt is not None and alt != ours and matches(alt, theirs, how):
        return True
    cut = theirs.endswith("...")
    t = their_text(theirs[:-3] if cut else theirs)
    oi, ti = as_int(ours), as_int(t)
    if oi is not None and ti is not None and not cut:
        mask = (1 << 64) - 1
        if oi == ti or (oi & mask) == (ti & mask) or any(
                (1 << (b - 1)) <= oi < (1 << b) and oi - (1 << b) == ti for b in (16, 32, 64)):
            return True
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
    ours, numeric, undecoded = {}, {}, []
    for line in subprocess.run([etldump, "--format=jsonl", trace], capture_output=True).stdout.splitlines():
        e = json.loads(line)
        ours.setdefault(e.get("name"), []).append(e)
        if e.get("decoder") == "none" and e["header"] == "event":
            undecoded.append(e)
    # the same events with mapped values as numbers: PerfView shows some maps, not others
    for line in subprocess.run([etldump, "--format=jsonl", "--no-maps", trace],
                               capture_output=True).stdout.splitlines():
        e = json.loads(line)
        numeric.setdefault(e.get("name"), []).append(e)
    events, counts = parse_baseline(baseline, providers)
    failures, passed, seen, explained = [], 0, {}, {}

    def note(kind, what):
        explained.setdefault(kind, set()).add(what)

    for t_ms, name, fields in events:
        i = seen.get(name, 0)
        seen[name] = i + 1
        oname = NAME_ALIASES.get(name, name)
        if oname != name:
            note("renamed by PerfView", f"{name} = {oname}")
        mine = ours.get(oname, [])
        if i >= len(mine):
            # an event the manifest does not describe at all: we must hold it, undecoded, at
            # that time, in that process and thread
            fd = dict(fields)
            hit = [u for u in undecoded if abs((u["unix_ns"] - start_ns) / 1e6 - t_ms) <= 0.0015
                   and str(u.get("pid")) == fd.get("PID", "").replace(",", "")
                   and str(u.get("tid")) == fd.get("TID", "").replace(",", "")]
            if hit:
                note("event missing from the manifest", f"{name} (id {hit[0]['id']} v{hit[0]['version']})")
                passed += 1
            else:
                failures.append(f"{name} #{i}: no such event of ours")
            continue
        e = mine[i]
        if e.get("decoder") == "none" and "not" in e.get("undecoded_reason", "") and \
                "at version" in e.get("undecoded_reason", ""):
            # the manifest lacks this version: we name it, keep its payload raw, and say why
            note("version missing from the manifest", f"{name} v{e['version']}")
            passed += 1
            continue
        alt_fields = numeric.get(name, [{}] * (i + 1))[i].get("fields", {}) if i < len(numeric.get(name, [])) else {}
        if e.get("fields") == {} and e.get("trailing_bytes") == e["payload_size"] > 0:
            # the manifest describes this event without a template, yet it carries a payload
            # (kept raw, reported as trailing bytes); PerfView's own parser knows the layout
            note("template missing from the manifest", f"{name} v{e['version']}")
            passed += 1
            continue
        bad = []
        fields_d = dict(fields)
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
            elif k not in ofields and e.get("described_version") is not None and e.get("trailing_bytes"):
                # the manifest lacks this version: the nearest older template decoded the start
                # of the payload, and a newer version's fields are its trailing bytes
                note("field of a version newer than the manifest's", f"{name.split('/', 1)[1]}.{k}")
                continue
            elif k not in ofields:
                # a field PerfView shows that the payload cannot hold (our schema used every byte:
                # a newer version's field with a default, or one PerfView computes), or one that
                # PerfView could not read either (shown empty)
                if (not e.get("trailing_bytes") and e["payload_size"] == int(fields_d.get("DataLen", "-1").replace(",", ""))) \
                        or v == "":
                    note("PerfView-only field", f"{name.split('/', 1)[1]}.{k}")
                    continue
                bad.append(f"field {k} missing")
                continue
            else:
                ok = matches(ofields[k], v, EXPLAINED.get((name, k)), alt_fields.get(k))
                if not ok:
                    num = alt_fields.get(k)
                    tt = v[:-3] if v.endswith("...") else v
                    for f, n, txt in MAP_TEXTS:
                        if f == k and (n is None or n == num) and (txt == tt or txt.startswith(tt)):
                            note("map entry missing from the manifest", f"{k}={n}:{txt}")
                            ok = True
            if not ok:
                bad.append(f"{k}: ours {ofields.get(k, e.get(k.lower()))!r} theirs {v!r}")
        if bad:
            failures.append(f"{name} #{i}: " + "; ".join(bad))
        else:
            passed += 1
    for name, n in counts.items():
        oname = NAME_ALIASES.get(name, name)
        have = len(ours.get(oname, []))
        if have == n:
            passed += 1
        elif have > n:
            # the corpus README: TraceEvent's TraceLog folds some events away, so its COUNT can be lower
            note("COUNT lower in PerfView (TraceLog folding)", f"{name} {have} vs {n}")
            passed += 1
        elif explained.get("event missing from the manifest") and any(
                x.startswith(name + " ") for x in explained["event missing from the manifest"]):
            passed += 1
        else:
            failures.append(f"COUNT {name}: ours {have} theirs {n}")
    for kind in sorted(explained):
        print(f"explained ({kind}): " + ", ".join(sorted(explained[kind])))
    for f in failures:
        print("FAIL", f)
    print(f"perfview baseline: {passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
