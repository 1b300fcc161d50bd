#!/usr/bin/env python3
"""cputime.py -- fairshuf's shuffle against rip_shuffle's by CPU time, not
wall time: on a VM shared with other tenants a process waits for a CPU for
a time that has nothing to do with it, and wall-clock ratios move by +-0.3;
the CPU time a process is charged (wait4's rusage, user + system, in
microseconds) leaves that wait out.  Memory contention still shows.

For one shuffle of n 8-byte elements by fairshuf (default generator, seeded
chacha20, xoshiro256ss; bench/counts.c) and rip_shuffle (its driver, run as
`ripbench N 0 REPS`): each program runs once with one shuffle and once with
R (about WORK / n) shuffles, and (cpu(R) - cpu(1)) / (R - 1) / n is one
shuffle's CPU time per element without the start, the fill and the exit.
ROUNDS interleaved rounds (the order reversed every other round); per size
and program the median and min-max in ns per element, and the median and
min-max of the per-round ratios to rip_shuffle.  docs/performance.md
"Counts" reads them beside bench/counts.sh's counts.
  SIZES="1e5 1e7 1e8" bench/cputime.py
Environment: SIZES (default "1e5 1e7"), ROUNDS (5), WORK (6e8 elements
shuffled per measurement), BUILD (build), RIP (rip_shuffle's driver,
bench/README.md; default BUILD/bench/ripbench, then /var/tmp/rip/ripbench;
its rows are skipped when it is absent), BASE (another build folder, e.g.
main's: its bench/counts is measured in the same rounds as rows "base
default" and "base xoshiro256ss", an A/B of two builds by CPU time).
  BASE=../main/build SIZES="1e7 1e8" bench/cputime.py
"""
import os
import statistics
import subprocess
import sys

BUILD = os.environ.get("BUILD", "build")
COUNTS = os.path.join(BUILD, "bench", "counts")
RIP = os.environ.get("RIP") or next(
    (p for p in (os.path.join(BUILD, "bench", "ripbench"), "/var/tmp/rip/ripbench")
     if os.access(p, os.X_OK)), "")
SIZES = os.environ.get("SIZES", "1e5 1e7").split()
ROUNDS = int(os.environ.get("ROUNDS", "5"))
WORK = float(os.environ.get("WORK", "6e8"))


def cpu(argv):
    """CPU seconds (user + system) the command was charged."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.stderr.close()
    if status != 0:
        sys.exit(f"cputime.py: {argv[0]}: failed ({status}): {err.decode(errors='replace').strip()}")
    return ru.ru_utime + ru.ru_stime


BASE = os.environ.get("BASE", "")


def command(prog, n, reps):
    if prog == "rip_shuffle":
        return [RIP, str(n), "0", str(reps)]
    if prog.startswith("base-"):
        return [os.path.join(BASE, "bench", "counts"), str(n), prog[5:], str(reps), "counts"]
    return [COUNTS, str(n), prog, str(reps), "counts"]


def main():
    if not os.access(COUNTS, os.X_OK):
        subprocess.run(["make", "-s", "-C", "bench", "counts",
                        "BUILD=" + os.path.abspath(BUILD)], check=True,
                       stdout=subprocess.DEVNULL)
    progs = ["default", "chacha20", "xoshiro256ss"]
    if BASE:
        if not os.access(os.path.join(BASE, "bench", "counts"), os.X_OK):
            sys.exit(f"cputime.py: {BASE}/bench/counts: not built (make -C bench counts BUILD=...)")
        progs += ["base-default", "base-xoshiro256ss"]
    if RIP and os.access(RIP, os.X_OK):
        progs.append("rip_shuffle")
    head = f"{'n':6s} {'program':17s} {'cpu ns/elem':>11s} {'min-max':>13s}"
    if "rip_shuffle" in progs:
        head += f" {'x rip':>6s} {'min-max':>11s}"
    print(head)
    for s in SIZES:
        n = int(float(s))
        reps = max(4, int(WORK / n)) + 1
        res = {p: [] for p in progs}
        for r in range(ROUNDS):
            for p in (progs if r % 2 == 0 else progs[::-1]):
                one = cpu(command(p, n, 1))
                many = cpu(command(p, n, reps))
                res[p].append(max(0.0, many - one) / (reps - 1) / n * 1e9)
        for p in progs:
            v = res[p]
            line = f"{s:6s} {p:17s} {statistics.median(v):11.3f} {f'{min(v):.3f}-{max(v):.3f}':>13s}"
            if "rip_shuffle" in res:
                rat = [x / y for x, y in zip(v, res["rip_shuffle"]) if y > 0]
                if rat:
                    line += f" {statistics.median(rat):6.2f} {f'{min(rat):.2f}-{max(rat):.2f}':>11s}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
