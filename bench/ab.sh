#!/usr/bin/env bash
# ab.sh -- A/B of two fairshuf builds (e.g. main's and a branch's):
# alternates `A bench ARGS --runs=1` and `B bench ...` for ROUNDS rounds
# (order swapped every round), and prints, per (impl, rng, threads, n),
# the median of the per-round ratios B/A with min-max.
#   bench/ab.sh OLD/fairshuf NEW/fairshuf ROUNDS --sizes=54,1e3 --rng=chacha20
set -euo pipefail
a=$1 b=$2 rounds=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq 1 "$rounds"); do
  if (( r % 2 )); then order="a b"; else order="b a"; fi
  for w in $order; do
    bin=$a; [ "$w" = b ] && bin=$b
    "$bin" bench --format=json --runs=1 "$@" 2>/dev/null > "$tmp/$w.$r.json"
  done
done
python3 - "$tmp" "$rounds" <<'PY'
import json, sys, statistics, os
d, rounds = sys.argv[1], int(sys.argv[2])
def load(w, r):
    return {(x["impl"], x["rng"], x["threads"], x["n"]): x["ns_per_element"]
            for x in json.load(open(os.path.join(d, f"{w}.{r}.json")))}
rat = {}
for r in range(1, rounds + 1):
    A, B = load("a", r), load("b", r)
    for k in A:
        if k in B and A[k] > 0:
            rat.setdefault(k, []).append(B[k] / A[k])
print(f"{'impl':18} {'rng':13} {'thr':>3} {'n':>10}  B/A median (min-max), {rounds} rounds")
for k in sorted(rat, key=lambda k: (k[3], k[0], k[1], k[2])):
    v = rat[k]
    print(f"{k[0]:18} {k[1]:13} {k[2]:3} {k[3]:10}  {statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})")
PY
