#!/usr/bin/env bats
# lines_trust.bats -- `fairshuf lines` findings of issue 52: --split as data work needs it (issue
# 52): reproducible stratified parts whatever the sink's lag, outputs that
# cannot collide with each other or with the input, groups kept whole
# across parts, fractional weights, and -n in the data modes.

setup() {
    export LC_ALL=C
    cd "$BATS_TEST_TMPDIR"
}

# AddressSanitizer reserves terabytes of address space.
skip_if_asan() {
    if grep -q __asan_init "$FS_BIN" 2>/dev/null; then
        skip "AddressSanitizer build: a memory limit cannot apply to it"
    fi
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

@test "--split: two parts naming one file, or a part that is the input, are usage errors that write nothing" {
    seq 100 > in
    cp in in.orig
    for case in "1,1 a,a" "1,1 ./a,a" "1,1,1 a,b,a"; do
        set -- $case
        run "$FS_BIN" lines --seed=1 --split=$1 -o "$2" in
        [ "$status" -eq 2 ]
        [[ "$output" == "fairshuf: --split: parts "*" are the same file"* ]]
        [ ! -e a ] && [ ! -e b ]
    done
    ln in hard
    for o in in,x x,in hard,x; do
        run "$FS_BIN" lines --seed=1 --split=1,1 -o "$o" in
        [ "$status" -eq 2 ]
        [[ "$output" == "fairshuf: --split: output '"*"' is the input" ]]
        cmp in in.orig
        [ ! -e x ]
    done
    # the input on standard input, a part through a symbolic link
    ln -s in link
    run "$FS_BIN" lines --seed=1 --split=1,1 -o x,link < in
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: --split: output 'link' is the input" ]
    cmp in in.orig
    # a device may take several parts (-o train,/dev/null,/dev/null)
    "$FS_BIN" lines --seed=1 --split=1,1,1 -o t,/dev/null,/dev/null in
    [ -s t ]
    # distinct parts still work, and stdin is no file of the parts
    "$FS_BIN" lines --seed=1 --split=1,1 -o a,b < in
    [ "$(cat a b | sort -n | md5sum)" = "$(md5sum < in)" ]
}

@test "--split with fractional weights: 0.8,0.1,0.1 is 8,1,1 exactly; bad weights are usage errors" {
    seq 1003 > in
    "$FS_BIN" lines --seed=f --split=8,1,1 -o 'i-%d' in
    "$FS_BIN" lines --seed=f --split=0.8,0.1,0.1 -o 'f-%d' in
    "$FS_BIN" lines --seed=f --split=.5,.0625,0.0625 -o 'g-%d' in
    for k in 1 2 3; do cmp i-$k f-$k; cmp i-$k g-$k; done
    [ "$(wc -l < f-1)" -eq 803 ]
    # 1/3 each: the sizes as 1,1,1
    "$FS_BIN" lines --seed=f --split=0.333,0.333,0.333 -o 'h-%d' in
    "$FS_BIN" lines --seed=f --split=1,1,1 -o 'j-%d' in
    for k in 1 2 3; do cmp h-$k j-$k; done
    # integer and decimal weights mixed: 1,0.25 is 4,1
    "$FS_BIN" lines --seed=f --split=4,1 -o 'm-%d' in
    "$FS_BIN" lines --seed=f --split=1,0.25 -o 'n-%d' in
    for k in 1 2; do cmp m-$k n-$k; done
    for bad in 0.8,,0.2 .,1 1e3,1 -1,2 0.8,0.2x 1.5.1,1 0.0000000001,1 0,0.0 1; do
        run "$FS_BIN" lines --seed=f --split=$bad -o 'z-%d' in
        [ "$status" -eq 2 ] || { echo "--split=$bad: status $status"; return 1; }
        [[ "$output" == *"invalid --split"* ]]
    done
}

@test "--split -n 0 writes each part's header and still checks the input; never a file named part-%d" {
    printf 'k\tv\na\t1\nb\t2\n' > in
    "$FS_BIN" lines --seed=1 --split=1,1 -n 0 -o 'part-%d' in
    [ ! -e 'part-%d' ]
    [ -e part-1 ] && [ -e part-2 ] && [ ! -s part-1 ] && [ ! -s part-2 ]
    "$FS_BIN" lines --seed=1 --header=1 --split=1,1 -n 0 -o 'h-%d.gz' in
    [ "$(gzip -dc h-1.gz)" = "$(printf 'k\tv')" ]
    [ "$(gzip -dc h-2.gz)" = "$(printf 'k\tv')" ]
    # what a full run refuses, -n 0 refuses too
    run "$FS_BIN" lines --seed=1 --split=1,1 --stratify=3 -n 0 -o 'e-%d' in
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: --stratify: record 1 has no field 3" ]
    [ ! -e e-1 ]
    printf 'a,"open\n' > bad.csv
    run "$FS_BIN" lines --seed=1 --csv --split=1,1 -n 0 -o 'c-%d' bad.csv
    [ "$status" -eq 1 ]
    [[ "$output" == *"CSV input ends inside a quoted field"* ]]
    [ ! -e c-1 ]
    run "$FS_BIN" lines --seed=1 --weights=3 -n 0 in
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: --weights: record 1 has no field 3" ]
    run "$FS_BIN" lines --seed=1 --group-by=3 -n 0 in
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: --group-by: record 1 has no field 3" ]
    run "$FS_BIN" lines --seed=1 --header=1 --group-by=2 -n 0 in
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'k\tv')" ]
}

