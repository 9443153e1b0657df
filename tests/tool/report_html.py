#!/usr/bin/env python3
"""The HTML report (etldump --report=html) in a real browser: for the synthetic tables64 trace
and the corpus traces with samples, disk I/O, network and CLR events, the page must be one
self-contained file (no URL to anything outside it), parse as HTML (xmllint), stay small, and in
headless Chromium load without a script error, draw every section that has data (SVG elements,
no NaN in any coordinate), say so in the sections that have none, and give a screenshot that is
not blank. Without Chromium the browser checks are skipped; without the corpus, its traces.

Usage: report_html.py ETLDUMP ETLGEN CORPUS_DIR [OUT_DIR]
(OUT_DIR keeps the pages and screenshots, to look at them.)
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ETLDUMP, ETLGEN, CORPUS = sys.argv[1:4]
KEEP = sys.argv[4] if len(sys.argv) > 4 else None
MAX_BYTES = 4 << 20

# trace -> the sections that must have charts (the rest may say "No ...")
CORPUS_TRACES = {
    "perfview_net.4.5.2.x86.etl": {"cpu": True, "io": True, "network": True, "dotnet": True, "processes": True},
    "perfview_gcevents_PerfViewData.etl": {"dotnet": True},
    "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl": {},
    "Tx_HTTP_Server.etl": {},
}
HTML5 = ("section", "nav", "main", "header", "footer", "figure", "figcaption", "svg", "path", "rect", "g",
         "line", "text", "title", "polyline", "circle")

failures = []


def check(name, ok, detail=""):
    if not ok:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name} {detail}")


def browser():
    """Chromium, when it is installed and renders a trivial page (else the browser checks are
    skipped, and the reason printed)."""
    for b in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(b)
        if not p:
            continue
        profile = tempfile.mkdtemp(prefix="etlreport-probe-")
        try:
            r = subprocess.run([p, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                f"--user-data-dir={profile}", "--dump-dom",
                                "data:text/html,<body><p id=probe>ok</p></body>"],
                               capture_output=True, text=True, timeout=120)
            if 'id="probe"' in r.stdout:
                return p
            print(f"{p} does not render a page here (exit {r.returncode}): browser checks skipped")
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"{p} does not run here ({e}): browser checks skipped")
        finally:
            shutil.rmtree(profile, ignore_errors=True)
    return None


def png_pixels(path):
    """(width, height, rows of bytes, bytes per pixel) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows, bpp


def not_blank(path):
    """The share of pixels that are not the page's white."""
    w, h, rows, bpp = png_pixels(path)
    ink = total = 0
    for y in range(0, h, 4):
        r = rows[y]
        for x in range(0, w, 4):
            total += 1
            if r[x * bpp:x * bpp + 3] != b"\xff\xff\xff":
                ink += 1
    return ink / max(total, 1)


def one(label, trace, want, out_dir, chrome):
    page = os.path.join(out_dir, label + ".html")
    r = subprocess.run([ETLDUMP, "-q", "--report=html", "-o", page, trace], capture_output=True)
    check(f"{label} exit", r.returncode in (0, 1), f"exit {r.returncode}: {r.stderr[-300:]!r}")
    if not os.path.exists(page):
        check(f"{label} written", False, "no page")
        return
    html = open(page, encoding="utf-8").read()
    size = len(html.encode())
    check(f"{label} size", size < MAX_BYTES, f"{size} bytes")
    # self-contained: no reference to anything outside the file
    outside = re.findall(r"""(?:src|href)\s*=\s*["']?(?!#)([^"'\s>]+)""", html)
    check(f"{label} self-contained", not outside, str(outside[:5]))
    style = "".join(re.findall(r"<style>(.*?)</style>", html, re.S))
    check(f"{label} nothing fetched", "@import" not in style and "url(" not in style
          and not re.search(r"<(?:link|img|iframe|object|embed)\b", html) and "<script src" not in html,
          "a reference to a resource outside the page")
    check(f"{label} no NaN", "NaN" not in html and "inf\"" not in html, "NaN or inf in the page")
    if shutil.which("xmllint"):
        r = subprocess.run(["xmllint", "--html", "--noout", page], capture_output=True, text=True)
        # messages only ("FILE:LINE: HTML parser error : WHAT"), not the context lines after them
        errs = [m for m in re.findall(r"^[^\n]*?:\d+: HTML parser error : (.*)$", r.stderr, re.M)
                if not any(m.strip() == f"Tag {t} invalid" for t in HTML5)]
        check(f"{label} xmllint", not errs, "; ".join(errs[:5]))
    for sec, must in want.items():
        m = re.search(rf'<section id="{sec}">(.*?)</section>', html, re.S)
        check(f"{label} section {sec}", m is not None, "missing")
        if m and must:
            check(f"{label} {sec} drawn", "<svg" in m.group(1), "no chart in a section that has data")
    for sec in ("overview", "processes", "cpu", "io", "network", "dotnet", "losses"):
        m = re.search(rf'<section id="{sec}">(.*?)</section>', html, re.S)
        check(f"{label} section {sec} present", m is not None, "missing")
        if m and "<svg" not in m.group(1) and sec not in ("losses",):
            check(f"{label} {sec} says why", 'class="none"' in m.group(1), "neither a chart nor a word")
    if not chrome:
        return
    shot = os.path.join(out_dir, label + ".png")
    profile = tempfile.mkdtemp(prefix="etlreport-chrome-")
    try:
        base = [chrome, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-extensions", f"--user-data-dir={profile}", "--virtual-time-budget=5000"]
        dom = subprocess.run(base + ["--dump-dom", "file://" + os.path.abspath(page)],
                             capture_output=True, text=True, timeout=120).stdout
        check(f"{label} loads", 'data-ready="1"' in dom, "the script did not finish")
        check(f"{label} no script error", 'data-errors="0"' in dom, re.findall(r'data-errors="\d+"', dom)[:1])
        svgs = dom.count("<svg")
        check(f"{label} svg drawn", svgs >= 2, f"{svgs} svg elements")
        check(f"{label} no NaN after layout", not re.search(r'="[^"]*NaN', dom), "NaN in an attribute")
        subprocess.run(base + ["--window-size=1280,2400", f"--screenshot={shot}", "file://" + os.path.abspath(page)],
                       capture_output=True, timeout=120)
        if os.path.exists(shot):
            ink = not_blank(shot)
            check(f"{label} screenshot", ink > 0.02, f"{ink:.3f} of the pixels drawn")
        else:
            check(f"{label} screenshot", False, "none")
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def main():
    chrome = browser()
    out_dir = KEEP or tempfile.mkdtemp(prefix="etlreport-")
    os.makedirs(out_dir, exist_ok=True)
    synth = os.path.join(out_dir, "tables64.etl")
    subprocess.run([ETLGEN, "tables64", synth], check=True)
    one("tables64", synth, {"cpu": True, "io": True, "network": True, "dotnet": True, "processes": True},
        out_dir, chrome)
    n = 1
    for name, want in CORPUS_TRACES.items():
        p = os.path.join(CORPUS, "etl", name)
        if os.path.exists(p):
            one(name.split(".")[0], p, want, out_dir, chrome)
            n += 1
    if not KEEP:
        shutil.rmtree(out_dir, ignore_errors=True)
    print(f"report html: {n} traces, {len(failures)} failures" + ("" if chrome else " (no Chromium: browser checks skipped)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
