#!/usr/bin/env python3
"""dask_shuffle.py -- fairshuf.dask.shuffle (and with ignore_index=True)
against Dask's own uniform shuffle (a random column, then set_index, which
drops the rows' index) on a distributed.LocalCluster of
2 worker processes (1 thread each), in the same run.

For each size and round, each method gets a fresh cluster (so that a
worker's peak RSS, ru_maxrss, is that run's), the same input generated on
the workers and persisted (N rows: an int64 id and a float64 value, in P
partitions), and is timed from the call to its result persisted on the
workers (fairshuf's lengths pass and Dask's quantiles pass included; the
result is not collected to the client).  The order of the methods
rotates by round.  Printed per size: wall seconds and the ratio
fairshuf / Dask per round (median and min-max), the workers' CPU seconds,
and each method's peak RSS per worker (the larger of the two workers; the
RSS with the input alone beside it).  The machine is shared and noisy:
read the medians.  fairshuf's output is checked against fairshuf's own
order for the first rows (lines_argsort on the keys).

    PYTHONPATH=python /usr/bin/python3 bench/dask_shuffle.py              # 1e6 and 1e7 rows, 3 rounds
    SIZES=1e6 ROUNDS=5 PARTS=8 PYTHONPATH=python /usr/bin/python3 bench/dask_shuffle.py
Not part of the test suite.
"""
import os
import resource
import shutil
import statistics
import tempfile
import time

import numpy as np
import pandas as pd
import dask
import dask.dataframe as dd
import distributed

import fairshuf
import fairshuf.dask as fd

SIZES = [int(float(s)) for s in os.environ.get("SIZES", "1e6 1e7").split()]
ROUNDS = int(os.environ.get("ROUNDS", "3"))
PARTS = int(os.environ.get("PARTS", "8"))
SEED = "bench"


def part(i, n, parts):
    lo, hi = n * i // parts, n * (i + 1) // parts
    ids = np.arange(lo, hi, dtype=np.int64)
    return pd.DataFrame({"id": ids, "x": ids * 0.5}, index=ids)


def usage():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return {"peak": ru.ru_maxrss * 1024, "rss": rss, "cpu": ru.ru_utime + ru.ru_stime}


def with_random(df, partition_info=None):
    i = partition_info["number"] if partition_info else 0
    return df.assign(r=np.random.default_rng([45, i]).random(len(df)))


def dask_route(ddf):
    return ddf.map_partitions(with_random).set_index("r")


def fairshuf_route(ddf):
    return fd.shuffle(ddf, SEED)


def fairshuf_noindex_route(ddf):  # the index dropped, as set_index drops it
    return fd.shuffle(ddf, SEED, ignore_index=True)


ROUTES = {"fairshuf": fairshuf_route, "fairshuf-noindex": fairshuf_noindex_route,
          "dask": dask_route}


def run(method, n, tmp):
    with dask.config.set({"temporary-directory": tmp}):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, local_directory=tmp)
        client = distributed.Client(cluster)
        try:
            ddf = dd.from_delayed([dask.delayed(part)(i, n, PARTS) for i in range(PARTS)],
                                  meta=part(0, 0, 1), verify_meta=False).persist()
            distributed.wait(ddf)
            before = client.run(usage)
            t0 = time.perf_counter()
            out = ROUTES[method](ddf).persist()
            distributed.wait(out)
            wall = time.perf_counter() - t0
            after = client.run(usage)
            if method != "dask":  # the first rows are fairshuf's first rows
                head = out.get_partition(0).head(1000, npartitions=1)
                keys = fairshuf.lines_keys(SEED, 0, n)
                want = np.argsort(keys, kind="stable")[:len(head)]
                assert (head["id"].to_numpy() == want).all(), "not fairshuf's order"
            del out
            return {
                "wall": wall,
                "cpu": sum(after[w]["cpu"] - before[w]["cpu"] for w in after),
                "peak": max(after[w]["peak"] for w in after),
                "input": max(before[w]["rss"] for w in before),
            }
        finally:
            client.close()
            cluster.close()


def mb(x):
    return "%.0f MB" % (x / 1e6)


def spread(xs, fmt="%.2f"):
    return (fmt + " (" + fmt + "–" + fmt + ")") % (statistics.median(xs), min(xs), max(xs))


def main():
    tmp = tempfile.mkdtemp(prefix="fairshuf-bench-dask-")
    print("fairshuf.dask.shuffle vs Dask (random column + set_index), 2 worker processes,"
          " %d partitions, %d rounds; load %s; %s UTC"
          % (PARTS, ROUNDS, " ".join("%.2f" % x for x in os.getloadavg()),
             time.strftime("%Y-%m-%d %H:%M", time.gmtime())))
    for n in SIZES:
        res = {m: [] for m in ROUTES}
        for r in range(ROUNDS):
            order = list(ROUTES)
            order = order[r % len(order):] + order[:r % len(order)]  # rotates
            for m in order:
                res[m].append(run(m, n, tmp))
        d = res["dask"]
        print("\nN = %.0e rows (%s of input)" % (n, mb(16 * n)))
        print("| | fairshuf.dask | ratio | fairshuf.dask, ignore_index | ratio | Dask set_index |")
        print("| --- | --- | --- | --- | --- | --- |")
        f, g = res["fairshuf"], res["fairshuf-noindex"]
        for what, key in (("wall s", "wall"), ("workers' CPU s", "cpu")):
            print("| %s | %s | **%s** | %s | **%s** | %s |" % (
                what, spread([x[key] for x in f]),
                spread([a[key] / b[key] for a, b in zip(f, d)]),
                spread([x[key] for x in g]),
                spread([a[key] / b[key] for a, b in zip(g, d)]),
                spread([x[key] for x in d])))
        med = {m: statistics.median(x["peak"] for x in res[m]) for m in res}
        print("| peak RSS per worker | %s | %.2f | %s | %.2f | %s |" % (
            mb(med["fairshuf"]), med["fairshuf"] / med["dask"],
            mb(med["fairshuf-noindex"]), med["fairshuf-noindex"] / med["dask"],
            mb(med["dask"])))
        print("| RSS with the input alone | %s | | %s | | %s |" % tuple(
            mb(statistics.median(x["input"] for x in res[m])) for m in ROUTES))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
