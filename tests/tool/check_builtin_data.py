#!/usr/bin/env python3
"""The built-in provider descriptions (lib/manifest/builtin_data.c) are what
scripts/gen-builtin-providers.py makes of the corpus manifests today: the same
providers, in the same order, each inflating to the same reduced manifest.
A manifest changed in the corpus, or the generator changed, without the table
made again, fails here.  Skipped (77) without the corpus.

    check_builtin_data.py SOURCE_ROOT CORPUS_DIR
"""
import importlib.util
import os
import re
import sys
import zlib


def main():
    root, corpus = sys.argv[1], sys.argv[2]
    folder = os.path.join(corpus, "manifests")
    if not os.path.isdir(folder):
        print("no corpus manifests: skipped")
        return 77
    spec = importlib.util.spec_from_file_location("gen", os.path.join(root, "scripts", "gen-builtin-providers.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    want = []
    for si, f in enumerate(gen.PRIORITY):
        for name, guid, nev, xml in gen.providers_of(os.path.join(folder, f)):
            want.append((gen.guid_bytes(guid), si, name, nev, xml))
    want.sort(key=lambda e: (e[0], e[1]))
    text = open(os.path.join(root, "lib", "manifest", "builtin_data.c"), encoding="utf-8").read()
    docs = {int(m.group(1)): bytes(int(b) for b in m.group(2).replace(",", " ").split())
            for m in re.finditer(r"static const unsigned char doc(\d+)\[\d+\] = \{([^}]*)\};", text)}
    rows = re.findall(r'\t\{ \{ 0x(\w+), 0x(\w+), 0x(\w+), \{ ([^}]*) \} \}, "((?:[^"\\]|\\.)*)", (\d+), (\d+), doc(\d+), (\d+), (\d+) \},',
                      text)
    failures = 0
    if len(rows) != len(want):
        print(f"FAIL the table has {len(rows)} providers, the generator makes {len(want)}")
        return 1
    for row, w in zip(rows, want):
        guid = (row[0] + row[1] + row[2] + "".join(x.strip()[2:] for x in row[3].split(","))).lower()
        xml = zlib.decompress(docs[int(row[7])])
        got = (guid, int(row[5]), row[4], int(row[6]), xml)
        if got != (w[0], w[1], w[2], w[3], w[4]):
            print(f"FAIL {w[2]} {{{w[0]}}}: the table differs from what the generator makes")
            failures += 1
    print(f"builtin data: {len(rows) - failures} equal, {failures} differ"
          + ("; run scripts/gen-builtin-providers.py again" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
