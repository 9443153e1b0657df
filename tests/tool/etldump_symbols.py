#!/usr/bin/env python3
"""Stack frames with names (issue 33), end to end through etldump.

Native code: a DLL and its PDB built here by clang-cl and lld-link (real tools, real files), a
trace made by etlgen's profile64 scenario that loads the DLL with the DbgID_RSDS record of its
PDB and samples every byte of its code; every frame must name the function and line that
llvm-symbolizer gives for that address.  Then where PDBs are found (a folder, a symbol store,
_NT_SYMBOL_PATH's srv* and cache* forms, an .etl.zip's symbols/ folder with PerfView's backslash
names), what is refused (another age, a damaged file, a FIFO), an NGEN-style PDB without section
headers, the folded and pprof profiles (go tool pprof reads the latter), and --no-symbols.

.NET code: methods the trace's CLR events describe, by process and time (an unloaded method's
range reused by another), with and without the module event that names the assembly.

Usage: etldump_symbols.py ETLDUMP ETLGEN
Exit 77 when clang-cl, lld-link or llvm-symbolizer is missing (the .NET part needs none: it runs).
"""
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

results = []
BASE = 0x180000000


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def tool(*names):
    for n in names:
        found = shutil.which(n) or (sorted(glob.glob(f"/usr/bin/{n}-[0-9]*")) or [None])[-1]
        if found:
            return found
    return None


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


SOURCE_A = r"""
static volatile int sink;
__declspec(noinline) int leaf(int a) { int i, s = 0; for (i = 0; i < a; i++) s += i * a; sink = s; return s; }
__declspec(noinline) int middle(int a) { return leaf(a + 1) + leaf(a + 2); }
__declspec(noinline) __declspec(dllexport) int top(int a) { int r = middle(a);
  r += middle(r);
  return r; }
static __declspec(noinline) int helper_static(int x) { return top(x) * 3; }
__declspec(dllexport) int entry(int x) { return helper_static(x) + 1; }
"""
SOURCE_B = r"""
int leaf(int a);
__declspec(noinline) int other_file(int a) { int k = leaf(a);
  if (k > 3)
    k = leaf(k);
  return k * 7; }
__declspec(dllexport) int twice(int x) { return x * 2 + other_file(x); }
"""


def build_dll(tmp, clang_cl, lld_link):
    for name, src in (("a.c", SOURCE_A), ("b.c", SOURCE_B)):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(src)
        r = run([clang_cl, "/nologo", "/Zi", "/O1", "/c", name, f"/Fo{name[0]}.obj"], cwd=tmp)
        if r.returncode:
            return None, r.stderr
    r = run([lld_link, "/dll", "/debug", "/noentry", "/nodefaultlib", "a.obj", "b.obj", "/out:x.dll",
             "/pdb:x.pdb"], cwd=tmp)
    return (os.path.join(tmp, "x.dll"), r.stderr) if r.returncode == 0 else (None, r.stderr)


def pdb_identity(pdbutil, pdb):
    out = run([pdbutil, "dump", "--summary", pdb]).stdout
    guid = age = None
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("GUID:"):
            guid = line.split(":", 1)[1].strip().strip("{}")
        if line.startswith("Age:"):
            age = int(line.split(":", 1)[1])
    return guid, age


def text_section(pdbutil, pdb):
    out = run([pdbutil, "dump", "--section-headers", pdb]).stdout.split("SECTION HEADER")
    for sec in out:
        if ".text name" in sec:
            vals = {m.group(2): int(m.group(1), 16) for m in
                    (re.match(r"^\s*([0-9A-Fa-f]+) (.*)$", l) for l in sec.splitlines()) if m}
            return vals["virtual address"], vals["virtual size"]
    return None, None


def make_trace(etlgen, tmp, name, lines):
    spec = os.path.join(tmp, name + ".tsv")
    with open(spec, "w") as f:
        f.write("\n".join("\t".join(str(x) for x in l) for l in lines) + "\n")
    path = os.path.join(tmp, name + ".etl")
    r = run([etlgen, "profile64", path, spec])
    check(f"etlgen {name}", r.returncode == 0, r.stderr)
    return path


