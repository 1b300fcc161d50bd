#!/usr/bin/env bash
# fair_check.sh -- `fairshuf fair check --log` on logs of many periods: the
# check looks up earlier commitments and client seeds in an index (lib/seen.c),
# so its time grows linearly with the periods, where comparing every period
# with every earlier one grows with their square (docs/performance.md,
# "The service": 40.5 s against 1.59 s at 80,000 periods).
# The logs are synthetic (random seeds, one copied deal per period, so every
# deal is recomputed and reported as bad-deal: the same work as an honest log).
# Usage: bench/fair_check.sh [BUILD] [OLD_FAIRSHUF]   (median of 3 rounds,
#        the old binary, if given, in the same rounds)
set -eu
BUILD=${1:-${BUILD:-build}}
F="$PWD/$BUILD/fairshuf"
OLD=${2:-}
[ -x "$F" ] || { echo "fair_check.sh: build first (make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$F" fair commit --server-seed-file="$tmp/s.hex" >/dev/null
deal=$("$F" fair deal --server-seed-file="$tmp/s.hex" --client-seed=x \
       --nonce=0 --format=tsv)
python3 - "$tmp" "$deal" <<'PY'
import hashlib, json, os, sys
tmp, deal = sys.argv[1], sys.argv[2]
rec = lambda d: json.dumps(d, separators=(",", ":")) + "\n"
for n in (5000, 20000, 80000):
    with open(f"{tmp}/log{n}", "w") as f:
        for i in range(n):
            s = os.urandom(32)
            t = dict(game="doudizhu", players=3, decks=1)
            f.write(rec(dict(scheme="fairshuf-pf-2", event="commit",
                             commitment=hashlib.sha256(s).hexdigest(), **t)))
            f.write(rec(dict(scheme="fairshuf-pf-2", event="client_seed",
                             client_seed=f"c{i}")))
            f.write(rec(dict(scheme="fairshuf-pf-2", event="deal", nonce=0,
                             client_seed=f"c{i}", **t, deal=deal)))
            f.write(rec(dict(scheme="fairshuf-pf-2", event="reveal",
                             server_seed=s.hex())))
PY
secs() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
         awk -v d=$((e - s)) 'BEGIN { printf "%.3f", d / 1e9 }'; }
med() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
echo "== fairshuf fair check --log (wall seconds, median of 3)"
printf '%-9s %10s %10s\n' periods new old
for n in 5000 20000 80000; do
    a=(); b=()
    for r in 1 2 3; do
        a+=("$(secs "$F" fair check --log="$tmp/log$n")")
        [ -n "$OLD" ] && b+=("$(secs "$OLD" fair check --log="$tmp/log$n")")
    done
    printf '%-9s %10s %10s\n' "$n" "$(med "${a[@]}")" \
        "$([ -n "$OLD" ] && med "${b[@]}" || echo -)"
done