# users.tsv: 2,000 records of 150 users with 1 to 30 records each.
users() {
    python3 -c '
import random
r = random.Random(7)
print("user\tn\ttext")
rows = []
for u in range(150):
    for j in range(r.randint(1, 30)):
        rows.append("u%03d\t%d\tt%d" % (u, j, r.randint(0, 10**6)))
r.shuffle(rows)
print("\n".join(rows))' > users.tsv
}

@test "--split --group-by: no group in two parts, groups cut 80/10/10 by largest remainder, reproducible, memory = disk" {
    users
    args="--seed=gs --header=1 --group-by=user"
    "$FS_BIN" lines $args --split=0.8,0.1,0.1 -o 'm-%d' users.tsv
    "$FS_BIN" lines $args --split=80,10,10 --memory=4K -o 'd-%d.zst' users.tsv
    for k in 1 2 3; do zstd -qdc d-$k.zst | cmp - m-$k; done
    python3 - users.tsv m-1 m-2 m-3 <<'PY'
import sys, collections
src, parts = sys.argv[1], sys.argv[2:]
def rows(p):
    with open(p) as f:
        r = [l.rstrip("\n").split("\t") for l in f]
    return r[0], r[1:]
hdr, data = rows(src)
owner, got = {}, []
users = set(r[0] for r in data)
for k, p in enumerate(parts):
    h, rs = rows(p)
    assert h == hdr
    for r in rs:
        assert owner.setdefault(r[0], k) == k, ("user in two parts", r[0])
    got += rs
# 150 groups, 80/10/10: 120, 15, 15
sizes = [len([u for u in users if owner[u] == k]) for k in range(3)]
assert sizes == [120, 15, 15], sizes
assert sorted(got) == sorted(data)
PY
    # the parts, one after the other, are the --group-by order
    [ "$(cat m-1 <(tail -n +2 m-2) <(tail -n +2 m-3) | md5sum)" = "$("$FS_BIN" lines $args users.tsv | md5sum)" ]
    run "$FS_BIN" lines $args --split=1,1 --stratify=n -o 'x-%d' users.tsv
    [ "$status" -eq 2 ]
    [[ "$output" == *"cannot combine --stratify and --group-by"* ]]
    run "$FS_BIN" lines $args --split=1,1 -n 10 -o 'x-%d' users.tsv
    [ "$status" -eq 2 ]
    [[ "$output" == *"--split --group-by cuts whole groups: -n does not apply"* ]]
    run "$FS_BIN" lines $args --split=1,1 -o a,a users.tsv
    [ "$status" -eq 2 ]
    [ ! -e x-1 ] && [ ! -e a ]
}

@test "--group-by -n K writes the first K records of the grouped order; a header-only input writes the header" {
    users
    args="--seed=gn --header=1 --group-by=user"
    "$FS_BIN" lines $args users.tsv > all
    for k in 0 1 17 2000 5000; do
        "$FS_BIN" lines $args -n $k users.tsv > head
        cmp head <(head -n $((k + 1)) all)
    done
    head -n 1 users.tsv > hdr.tsv
    for extra in "" "--shuffle-within" "--split=1,1 -o p-%d"; do
        run "$FS_BIN" lines $args $extra hdr.tsv
        [ "$status" -eq 0 ]
    done
    [ "$(cat p-1)" = "$(cat hdr.tsv)" ] && [ "$(cat p-2)" = "$(cat hdr.tsv)" ]
}

