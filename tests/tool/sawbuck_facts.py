#!/usr/bin/env python3
"""The sawbuck traces (classic Image and Process events, versions 0-3, 32- and
64-bit payload layouts under 32-bit headers) decode to the values of
CORPUS/truth/sawbuck.facts.md (issue 6).  The facts are read from that file.

Usage: sawbuck_facts.py ETLDUMP CORPUS_DIR
"""
import json
import os
import re
import subprocess
import sys

results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def events(etldump, path):
    out = subprocess.run([etldump, "-f", "jsonl", path], capture_output=True).stdout.decode()
    return [e for e in map(json.loads, out.splitlines()) if e["header"] == "full"]


def main():
    etldump, corpus = sys.argv[1:3]
    facts = os.path.join(corpus, "truth", "sawbuck.facts.md")
    if not os.path.exists(facts):
        print("corpus not found: skipped")
        return 77
    text = open(facts, encoding="utf-8").read()
    modules = [tuple(c.strip().strip("`") for c in row.split("|")[1:-1])
               for row in text.splitlines() if re.match(r"^\| \d+ \| 0x", row)]
    procs = [tuple(c.strip().strip("`") for c in row.split("|")[1:-1])
             for row in text.splitlines() if re.match(r"^\| \d+ \| \d+ \| \d+ \| S-", row)]
    check("facts parsed", len(modules) == 24 and len(procs) == 4)
    for bits in ("32", "64"):
        for v in (0, 1, 2):
            name = f"image_data_{bits}_v{v}"
            ev = events(etldump, os.path.join(corpus, "etl", f"sawbuck_log_lib_{name}.etl"))
            ok = len(ev) == 26 and all(e["decoder"] == "builtin" for e in ev)
            check(f"{name} decoded", ok, f"{len(ev)} events")
            if not ok:
                continue
            names = [e["name"] for e in ev]
            check(f"{name} opcodes", names == ["Windows Kernel/Image/DCStart"] * 24 +
                  ["Windows Kernel/Image/Unload", "Windows Kernel/Image/Load"], str(names[-3:]))
            for i, (num, base, size, csum, tds, fname) in enumerate(modules):
                f = ev[i]["fields"]
                good = (int(f["ImageBase"], 16) == int(base, 16) and int(str(f["ImageSize"]), 0) == int(size, 16)
                        and f["FileName"] == fname)
                if v >= 1:
                    good = good and f["ProcessID"] == ev[i]["pid"]
                if v >= 2:
                    good = good and int(f["ImageChecksum"], 16) == int(csum, 16) and \
                        int(f["TimeDateStamp"], 16) == int(tds, 16)
                check(f"{name} module {num}", good, json.dumps(f)[:200])
            check(f"{name} reload", ev[24]["fields"]["FileName"] == modules[0][5] == ev[25]["fields"]["FileName"])
    by_name = {p[4]: p for p in procs}
    for bits, v in (("32", 1), ("32", 2), ("32", 3), ("64", 2), ("64", 3)):
        name = f"process_data_{bits}_v{v}"
        ev = events(etldump, os.path.join(corpus, "etl", f"sawbuck_log_lib_{name}.etl"))
        want_names = (["Windows Kernel/Process/Start", "Windows Kernel/Process/Stop"] if v == 1 else
                      ["Windows Kernel/Process/DCStart"] * 3 + ["Windows Kernel/Process/Start", "Windows Kernel/Process/Stop"] +
                      ["Windows Kernel/Process/DCStop"] * 3)
        check(f"{name} events", [e["name"] for e in ev] == want_names and all(e["decoder"] == "builtin" for e in ev),
              str([e["name"] for e in ev]))
        for e in ev:
            f = e.get("fields", {})
            p = by_name.get(f.get("ImageFileName"))
            good = p is not None and f["ProcessID"] == int(p[0]) and f["ParentID"] == int(p[1]) and \
                f["SessionID"] == int(p[2]) and f["UserSID"] == p[3]
            if v >= 2 and p is not None:
                good = good and f["CommandLine"] == ("" if p[5] == "(empty)" else p[5])
            status = 0 if e["name"].endswith("/Stop") else 259
            good = good and f["ExitStatus"] == status
            check(f"{name} {f.get('ImageFileName')} {e['name'].split('/')[-1]}", good, json.dumps(f)[:220])
        # the process table the reader builds from these events (etldump --processes)
        out = subprocess.run([etldump, "--processes", "-f", "jsonl",
                              os.path.join(corpus, "etl", f"sawbuck_log_lib_{name}.etl")],
                             capture_output=True).stdout.decode()
        table = [json.loads(line) for line in out.splitlines()]
        want = [by_name["notepad.exe"]] if v == 1 else [by_name[n] for n in ("Idle", "System", "smss.exe", "notepad.exe")]
        good = [t["image"] for t in table] == [p[4] for p in want]
        for t, p in zip(table, want):
            good = good and t["pid"] == int(p[0]) and t["parent_pid"] == int(p[1])
            if v >= 2:
                good = good and t["command_line"] == ("" if p[5] == "(empty)" else p[5])
            if p[4] == "notepad.exe":
                good = good and t.get("exit_status") == 0 and "start" in t and t["end"] > t["start"]
            else:
                good = good and "start" not in t and "end" not in t
        check(f"{name} process table", good, out[:300])
    failed = [r for r in results if not r[1]]
    for n, ok, d in failed:
        print("FAIL", n, d)
    print(f"sawbuck facts: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