def stacks(etldump, trace, *args, env=None):
    r = run([etldump, "-f", "jsonl", "-e", "*/PerfInfo/Sample"] + list(args) + [trace], env=env)
    return [json.loads(l)["stack"] for l in r.stdout.splitlines() if "stack" in l], r


def symbolizer_answers(symbolizer, dll, addrs):
    out = run([symbolizer, f"--obj={dll}"] + [hex(a) for a in addrs]).stdout.strip().split("\n\n")
    answers = []
    for block in out:
        fn, loc = block.split("\n")[:2]
        path, line, _ = loc.rsplit(":", 2)
        answers.append((fn, os.path.basename(path.replace("\\", "/")), int(line)))
    return answers


def native(etldump, etlgen, tmp, tools):
    clang_cl, lld_link, symbolizer, pdbutil = tools
    dll, err = build_dll(tmp, clang_cl, lld_link)
    check("clang-cl and lld-link build the DLL", dll, err)
    if not dll:
        return
    pdb = os.path.join(tmp, "x.pdb")
    guid, age = pdb_identity(pdbutil, pdb)
    text_rva, text_size = text_section(pdbutil, pdb)
    check("llvm-pdbutil reads the PDB", guid and age and text_rva, f"{guid} {age} {text_rva}")
    image = ["image", 100, hex(BASE), "0x10000", r"\Device\HarddiskVolume1\app\x.dll", guid, age,
             r"C:\build\out\x.pdb"]
    addrs = [BASE + text_rva + i for i in range(text_size)]
    lines = [["process", 100, "app.exe"], image, ["interval", 10000]]
    lines += [["sample", 100, 7, i + 1, hex(a)] for i, a in enumerate(addrs)]
    trace = make_trace(etlgen, tmp, "every_byte", lines)
    store = os.path.join(tmp, "flat")
    os.makedirs(store)
    shutil.copy(pdb, store)

    # every byte of the code: the function and line llvm-symbolizer gives
    got, r = stacks(etldump, trace, "--lines", "--symbols", store)
    want = symbolizer_answers(symbolizer, dll, addrs)
    bad = []
    for a, s, (fn, fname, line) in zip(addrs, got, want):
        expect = f"x.dll!{fn}+0x"
        if not s[0].startswith(expect) or (line and not s[0].endswith(f" ({fname}:{line})")) or \
                (not line and s[0].endswith(")")):
            bad.append(f"{hex(a)}: {s[0]} | {fn} {fname}:{line}")
    check(f"{len(addrs)} addresses named as llvm-symbolizer names them", len(got) == len(addrs) and not bad,
          "; ".join(bad[:5]))
    check("a PDB found: nothing on stderr, exit 0", r.returncode == 0 and r.stderr == "", r.stderr)
    # the offset is from the function's start
    starts = {}
    for a, s in zip(addrs, got):
        fn, off = s[0].split("!")[1].split(" ")[0].rsplit("+", 1)
        starts.setdefault(fn, a - int(off, 16))
        if a - int(off, 16) != starts[fn]:
            bad.append(f"{hex(a)} {s[0]}")
    check("offsets are from one start per function", not bad, "; ".join(bad[:3]))

    # a stack of several frames, and the forms of symbol paths
    deep = make_trace(etlgen, tmp, "deep", [["process", 100, "app.exe"], image,
                                           ["sample", 100, 7, 5, ",".join(hex(a) for a in addrs[5:200:40])]])
    ref, _ = stacks(etldump, deep, "--symbols", store)
    check("a deep stack names every frame", ref and all("!+0x" not in f for f in ref[0]), ref)
    idage = guid.replace("-", "").upper() + "%X" % age
    layout = os.path.join(tmp, "store", "x.pdb", idage)
    os.makedirs(layout)
    shutil.copy(pdb, layout)
    for label, args, env in (
            ("a symbol store folder", ["--symbols", os.path.join(tmp, "store")], None),
            ("srv*store*url in _NT_SYMBOL_PATH", [],
             dict(os.environ, _NT_SYMBOL_PATH=f"srv*{os.path.join(tmp, 'store')}*https://msdl.microsoft.com/download/symbols")),
            ("cache*dir in ETLDUMP_SYMBOLS", [], dict(os.environ, ETLDUMP_SYMBOLS=f"cache*{store}")),
            ("several elements, the last one right", ["--symbols", f"{tmp}/nothing;{tmp}/store"], None)):
        got2, r2 = stacks(etldump, deep, *args, env=env)
        check(f"PDB found through {label}", got2 == ref and r2.returncode == 0, f"{got2[:1]} {r2.stderr}")

    # --no-symbols: images and offsets, as before frames had names
    plain, _ = stacks(etldump, deep, "--no-symbols", "--symbols", store)
    check("--no-symbols: module!+offset", plain and plain[0][0] == "x.dll!+0x%x" % (addrs[5] - BASE), plain[:1])

    # another age: refused and said; the frames stay module!+offset
    other = make_trace(etlgen, tmp, "other_age", [["process", 100, "app.exe"], image[:6] + [age + 1, image[7]],
                                                  ["sample", 100, 7, 5, hex(addrs[5])]])
    got3, r3 = stacks(etldump, other, "--symbols", store)
    check("a PDB of another age is not used, and said", got3 and "!+0x" in got3[0][0] and "not used" in r3.stderr
          and r3.returncode == 0, f"{got3[:1]} {r3.stderr}")
    # no PDB in the paths: said, once, with its name
    got4, r4 = stacks(etldump, deep, "--symbols", os.path.join(tmp, "nothing"))
    check("a PDB not found is said", "no PDB file found for 1 image (x.pdb)" in r4.stderr, r4.stderr)
    # a damaged PDB (cut short): said, exit 1, frames unresolved
    cut = os.path.join(tmp, "cut")
    os.makedirs(cut)
    with open(pdb, "rb") as f, open(os.path.join(cut, "x.pdb"), "wb") as g:
        g.write(f.read()[:9000])
    got5, r5 = stacks(etldump, deep, "--symbols", cut)
    check("a damaged PDB is said, exit 1", got5 and "!+0x" in got5[0][0] and r5.returncode == 1
          and "x.pdb" in r5.stderr, f"{r5.returncode} {r5.stderr}")
    # a FIFO where the PDB should be: refused at once, no wait for a writer
    fifo = os.path.join(tmp, "fifo")
    os.makedirs(fifo)
    os.mkfifo(os.path.join(fifo, "x.pdb"))
    try:
        r6 = run([etldump, "-f", "jsonl", "--symbols", fifo, deep], timeout=20)
        check("a FIFO named like the PDB is not waited on", r6.returncode == 0, r6.stderr)
    except subprocess.TimeoutExpired:
        check("a FIFO named like the PDB is not waited on", False, "timed out")

    # an NGEN-style PDB: no section header stream; placed by the section map
    ngen = os.path.join(tmp, "ngen")
    os.makedirs(ngen)
    with open(pdb, "rb") as f:
        data = bytearray(f.read())
    check("the PDB's section headers are dropped", drop_section_headers(data), "")
    with open(os.path.join(ngen, "x.pdb"), "wb") as f:
        f.write(data)
    got7, r7 = stacks(etldump, deep, "--symbols", ngen)
    check("a PDB without section headers: functions placed by the section map", got7 == ref, f"{got7[:1]} {r7.stderr}")

    # an .etl.zip with the PDB in symbols/ (PerfView's backslash names): found with no option
    zpath = os.path.join(tmp, "deep.etl.zip")
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(deep, "deep.etl")
        z.write(pdb, f"symbols\\x.pdb\\{idage}\\x.pdb")
    got8, r8 = stacks(etldump, zpath)
    check("the PDB of an .etl.zip's symbols/ folder is used", got8 == ref, f"{got8[:1]} {r8.stderr}")
    # threads: the same frames
    r9 = run([etldump, "-f", "jsonl", "-j", "2", "--symbols", store, trace])
    r10 = run([etldump, "-f", "jsonl", "--symbols", store, trace])
    check("--threads=2 names frames as one thread does", r9.stdout == r10.stdout and r9.stdout, "")

    profiles(etldump, etlgen, tmp, image, addrs, store)


