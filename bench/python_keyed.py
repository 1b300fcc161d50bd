#!/usr/bin/env python3
"""bench/python_keyed.py -- the keyed permutation from Python (issue 26):

  1. positions/s of a numpy array of positions mapped through
     KeyedPermutation (the library's batch call), per n;
  2. a whole epoch order at --epoch-n: numpy Generator.permutation(n)
     against KeyedPermutation(n, seed, e)[numpy.arange(n)] and against
     kp[:] (slice fill), interleaved rounds;
  3. one epoch of a sampler, each in its own process (wall time, peak
     RSS): fairshuf.torch.Sampler against torch's DistributedSampler at
     --sampler-n, num_replicas=8, rank 1, the full share iterated.

    PYTHONPATH=python /usr/bin/python3 bench/python_keyed.py [--runs=5]
        [--epoch-n=1e8] [--sampler-n=1e8] [--only=positions,epoch,sampler]
        [--samplers=fairshuf,torch]

Medians and min-max over the rounds.  Times are CPU time of the process
(time.process_time; user + system for the sampler processes), so that a
loaded shared machine does not inflate them; the samplers' wall time is
printed too.  Give the load (printed first) with the figures."""
import argparse
import os
import statistics
import subprocess
import sys
import time


def fmt(v):
    return "%.3g (%.3g-%.3g)" % (statistics.median(v), min(v), max(v))


def positions_per_second(runs):
    import numpy as np

    import fairshuf

    rng = np.random.default_rng(1)
    for n in (10**6, 10**8, 10**9, 2**40, 2**64 - 1):
        kp = fairshuf.KeyedPermutation(n, "bench", 0)
        m = 1 << 22 if n < 2**41 else 1 << 14
        pos = (rng.integers(0, min(n, 2**63 - 1), size=m, dtype=np.int64))
        if n > 2**63:
            pos = pos.astype(np.uint64)
        t0 = time.process_time()
        kp[pos[:1 << 16]]  # the tables are built on the first large request
        setup = time.process_time() - t0
        rates = []
        for _ in range(runs):
            t0 = time.process_time()
            kp[pos]
            rates.append(m / (time.process_time() - t0))
        print("n=%-22d positions/s %s  (first call incl. tables %.1f ms)"
              % (n, fmt(rates), setup * 1e3), flush=True)


def epoch(n, runs):
    import numpy as np

    import fairshuf

    gen = np.random.default_rng()
    t = {"numpy": [], "keyed[arange]": [], "keyed[:]": []}
    for r in range(runs):
        order = ["numpy", "keyed[arange]", "keyed[:]"]
        if r % 2:
            order.reverse()
        for who in order:
            t0 = time.process_time()
            if who == "numpy":
                x = gen.permutation(n)
            elif who == "keyed[arange]":
                x = fairshuf.KeyedPermutation(n, "bench", r)[np.arange(n)]
            else:
                x = fairshuf.KeyedPermutation(n, "bench", r)[:]
            t[who].append(time.process_time() - t0)
            del x
    for who, v in t.items():
        print("epoch n=%d %-14s s %s" % (n, who, fmt(v)), flush=True)
    ratio = [a / b for a, b in zip(t["numpy"], t["keyed[:]"])]
    print("numpy / keyed[:] %s" % fmt(ratio), flush=True)


SAMPLER = {
    "fairshuf": "from fairshuf.torch import Sampler as S; s = S(n, num_replicas=8, rank=1, seed=1)",
    "torch": ("import torch.utils.data as d; "
              "s = d.DistributedSampler(range(n), num_replicas=8, rank=1, seed=1)"),
}


def sampler(n, runs, whom):
    for r in range(runs):
        for who in (whom if r % 2 == 0 else whom[::-1]):
            code = ("import resource, sys, time; n = int(float(sys.argv[1])); "
                    + SAMPLER[who] + "; s.set_epoch(3); t0 = time.process_time(); "
                    "w0 = time.perf_counter(); k = 0\nfor i in s: k += 1\n"
                    "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
                    "print(k, time.process_time() - t0, time.perf_counter() - w0, "
                    "hwm[0].split()[1])")
            p = subprocess.run([sys.executable, "-c", code, str(n)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ))
            if p.returncode:
                print("sampler %s n=%d: failed (%s)" % (who, n, p.stderr.strip()[-200:]))
                continue
            k, secs, wall, rss = p.stdout.split()
            print("sampler %-8s n=%d round %d: %s indices in %.1f s CPU (%.1f s wall), "
                  "peak RSS %.0f MB" % (who, n, r, k, float(secs), float(wall),
                                        int(rss) / 1024), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--epoch-n", type=float, default=1e8)
    ap.add_argument("--sampler-n", type=float, default=1e8)
    ap.add_argument("--sampler-runs", type=int, default=2)
    ap.add_argument("--only", default="positions,epoch,sampler")
    ap.add_argument("--samplers", default="fairshuf,torch",
                    help="fairshuf only at 1e9: torch's needs ~48 GB there")
    a = ap.parse_args()
    # peak RSS is VmHWM of the sampler's own process: getrusage's ru_maxrss
    # would keep this (large) process's peak across fork + exec
    print("load", open("/proc/loadavg").read().split()[0], "CPUs", os.cpu_count(), flush=True)
    only = a.only.split(",")
    if "positions" in only:
        positions_per_second(a.runs)
    if "epoch" in only:
        epoch(int(a.epoch_n), a.runs)
    if "sampler" in only:
        sampler(int(a.sampler_n), a.sampler_runs, a.samplers.split(","))


if __name__ == "__main__":
    main()
