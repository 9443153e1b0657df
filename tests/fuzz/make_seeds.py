#!/usr/bin/env python3
"""Builds fuzzing seeds from the shapes of the hostile-input findings
(docs/ROBUSTNESS.md) and the project's fixtures.

Usage: make_seeds.py SOURCE_ROOT ETLDUMP OUT_DIR

Writes OUT_DIR/<target>/<shape> for the reader, batch, container and manifest
targets.  Standard library only; nothing is read from outside SOURCE_ROOT.
"""
import gzip
import json
import os
import struct
import subprocess
import sys
import io
import zipfile

BUF = 4096  # the writer's fixtures use 4 KiB buffers


def shapes(trace, offsets):
    """The damaged variants of a trace that issue 15 described."""
    out = {"intact": trace}
    c = bytearray(trace)
    for b in range(1, len(trace) // BUF):  # Offset 0, a SavedOffset that hides records
        struct.pack_into("<I", c, b * BUF + 0x30, 0)
        struct.pack_into("<I", c, b * BUF + 0x04, 0x48 + 8 * (b & 3))
    out["offset-zero"] = bytes(c)
    c = bytearray(trace)
    c[0x37] ^= 0x04  # one bit in the header buffer's BufferType
    out["header-type-bit"] = bytes(c)
    mid = [o for o in offsets if o >= 2 * BUF]
    if len(mid) > 2:
        c = bytearray(trace)
        c[mid[2]:mid[2] + 4] = b"\xff\xff\xff\xff"  # an end marker before more records
        out["end-marker-mid-buffer"] = bytes(c)
    return out


def zips(trace):
    """Archives shaped like the container findings."""
    out = {}
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("t.etl", trace)
    one = b.getvalue()
    # eight central-directory entries pointing at one member's data
    cd = one.index(b"PK\x01\x02")
    eocd = one.index(b"PK\x05\x06")
    entry = one[cd:eocd]
    entries = b"".join(entry[:46] + (b"t%d.etl" % i)[:5] + entry[46 + 5:] for i in range(8))
    tail = bytearray(one[eocd:])
    struct.pack_into("<HHII", tail, 8, 8, 8, len(entries), cd)
    out["zip-overlapping-members"] = one[:cd] + entries + bytes(tail)
    # many small members, one trace among them, and names made to forge a terminal line
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as z:
        for i in range(60):
            z.writestr("log%02d\x1b[2J.txt" % i, "a log line\n")
        z.writestr("x\x1b]0;title\x07\n.etl", trace)
    out["zip-many-members-escaped-names"] = b.getvalue()
    out["gzip-two-members"] = gzip.compress(trace[: len(trace) // 2]) + gzip.compress(trace[len(trace) // 2:])
    return out


def manifests():
    """Manifests shaped like the manifest findings, framed for fuzz_manifest (u16 length, XML, payload)."""
    def doc(provider_body, after="", doctype=""):
        return ('<?xml version="1.0"?>\n' + doctype +
                '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">'
                '<instrumentation><events><provider name="P" guid="{11111111-2222-3333-4444-555555555555}" '
                'symbol="P" resourceFileName="x" messageFileName="x">' + provider_body +
                "</provider></events></instrumentation>" + after + "</instrumentationManifest>").encode()

    events = ('<events><event value="1" version="0" template="t1"/></events><templates>'
              '<template tid="t1"><data name="a" inType="win:UInt32" map="m"/></template></templates>')
    maps = '<maps><valueMap name="m">' + "".join(
        '<map value="%d" message="$(string.s)"/>' % i for i in range(300)) + "</valueMap></maps>"
    strings = ('<localization><resources culture="en-US"><stringTable><string id="s" value="%s"/>'
               "</stringTable></resources></localization>" % ("x" * 4096))
    ent = '<!DOCTYPE i [<!ENTITY e "%s">]>' % ("y" * 1000)
    templates = "<templates>" + "".join(
        '<template tid="t%d"><data name="a" inType="win:UInt32"/></template>' % i for i in range(400)) + "</templates>"
    payload = struct.pack("<I", 7)

    def framed(x):
        assert len(x) < 65536
        return struct.pack("<H", len(x)) + x + payload

    return {
        "shared-strings": framed(doc(events + maps, strings)),
        "entity-amplification": framed(doc(events.replace('name="a"', 'name="&e;&e;&e;&e;&e;&e;&e;&e;"'), "", ent)),
        "many-templates": framed(doc('<events><event value="1" version="0" template="t399"/></events>' + templates)),
    }


def main():
    root, etldump, out = sys.argv[1:4]
    fx = os.path.join(root, "fixtures", "valid")
    seeds = {"reader": {}, "batch": {}, "container": {}, "manifest": manifests()}
    for name in ("system64", "system32", "mixed64", "stackkeys64"):
        path = os.path.join(fx, name + ".etl")
        trace = open(path, "rb").read()
        lines = subprocess.run([etldump, "-f", "jsonl", path], capture_output=True, check=True).stdout
        offsets = [json.loads(l)["file_offset"] for l in lines.splitlines()]
        for shape, data in shapes(trace, offsets).items():
            seeds["reader"][name + "-" + shape] = data
            for fmt in range(5):  # the batch target's last byte: format, --force, a link, the split
                ctl = fmt | (0x08 if fmt == 1 else 0) | (0x10 if fmt == 2 else 0) | (fmt << 5)
                seeds["batch"]["%s-%s-%d" % (name, shape, fmt)] = data + bytes([ctl])
        if name == "system64":
            # fuzz_container forces the magic: drop the archive's own first bytes (4 for zip, 2 for gzip)
            for shape, data in zips(trace).items():
                seeds["container"][shape] = (b"\x01" + data[2:]) if shape.startswith("gzip") else b"\x00" + data[4:]
    for target, files in seeds.items():
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        for shape, data in files.items():
            with open(os.path.join(d, shape), "wb") as f:
                f.write(data)
        print("%s: %d seeds" % (target, len(files)))


if __name__ == "__main__":
    main()
