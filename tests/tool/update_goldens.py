#!/usr/bin/env python3
"""Rewrites every golden output (meson compile -C build update-golden): the
fixture goldens, then the corpus digests when the corpus is there.

Usage: update_goldens.py PYTHON CLI_SCRIPT CORPUS_SCRIPT ETLDUMP ETLGEN SOURCE_ROOT CORPUS_DIR
"""
import os
import subprocess
import sys

python, cli, corpus_script, etldump, etlgen, root, corpus = sys.argv[1:8]
rc = subprocess.run([python, cli, etldump, etlgen, root, "--update"]).returncode
golden = os.path.join(root, "fixtures", "expected", "corpus-goldens.txt")
rc2 = subprocess.run([python, corpus_script, etldump, corpus, golden, "--update"]).returncode
sys.exit(rc or (rc2 if rc2 != 77 else 0))
