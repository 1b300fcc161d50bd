#!/usr/bin/env python3
"""bench/python_shuffle.py -- fairshuf.shuffle against numpy's
Generator.shuffle on int64 arrays, interleaved in the same rounds (each
round times both on a fresh copy), and the samplers' peak memory.

    PYTHONPATH=python /usr/bin/python3 bench/python_shuffle.py [--runs=5] [--sizes=1e5,1e7,1e8]
                                                              [--sampler-n=1e9]

Prints, per size: median ns/element (min-max) of each, and the median of
the per-round ratios numpy / fairshuf (> 1: fairshuf is faster).  Both
shuffle in place with their default generator: fairshuf ChaCha20 keyed
from the OS (cryptographic), numpy PCG64.  Then the peak RSS of a process
that makes an epoch order: fairshuf.torch.Sampler at --sampler-n (takes
the first 10^6 indices) and torch's DistributedSampler at 1e7 (its
__iter__ materialises randperm(n).tolist(), linear in n)."""
import argparse
import json
import statistics
import subprocess
import sys
import time


def timed(fn):
    t0 = time.perf_counter_ns()
    fn()
    return time.perf_counter_ns() - t0


def bench_shuffle(sizes, runs):
    import numpy as np

    import fairshuf

    gen = np.random.default_rng()
    rows = []
    for n in sizes:
        base = np.arange(n, dtype=np.int64)
        fs_t, np_t, ratios = [], [], []
        for r in range(runs):
            # each array is copied just before it is shuffled (copying both
            # first left the first one partly evicted from L2 at 1e5), and
            # the order alternates between rounds
            t = {}
            for who in ("fs", "np") if r % 2 == 0 else ("np", "fs"):
                x = base.copy()
                shuffle = fairshuf.shuffle if who == "fs" else gen.shuffle
                t[who] = timed(lambda: shuffle(x))
            tf, tn = t["fs"], t["np"]
            fs_t.append(tf / n)
            np_t.append(tn / n)
            ratios.append(tn / tf)
        rows.append({"n": n, "fairshuf_ns": fs_t, "numpy_ns": np_t, "ratio": ratios})
        print("n=%-10d fairshuf %6.2f ns (%.2f-%.2f)   numpy %6.2f ns (%.2f-%.2f)   "
              "numpy/fairshuf %.2fx (%.2f-%.2f)" % (
                  n, statistics.median(fs_t), min(fs_t), max(fs_t),
                  statistics.median(np_t), min(np_t), max(np_t),
                  statistics.median(ratios), min(ratios), max(ratios)), flush=True)
    return rows


SAMPLER_CODE = {
    "fairshuf": ("import itertools, resource, sys; from fairshuf.torch import Sampler; "
                 "n = int(float(sys.argv[1])); s = Sampler(n, seed=1, rank=1, num_replicas=8); "
                 "s.set_epoch(5); x = list(itertools.islice(iter(s), 1000000)); "
                 "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"),
    "torch": ("import resource, sys, torch.utils.data as d; n = int(float(sys.argv[1])); "
              "s = d.DistributedSampler(range(n), num_replicas=8, rank=1, shuffle=True, seed=1); "
              "s.set_epoch(5); next(iter(s)); "
              "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"),
    "baseline": ("import resource, torch.utils.data, fairshuf.torch; "
                 "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"),
}


def sampler_rss(which, n):
    out = subprocess.run([sys.executable, "-c", SAMPLER_CODE[which], str(n)],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return int(out) / 1024  # MiB


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="1e5,1e7,1e8")
    ap.add_argument("--sampler-n", default="1e9")
    ap.add_argument("--torch-n", default="1e7")
    ap.add_argument("--json")
    args = ap.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    # Samplers first: a child's ru_maxrss starts from its parent's RSS at
    # fork, so they must run before this process holds the big arrays.
    base = sampler_rss("baseline", 0)
    ours = sampler_rss("fairshuf", args.sampler_n)
    theirs = sampler_rss("torch", args.torch_n)
    rows = bench_shuffle(sizes, args.runs)
    print("sampler peak RSS: interpreter+torch %.0f MiB; fairshuf.torch.Sampler n=%s: %.0f MiB; "
          "DistributedSampler n=%s: %.0f MiB (%.0f bytes/index above the interpreter)" % (
              base, args.sampler_n, ours, args.torch_n, theirs,
              (theirs - base) * 2**20 / float(args.torch_n)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"shuffle": rows, "sampler_rss_mib": {
                "interpreter": base, "fairshuf": ours, "torch": theirs,
                "fairshuf_n": args.sampler_n, "torch_n": args.torch_n}}, f, indent=1)


if __name__ == "__main__":
    main()
