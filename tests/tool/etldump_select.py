#!/usr/bin/env python3
"""What etldump says about a selection (issue 66), on the bundled showcase trace: an unknown
option in one line, a table name with the closest ones, an empty table that keeps its header in
CSV and says so in text, a pattern that matched nothing with the closest names the trace has, a
filter that is not one, and the analyses' selection in the report's header.

Usage: etldump_select.py ETLDUMP SOURCE_ROOT
"""
import os
import subprocess
import sys

ETLDUMP, ROOT = sys.argv[1:3]
SHOWCASE = os.path.join(ROOT, "fixtures", "valid", "showcase64.etl")
fails = []
checks = 0


def run(*args):
    p = subprocess.run([ETLDUMP] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check(what, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        fails.append(f"{what}: {detail}")


def main():
    rc, out, err = run("--bogus", SHOWCASE)
    check("unknown option", rc == 2 and out == "" and err == "etldump: unknown option '--bogus' (try --help)\n",
          repr((rc, err)))
    rc, out, err = run("-Z", SHOWCASE)
    check("unknown short option", rc == 2 and err == "etldump: unknown option '-Z' (try --help)\n", repr(err))
    rc, out, err = run(SHOWCASE, "--table")
    check("option without its value", rc == 2 and err == "etldump: option '--table' needs a value (try --help)\n",
          repr(err))
    rc, out, err = run("--table=cpu-sample", SHOWCASE)
    check("table name", rc == 2 and "no table 'cpu-sample' (did you mean 'cpu-samples'?)" in err, repr(err))
    rc, out, err = run("--table=gc", "-f", "csv", SHOWCASE)
    check("empty table in CSV", rc == 0 and out.splitlines() == [
        "trace,pid,process,gc_number,generation,reason,type,start_time,end_time,duration,pause_start_time,pause,"
        "heap_before,heap_after,promoted"], repr(out))
    rc, out, err = run("--table=gc", SHOWCASE)
    check("empty table in text", rc == 0 and out.splitlines()[-1] == "(no rows)" and out.startswith("trace  pid"),
          repr(out))
    rc, out, err = run("-p", "Contso.Web", "--stats", SHOWCASE)
    check("a provider that matched nothing", rc == 0 and out.startswith("events:          0") and
          err == "etldump: no provider matched 'Contso.Web' (closest: 'Contoso.Web')\n", repr(err))
    rc, out, err = run("-e", "*Proces/Start", "--process", "contoso.ex", "-p", "contoso.web", "-f", "jsonl", SHOWCASE)
    check("the pattern that let no event through, not those it kept from being tried",
          out == "" and err == "etldump: no process matched 'contoso.ex' (closest: 'contoso.exe')\n", repr(err))
    rc, out, err = run("-e", "*Proces/Start", "-e", "*/Process/Stop", "-f", "jsonl", SHOWCASE)
    check("patterns or'ed: the one that matched nothing told", len(out.splitlines()) == 2 and err.splitlines() == [
        "etldump: no event name matched '*Proces/Start' (closest: 'Windows Kernel/Process/Start', "
        "'Windows Kernel/Process/DCStart', 'Windows Kernel/Process/Stop')"], repr(err))
    rc, out, err = run("-q", "-p", "Contso.Web", "--stats", SHOWCASE)
    check("--quiet keeps it to itself", rc == 0 and err == "", repr(err))
    rc, out, err = run("--filter", "@id = x", SHOWCASE)
    check("a filter that is not one", rc == 2 and err.startswith("etldump: --filter '@id = x': a header number"),
          repr(err))
    rc, out, err = run("--id", "9-3", SHOWCASE)
    check("a range that ends first", rc == 2 and "--id '9-3'" in err, repr(err))
    rc, out, err = run("--report", "--since", "+40ms", "--process", "CONTOSO*", "-e", "x", SHOWCASE)
    check("the report states its selection",
          '  selection: (@event... ' not in out and
          '  selection: (@name = "x") and (@process = "CONTOSO*") and (@time >= "+40ms")' in out, repr(out[:400]))
    check("the report says what it leaves out",
          "--report applies the time window and the processes selected; the other filters select events, "
          "not rows (left out)" in err, repr(err))
    rc, out, err = run("--table=processes", "-f", "csv", "--process", "contoso*", SHOWCASE)
    check("a table of the processes selected", [l.split(",")[3] for l in out.splitlines()[1:]] == ["contoso.exe"],
          repr(out))
    for f in fails:
        print("FAIL", f)
    print(f"etldump-select: {checks - len(fails)} passed, {len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
