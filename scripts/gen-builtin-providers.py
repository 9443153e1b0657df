#!/usr/bin/env python3
"""Writes lib/manifest/builtin_data.c: the built-in provider descriptions.

They are made from the redistributable instrumentation manifests of the
shared corpus (../shared/corpus/manifests/), whose sources and licenses are
listed in SOURCES below; run it again when that list or those files change:

    python3 scripts/gen-builtin-providers.py ../shared/corpus/manifests \
        > lib/manifest/builtin_data.c

Each <provider> becomes a small manifest of its own that keeps only what
decoding and naming read (manifest/provider.c, template.c): its channels,
levels, tasks with their opcodes, opcodes, keywords, maps, templates and
events, with the attributes the loader reads, and the localized strings
they cite (the first definition of each in its document, as the loader
takes them).  Symbols, UserData layouts, counters, registry keys and
comments are left out.  Each document is stored deflated; the library
inflates and parses one the first time a trace needs its provider.

Where several manifests declare one GUID, each gives a document, in the
order of PRIORITY (the first wins for the events both describe; the others
fill in events it lacks), as manifest folders given with -m are read.
"""
import os
import re
import sys
import zlib
import xml.etree.ElementTree as ET

# corpus file -> (its repository and file, license); the license texts are in NOTICE
SOURCES = {
    "perfview_ClrEtwAll.man": ("microsoft/perfview src/TraceEvent/Parsers/ClrEtwAll.man", "MIT"),
    "perfview_ETWClrProfiler.man": ("microsoft/perfview src/EtwClrProfiler/ETWClrProfiler.man", "MIT"),
    "etl2pcapng_NDIS-PacketCapture.manifest.xml":
        ("RavuAlHemio/etl2pcapng contrib/Microsoft-Windows-NDIS-PacketCapture.manifest.xml", "MIT"),
    "Tx_SystemEvents.man": ("microsoft/Tx SystemEvents.man", "Apache-2.0"),
    "Tx_HTTP_Server.man": ("microsoft/Tx HTTP_Server.man", "Apache-2.0"),
    "Tx_tcp.man": ("microsoft/Tx Samples/Introduction/Tcp/tcp.man", "Apache-2.0"),
    "Tx_CSV.man": ("microsoft/Tx Manifests/CSV.man", "Apache-2.0"),
    "Tx_IE_Client.man": ("microsoft/Tx Manifests/IE_Client.man", "Apache-2.0"),
    "Tx_asp.man": ("microsoft/Tx Manifests/asp.man", "Apache-2.0"),
    "Tx_Microsoft.Windows.ApplicationServer.Applications.manifest":
        ("microsoft/Tx Microsoft.Windows.ApplicationServer.Applications.man", "Apache-2.0"),
    "Tx_eventing.man": ("microsoft/Tx Manifests/eventing.man", "Apache-2.0"),
}
# for a GUID several files declare, the first of these wins (the .NET runtime's own manifest
# over asp.man's older CLRTrace description of the same provider)
PRIORITY = list(SOURCES)

# what the loader reads: element -> attributes kept
KEEP = {
    "provider": ("name", "guid"),
    "channels": (), "channel": ("name", "chid", "value"), "importChannel": ("name", "chid", "value"),
    "levels": (), "level": ("name", "value", "message"),
    "tasks": (), "task": ("name", "value", "message"),
    "opcodes": (), "opcode": ("name", "value", "message"),
    "keywords": (), "keyword": ("name", "mask", "message"),
    "maps": (), "valueMap": ("name",), "bitMap": ("name",), "map": ("value", "message"),
    "templates": (), "template": ("tid",),
    "data": ("name", "inType", "outType", "count", "length", "map"),
    "struct": ("name", "count", "length"),
    "events": (),
    "event": ("value", "version", "level", "opcode", "task", "keywords", "channel", "template", "message"),
}
STRING_REF = re.compile(r"^\$\(string\.(.+)\)$")


def local(tag):
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else None


def reduce(el, out, cited):
    """Copies el's kept children and attributes under out; notes the strings they cite."""
    for c in el:
        name = local(c.tag)
        if name not in KEEP:
            continue
        r = ET.SubElement(out, name)
        for a in KEEP[name]:
            v = c.get(a)
            if v is None:
                continue
            r.set(a, v)
            m = STRING_REF.match(v)
            if m:
                cited.add(m.group(1))
        reduce(c, r, cited)


