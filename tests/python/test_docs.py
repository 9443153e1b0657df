#!/usr/bin/env python3
"""The Python code of README.md and docs/PYTHON.md runs as written: every ```python block, in the
order of its document, sharing the document's namespace, in a temporary folder where the files
the snippets name are corpus traces (trace.etl, kernel.etl, a.etl, b.etl, clr.etl: Tx_Process.etl,
a kernel trace; the folders of the Dask snippets hold two of them) and a Dask scheduler's address
is a local cluster.  A snippet that breaks fails the suite.

Usage: test_docs.py SOURCE_ROOT CORPUS_DIR   (exit 77 without the corpus)
"""
import contextlib
import io
import os
import re
import sys
import tempfile
import unittest

ROOT, CORPUS = sys.argv[1:3]
TRACE = os.path.join(CORPUS, "etl", "Tx_Process.etl")
FILES = ("trace.etl", "kernel.etl", "a.etl", "b.etl", "clr.etl")
FOLDERS = ("traces", "data/traces", "mnt/traces/x")


def blocks(doc):
    with open(os.path.join(ROOT, doc)) as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def localised(code, tmp):
    """The snippet with its absolute folders under tmp and its cluster a local one."""
    for folder in ("/mnt/traces", "/data/traces", "/traces"):
        code = code.replace(f'"{folder}/', f'"{tmp}{folder}/')
    return re.sub(r'Client\("[^"]*"\)', "Client(LocalCluster(n_workers=1, threads_per_worker=1, processes=True, "
                  "dashboard_address=None))", code)


class Docs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        for name in FILES:
            os.symlink(TRACE, os.path.join(cls.tmp.name, name))
        for folder in FOLDERS:
            os.makedirs(os.path.join(cls.tmp.name, folder))
            for name in ("a.etl", "b.etl"):
                os.symlink(TRACE, os.path.join(cls.tmp.name, folder, name))
        cls.cwd = os.getcwd()
        os.chdir(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        os.chdir(cls.cwd)
        cls.tmp.cleanup()

    def run_doc(self, doc):
        code = blocks(doc)
        self.assertGreater(len(code), 0, doc)
        names = {"__name__": "__doc_snippets__"}
        try:
            from distributed import LocalCluster
            names["LocalCluster"] = LocalCluster  # (what a scheduler's address becomes)
        except ImportError:
            pass
        for i, block in enumerate(code):
            if "distributed" in block or "libetl.dask" in block:
                try:
                    import dask  # noqa: F401
                    import distributed  # noqa: F401
                except ImportError:
                    continue  # (Dask is an extra: the dask suite says so)
            with self.subTest(doc=doc, block=i), contextlib.redirect_stdout(io.StringIO()):
                exec(compile(localised(block, self.tmp.name), f"{doc} block {i}", "exec"), names)
        for client in [v for v in names.values() if type(v).__name__ == "Client"]:
            cluster = client.cluster
            client.close()
            if cluster is not None:
                cluster.close()
        return names

    def test_readme(self):
        names = self.run_doc("README.md")
        self.assertGreater(len(names["df"]), 0)
        self.assertTrue(os.path.getsize("report.html") > 10000)

    def test_python_guide(self):
        names = self.run_doc("docs/PYTHON.md")
        self.assertGreater(len(names["df"]), 0)
        self.assertTrue(os.path.exists("r.html"))


if __name__ == "__main__":
    if not os.path.exists(TRACE):
        print("SKIP: the corpus is not there")
        sys.exit(77)
    unittest.main(argv=sys.argv[:1], verbosity=1)
