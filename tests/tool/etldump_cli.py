#!/usr/bin/env python3
"""etldump command-line behaviour: golden outputs over the bundled fixtures,
options, exit codes, stdin, damaged input, closed pipes.

Usage: etldump_cli.py ETLDUMP ETLGEN SOURCE_ROOT [--update]
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

FIXTURES = ["mixed64", "mixed32", "compressed64", "win7cpu", "system64", "system32", "stackkeys64", "showcase64",
            "partial64"]
JSONL_GOLDEN = ["mixed64", "mixed32", "stackkeys64"]

results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def run(args, **kw):
    return subprocess.run(args, capture_output=True, **kw)


def normalise_json(text):
    return re.sub(r'"file":"[^"]*"', '"file":"FIXTURE"', text)


def normalise_info(text):
    return re.sub(r"(?m)^file:               .*$", "file:               FIXTURE", text)


def batch_outputs(etldump, valid, tmp):
    """-O never writes outside its folder, over an input, through a link or over a file there
    (without --force); names that do not fit fail; shared names get -2; unreadable inputs leave
    nothing (ROBUSTNESS.md, issue 15)."""
    fx = os.path.join(valid, "system64.etl")
    tmp = os.path.join(tmp, "batch-tests")
    d = os.path.join(tmp, "out")
    os.makedirs(d)
    victim = os.path.join(tmp, "victim.txt")
    with open(victim, "w") as f:
        f.write("keep me")
    os.symlink(victim, os.path.join(d, "system64.etl.txt"))
    r = run([etldump, "-O", d, fx])
    check("batch-symlink", r.returncode == 3 and open(victim).read() == "keep me" and b"link" in r.stderr,
          r.stderr.decode())
    r = run([etldump, "--force", "-O", d, fx])
    check("batch-symlink-force", r.returncode == 3 and open(victim).read() == "keep me")
    os.unlink(os.path.join(d, "system64.etl.txt"))
    # an output already there: refused, then overwritten with --force
    with open(os.path.join(d, "system64.etl.txt"), "w") as f:
        f.write("old")
    r = run([etldump, "-O", d, fx])
    check("batch-exists", r.returncode == 3 and open(os.path.join(d, "system64.etl.txt")).read() == "old"
          and b"--force" in r.stderr, r.stderr.decode())
    r = run([etldump, "--force", "-O", d, fx])
    check("batch-force", r.returncode == 0 and open(os.path.join(d, "system64.etl.txt")).read().startswith("2022-"))
    # an output named like a later input: that input is read whole, never truncated
    t = os.path.join(d, "t")
    shutil.copy(fx, t)
    shutil.copy(fx, t + ".txt")
    size = os.path.getsize(t + ".txt")
    r = run([etldump, "--force", "-O", d, t, t + ".txt"])
    check("batch-output-is-input", r.returncode == 3 and os.path.getsize(t + ".txt") == size
          and b"one of the inputs" in r.stderr, r.stderr.decode())
    # shared file names: one output each
    e = os.path.join(tmp, "batch2")
    os.makedirs(os.path.join(tmp, "a"))
    os.makedirs(os.path.join(tmp, "b"))
    shutil.copy(fx, os.path.join(tmp, "a", "same.etl"))
    shutil.copy(os.path.join(valid, "mixed64.etl"), os.path.join(tmp, "b", "same.etl"))
    r = run([etldump, "-O", e, os.path.join(tmp, "a", "same.etl"), os.path.join(tmp, "b", "same.etl")])
    outs = sorted(os.listdir(e))
    check("batch-same-names", r.returncode == 0 and outs == ["same.etl-2.txt", "same.etl.txt"], str(outs))
    check("batch-same-names-content", open(os.path.join(e, "same.etl.txt")).read() ==
          run([etldump, fx]).stdout.decode())
    # an input that cannot be read (a folder, a missing file) leaves no output
    r = run([etldump, "-O", e, os.path.join(tmp, "a"), os.path.join(tmp, "nope.etl")])
    check("batch-unreadable", r.returncode == 3 and sorted(os.listdir(e)) == outs, str(sorted(os.listdir(e))))
    # a name that does not fit a path fails; nothing is cut
    deep = os.path.join(tmp, "x" * 200)
    os.makedirs(deep)
    long_dir = deep + "/" + "/".join(["y" * 200] * 19)
    r = run([etldump, "-O", long_dir, fx])
    check("batch-long-name", r.returncode in (2, 3) and not any(f.endswith(".txt") for f in os.listdir(deep)),
          r.stderr.decode()[-200:])
    # manifests are parsed once for all inputs (and threads): a broken one is reported once
    mdir = os.path.join(tmp, "manifests")
    os.makedirs(mdir)
    shutil.copy(os.path.join(valid, "..", "manifests", "showcase.man"), mdir)
    with open(os.path.join(mdir, "broken.man"), "w") as f:
        f.write("<instrumentationManifest><instrumentation")
    show = os.path.join(valid, "showcase64.etl")
    out3 = os.path.join(tmp, "batch3")
    r = run([etldump, "-m", mdir, "-f", "jsonl", "-O", out3, show, show, show])
    err = r.stderr.decode()
    outs = sorted(os.listdir(out3)) if os.path.isdir(out3) else []
    decoded = all('"Contoso-Backup/Backup/Start"' in open(os.path.join(out3, f)).read() for f in outs)
    check("manifests-once", r.returncode == 0 and err.count("broken.man") == 1 and len(outs) == 3 and decoded,
          err[-400:])
    r = run([etldump, "-m", mdir, "-j", "2", show])
    check("manifests-once-threads", r.returncode == 0 and r.stderr.decode().count("broken.man") == 1 and
          b"Contoso-Backup/Backup/Start" in r.stdout)
    # -o over an input is refused too
    r = run([etldump, "-o", t, t])
    check("output-is-input", r.returncode == 3 and os.path.getsize(t) == os.path.getsize(fx), r.stderr.decode())
    # a damaged input named to clear the terminal and forge a line: its name is escaped on stderr
    forged = os.path.join(tmp, "x\x1b[2J\netldump: all good")
    with open(fx, "rb") as f:
        data = f.read()
    with open(forged, "wb") as f:
        f.write(data[: len(data) - 100])
    r = run([etldump, forged])
    err = r.stderr.decode()
    check("escaped-names", r.returncode == 1 and "\x1b" not in err and "x\\x1b[2J\\x0aetldump: all good" in err
          and all(line.startswith("etldump: ") for line in err.splitlines()), err)


def rejected_images(etldump, etlgen, tmp):
    """An image record whose bytes no layout accounts for is raw and a reported decoding problem:
    on stderr with its offset, in --stats, in the text output with its reason, exit 1; the
    rundown of another process's image and the 32-bit program's own struct decode (issue 32)."""
    path = os.path.join(tmp, "images32.etl")
    check("images-gen", run([etlgen, "images32", path]).returncode == 0)
    r = run([etldump, path])
    lines = [l for l in r.stdout.decode().splitlines() if "/Image/" in l]
    err = r.stderr.decode()
    check("images-text", r.returncode == 1 and len(lines) == 3 and "ProcessID=384" in lines[0] and
          "ProcessID=4192 FileName=C:\\code\\test_program.exe" in lines[1] and
          'undecoded_reason="no layout fits the payload' in lines[2] and "ImageSize is above 4 GiB" in lines[2],
          "\n".join(lines))
    check("images-stderr", err.count("\n") == 1 and re.match(r"etldump: .*: offset 0x[0-9a-f]+: Windows Kernel/Image/Load: "
                                                             r"no layout fits the payload", err), err)
    st = json.loads(run([etldump, "-q", "--stats", "-f", "jsonl", path]).stdout)
    check("images-stats", st["decode_errors"] == 1 and st["decoded"] == 3 and st["undecoded"] == 0, str(st)[:300])
    r = run([etldump, "-q", "--stats", path])
    check("images-stats-text", b"decoding errors 1" in r.stdout and r.returncode == 1, r.stdout[:200])


def partial_decodings(etldump, etlgen, valid, tmp):
    """A decoding that stops at a fault says so in every format and in --stats (issue 16); the
    showcase fixture decodes whole with its manifest."""
    path = os.path.join(tmp, "partial64.etl")
    check("partial-gen", run([etlgen, "partial64", path]).returncode == 0)
    want = "property 'Status': needs 4 bytes at payload offset 4, 2 left"
    r = run([etldump, path])
    line = [l for l in r.stdout.decode().splitlines() if "RequestId=2" in l and "Finished" in l]
    check("partial-text", r.returncode == 1 and len(line) == 1 and
          line[0].endswith(' RequestId=2 decode_error="' + want + '"'), str(line))
    evs = [json.loads(l) for l in run([etldump, "-q", "-f", "jsonl", path]).stdout.splitlines()]
    bad = [e for e in evs if "decode_error" in e]
    check("partial-jsonl", len(bad) == 1 and bad[0]["decode_error"] == want and bad[0]["fields"] == {"RequestId": 2}
          and bad[0]["decoder"] == "tracelogging", str(bad))
    rows = list(csv.DictReader(io.StringIO(run([etldump, "-q", "-f", "csv", path]).stdout.decode(), newline="")))
    bad = [row for row in rows if row["decode_error"]]
    check("partial-csv", len(bad) == 1 and bad[0]["decode_error"] == want and bad[0]["fields"] == "RequestId=2"
          and all(row["undecoded_reason"] == "" for row in rows if row["decoder"] != "none"), str(bad))
    root = ET.fromstring(run([etldump, "-q", "-f", "xml", path]).stdout)
    ns = "{http://schemas.microsoft.com/win/2004/08/events/event}"
    bad = [d for d in root.iter(ns + "EventData") if d.get("DecodeError")]
    check("partial-xml", len(bad) == 1 and bad[0].get("DecodeError") == want and len(list(bad[0])) == 1)
    r = run([etldump, "-q", "--stats", "-f", "jsonl", path])
    st = json.loads(r.stdout)
    part = {n["name"]: n["partial"] for n in st["event_names"] if n["partial"]}
    check("partial-stats", r.returncode == 1 and part == {"Contoso.Web/RequestFinished": 1} and
          st["decode_errors"] == 1, str(part))
    r = run([etldump, "-q", "--stats", path])
    check("partial-stats-text", re.search(rb"\n +2 +\d+ +1  Contoso.Web/RequestFinished\n", r.stdout), r.stdout[-600:])
    # the showcase: every event decodes with the manifest beside it
    show = os.path.join(valid, "showcase64.etl")
    gen = os.path.join(tmp, "showcase64.etl")
    check("showcase-generated", run([etlgen, "showcase64", gen]).returncode == 0 and
          open(gen, "rb").read() == open(show, "rb").read())
    evs = [json.loads(l) for l in run([etldump, "-f", "jsonl", "-m", os.path.join(valid, "..", "manifests", "showcase.man"),
                                       show]).stdout.splitlines()]
    raw = [e["name"] for e in evs if e["decoder"] == "none"]
    check("showcase-decodes", len(evs) == 31 and not raw and
          {"Contoso-Backup/Backup/Start", "Contoso.Web/RequestStarted"} <= {e["name"] for e in evs}, str(raw))
    # --csv-fields=columns: one typed column per property of one event's schema
    text = run([etldump, "-f", "csv", "--csv-fields=columns", "-e", "Contoso.Web/RequestFinished", show])
    rows = list(csv.DictReader(io.StringIO(text.stdout.decode(), newline="")))
    check("csv-columns", text.returncode == 0 and not text.stderr and
          [(r["RequestId"], r["Status"], r["ElapsedMs"]) for r in rows] == [("1", "200", "1.25"), ("2", "404", "0.5")]
          and "fields" not in rows[0], text.stdout.decode()[:300])
    text = run([etldump, "-f", "csv", "--csv-fields=columns", "-e", "Contoso.Web/*", show])
    check("csv-columns-mixed", text.returncode == 0 and b"do not name" in text.stderr and
          len(text.stdout.decode().splitlines()) == 5, text.stderr.decode())
    check("csv-columns-bad", run([etldump, "-f", "csv", "--csv-fields=rows", show]).returncode == 2)
    # --providers: a provider without its manifest is marked, and how to get it is said on stderr
    r = run([etldump, "--providers", "-f", "jsonl", show])
    provs = {p["guid"]: p for p in map(json.loads, r.stdout.splitlines())}
    backup = provs.get("6a2b7b9e-3c1d-4f5e-9a8b-7c6d5e4f3a2b", {})
    check("providers-no-schema", backup.get("schema") is False and backup.get("undecoded") == 2 and
          provs.get("5f3e1a2b-7c4d-5e6f-8091-a2b3c4d5e6f7", {}).get("schema") is True and
          b"{6a2b7b9e-3c1d-4f5e-9a8b-7c6d5e4f3a2b}" in r.stderr and b"DumpRegisteredManifest PROVIDER" in r.stderr and b"tracerpt -l TRACE.etl -export" in r.stderr,
          r.stderr.decode()[-300:])
    r = run([etldump, "--providers", "-m", os.path.join(valid, "..", "manifests", "showcase.man"), show])
    check("providers-all-schemas", r.returncode == 0 and not r.stderr and b"no schema" not in r.stdout)
    # --stats ends with the providers left raw, and what would decode them
    r = run([etldump, "--stats", show])
    tail = r.stdout.decode().rstrip().splitlines()[-2:]
    check("stats-undecoded-providers", r.returncode == 0 and tail[0].split()[0] == "undecoded" and
          "{6a2b7b9e-3c1d-4f5e-9a8b-7c6d5e4f3a2b}" in tail[1] and "give it with -m" in tail[1], "\n".join(tail))
    r = run([etldump, "--stats", "-f", "jsonl", show])
    und = json.loads(r.stdout)["undecoded_providers"]
    check("stats-undecoded-json", len(und) == 1 and und[0]["undecoded"] == 2 and "-m" in und[0]["how"], str(und))
    # --providers with no input: the providers that decode, given first, then built in
    r = run([etldump, "--providers", "-f", "jsonl", "-m", os.path.join(valid, "..", "manifests", "showcase.man")])
    known = [json.loads(l) for l in r.stdout.splitlines()]
    kf = [k for k in known if k["name"] == "Microsoft-Windows-Kernel-File"]
    check("providers-known", r.returncode == 0 and known[0]["kind"] == "given" and len(kf) == 1 and
          kf[0]["kind"] == "built-in" and kf[0]["license"] == "Apache-2.0" and kf[0]["guid"] ==
          "edd08927-9cc4-4e65-b970-c2560fb5c289" and sum(k["kind"] == "built-in" for k in known) == 48,
          r.stdout.decode()[:300])
    r = run([etldump, "--providers", "--no-builtin-manifests"])
    check("providers-known-none", r.returncode == 0 and len(r.stdout.splitlines()) == 1, r.stdout.decode())
    # --derive: the disk read's file name (through its key and the volume mapping) and elapsed time,
    # marked as derived in every format; nothing derived without the option
    want_name = "C:\\Users\\demo\\Documents\\report.docx"
    disk = [json.loads(l) for l in run([etldump, "--derive", "-f", "jsonl", show]).stdout.splitlines()
            if b"DiskIO/Read" in l]
    check("derive-jsonl", len(disk) == 1 and disk[0]["derived"] == {"ElapsedTimeMSec": 2.5, "FileName": want_name}
          and "FileName" not in disk[0]["fields"], str(disk))
    check("derive-off", b'"derived"' not in run([etldump, "-f", "jsonl", show]).stdout)
    text = [l for l in run([etldump, "--derive", show]).stdout.decode().splitlines() if "DiskIO/Read" in l]
    check("derive-text", len(text) == 1 and text[0].endswith(
        " derived.ElapsedTimeMSec=2.5 derived.FileName=" + want_name), str(text))
    rows = [row for row in csv.DictReader(io.StringIO(run([etldump, "--derive", "-f", "csv", show]).stdout.decode(),
                                                      newline="")) if row["name"] == "Windows Kernel/DiskIO/Read"]
    check("derive-csv", len(rows) == 1 and rows[0]["fields"].endswith(
        "; derived.ElapsedTimeMSec=2.5; derived.FileName=" + want_name), str(rows))
    root = ET.fromstring(run([etldump, "--derive", "-f", "xml", show]).stdout)
    der = [(d.get("Name"), d.text) for d in root.iter(ns + "Data") if d.get("Derived") == "true"]
    check("derive-xml", ("FileName", want_name) in der and ("ElapsedTimeMSec", "2.5") in der, str(der))
    ch = json.loads(run([etldump, "--derive", "-f", "chrome", show]).stdout)
    args = [e["args"] for e in ch["traceEvents"] if e.get("name") == "DiskIO/Read" or
            e.get("name", "").endswith("DiskIO/Read")]
    check("derive-chrome", any(a.get("derived.FileName") == want_name for a in args), str(args)[:300])


def wpp_messages(etldump, etlgen, root, tmp):
    """WPP messages decoded with --tmf (and ETLDUMP_TMF_PATH) in every format (issue 21)."""
    fx = os.path.join(root, "fixtures", "valid", "wpp64.etl")
    tmf = os.path.join(root, "fixtures", "tmf")
    gen = os.path.join(tmp, "wpp64.etl")
    check("wpp-generated", run([etlgen, "wpp64", gen]).returncode == 0 and open(gen, "rb").read() == open(fx, "rb").read())
    r = run([etldump, "-f", "jsonl", "--tmf", tmf, fx])
    msgs = [e for e in map(json.loads, r.stdout.splitlines()) if e["header"] == "message"]
    want = ["[DriverEntry] --> Entry", "[OpenFile] opened a.txt (4096 bytes) at 0xFFFF95820BE02120",
            "[OpenFile] ERROR: open failed with status STATUS_NO_SUCH_FILE (0xC000000F) at IRQL DPC"]
    check("wpp-jsonl", r.returncode == 0 and [e.get("message") for e in msgs[:3]] == want and
          [e["decoder"] for e in msgs] == ["tmf", "tmf", "tmf", "none", "none"] and
          msgs[1]["name"] == "WppDemo/OpenFile" and msgs[1]["fields"] == {"name": "a.txt", "size": 4096,
                                                                         "handle": "0xffff95820be02120"} and
          msgs[2]["level_name"] == "TRACE_LEVEL_ERROR" and msgs[2]["flags_name"] == "TRACE_IO" and
          msgs[2]["fields"] == {"status": "0xc000000f", "arg11": "DPC"} and
          "do not fit the TMF" in msgs[3]["undecoded_reason"] and
          "in none of the TMF files given" in msgs[4]["undecoded_reason"], r.stdout.decode()[-900:])
    env = dict(os.environ, ETLDUMP_TMF_PATH=tmf)
    check("wpp-env", run([etldump, "-f", "jsonl", fx], env=env).stdout == r.stdout)
    check("wpp-threads", run([etldump, "-f", "jsonl", "-j", "2", "--tmf", tmf, fx]).stdout == r.stdout)
    plain = [e for e in map(json.loads, run([etldump, "-f", "jsonl", fx]).stdout.splitlines()) if e["header"] == "message"]
    check("wpp-without-tmf", len(plain) == 5 and all(e["decoder"] == "none" and "needs the provider's TMF files"
                                                     in e["undecoded_reason"] for e in plain))
    text = run([etldump, "--tmf", tmf, fx]).stdout.decode()
    check("wpp-text", ' WppDemo/OpenFile message="[OpenFile] opened a.txt (4096 bytes) at 0xFFFF95820BE02120" '
          'name=a.txt size=4096 handle=0xffff95820be02120\n' in text, text[-600:])
    import csv
    import io
    rows = list(csv.DictReader(io.StringIO(run([etldump, "-f", "csv", "--tmf", tmf, fx]).stdout.decode(), newline="")))
    check("wpp-csv", [row["message"] for row in rows if row["decoder"] == "tmf"] == want)
    chrome = json.loads(run([etldump, "-f", "chrome", "--tmf", tmf, fx]).stdout)
    events = chrome["traceEvents"] if isinstance(chrome, dict) else chrome
    check("wpp-chrome", [e["args"]["message"] for e in events if "message" in e.get("args", {})] == want)
    xml = run([etldump, "-f", "xml", "--tmf", tmf, fx]).stdout.decode()
    check("wpp-xml", all(m.replace(">", "&gt;") in xml or m in xml for m in want), xml[-800:])
    r = run([etldump, "--providers", fx])
    check("wpp-providers-hint", b"2 WPP providers without TMF files" in r.stderr and b"tracepdb -f" in r.stderr
          and b"tracerpt" not in r.stderr, r.stderr)
    bad = os.path.join(tmp, "bad.tmf")
    with open(bad, "w") as f:
        f.write("aabbccdd-0000-1111-2222-333344445555 X\n#typev x_c1 10 \"%10!d!\"\n{\nv, ItemWhat -- 10\n}\n")
    r = run([etldump, "--tmf", bad, fx])
    check("wpp-bad-tmf", r.returncode == 0 and b"bad.tmf line 4: unknown item type 'ItemWhat'" in r.stderr, r.stderr)
    r = run([etldump, "--tmf", os.path.join(tmp, "none.tmf"), fx])
    check("wpp-missing-tmf", r.returncode == 1 and b"none.tmf" in r.stderr, f"{r.returncode} {r.stderr!r}")
    # issue 38: TMF files are parsed once for every worker (-j 4 parsed them four times); a
    # dense 4 MiB file costs about 50 MB parsed
    dense = os.path.join(tmp, "dense.tmf")
    with open(dense, "w") as f:
        f.write("aabbccdd-0000-1111-2222-333344445555 m\n")
        for i in range(200000):
            f.write('#typev a %d ""\n' % (i % 65536))
            if i % 65536 == 65535:
                f.write("aabbcc%02x-0000-1111-2222-333344445555 m\n" % (i // 65536))
    rss = {}
    for j in ("1", "4"):
        pid = os.fork()
        if pid == 0:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            os.execv(etldump, [etldump, "-j", j, "--tmf", tmf, "--tmf", dense, "-f", "jsonl", fx])
        _, status, use = os.wait4(pid, 0)
        rss[j] = use.ru_maxrss
    check("wpp-tmf-parsed-once", rss["4"] < rss["1"] * 1.3 and rss["1"] > 20000, str(rss))


def well_formed_everywhere(etldump, root):
    """Every format over every fixture and fuzz regression input (damaged and crafted traces):
    UTF-8, and JSON Lines lines, chrome and XML documents that parse, CSV rows of one width."""
    bad = []
    for top in ("valid", "fuzz-regressions"):
        for dp, _, fn in os.walk(os.path.join(root, "fixtures", top)):
            for f in sorted(fn):
                path = os.path.join(dp, f)
                for fmt in ("jsonl", "chrome", "xml", "csv"):
                    out = run([etldump, "-q", "-f", fmt, path]).stdout
                    try:
                        text = out.decode("utf-8")
                        if fmt == "jsonl":
                            for line in text.splitlines():
                                json.loads(line)
                        elif fmt == "chrome" and text.strip():
                            json.loads(text)
                        elif fmt == "xml" and text.strip():
                            ET.fromstring(out)
                        elif fmt == "csv":
                            rows = list(csv.reader(io.StringIO(text, newline="")))
                            if any(len(r) != len(rows[0]) for r in rows):
                                raise ValueError("rows of different widths")
                    except (ValueError, ET.ParseError) as e:
                        bad.append(f"{fmt} {f}: {str(e)[:80]}")
    check("well-formed-everywhere", not bad, "; ".join(bad[:4]))


def threads_report(etldump, big):
    """ETLDUMP_CPU_REPORT (etlbench --scaling reads it): each thread's CPU seconds and, on the
    monotonic clock, when the plan, the workers and each worker's end came - in that order, within
    the run - for the time slices and for the batches; the output unchanged."""
    plain = run([etldump, "-f", "jsonl", big]).stdout
    for slices, planned in (("4", True), ("0", False)):
        env = dict(os.environ, ETLDUMP_SLICES=slices, ETLDUMP_CPU_REPORT="1")
        before = time.monotonic()
        r = run([etldump, "-j", "2", "-f", "jsonl", big], env=env)
        after = time.monotonic()
        lines = r.stderr.decode().splitlines()
        cpu = [l for l in lines if l.startswith("etldump: cpu seconds: main ")]
        wall = [l.split()[4:] for l in lines if l.startswith("etldump: wall clock: plan ")]
        ok = r.returncode == 0 and r.stdout == plain and len(cpu) == 1 and len(lines) == 2 and len(wall) == 1
        if ok:
            w = wall[0]  # plan P|- workers S ends E1 E2
            ok = len(w) == 6 and w[1] == "workers" and w[3] == "ends" and (w[0] == "-") != planned
        if ok:
            start, ends = float(w[2]), [float(x) for x in w[4:]]
            plan = float(w[0]) if planned else start
            ok = plan <= start <= min(ends)
            if sys.platform.startswith("linux"):  # (Python's monotonic clock is the same clock)
                ok = ok and before <= plan and max(ends) <= after
        check(f"threads-report-{'slices' if planned else 'batches'}", ok, r.stderr.decode()[:400])


def threads_workers(etldump, etlgen, big, tmp):
    """-j N reads the time slices with fewer workers where the input gives fewer than 2N spans
    (half as many as the spans: big's 130 buffers over 4 CPUs give 32), and hands the batches all
    N only where it gives fewer than 4; the output is one thread's either way."""
    small = os.path.join(tmp, "few-buffers.etl")
    check("threads-workers-gen", run([etlgen, "mixed64", small, "500"]).returncode == 0)  # 15 buffers
    env = dict(os.environ, ETLDUMP_CPU_REPORT="1")
    for path, j, planned, workers in ((big, "3", True, 3), (big, "20", True, 16), (big, "64", True, 16),
                                      (small, "3", False, 3)):
        r = run([etldump, "-j", j, "-f", "jsonl", path], env=env)
        lines = r.stderr.decode().splitlines()
        cpu = [l.split() for l in lines if l.startswith("etldump: cpu seconds: main ")]
        wall = [l.split() for l in lines if l.startswith("etldump: wall clock: plan ")]
        ok = (r.returncode == 0 and r.stdout == run([etldump, "-f", "jsonl", path]).stdout and len(cpu) == 1
              and len(wall) == 1 and (wall[0][4] != "-") == planned)
        if ok:  # etldump: cpu seconds: main M workers W1 ...
            ok = len(cpu[0][cpu[0].index("workers") + 1:]) == workers
        check(f"threads-workers-{os.path.basename(path)}-j{j}", ok, r.stderr.decode()[:300])


def batch_full_disk(etldump, big, small, tmp):
    mnt = os.path.join(tmp, "tmpfs")
    os.makedirs(mnt, exist_ok=True)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt],
                                           capture_output=True).returncode != 0:
        print("batch-full-disk: skipped (needs root and a tmpfs mount)")
        return
    try:
        od = os.path.join(mnt, "o")
        r = run([etldump, "-f", "jsonl", "-O", od, big, small])  # 300 KB of JSON Lines, then 16 KB
        names = sorted(os.listdir(od))
        check("batch-full-disk", r.returncode == 3 and names == ["system64.etl.jsonl"]
              and b"No space left on device (the partial output is removed)" in r.stderr
              and b"2 inputs, 1 with problems" in r.stderr, f"{r.returncode} {names} {r.stderr[-300:]!r}")
        subprocess.run(["sh", "-c", f"rm -rf {od}; dd if=/dev/zero of={mnt}/fill bs=1k count=63"],
                       capture_output=True)
        r = run([etldump, "--stats", "-j", "2", "-O", os.path.join(mnt, "s"), big])
        check("batch-full-disk-stats-j2", r.returncode == 3 and os.listdir(os.path.join(mnt, "s")) == []
              and b"No space left on device" in r.stderr, f"{r.returncode} {r.stderr[-300:]!r}")
    finally:
        subprocess.run(["umount", mnt], capture_output=True)


