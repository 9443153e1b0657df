#!/usr/bin/env python3
"""pybench - the Python package's throughput on the corpus traces (not a test: it prints a table;
docs/PERFORMANCE.md records a run).

  pybench.py ETLDUMP CORPUS_DIR [--min-mb 1] [--repeat 3] [--threads] [--dask]

For every corpus trace of MIN_MB or more, the best of REPEAT runs of:
  iterate     for ev in libetl.open(path): ev.pid            (events as objects, no decoding)
  fields      the same, reading ev.name and ev.fields of every event
  pandas-hdr  libetl.to_pandas(path, columns=HEADER_COLUMNS)  (no decoding)
  pandas      libetl.to_pandas(path)                          (the default columns: names decoded)
  etldump     etldump --format=jsonl > /dev/null              (the C tool doing the same decoding)
with --threads, to_pandas of the two largest of those traces in two threads at once (one reads A
then B, the other B then A, so that both work alike) against one thread reading A, B, A, B (the
GIL is released while C reads and decodes: the ratio is the throughput two threads reach, best of
REPEAT runs of each taken alternately), and with --dask, read_etl over all those traces (time slices of 1 MiB so that every trace is
spread) on a LocalCluster of 1 and of 2 worker processes.  dissect.etl cannot be measured here:
it is neither in Debian nor buildable without PyPI.
"""
import argparse
import os
import subprocess
import sys
import time

import libetl


def best(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def iterate(path):
    n = 0
    with libetl.open(path, stacks=False) as r:
        for ev in r:
            ev.pid
            n += 1
    return n


def fields(path):
    n = 0
    with libetl.open(path, stacks=False) as r:
        for ev in r:
            ev.name
            ev.fields
            n += 1
    return n


def pandas_hdr(path):
    return len(libetl.to_pandas(path, columns=libetl.HEADER_COLUMNS))


def pandas_default(path):
    return len(libetl.to_pandas(path))


def etldump(tool, path):
    with open(os.devnull, "wb") as null:
        subprocess.run([tool, "--format=jsonl", "--quiet", path], stdout=null, check=False)
    return None


def threads_row(paths, repeat):
    import threading

    two = sorted(paths, key=os.path.getsize)[-2:]
    orders = (two, two[::-1])

    def one_thread():
        return sum(pandas_default(p) for p in two + two)

    def two_threads():
        out = [0, 0]

        def run(i):
            out[i] = sum(pandas_default(p) for p in orders[i])
        ts = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return sum(out)

    def two_processes():  # what the machine gives two independent workers (forked: no import cost)
        pids = []
        for i in range(2):
            pid = os.fork()
            if pid == 0:
                for p in orders[i]:
                    pandas_default(p)
                os._exit(0)
            pids.append(pid)
        for pid in pids:
            os.waitpid(pid, 0)
        return None

    one, threads, procs = [], [], []
    for _ in range(repeat):  # (alternately: the machine's load drifts)
        one.append(best(one_thread, 1)[0])
        threads.append(best(two_threads, 1)[0])
        procs.append(best(two_processes, 1)[0])
    t1, tt, tp = min(one), min(threads), min(procs)
    names = " and ".join(os.path.basename(p) for p in two)
    print(f"to_pandas of {names}, each twice: one thread {t1:.3f} s; two threads {tt:.3f} s "
          f"(throughput x{t1 / tt:.2f}); two processes {tp:.3f} s (x{t1 / tp:.2f})")


def dask_run(paths, workers, slice_bytes):
    from distributed import Client, LocalCluster

    import libetl.dask

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(lambda: __import__("libetl.dask") and __import__("pandas"))  # warm the workers
        t = time.perf_counter()
        ddf = libetl.dask.read_etl(paths, slice_bytes=slice_bytes)  # (reads one small sample for its meta)
        n = int(ddf.map_partitions(len).compute().sum())
        return time.perf_counter() - t, n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("etldump")
    ap.add_argument("corpus")
    ap.add_argument("--min-mb", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dask", action="store_true")
    ap.add_argument("--threads", action="store_true")
    a = ap.parse_args()
    etl = os.path.join(a.corpus, "etl")
    paths = [os.path.join(etl, f) for f in sorted(os.listdir(etl))
             if os.path.getsize(os.path.join(etl, f)) >= a.min_mb * (1 << 20)]
    print(f"libetl {libetl.__version__}, Python {sys.version.split()[0]}; best of {a.repeat}; events/s")
    print(f"{'trace':44} {'events':>8} {'iterate':>10} {'fields':>10} {'pandas-hdr':>11} {'pandas':>10} {'etldump':>10}")
    for p in paths:
        n = iterate(p)
        row = [os.path.basename(p)[:44], n]
        for fn in (iterate, fields, pandas_hdr, pandas_default):
            t, _ = best(lambda: fn(p), a.repeat)
            row.append(n / t)
        t, _ = best(lambda: etldump(a.etldump, p), a.repeat)
        row.append(n / t)
        print(f"{row[0]:44} {row[1]:>8} " + " ".join(f"{v:>10.0f}" if i != 2 else f"{v:>11.0f}"
                                                   for i, v in enumerate(row[2:])))
    if a.threads:
        threads_row(paths, max(a.repeat, 5))
    if a.dask:
        t1, n1 = dask_run(paths, 1, 1 << 20)
        t2, n2 = dask_run(paths, 2, 1 << 20)
        assert n1 == n2
        print(f"dask read_etl over {len(paths)} traces ({n1} events): 1 worker {t1:.2f} s, 2 workers {t2:.2f} s, "
              f"speed-up {t1 / t2:.2f}x")


if __name__ == "__main__":
    main()
