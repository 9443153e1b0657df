#!/usr/bin/env python3
"""The Python event stream equals etldump's JSON Lines, event for event, on every corpus trace and
every bundled fixture: names, header fields, decoded fields (as Python values: hex integers as int,
times as datetime, bytes as bytes), processes and stacks.

Usage: test_stream.py ETLDUMP SOURCE_ROOT CORPUS_DIR
"""
import datetime
import json
import math
import os
import subprocess
import sys
import unittest

import libetl

ETLDUMP, ROOT, CORPUS = sys.argv[1:4]


def traces():
    out = [os.path.join(ROOT, "fixtures", "valid", f) for f in sorted(os.listdir(os.path.join(ROOT, "fixtures", "valid")))]
    etl = os.path.join(CORPUS, "etl")
    if os.path.isdir(etl):
        out += [os.path.join(etl, f) for f in sorted(os.listdir(etl))]
    return out


def same_value(j, v, where):
    """Whether etldump's JSON value j and the Python value v say the same."""
    if isinstance(j, dict):
        assert isinstance(v, dict) and list(j) == list(v), f"{where}: {j!r} vs {v!r}"
        return all(same_value(j[k], v[k], f"{where}.{k}") for k in j)
    if isinstance(j, list):
        assert isinstance(v, list) and len(j) == len(v), f"{where}: {j!r} vs {v!r}"
        return all(same_value(a, b, f"{where}[{i}]") for i, (a, b) in enumerate(zip(j, v)))
    if isinstance(j, bool) or isinstance(v, bool):
        return j == v
    if isinstance(j, (int, float)) and not isinstance(j, bool):
        if isinstance(v, float) or isinstance(j, float):
            return math.isclose(float(j), float(v), rel_tol=1e-15) or (math.isnan(float(j)) and math.isnan(float(v)))
        return j == v
    # j is text
    if v is None:
        return j == "0"  # a FILETIME of 0: no time
    if isinstance(v, int):
        return j == hex(v) or j == str(v) or (j.startswith("0x") and int(j, 16) == v)
    if isinstance(v, float):  # NaN and infinities are text in JSON
        return j in ("NaN", "Infinity", "-Infinity") and str(v).lower().startswith(j.lower()[:3])
    if isinstance(v, bytes):
        return j == "0x" + v.hex()
    if isinstance(v, datetime.datetime):
        # JSON has 100 ns, a datetime microseconds: the ISO text without the last digit
        return j[:26] == v.strftime("%Y-%m-%dT%H:%M:%S.%f")
    return j == v


def etldump_events(path):
    p = subprocess.run([ETLDUMP, "--format=jsonl", "--payload", "--quiet", path], capture_output=True, text=True,
                       env=dict(os.environ, ETLDUMP_MANIFEST_PATH=""))
    assert p.returncode in (0, 1), p.stderr
    return [json.loads(line) for line in p.stdout.splitlines() if line]


class StreamEqualsJsonl(unittest.TestCase):
    maxDiff = None

    def check(self, path):
        want = etldump_events(path)
        got = []
        damage = []
        with libetl.open(path, on_damage=damage.append) as reader:
            for ev in reader:
                got.append((ev, ev.name, ev.fields, ev.stack))  # read while the event is current
        self.assertEqual(len(got), len(want), path)
        for i, (j, (ev, name, fields, stack)) in enumerate(zip(want, got)):
            where = f"{os.path.basename(path)} event {i}"
            self.assertEqual(ev.provider_id, j["provider"], where)
            self.assertEqual((ev.unix_ns, ev.timestamp, ev.cpu), (j["unix_ns"], j["timestamp"], j["cpu"]), where)
            self.assertEqual((ev.pid, ev.tid), (j.get("pid"), j.get("tid")), where)
            self.assertEqual((ev.id, ev.version, ev.level, ev.opcode, ev.task, ev.channel),
                             (j["id"], j["version"], j["level"], j["opcode"], j["task"], j["channel"]), where)
            self.assertEqual(ev.keywords, int(j["keywords"], 16), where)
            self.assertEqual(ev.file_offset, j["file_offset"], where)
            self.assertEqual(ev.payload.hex(), j["payload"], where)
            self.assertEqual(ev.process, j.get("process"), where)
            self.assertEqual(stack, j.get("stack", []), where)
            self.assertEqual(name, j["name"], where)
            self.assertEqual(ev.decoder, j["decoder"], where)
            self.assertEqual(ev.undecoded_reason, j.get("undecoded_reason"), where)
            self.assertEqual(ev.decode_error, j.get("decode_error"), where)
            if "fields" in j:
                self.assertEqual(list(fields), list(j["fields"]), where)
                for k in j["fields"]:
                    self.assertTrue(same_value(j["fields"][k], fields[k], f"{where}.{k}"),
                                    f"{where}.{k}: {j['fields'][k]!r} vs {fields[k]!r}")
            else:
                self.assertEqual(fields, {}, where)

    def test_every_trace(self):
        paths = traces()
        self.assertGreaterEqual(len(paths), 7)
        for path in paths:
            with self.subTest(path=os.path.basename(path)):
                self.check(path)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