def strings_of(root):
    """The string table of a document: the first definition of each id, in document order."""
    table = {}
    for loc in root.iter():
        if local(loc.tag) != "localization":
            continue
        for s in loc.iter():
            if local(s.tag) == "string" and s.get("id") is not None and s.get("value") is not None:
                table.setdefault(s.get("id"), s.get("value"))
    return table


def providers_of(path):
    root = ET.parse(path).getroot()
    table = strings_of(root)
    for p in root.iter():
        if local(p.tag) != "provider" or p.get("guid") is None:
            continue
        doc = ET.Element("instrumentationManifest")
        prov = ET.SubElement(ET.SubElement(ET.SubElement(doc, "instrumentation"), "events"), "provider")
        prov.set("name", p.get("name", ""))
        prov.set("guid", p.get("guid"))
        cited = set()
        reduce(p, prov, cited)
        st = ET.SubElement(ET.SubElement(ET.SubElement(doc, "localization"), "resources"), "stringTable")
        for sid in sorted(cited):
            if sid in table:
                ET.SubElement(st, "string", id=sid, value=table[sid])
        nevents = sum(1 for e in prov.iter("event"))
        xml = ET.tostring(doc, encoding="unicode", short_empty_elements=True).encode("utf-8")
        yield p.get("name", ""), p.get("guid"), nevents, xml


def guid_bytes(s):
    h = s.strip("{}").replace("-", "")
    if len(h) != 32:
        raise ValueError(s)
    return h.lower()


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "../shared/corpus/manifests"
    entries = []  # (guid hex, priority, name, source index, nevents, deflated, size)
    for si, f in enumerate(PRIORITY):
        path = os.path.join(folder, f)
        for name, guid, nev, xml in providers_of(path):
            entries.append((guid_bytes(guid), si, name, nev, zlib.compress(xml, 9), len(xml)))
    entries.sort(key=lambda e: (e[0], e[1]))
    w = sys.stdout.write
    w("/*\n * builtin_data.c - GENERATED by scripts/gen-builtin-providers.py: do not edit.\n *\n")
    w(" * The built-in provider descriptions (builtin.c), made from these manifests:\n")
    for f in PRIORITY:
        origin, lic = SOURCES[f]
        w(" *   %s (%s)\n" % (origin, lic))
    w(" * Their licenses are in NOTICE and LICENSES/.  Each provider is a reduced manifest of its\n")
    w(" * own, deflated, in GUID order.\n *\n * SPDX-License-Identifier: MIT AND Apache-2.0\n */\n")
    w('#include "manifest/builtin.h"\n\n')
    w("const struct etl_builtin_source etl__builtin_sources[] = {\n")
    for f in PRIORITY:
        origin, lic = SOURCES[f]
        w("\t{ %s, %s, %s },\n" % (c_string(f), c_string(origin), c_string(lic)))
    w("};\n\n")
    for i, e in enumerate(entries):
        data = e[4]
        w("static const unsigned char doc%d[%d] = {" % (i, len(data)))
        for k, b in enumerate(data):
            w(("\n\t" if k % 16 == 0 else " ") + "%d," % b)
        w("\n};\n")
    w("\nconst struct etl_builtin_provider etl__builtin_providers[] = {\n")
    for i, e in enumerate(entries):
        g = e[0]
        d1, d2, d3, d4 = g[0:8], g[8:12], g[12:16], g[16:32]
        d4b = ", ".join("0x" + d4[k:k + 2] for k in range(0, 16, 2))
        w("\t{ { 0x%s, 0x%s, 0x%s, { %s } }, %s, %d, %d, doc%d, %d, %d },\n" %
          (d1, d2, d3, d4b, c_string(e[2]), e[1], e[3], i, len(e[4]), e[5]))
    w("};\n\n")
    w("const size_t etl__builtin_provider_count = %d;\n" % len(entries))
    w("const size_t etl__builtin_source_count = %d;\n" % len(PRIORITY))


if __name__ == "__main__":
    main()