@test "-n 1 holds a line longer than --memory once, not twice (50 MB line under ulimit -v 115 MB)" {
    skip_if_asan
    head -c 50000000 /dev/zero | tr '\0' x > long
    echo >> long
    printf 'a\nb\n' >> long
    for s in 1 6 7; do # seed 1 draws a short line, 6 and 7 the long one
        want=$("$FS_BIN" lines --seed=$s long | head -n 1 | md5sum)
        # held once the run needs about 80 MB of address space, twice 140
        got=$(bash -c "ulimit -v 115000; \"$FS_BIN\" lines --seed=$s -n 1 --memory=4K long" | md5sum)
        [ "$got" = "$want" ] || { echo "seed $s"; return 1; }
    done
    # the long line last, without its end, and through a pipe
    printf 'a\nb\n' > last
    head -c 50000000 /dev/zero | tr '\0' x >> last
    for s in 1 3; do # 1: a short line, 3: the long one
        want=$("$FS_BIN" lines --seed=$s last | head -n 1 | md5sum)
        got=$(cat last | bash -c "ulimit -v 115000; \"$FS_BIN\" lines --seed=$s -n 1" | md5sum)
        [ "$got" = "$want" ] || { echo "pipe, seed $s"; return 1; }
    done
}

@test "--weights: the documented number syntax, blanks on either side alike; the documented line ends" {
    for w in ' 1' '1 ' '+1' '1.' '.5' '2.5E-2' '1e+2' "$(printf '1\r')"; do
        printf 'a\t%s\nb\t0\n' "$w" > w.tsv
        run "$FS_BIN" lines --seed=1 --weights=2 -n 2 w.tsv
        [ "$status" -eq 0 ] || { echo "weight '$w' refused"; return 1; }
        [ "$(printf '%s\n' "$output" | cut -f1)" = a ]
    done
    for w in '-1' '-0' '0x10' 'inf' 'nan' '1,5' '1_0' '' '.' '1e' '+' '1 2'; do
        printf 'a\t%s\n' "$w" > w.tsv
        run "$FS_BIN" lines --seed=1 --weights=2 -n 1 w.tsv
        [ "$status" -eq 1 ] || { echo "weight '$w' taken"; return 1; }
        [ "$output" = "fairshuf: --weights: record 1: $w is not a weight (a decimal number >= 0)" ]
    done
    # a CR before LF is part of the line, not of the last field
    printf 'k\tv\r\nx\t1\r\ny\t1\nz\t2\n' > cr.tsv
    "$FS_BIN" lines --seed=3 --header=1 --group-by=v cr.tsv | grep -c $'\r$' | grep -qx 2
    for s in 1 2 3 4 5 6; do
        out=$("$FS_BIN" lines --seed=$s --header=1 --group-by=v cr.tsv | tail -n +2 | cut -c1 | paste -s -d '')
        case "$out" in xyz|zxy) ;; *) echo "x and y split: $out"; return 1 ;; esac
    done
    # a CSV whose only record has no end gets LF; a last record, the first's end
    [ "$(printf 'a,b' | "$FS_BIN" lines --csv | od -An -c | tr -s ' ')" = " a , b \n" ]
    printf 'h,1\r\nb,"y"' | "$FS_BIN" lines --csv --seed=1 | grep -c $'\r$' | grep -qx 2
}

@test "-t: the message says what -t takes (one byte, or \\t or \\0), and both escapes work" {
    printf 'a:1\nb:2\n' > in
    run "$FS_BIN" lines --seed=1 -t ab --group-by=2 in
    [ "$status" -eq 2 ]
    [[ "$output" == 'fairshuf: invalid field separator: '\''ab'\'' (one byte, or \t or \0)'* ]]
    printf 'a\t1\nb\t2\n' > tab
    [ "$("$FS_BIN" lines --seed=1 -t '\t' --group-by=2 tab | sort)" = "$(sort tab)" ]
    [ "$("$FS_BIN" lines --seed=1 -t : --group-by=2 in | sort)" = "$(sort in)" ]
}