def drop_section_headers(data):
    """Sets the DBI stream's section header stream to none (0xFFFF), in place."""
    bs, nblocks, dir_bytes, dir_map = (int.from_bytes(data[o:o + 4], "little") for o in (32, 40, 44, 52))
    dir_blocks = [int.from_bytes(data[dir_map * bs + 4 * i:dir_map * bs + 4 * i + 4], "little")
                  for i in range((dir_bytes + bs - 1) // bs)]
    d = b"".join(data[b * bs:(b + 1) * bs] for b in dir_blocks)[:dir_bytes]
    n = int.from_bytes(d[:4], "little")
    sizes = [int.from_bytes(d[4 + 4 * i:8 + 4 * i], "little") for i in range(n)]
    at, blocks = 4 + 4 * n, []
    for s in sizes:
        k = 0 if s == 0xFFFFFFFF else (s + bs - 1) // bs
        blocks.append([int.from_bytes(d[at + 4 * j:at + 4 * j + 4], "little") for j in range(k)])
        at += 4 * k

    def offset(stream, off):
        return blocks[stream][off // bs] * bs + off % bs

    hdr = [int.from_bytes(data[offset(3, o):offset(3, o) + 4], "little", signed=True) for o in range(24, 56, 4)]
    dbg_at = 64 + sum(hdr[0:5]) + hdr[7]  # modules, contributions, map, files, type servers, EC
    pos = offset(3, dbg_at + 2 * 5)
    if data[pos:pos + 2] == b"\xff\xff":
        return False
    data[pos:pos + 2] = b"\xff\xff"
    return True


def profiles(etldump, etlgen, tmp, image, addrs, store):
    """folded and pprof over samples whose stacks are known."""
    a = lambda i: hex(addrs[i])
    lines = [["process", 100, "app.exe"], ["process", 200, "other.exe"], image,
             ["image", 200, hex(BASE), "0x10000", r"C:\x.dll"] + image[5:], ["interval", 5000]]
    for t in range(3):
        lines.append(["sample", 100, 7, 10 + t, ",".join([a(3), a(70), a(120)])])
    lines.append(["sample", 100, 7, 20, ",".join([a(70), a(120)])])
    lines.append(["sample", 200, 9, 21, a(3)])
    trace = make_trace(etlgen, tmp, "profile", lines)
    rs = run([etldump, "-f", "jsonl", "-e", "*/PerfInfo/Sample", "--symbols", store, trace])
    names = [json.loads(l)["stack"] for l in rs.stdout.splitlines()]
    f = [s.split("+0x")[0] for s in names[0]]  # leaf, middle, root of the first stack
    want = sorted([f"app.exe (100);{f[2]};{f[1]};{f[0]} 3", f"app.exe (100);{f[2]};{f[1]} 1",
                   f"other.exe (200);{f[0]} 1"])
    r = run([etldump, "-f", "folded", "--symbols", store, trace])
    check("folded: one line per distinct stack, root first, counted", r.stdout.splitlines() == want,
          f"{r.stdout!r} {want}")
    r = run([etldump, "-f", "folded", "--no-symbols", trace])
    check("folded --no-symbols: module!?", "app.exe (100);x.dll!?;x.dll!? 1" in r.stdout, r.stdout)
    out = subprocess.run([etldump, "-f", "pprof", "--symbols", store, trace], capture_output=True)
    check("pprof: a gzip stream", out.returncode == 0 and out.stdout[:2] == b"\x1f\x8b", out.stderr)
    pb = os.path.join(tmp, "profile.pb.gz")
    with open(pb, "wb") as fh:
        fh.write(out.stdout)
    go = tool("go")
    if not go:
        print("go not found: pprof output not read by go tool pprof")
        return
    top = run([go, "tool", "pprof", "-top", "-sample_index=samples", pb], env=dict(os.environ, HOME=tmp))
    # 5 samples; f[0] is the leaf of 4 of them (3 + other.exe's 1), f[1] of 1
    flat = {l.split()[-1]: int(l.split()[0]) for l in top.stdout.splitlines()
            if len(l.split()) == 6 and l.split()[0].isdigit()}
    check("go tool pprof reads it: samples by function", flat.get(f[0]) == 4 and flat.get(f[1]) == 1,
          top.stdout + top.stderr)
    raw = run([go, "tool", "pprof", "-raw", pb], env=dict(os.environ, HOME=tmp)).stdout
    check("pprof: period 500 us (the trace's interval), cpu values weighted", "Period: 500000" in raw and
          "3    1500000" in raw and "process:[app.exe (100)]" in raw, raw)


def dotnet(etldump, etlgen, tmp):
    """Methods from the trace's CLR events: by process, time and range; assembly names."""
    j = 0x7FF800010000
    lines = [["process", 300, "dotnet.exe"], ["process", 301, "second.exe"],
             ["module", 300, "0x1111", r"C:\app\bin\MyApp.dll"],
             ["method", 300, 2, hex(j), "0x100", "0x1111", "MyApp.Worker", "Run", "void  (int32)"],
             ["method", 300, 2, hex(j + 0x100), "0x80", "0x2222", "Gen.Dyn", "Stub", "void  ()"],
             ["method", 301, 2, hex(j), "0x100", "0x1111", "Second.Thing", "Go", "void  ()"],
             ["sample", 300, 7, 5, f"{hex(j + 0x10)},{hex(j + 0x120)}"],
             ["unload", 300, 10, hex(j), "0x100", "0x1111", "MyApp.Worker", "Run", "void  (int32)"],
             ["method", 300, 11, hex(j), "0x40", "0x1111", "MyApp.Worker", "Rejit", "void  ()"],
             ["sample", 300, 12, 15, f"{hex(j + 0x10)},{hex(j + 0x50)}"],
             ["sample", 301, 8, 16, hex(j + 0x10)]]
    trace = make_trace(etlgen, tmp, "dotnet", lines)
    got, r = stacks(etldump, trace)
    want = [["MyApp.dll!MyApp.Worker.Run+0x10", "JIT!Gen.Dyn.Stub+0x20"],
            ["MyApp.dll!MyApp.Worker.Rejit+0x10", "0x%x" % (j + 0x50)],
            ["JIT!Second.Thing.Go+0x10"]]  # (module 0x1111 is named in process 300 only)
    check(".NET methods by process, time and range; JIT when no module names them", got == want, f"{got} {r.stderr}")
    got2, _ = stacks(etldump, trace, "--signatures")
    check("--signatures: the argument list", got2 and got2[0][0] == "MyApp.dll!MyApp.Worker.Run(int32)+0x10", got2[:1])
    got3, _ = stacks(etldump, trace, "--no-symbols")
    check("--no-symbols: methods are bare addresses again", got3 and got3[0][0] == "0x%x" % (j + 0x10), got3[:1])


def main():
    etldump, etlgen = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tools = (tool("clang-cl"), tool("lld-link"), tool("llvm-symbolizer"), tool("llvm-pdbutil"))
    with tempfile.TemporaryDirectory() as tmp:
        dotnet(etldump, etlgen, tmp)
        if all(tools):
            native(etldump, etlgen, tmp, tools)
        else:
            print("clang-cl, lld-link, llvm-symbolizer or llvm-pdbutil missing: native part skipped")
    failed = [r for r in results if not r[1]]
    for name, ok, detail in results:
        print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {str(detail)[:600]}"))
    print(f"symbols: {len(results) - len(failed)} passed, {len(failed)} failed")
    if failed:
        return 1
    return 0 if all(tools) else 77


if __name__ == "__main__":
    sys.exit(main())
