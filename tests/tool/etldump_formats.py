#!/usr/bin/env python3
"""etldump's output formats and filters over real traces (issue 7).

For every trace in CORPUS/etl (and the bundled fixtures): jsonl lines parse as
JSON; csv parses as RFC 4180 with the same column count on every row; xml is
well-formed with one <Event> per event; chrome parses as JSON whose events carry
name, ph, ts, pid, tid, args; all four hold the same number of events.  Then each
filter is checked against the subset computed from the unfiltered JSON Lines.

Usage: etldump_formats.py ETLDUMP SOURCE_ROOT CORPUS_DIR
"""
import csv
import fnmatch
import io
import json
import re
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

results = []
LIMIT = 30000


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def run(args):
    return subprocess.run(args, capture_output=True)


def split_fields(text):
    """The CSV fields column as a list of "name=value" items: split at "; " outside quotes."""
    items, cur, quoted, i = [], [], False, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and quoted:
            cur.append(text[i:i + 2])
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        if not quoted and text.startswith("; ", i):
            items.append("".join(cur))
            cur = []
            i += 2
            continue
        cur.append(c)
        i += 1
    if cur or items:
        items.append("".join(cur))
    return items


def formats(etldump, path, name, env_manifests):
    # at most LIMIT events a trace keeps the run short; every format gets the same events
    base = [etldump, "--quiet", "-n", str(LIMIT)] + env_manifests
    j = run(base + ["-f", "jsonl", path])
    lines = j.stdout.decode("utf-8").splitlines()
    try:
        events = [json.loads(l) for l in lines]
        ok = all(e["type"] == "event" for e in events)
    except ValueError as e:
        ok, events = False, []
    check(f"jsonl {name}", ok)
    n = len(events)
    c = run(base + ["-f", "csv", path])
    try:
        rows = list(csv.reader(io.StringIO(c.stdout.decode("utf-8"), newline="")))
        width = len(rows[0])
        check(f"csv {name}", width == 23 and all(len(r) == width for r in rows) and len(rows) == n + 1,
              f"{len(rows)} rows for {n} events")
        # the fields column splits exactly into the names JSON has (docs/OUTPUT.md: split at "; "
        # outside quotes, then at the first "=")
        col = rows[0].index("fields")
        bad = [i for i, (row, ev) in enumerate(zip(rows[1:], events))
               if [kv.split("=", 1)[0] for kv in split_fields(row[col])] != list(ev.get("fields", {}))]
        check(f"csv-fields-split {name}", not bad, f"rows {bad[:5]}")
        # integers and hex values: JSON writes them from the value, csv from the library's text;
        # the two agree (a JSON number is the text's number, a "0x..." string the same text)
        hexlike = re.compile(r"0x[0-9a-f]+")
        bad = []
        for i, (row, ev) in enumerate(zip(rows[1:], events)):
            for kv, (k, v) in zip(split_fields(row[col]), ev.get("fields", {}).items()):
                text = kv.split("=", 1)[1] if "=" in kv else None
                if (isinstance(v, int) and not isinstance(v, bool) and text != str(v)) or \
                        (isinstance(v, str) and hexlike.fullmatch(v) and text != v):
                    bad.append((i, k, v, text))
        check(f"csv-json-numbers {name}", not bad, f"{bad[:3]}")
    except Exception as e:  # noqa: BLE001 - any parse error is a failure
        check(f"csv {name}", False, str(e))
    x = run(base + ["-f", "xml", path])
    try:
        root = ET.fromstring(x.stdout)
        ns = "{http://schemas.microsoft.com/win/2004/08/events/event}"
        check(f"xml {name}", root.tag == "Events" and len(root.findall(ns + "Event")) == n)
    except ET.ParseError as e:
        check(f"xml {name}", False, str(e))
    ch = run(base + ["-f", "chrome", path])
    try:
        d = json.loads(ch.stdout)
        evs = [e for e in d["traceEvents"] if e["ph"] not in ("M", "X") and
               not e.get("args", {}).get("unfinished")]
        slices = [e for e in d["traceEvents"] if e["ph"] == "X"]
        meta = [e for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"]
        tmeta = [e for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"]
        ok = len(evs) == n and all({"name", "ph", "ts", "pid", "tid", "args"} <= set(e) and
                                   e["ph"] in ("i", "b", "e") for e in evs)
        # Start/Stop pairs: every async begin has its end (same category, name, id and process),
        # those the trace never ends closed at its end and marked unfinished
        import collections
        opened = collections.Counter((e["cat"], e["name"], e["id"], e["pid"]) for e in d["traceEvents"] if e["ph"] == "b")
        closed = collections.Counter((e["cat"], e["name"], e["id"], e["pid"]) for e in d["traceEvents"] if e["ph"] == "e")
        check(f"chrome-pairs {name}", opened == closed and all(e["ts"] >= 0 for e in d["traceEvents"] if e["ph"] in "be"),
              f"{sum(opened.values())} begins, {sum(closed.values())} ends")
        # context switches: "Running" slices with a duration, on a thread
        ok = ok and all(e["name"] == "Running" and e["dur"] >= 0 and e["tid"] != 0 and "cpu" in e["args"]
                        for e in slices)
        # metadata: one process_name per pid, named by the kernel's process events; thread names
        ok = ok and all(e["args"]["name"] for e in meta + tmeta) and \
            len({e["pid"] for e in meta}) == len(meta) and \
            len({(e["pid"], e["tid"]) for e in tmeta}) == len(tmeta) and \
            len(meta) + len(tmeta) == len([e for e in d["traceEvents"] if e["ph"] == "M"])
        check(f"chrome {name}", ok, f"{len(evs)} for {n}, {len(meta)} process names")
    except (ValueError, KeyError) as e:
        check(f"chrome {name}", False, str(e))
    return events


def filters(etldump, path, events, tag, manifests):
    """Each filter selects exactly the events it names."""
    def sel(args):
        out = run([etldump, "--quiet", "-f", "jsonl"] + manifests + args + [path]).stdout.decode().splitlines()
        return [(e["file_offset"], e["buffer_offset"]) for e in map(json.loads, out)]

    def key(e):
        return (e["file_offset"], e["buffer_offset"])

    start = events[0]["unix_ns"] if events else 0
    ev = events
    cases = []
    if ev:
        some = ev[len(ev) // 2]
        cases.append(("provider guid", ["-p", some["provider"]], [e for e in ev if e["provider"] == some["provider"]]))
        named = [e for e in ev if e.get("decoder") not in (None, "none")]
        if named:
            prov = named[0]["name"].split("/")[0]
            cases.append(("provider glob", ["-p", prov[:4].lower() + "*"],
                          [e for e in ev if e.get("decoder") not in (None, "none")
                           and e["name"].split("/")[0].lower().startswith(prov[:4].lower())
                           or (e.get("decoder") == "none" and e["name"].lower().startswith(prov[:4].lower()))]))
        if named:
            # -e: event-name globs, case-insensitive, over the decoded name
            n0 = named[len(named) // 2]["name"]
            glob = n0.rsplit("/", 1)[0] + "/*" if "/" in n0 else n0
            cases.append(("event glob", ["-e", glob.upper()],
                          [e for e in ev if fnmatch.fnmatchcase(e.get("name", "").lower(), glob.lower())]))
            # --where over a numeric field and over text, and their negation
            nums = [(k, v) for e in named for k, v in e.get("fields", {}).items()
                    if isinstance(v, int) and not isinstance(v, bool)]
            if nums:
                k, v = nums[len(nums) // 2]
                cases.append(("where number", ["--where", f'"{k}">={v}'],
                              [e for e in ev if isinstance(e.get("fields", {}).get(k), int)
                               and not isinstance(e["fields"][k], bool) and e["fields"][k] >= v]))
                cases.append(("where not", ["--where", f'not "{k}">={v}'],
                              [e for e in ev if not (isinstance(e.get("fields", {}).get(k), int)
                                                     and not isinstance(e["fields"][k], bool) and e["fields"][k] >= v)]))
            texts = [(k, v) for e in named for k, v in e.get("fields", {}).items()
                     if isinstance(v, str) and len(v) > 3 and re.fullmatch(r"[A-Za-z][\w.\\:-]*", v)]
            if texts:
                k, v = texts[len(texts) // 2]
                cases.append(("where glob or", ["--where", f'"{k}"={v[:3]}* or @pid=4'],
                              [e for e in ev if fnmatch.fnmatchcase(str(e.get("fields", {}).get(k, "\0")), v[:3] + "*")
                               and isinstance(e.get("fields", {}).get(k), str) or e.get("pid") == 4]))
        ids = sorted({e["id"] for e in ev})
        lo, hi = ids[0], ids[len(ids) // 2]
        cases.append(("id range", ["--id", f"{lo}-{hi}"], [e for e in ev if lo <= e["id"] <= hi]))
        cases.append(("opcode", ["--opcode", str(some["opcode"])], [e for e in ev if e["opcode"] == some["opcode"]]))
        cases.append(("level", ["--level", "4"], [e for e in ev if e["level"] <= 4]))
        if "pid" in some:
            cases.append(("pid", ["--pid", str(some["pid"])], [e for e in ev if e.get("pid") == some["pid"]]))
        if "tid" in some:
            cases.append(("tid", ["--tid", str(some["tid"])], [e for e in ev if e.get("tid") == some["tid"]]))
        cases.append(("cpu", ["--cpu", str(some["cpu"])], [e for e in ev if e["cpu"] == some["cpu"]]))
        procs = sorted({e["process"] for e in ev if "process" in e})
        if procs:  # the JSON "process" field is the same table lookup the filter uses
            p = procs[len(procs) // 2]
            cases.append(("process", ["--process", p.upper()], [e for e in ev if e.get("process") == p]))
            cases.append(("process glob", ["--process", p[:2] + "*"],
                          [e for e in ev if e.get("process", "").lower().startswith(p[:2].lower())]))
        kw = int(some["keywords"], 16)
        if kw:
            bit = kw & -kw
            cases.append(("keywords-any", ["--keywords-any", hex(bit)], [e for e in ev if int(e["keywords"], 16) & bit]))
            cases.append(("keywords-all", ["--keywords-all", hex(kw)],
                          [e for e in ev if int(e["keywords"], 16) & kw == kw]))
        mid = (some["unix_ns"] - start) // 100 * 100  # exact in the trace's 100 ns units
        cases.append(("since relative", ["--since", f"{mid}ns"], [e for e in ev if e["unix_ns"] - start >= mid]))
        cases.append(("since relative ms", ["--since", "1.5ms"], [e for e in ev if e["unix_ns"] - start >= 1500000]))
        t = some["time"]
        cases.append(("until absolute", ["--until", t], [e for e in ev if e["time"] < t]))
        cases.append(("count", ["-n", "3"], ev[:3]))
    for label, args, want in cases:
        got = sel(args)
        check(f"filter {label} {tag}", got == [key(e) for e in want], f"{len(got)} != {len(want)} ({args})")


def main():
    etldump, root, corpus = sys.argv[1:4]
    files = [(os.path.join(root, "fixtures", "valid", f), f, []) for f in sorted(os.listdir(os.path.join(root, "fixtures", "valid")))]
    etl_dir = os.path.join(corpus, "etl")
    man = ["-m", os.path.join(corpus, "manifests")]
    if os.path.isdir(etl_dir):
        files += [(os.path.join(etl_dir, f), f, man) for f in sorted(os.listdir(etl_dir))]
    for path, name, m in files:
        events = formats(etldump, path, name, m)
        if name in ("mixed64.etl", "perfview_gcevents_PerfViewData.etl", "Tx_Process.etl",
                    "airbus-etl-parser_AMSITrace.etl", "s4_WindowsUpdate.20251008.140245.443.8.etl"):
            filters(etldump, path, events, name, m)
    # --process on a kernel trace: the same events as the JSON "process" field names
    net = [f[0] for f in files if os.path.basename(f[0]) == "perfview_net.4.5.2.x86.etl"]
    if net:
        keys = [(e["file_offset"], e["buffer_offset"]) for e in
                map(json.loads, run([etldump, "-f", "jsonl", net[0]]).stdout.splitlines())
                if e.get("process") == "Test.x86.exe"]
        got = [(e["file_offset"], e["buffer_offset"]) for e in
               map(json.loads, run([etldump, "-f", "jsonl", "--process", "test.x86.*", net[0]]).stdout.splitlines())]
        check("filter process perfview_net.4.5.2.x86.etl", got == keys and len(keys) > 1000, f"{len(got)} != {len(keys)}")
    # batch: one output per input
    with tempfile.TemporaryDirectory() as d:
        ins = [f[0] for f in files[:3]]
        r = run([etldump, "-q", "-f", "csv", "-O", os.path.join(d, "new")] + ins)  # the folder is made
        outs = sorted(os.listdir(os.path.join(d, "new")))
        check("batch -O", r.returncode == 0 and outs == sorted(os.path.basename(i) + ".csv" for i in ins), str(outs))
        o = os.path.join(d, "out.jsonl")
        r = run([etldump, "-q", "-f", "jsonl", "-o", o, ins[0]])
        check("-o", r.returncode == 0 and not r.stdout and len(open(o).read().splitlines()) > 0)
        bad = os.path.join(d, "bad.etl")
        with open(bad, "wb") as f:
            f.write(open(ins[0], "rb").read()[:9000])
        r = run([etldump, "-f", "jsonl", "-O", d, bad, ins[1]])
        check("batch continues past damage", r.returncode == 1 and os.path.exists(os.path.join(d, ins[1].split("/")[-1] + ".jsonl"))
              and b"1 with problems" in r.stderr, r.stderr.decode()[-200:])
        s = run([etldump, "--stats", "-f", "jsonl", ins[0]])
        st = json.loads(s.stdout)
        check("stats", st["type"] == "stats" and st["events"] == sum(p["events"] for p in st["providers"]))
        p = run([etldump, "--providers", "-f", "jsonl", ins[0]])
        check("providers", all(json.loads(l)["type"] == "provider" for l in p.stdout.splitlines()))
    failed = [r for r in results if not r[1]]
    for name, ok, detail in failed:
        print(f"FAIL {name} {detail}")
    print(f"etldump formats: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
