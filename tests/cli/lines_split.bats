#!/usr/bin/env bats
# lines_split.bats -- `fairshuf lines --split` as data work needs it (issue
# 52): reproducible stratified parts whatever the sink's lag, outputs that
# cannot collide with each other or with the input, groups kept whole
# across parts, fractional weights, and -n in the data modes.

setup() {
    export LC_ALL=C
    cd "$BATS_TEST_TMPDIR"
}

# Records of 3 to 9 KB with the label last: a read that fills the sink's
# buffer cuts one of them, usually before its label.
long_records() {
    python3 -c '
import random
r = random.Random(5)
print("id\tpad\tlabel")
for i in range(1500):
    print("%d\t%s\t%s" % (i, "x" * r.randint(3000, 9000), r.choice("aaaaaaabbc")))'
}

# slow_reader FIFO OUT: opens FIFO, waits, then copies it to OUT in 64 KiB
# reads with a pause after each, so the writer (the sink) keeps stalling.
slow_reader() {
    python3 -c '
import sys, time
f = open(sys.argv[1], "rb"); time.sleep(0.3)
with open(sys.argv[2], "wb") as o:
    while True:
        b = f.read(65536)
        if not b: break
        o.write(b); time.sleep(0.01)' "$1" "$2" &
}

# check_shares W,W,... SRC PART...: each label's count in each part is
# exactly its largest-remainder share (docs/lines.md, "Split"), and the
# parts partition SRC's data records.
check_shares() {
    python3 - "$@" <<'PY'
import sys, collections
w = [int(x) for x in sys.argv[1].split(",")]
src, parts = sys.argv[2], sys.argv[3:]
def rows(p):
    with open(p) as f:
        r = [l.rstrip("\n").split("\t") for l in f]
    return r[0], r[1:]
hdr, data = rows(src)
total = collections.Counter(r[-1] for r in data)
def sizes(n):
    W = sum(w)
    s = [n * x // W for x in w]
    rem = sorted(range(len(w)), key=lambda i: (-(n * w[i] % W), i))
    for i in rem[:n - sum(s)]:
        s[i] += 1
    return s
seen = []
for k, p in enumerate(parts):
    h, rs = rows(p)
    assert h == hdr
    c = collections.Counter(r[-1] for r in rs)
    for lab, n in total.items():
        assert c[lab] == sizes(n)[k], (p, lab, c[lab], sizes(n))
    seen += rs
assert sorted(seen) == sorted(data), "the parts partition the input"
PY
}

@test "--split --stratify: the same parts when the sink lags (slowly read FIFOs) as into files, each share exact" {
    long_records > in
    args="--seed=s --header=1 --split=80,10,10 --stratify=label"
    "$FS_BIN" lines $args -o 'f-%d' in
    check_shares 80,10,10 in f-1 f-2 f-3
    mkfifo p-1 p-2 p-3
    for round in 1 2; do
        for k in 1 2 3; do slow_reader p-$k g-$k; done
        "$FS_BIN" lines $args -o 'p-%d' in
        wait
        for k in 1 2 3; do cmp f-$k g-$k; done
    done
}