def hostile_names(etldump, etlgen, tmp):
    """One rule wherever a person reads (text, CSV, the tables, --processes): what would act on a
    terminal or a spreadsheet's reader - ESC, CR, LF, DEL, the C1 CSI and the bidirectional
    override U+202E in a process's name and command line - is written as \\xNN, never raw."""
    path = os.path.join(tmp, "hostile64.etl")
    check("hostile-gen", run([etlgen, "hostile64", path]).returncode == 0)
    raw = [b"\x1b", b"\r\n", b"\x7f", b"\xc2\x9b", b"\xe2\x80\xae"]
    for args in ([], ["-f", "csv"], ["--processes"], ["--table=processes"], ["--table=processes", "-f", "csv"],
                 ["--table=threads"], ["--table=threads", "-f", "csv"]):
        out = run([etldump] + args + [path]).stdout
        if args[-1:] == ["csv"]:
            out = out.replace(b"\r\n", b"\n")  # (CSV's own line ends)
        check("hostile-" + "-".join(a.strip("-") for a in args) if args else "hostile-text",
              b"a\\x1b[2J\\xc2\\x9bb\\xe2\\x80\\xaetxt.exe" in out and not any(r in out for r in raw),
              repr(out[-400:]))


def main():
    etldump, etlgen, root = sys.argv[1:4]
    update = "--update" in sys.argv
    valid = os.path.join(root, "fixtures", "valid")
    expected = os.path.join(root, "fixtures", "expected")
    tmp = tempfile.mkdtemp(prefix="etldump-cli-")
    try:
        for name in FIXTURES:
            path = os.path.join(valid, name + ".etl")
            # the committed fixture is exactly what the writer produces
            gen = os.path.join(tmp, name + ".etl")
            r = run([etlgen, name, gen, "400"])
            same = r.returncode == 0 and open(gen, "rb").read() == open(path, "rb").read()
            check(f"generated-fixture {name}", same)
            outputs = {
                name + ".txt": run([etldump, "--payload-bytes=-1", path]).stdout.decode(),
                name + ".info.txt": normalise_info(run([etldump, "--info", path]).stdout.decode()),
            }
            if name in JSONL_GOLDEN:
                outputs[name + ".jsonl"] = normalise_json(run([etldump, "-f", "jsonl", path]).stdout.decode())
            if name == "mixed64":
                csv_text = run([etldump, "-f", "csv", path]).stdout.decode()
                outputs[name + ".csv"] = csv_text.replace(path, "FIXTURE")
                outputs[name + ".xml"] = run([etldump, "-f", "xml", path]).stdout.decode()
                outputs[name + ".chrome.json"] = run([etldump, "-f", "chrome", path]).stdout.decode()
            if name.startswith("system"):
                outputs[name + ".processes.txt"] = run([etldump, "--processes", path]).stdout.decode()
                outputs[name + ".processes.jsonl"] = run([etldump, "--processes", "-f", "jsonl", path]).stdout.decode()
                outputs[name + ".jsonl"] = normalise_json(run([etldump, "-f", "jsonl", path]).stdout.decode())
                outputs[name + ".chrome.json"] = run([etldump, "-f", "chrome", path]).stdout.decode()
            for fname, text in outputs.items():
                gold = os.path.join(expected, fname)
                if update:
                    with open(gold, "w", encoding="utf-8", newline="") as f:
                        f.write(text)
                    continue
                want = open(gold, encoding="utf-8", newline="").read() if os.path.exists(gold) else None
                check(f"golden {fname}", text == want, "differs from " + gold)
            # every jsonl line parses, one per record
            lines = run([etldump, "-f", "jsonl", path]).stdout.decode().splitlines()
            ok = all(json.loads(l)["type"] == "event" for l in lines)
            want_lines = 19 if name == "system64" else 18 if name == "system32" else \
                31 if name in ("showcase64", "partial64") else \
                16 if name == "stackkeys64" else \
                400 + (1 if name in ("mixed32", "win7cpu") else 2)
            check(f"jsonl-parses {name}", ok and len(lines) == want_lines, f"{len(lines)} lines")

        wpp_messages(etldump, etlgen, root, tmp)
        # names with control bytes (a fuzz finding's trace): XML replaces them by U+FFFD and stays
        # well-formed, CSV keeps every row's columns, JSON Lines escapes them
        ctl = os.path.join(root, "fixtures", "fuzz-regressions", "batch", "stack-module-name-with-control-bytes")
        x = run([etldump, "-q", "-f", "xml", ctl]).stdout
        try:
            xroot = ET.fromstring(x)
            texts = "".join(xroot.itertext())
            check("xml-control-bytes", "\ufffd" in texts and
                  not any(ord(c) < 0x20 and c not in "\t\n\r" for c in x.decode("utf-8")))
        except ET.ParseError as e:
            check("xml-control-bytes", False, str(e))
        rows = list(csv.reader(io.StringIO(run([etldump, "-q", "-f", "csv", ctl]).stdout.decode("utf-8"), newline="")))
        check("csv-control-bytes", len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows))
        lines = run([etldump, "-q", "-f", "jsonl", ctl]).stdout.decode("utf-8").splitlines()
        check("jsonl-control-bytes", lines and all(json.loads(l) for l in lines) and
              not any(ord(c) < 0x20 for l in lines for c in l))
        well_formed_everywhere(etldump, root)
        hostile_names(etldump, etlgen, tmp)
        fx = os.path.join(valid, "mixed64.etl")
        r = run([etldump, "--help"])
        check("help", r.returncode == 0 and b"Usage: etldump" in r.stdout and not r.stderr)
        r = run([etldump, "--version"])
        check("version", r.returncode == 0 and b"libetl" in r.stdout and b"zlib" in r.stdout)
        check("no-args", run([etldump]).returncode == 2)
        check("bad-option", run([etldump, "--bogus", fx]).returncode == 2)
        check("bad-format", run([etldump, "--format=yaml", fx]).returncode == 2)
        r = run([etldump, os.path.join(tmp, "missing.etl")])
        check("missing-file", r.returncode == 3 and b"cannot open" in r.stderr and not r.stdout)
        # inputs that are not traces at all: exit 3 (nothing could be read), saying what they are
        notes = os.path.join(tmp, "notes.txt")
        with open(notes, "w") as f:
            f.write("hello, this is not a trace\n" * 10)
        empty = os.path.join(tmp, "empty.etl")
        open(empty, "w").close()
        elf = os.path.join(tmp, "prog")
        with open(elf, "wb") as f:
            f.write(b"\x7fELF" + bytes(200))
        for path, what in ((notes, b"not a trace: text"), (empty, b"not a trace: an empty file"),
                           (elf, b"not a trace: an ELF executable"), (tmp, b"not a trace: a directory")):
            r = run([etldump, path])
            check(f"not-a-trace {what.decode()}", r.returncode == 3 and what in r.stderr and not r.stdout,
                  f"{r.returncode} {r.stderr!r}")
        # one trace and one non-trace: what can be read is printed, the exit says an input failed
        r = run([etldump, fx, notes])
        check("not-a-trace-mixed", r.returncode == 3 and len(r.stdout.splitlines()) == 402)
        r = run([etldump, "-n", "5", fx])
        check("count", r.returncode == 0 and len(r.stdout.splitlines()) == 5)
        r = run([etldump, "-f", "jsonl", "--order=file", fx])
        offs = [json.loads(l)["file_offset"] for l in r.stdout.splitlines()]
        check("order-file", r.returncode == 0 and offs == sorted(offs) and len(offs) == 402)
        with open(fx, "rb") as f:
            r = run([etldump, "-"], stdin=f)
        check("stdin", r.returncode == 0 and r.stdout == run([etldump, fx]).stdout)
        # --time: text and CSV times in UTC, the local zone, relative to the start, or raw
        sx = os.path.join(valid, "system64.etl")
        first = {m: run([etldump, "--time", m, "-n", "3", sx], env=dict(os.environ, TZ="Asia/Kolkata")).stdout.decode().splitlines()[2].split(" ")[0]
                 for m in ("utc", "local", "relative", "raw")}
        check("time-modes", first == {"utc": "2022-06-18T04:26:40.0010000Z", "local": "2022-06-18T09:56:40.0010000+05:30",
                                       "relative": "1.0000", "raw": "1000010000"}, str(first))
        rows = run([etldump, "--time=relative", "-f", "csv", "-n", "2", sx]).stdout.decode().splitlines()
        check("time-csv", rows[2].startswith("0.0000,"), rows[2][:40])
        check("time-bad", run([etldump, "--time=soon", sx]).returncode == 2)
        # times and values out of range are usage errors, never an overflow or a match of all
        for bad in (["--since", "922000000000s"], ["--until", "1e30s"], ["--until", "nan"], ["--since", "inf"],
                    ["--where", "@pid=nan"]):
            r = run([etldump] + bad + [sx])
            check("refused " + " ".join(bad), r.returncode == 2 and r.stdout == b"", str(r.returncode))
        # a glob longer than 511 bytes is matched whole, not cut
        check("long-glob-none", run([etldump, "-e", "*" * 520 + "x", sx]).stdout == b"")
        check("long-glob-some", len(run([etldump, "-e", "*" * 520 + "Start", sx]).stdout.splitlines()) > 0)
        # --process: new.exe's start, thread, the context switch to its thread, image load, CPU
        # sample (by its thread), unload, stop; not the later process that reuses its pid
        sx = os.path.join(valid, "system64.etl")
        names = [json.loads(l)["name"].split("/", 1)[1] for l in
                 run([etldump, "-f", "jsonl", "--process", "NEW.exe", sx]).stdout.splitlines()]
        check("process-filter", names == ["Process/Start", "Thread/Start", "Thread/SetName", "Thread/CSwitch", "Image/Load",
                                          "PerfInfo/Sample", "Image/Unload", "Process/Stop"], str(names))
        check("process-filter-glob", len(run([etldump, "--process", "*e.exe", sx]).stdout.splitlines()) == 1)
        check("process-filter-none", run([etldump, "--process", "nothing", sx]).stdout == b"")
        # summaries print only themselves, whatever the format
        for fmt in ("xml", "chrome", "csv"):
            r = run([etldump, "--stats", "-f", fmt, fx])
            check(f"stats-only-{fmt}", r.returncode == 0 and r.stdout.startswith(b"events:")
                  and b"</Events>" not in r.stdout and b"]}" not in r.stdout and b"time,unix_ns" not in r.stdout)
        # -O: the folder is made; an input that cannot be opened leaves no output behind
        od = os.path.join(tmp, "batch")
        r = run([etldump, "-O", od, fx, os.path.join(tmp, "missing.etl")])
        check("batch-missing-input", r.returncode == 3 and sorted(os.listdir(od)) == ["mixed64.etl.txt"]
              and b"2 inputs, 1 with problems" in r.stderr, r.stderr.decode()[-200:])
        # -O on a full disk (a 64 KiB tmpfs, where this runs as root): an output cut by the disk
        # is removed and reported, exit 3, the other input's output is whole; so with -j 2 --stats
        batch_full_disk(etldump, fx, os.path.join(valid, "system64.etl"), tmp)
        # two inputs: one merged, time-ordered stream with each event's file
        r = run([etldump, "-f", "jsonl", fx, os.path.join(valid, "mixed32.etl")])
        evs = [json.loads(l) for l in r.stdout.splitlines()]
        check("two-files", r.returncode == 0 and len(evs) == 803 and
              [e["unix_ns"] for e in evs] == sorted(e["unix_ns"] for e in evs) and
              len({e["file"] for e in evs}) == 2)
        # containers, recognised by content whatever the name; gzip through stdin too
        import gzip
        import zipfile
        plain = run([etldump, fx]).stdout
        gz = os.path.join(tmp, "trace.bin")
        with open(gz, "wb") as f:
            f.write(gzip.compress(open(fx, "rb").read()))
        check("gzip-file", run([etldump, gz]).stdout == plain)
        with open(gz, "rb") as f:
            check("gzip-stdin", run([etldump, "-"], stdin=f).stdout == plain)
        zp = os.path.join(tmp, "trace.etl.zip")
        with zipfile.ZipFile(zp, "w", zipfile.ZIP_DEFLATED) as z:
            z.write(fx, "sub/trace.etl")
            z.writestr("LogFile.txt", "log")
        check("zip-file", run([etldump, zp]).stdout == plain)
        r = run([etldump, "--info", zp])
        check("zip-info", b"container:          zip" in r.stdout and b"other member:       LogFile.txt" in r.stdout
              and b"trace.etl.zip:sub/trace.etl" in r.stdout)
        # damaged: truncated in the middle of a buffer
        data = open(fx, "rb").read()
        cut = os.path.join(tmp, "cut.etl")
        with open(cut, "wb") as f:
            f.write(data[: 3 * 4096 + 1500])
        r = run([etldump, "-f", "jsonl", cut])
        good = [json.loads(l) for l in r.stdout.splitlines()]
        check("damaged-exit", r.returncode == 1, r.stderr.decode())
        check("damaged-message", re.search(rb"cut\.etl: offset 0x3000: buffer 3: .*file ends", r.stderr), r.stderr.decode())
        check("damaged-partial-output", len(good) > 100 and all(e["file_offset"] < len(data) for e in good))
        r = run([etldump, "-q", cut])
        check("quiet", r.returncode == 1 and not r.stderr)
        r = run([etldump, "-i", "-f", "jsonl", fx, cut])
        infos = [json.loads(l) for l in r.stdout.splitlines()]
        check("info-jsonl", r.returncode == 0 and len(infos) == 2 and infos[0]["pointer_size"] == 8)
        # a closed pipe ends etldump quietly
        p = subprocess.Popen(f"'{etldump}' --payload-bytes=-1 '{fx}' '{fx}' '{fx}' | head -c 10 >/dev/null; exit ${{PIPESTATUS[0]}}",
                             shell=True, executable="/bin/bash", stderr=subprocess.PIPE)
        _, err = p.communicate()
        check("closed-pipe", p.returncode == 0 and not err, err.decode())
        # --threads: the same bytes as one thread, clean and damaged, in every threaded format
        big = os.path.join(tmp, "big.etl")
        check("threads-gen", run([etlgen, "mixed64", big, "6000"]).returncode == 0)
        data = bytearray(open(big, "rb").read())
        for off in (20000, 150000, 300000, len(data) - 9000):  # zeroed runs inside record streams
            data[off:off + 48] = bytes(48)
        bad = os.path.join(tmp, "bad.etl")
        with open(bad, "wb") as f:
            f.write(data)
        summaries = (["-f", "jsonl", "--stats", "--providers"], ["--stats"], ["--providers", "--processes"])
        for path in (big, bad):
            for args in [["-f", fmt] for fmt in ("jsonl", "text", "csv", "xml")] + list(summaries):
                fmt = "-".join(a.lstrip("-") for a in args if a != "-f")
                one = run([etldump] + args + [path])
                for j in ("2", "3"):
                    many = run([etldump] + args + ["--threads", j, path])
                    tag = f"threads-{j}-{fmt}-{os.path.basename(path)}"
                    # diagnostics too, line for line: a batch's are printed in one thread's order
                    check(tag, many.stdout == one.stdout and many.returncode == one.returncode and
                          many.stderr == one.stderr,
                          f"{len(many.stdout)} vs {len(one.stdout)} bytes, exit {many.returncode} vs {one.returncode}")
        # progress: on a terminal only, on stderr, never backwards, cleared at the end
        import pty
        m, s = pty.openpty()
        p = subprocess.Popen([etldump, "-f", "jsonl", big, big], stdout=subprocess.DEVNULL, stderr=s)
        os.close(s)
        tty = b""
        while True:
            try:
                chunk = os.read(m, 4096)
            except OSError:
                break
            if not chunk:
                break
            tty += chunk
        p.wait()
        os.close(m)
        pcts = [int(x) for x in re.findall(rb"(\d+)%  \d+ events", tty)]
        check("progress-tty", p.returncode == 0 and pcts and pcts == sorted(pcts) and b"2 inputs" in tty
              and tty.endswith(b"\r\x1b[K"), repr(tty[-200:]))
        check("progress-not-a-tty", not run([etldump, "-f", "jsonl", big]).stderr)
        threads_report(etldump, big)
        threads_workers(etldump, etlgen, big, tmp)
        check("threads-damage-seen", run([etldump, bad]).returncode == 1 and
              len(run([etldump, "-f", "jsonl", big]).stdout.splitlines()) > 6000)
        # filters and the process table work per worker
        r1 = run([etldump, "-f", "jsonl", "--pid", "4", "--cpu", "1", big])
        r2 = run([etldump, "-f", "jsonl", "--pid", "4", "--cpu", "1", "-j", "2", big])
        check("threads-filters", r1.stdout == r2.stdout and len(r1.stdout.splitlines()) > 10)
        # the summaries are counted by the workers and merged: the same tallies, the same damage
        st1 = json.loads(run([etldump, "-f", "jsonl", "--stats", bad]).stdout)
        st3 = json.loads(run([etldump, "-f", "jsonl", "--stats", "-j", "3", bad]).stdout)
        check("threads-stats-damage", st1 == st3 and st1.get("damage_reports", 0) > 0 and
              st1.get("events", 0) > 5000, repr(st1)[:300])
        # one thread where threads cannot keep the output: --count, chrome, stdin
        check("threads-count", len(run([etldump, "-j", "2", "-n", "1500", big]).stdout.splitlines()) == 1500)
        check("threads-chrome", run([etldump, "-j", "2", "-f", "chrome", fx]).stdout ==
              run([etldump, "-f", "chrome", fx]).stdout)
        check("threads-stats", run([etldump, "-j", "2", "--stats", fx]).stdout == run([etldump, "--stats", fx]).stdout)
        # summaries of nothing (a filter that selects no event): empty tallies, exit 0 (found by
        # fuzz_threads: the empty tallies were sorted from a NULL array, undefined behaviour)
        for j in ("1", "2"):
            for what in ("--stats", "--providers"):
                r = run([etldump, "-j", j, "-f", "jsonl", what, "--pid", "999999", big])
                shown = b'"events":0,' in r.stdout if what == "--stats" else r.stdout == b""
                check(f"summary-of-nothing-{what[2:]}-{j}", r.returncode == 0 and not r.stderr and shown,
                      (r.stderr[:300] + r.stdout[:200]).decode(errors="replace"))
        with open(fx, "rb") as f:
            check("threads-stdin", run([etldump, "-j", "2", "-"], stdin=f).stdout == plain)
        check("threads-auto", run([etldump, "-j", "0", "-f", "csv", fx]).stdout == run([etldump, "-f", "csv", fx]).stdout)
        check("threads-bad", run([etldump, "--threads", "x", fx]).returncode == 2 and
              run([etldump, "--threads", "65", fx]).returncode == 2)
        p = subprocess.Popen(f"'{etldump}' -j 2 -f jsonl '{big}' | head -c 10 >/dev/null; exit ${{PIPESTATUS[0]}}",
                             shell=True, executable="/bin/bash", stderr=subprocess.PIPE)
        _, err = p.communicate()
        check("threads-closed-pipe", p.returncode == 0 and not err, err.decode())
        batch_outputs(etldump, valid, tmp)
        partial_decodings(etldump, etlgen, valid, tmp)
        rejected_images(etldump, etlgen, tmp)
    finally:
        shutil.rmtree(tmp)
    for name, ok, detail in results:
        if not ok:
            print(f"FAIL {name} {detail}")
    passed = sum(ok for _, ok, _ in results)
    print(f"etldump cli: {passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
