#!/usr/bin/env bash
# demo.sh -- `make demo`: fairshuf at work in a minute.
set -euo pipefail
B=${BUILD:-build}/fairshuf
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@"; }

echo "fairshuf $("$B" --version | head -1 | awk '{print $NF}'): fair, fast and verifiable shuffling"

run "$B" perm 10
run "$B" perm 10 --seed=demo --count=2
say "$B perm 4 --count=240000 --algorithm=asf-1999 --seed=1 \\
    | sort | uniq -c | sort -n | sed -n '1p;\$p'   # 1999 bug: rarest, commonest order"
"$B" perm 4 --count=240000 --algorithm=asf-1999 --seed=1 | sort | uniq -c | sort -n | sed -n '1p;$p'
run "$B" deal --game=doudizhu --seed=demo
run "$B" deal --game=holdem --players=4 --format=tsv --seed=demo
say "seq 10 | $B lines --seed=demo | tr '\\n' ' '"
seq 10 | "$B" lines --seed=demo | tr '\n' ' '; echo
run "$B" lines -i 1-18446744073709551614 -n 2 --seed=demo
run "$B" verify
