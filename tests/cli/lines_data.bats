#!/usr/bin/env bats
# lines_data.bats -- fairshuf lines for data work (issue 29): a default
# memory budget that fits the process (ulimit -v, a cgroup memory limit),
# compressed input and output, CSV records, fields, split, weights, groups.

setup() {
    export LC_ALL=C
    cd "$BATS_TEST_TMPDIR"
}

# ~30 MB of 80-byte lines, made without randomness.
big_file() {
    seq 1 375000 | awk '{printf "%07d-abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz012\n", $1*7919 % 1000003}' > big
}

@test "default budget: under ulimit -v the run spills and equals the unlimited output" {
    skip_if_asan
    big_file
    want=$("$FS_BIN" lines --seed=u big | md5sum)
    # 30 MB of address space: less than the input; the old default (half
    # the machine's free memory) died with "memory exhausted" here.
    for v in 30000 40000; do
        got=$(bash -c "ulimit -v $v; \"$FS_BIN\" lines --seed=u big" | md5sum)
        [ "$got" = "$want" ] || { echo "ulimit -v $v: file differs"; return 1; }
        got=$(bash -c "ulimit -v $v; \"$FS_BIN\" lines --seed=u < big" | md5sum)
        [ "$got" = "$want" ] || { echo "ulimit -v $v: stdin differs"; return 1; }
        got=$(cat big | bash -c "ulimit -v $v; \"$FS_BIN\" lines --seed=u" | md5sum)
        [ "$got" = "$want" ] || { echo "ulimit -v $v: pipe differs"; return 1; }
    done
}

@test "an explicit budget the process cannot have: the error names --memory" {
    skip_if_asan
    big_file
    run bash -c "ulimit -v 36000; cat big | \"$FS_BIN\" lines --seed=u --memory=1G > out"
    if [ "$status" -ne 0 ]; then
        [ "$status" -eq 1 ]
        [[ "$output" == "fairshuf: memory exhausted"*"--memory"* ]]
    else # the fallback to disk got through: then it is the same output
        [ "$(md5sum < out)" = "$("$FS_BIN" lines --seed=u big | md5sum)" ]
    fi
}

# Makes a child of this process's memory cgroup (v2, or v1's memory
# controller) with a limit of $1; prints its folder, or fails.
make_cgroup() {
    local rel dir
    rel=$(awk -F: '$1 == "0" && $2 == "" {print $3}' /proc/self/cgroup)
    if [ -n "$rel" ] && [ -f /sys/fs/cgroup/cgroup.controllers ]; then
        dir=/sys/fs/cgroup${rel%/}/fairshuf-test-$$
        if mkdir "$dir" 2>/dev/null; then
            echo "$1" > "$dir/memory.max" 2>/dev/null &&
                { echo 0 > "$dir/memory.swap.max"; } 2>/dev/null
            [ "$(cat "$dir/memory.max" 2>/dev/null)" != max ] &&
                [ -f "$dir/memory.max" ] && { echo "$dir"; return 0; }
            rmdir "$dir"
        fi
    fi
    rel=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
    [ -n "$rel" ] && [ -d /sys/fs/cgroup/memory ] || return 1
    dir=/sys/fs/cgroup/memory${rel%/}/fairshuf-test-$$
    mkdir "$dir" 2>/dev/null || return 1
    echo "$1" > "$dir/memory.limit_in_bytes" 2>/dev/null || { rmdir "$dir"; return 1; }
    echo "$dir"
}

# AddressSanitizer reserves terabytes of address space and doubles memory.
skip_if_asan() {
    if grep -q __asan_init "$FS_BIN" 2>/dev/null; then
        skip "AddressSanitizer build: a memory limit cannot apply to it"
    fi
}

@test "default budget: under a cgroup memory limit the run equals the unlimited output" {
    skip_if_asan
    big_file
    want=$("$FS_BIN" lines --seed=c big | md5sum)
    dir=$(make_cgroup 24M) || skip "the kernel refuses a child memory cgroup here (not root, or no delegation)"
    # the run is in the cgroup: 24 MiB for a 30 MB input (the old default
    # budget read it all and was killed by the OOM killer)
    run bash -c "echo \$\$ > '$dir/cgroup.procs' && exec \"$FS_BIN\" lines --seed=c big > out1"
    s1=$status o1=$output
    run bash -c "cat big | bash -c \"echo \\\$\\\$ > '$dir/cgroup.procs' && exec '$FS_BIN' lines --seed=c\" > out2"
    s2=$status o2=$output
    fails=$(cat "$dir/memory.failcnt" 2>/dev/null || echo -)
    rmdir "$dir" || true
    echo "file: status $s1 $o1; pipe: status $s2 $o2; limit hits: $fails"
    [ "$s1" -eq 0 ]
    [ "$s2" -eq 0 ]
    [ "$(md5sum < out1)" = "$want" ]
    [ "$(md5sum < out2)" = "$want" ]
}

# Runs fairshuf lines in a mount namespace whose cgroup v2 files at $1 (the
# pure-v2 mount /sys/fs/cgroup, or a hybrid machine's /sys/fs/cgroup/unified)
# are a tmpfs saying memory.max = $2: the kernel does not enforce it, but
# the default budget must read it.  -T names a missing folder, so a run
# that goes out of core fails and one that stays in memory succeeds.
fake_cgroup2_run() {
    local mount=$1 max=$2 rel
    rel=$(awk -F: '$1 == "0" && $2 == "" {print $3}' /proc/self/cgroup)
    unshare -m bash -c "
        mount -t tmpfs fairshuf-test '$mount' || exit 99
        for d in '$mount' '$mount${rel%/}'; do
            mkdir -p \"\$d\" && echo '$max' > \"\$d/memory.max\" &&
                echo 0 > \"\$d/memory.current\" &&
                echo 'inactive_file 0' > \"\$d/memory.stat\" || exit 99
        done
        exec '$FS_BIN' lines --seed=c -T '$BATS_TEST_TMPDIR/missing' big > out"
}

@test "default budget: a cgroup v2 memory.max is read (pure v2 and hybrid mounts)" {
    [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null ||
        skip "needs root and mount namespaces (unshare -m)"
    big_file
    want=$("$FS_BIN" lines --seed=c big | md5sum)
    # control: with no limit the 30 MB input stays in memory (the missing
    # temporary folder is never touched)
    "$FS_BIN" lines --seed=c -T "$BATS_TEST_TMPDIR/missing" big > out
    [ "$(md5sum < out)" = "$want" ]
    tried=0
    for mount in /sys/fs/cgroup /sys/fs/cgroup/unified; do
        [ -d "$mount" ] || continue
        tried=$((tried + 1))
        run fake_cgroup2_run "$mount" max
        [ "$status" -eq 0 ] || { echo "$mount max: $status $output"; return 1; }
        [ "$(md5sum < out)" = "$want" ]
        # 24 MiB: the budget is below the input, the run must go out of core
        run fake_cgroup2_run "$mount" 25165824
        [ "$status" -eq 1 ] || { echo "$mount 24M: $status $output"; return 1; }
        [[ "$output" == *"fairshuf: temporary file in '$BATS_TEST_TMPDIR/missing'"* ]]
    done
    [ "$tried" -gt 0 ] || skip "no /sys/fs/cgroup to stand in for"
}

# ------------------------------------------------------------ compression

@test ".gz and .zst input (file and pipe) give the seeded order of the plain lines" {
    seq 20000 | sed 's/$/ some text/' > plain
    gzip -c plain > in.gz
    zstd -q -c plain > in.zst
    cat plain plain | gzip -c > two.gz      # two gzip members
    { gzip -c plain; gzip -c plain; } > cat.gz
    want=$("$FS_BIN" lines --seed=z plain | md5sum)
    for args in "in.gz" "in.zst" "--memory=1M in.gz" "--memory=1M in.zst" \
                "--threads=1 in.gz"; do
        [ "$("$FS_BIN" lines --seed=z $args | md5sum)" = "$want" ] || { echo "$args"; return 1; }
    done
    [ "$("$FS_BIN" lines --seed=z < in.gz | md5sum)" = "$want" ]
    [ "$(cat in.zst | "$FS_BIN" lines --seed=z | md5sum)" = "$want" ]
    [ "$(cat in.gz | "$FS_BIN" lines --seed=z --memory=1M | md5sum)" = "$want" ]
    # -n K is the head of the same order
    [ "$("$FS_BIN" lines --seed=z -n 7 in.zst)" = "$("$FS_BIN" lines --seed=z plain | head -n 7)" ]
    # concatenated members: as gzip -d reads them
    [ "$("$FS_BIN" lines --seed=z cat.gz | md5sum)" = "$("$FS_BIN" lines --seed=z two.gz | md5sum)" ]
    [ "$("$FS_BIN" lines --seed=z cat.gz | sort | md5sum)" = "$(cat plain plain | sort | md5sum)" ]
}

@test "-o F.gz and -o F.zst compress (read back by gzip and zstd themselves)" {
    seq 5000 > plain
    want=$("$FS_BIN" lines --seed=o plain | md5sum)
    "$FS_BIN" lines --seed=o plain -o out.gz
    "$FS_BIN" lines --seed=o plain -o out.zst
    [ "$(gzip -dc out.gz | md5sum)" = "$want" ]
    [ "$(zstd -dc out.zst | md5sum)" = "$want" ]
    # round trip: compressed in, compressed out, out of core
    "$FS_BIN" lines --seed=o --memory=1M out.gz -o again.zst
    [ "$(zstd -dc again.zst | md5sum)" = "$(gzip -dc out.gz | "$FS_BIN" lines --seed=o | md5sum)" ]
    [ "$(zstd -dc again.zst | sort -n | md5sum)" = "$(md5sum < plain)" ]
    # -i and -e output compresses too
    "$FS_BIN" lines --seed=o -i 1-100 -o nums.gz
    [ "$(gzip -dc nums.gz | sort -n | md5sum)" = "$(seq 100 | md5sum)" ]
}

@test "damaged .gz or .zst input: a clear error, exit 1, no output, FILE untouched" {
    seq 50000 > plain
    gzip -c plain > good.gz
    zstd -q -c plain > good.zst
    head -c 20000 good.gz > cut.gz
    head -c 20000 good.zst > cut.zst
    { head -c 400 good.gz; printf 'garbage in the middle'; tail -c +421 good.gz; } > bad.gz
    { head -c 400 good.zst; printf 'garbage in the middle'; tail -c +421 good.zst; } > bad.zst
    echo keep > out
    for f in cut.gz cut.zst bad.gz bad.zst; do
        for mem in "" "--memory=1M" "-n 3"; do
            run "$FS_BIN" lines --seed=d $mem -o out "$f"
            [ "$status" -eq 1 ] || { echo "$f $mem: status $status"; return 1; }
            [[ "$output" == "fairshuf: $f: "*" data is "*(truncated|corrupt)* ]] || { echo "$f: $output"; return 1; }
            [ "$(cat out)" = keep ]
            run bash -c "cat $f | \"$FS_BIN\" lines --seed=d $mem > piped"
            [ "$status" -eq 1 ]
            [ ! -s piped ] || { echo "$f $mem: output on a damaged pipe"; return 1; }
        done
    done
    run "$FS_BIN" lines --seed=d -o new.gz cut.gz
    [ "$status" -eq 1 ]
    [ ! -e new.gz ]
    [ -z "$(ls -A | grep fairshuf)" ] # no temporary file left
}

# -------------------------------------------------------------------- CSV

csv_fixture() {
    printf 'id,name,note\r\n'
    printf '1,"Smith, J","line one\r\nline two"\r\n'
    printf '2,plain,"she said ""hi"""\r\n'
    printf '3,"",\r\n'
    printf '4,"multi\r\n\r\nblank lines inside",x\r\n'
    printf '5,last,no end'
}

@test "--csv keeps records with embedded newlines, quotes and CRLF whole" {
    csv_fixture > in.csv
    "$FS_BIN" lines --csv --header=1 --seed=c in.csv > out.csv
    # the header first, then the 5 records, each whole, in some order
    [ "$(head -c 14 out.csv | od -An -c | tr -d ' \n')" = 'id,name,note\r\n' ]
    python3 - in.csv out.csv <<'PY'
import csv, sys
def rows(p):
    with open(p, newline='') as f:
        return list(csv.reader(f))
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert a[0] == b[0], (a[0], b[0])
assert sorted(a[1:]) == sorted(b[1:]), (a, b)
PY
    # the last record gets the file's own record end (CRLF)
    [ "$(grep -c $'no end\r$' out.csv)" -eq 1 ]
    # the order is the keyed order of 5 items: that of 5 plain lines
    order=$("$FS_BIN" lines --csv --header=1 --seed=c in.csv | python3 -c '
import csv, sys
print(" ".join(r[0] for r in list(csv.reader(sys.stdin))[1:]))')
    plain=$(printf 'h\n1\n2\n3\n4\n5\n' | "$FS_BIN" lines --header=1 --seed=c | tail -n +2 | tr '\n' ' ')
    [ "$order " = "$plain" ]
}

@test "--csv: the same output in memory, with --memory=1M, from a pipe, and -n is its head" {
    python3 -c '
import random
r = random.Random(5)
print("k,v")
for i in range(30000):
    t = r.choice(["a", "b\nc", "q\"\"q", "x,y", "z\r\nw"])
    print("%d,\"%s\"" % (i, t))' > big.csv
    want=$("$FS_BIN" lines --csv --header=1 --seed=m big.csv | md5sum)
    [ "$("$FS_BIN" lines --csv --header=1 --seed=m --memory=1M big.csv | md5sum)" = "$want" ]
    [ "$(cat big.csv | "$FS_BIN" lines --csv --header=1 --seed=m --memory=1M | md5sum)" = "$want" ]
    gzip -c big.csv > big.csv.gz
    [ "$("$FS_BIN" lines --csv --header=1 --seed=m big.csv.gz | md5sum)" = "$want" ]
    [ "$("$FS_BIN" lines --csv --header=1 --seed=m -n 10 big.csv | md5sum)" = \
      "$("$FS_BIN" lines --csv --header=1 --seed=m big.csv | python3 -c '
import csv, sys
w = csv.writer(sys.stdout, lineterminator="\n")
for i, r in enumerate(csv.reader(sys.stdin)):
    if i <= 10: w.writerow(r)' | md5sum)" ]
}

@test "--csv: an unterminated quote or a NUL byte is an error; --csv with -z, -e, -i is refused" {
    printf 'a,"b\nc\n' > open.csv
    run "$FS_BIN" lines --csv --seed=1 open.csv
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: open.csv: CSV input ends inside a quoted field" ]
    printf 'a\0b\n' > nul.csv
    run "$FS_BIN" lines --csv --seed=1 nul.csv
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: nul.csv: CSV input holds a NUL byte" ]
    run "$FS_BIN" lines --csv -z nul.csv
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot combine --csv and -z"* ]]
    run "$FS_BIN" lines --csv -i 1-3
    [ "$status" -eq 1 ]
}

# ------------------------------------------------- split, weights, groups

labelled() { # N rows: id, label (a 70 %, b 20 %, c 10 %), weight, text
    python3 -c '
import random, sys
r = random.Random(int(sys.argv[2]))
print("id,label,w,text" if sys.argv[3] == "csv" else "id\tlabel\tw\ttext")
for i in range(int(sys.argv[1])):
    lab = r.choice("aaaaaaabbc")
    t = r.choice(["plain", "with \"\"quote\"\"", "two\nlines", "comma, inside"])
    if sys.argv[3] == "csv":
        print("%d,%s,%d,\"%s\"" % (i, lab, r.randint(0, 5), t))
    else:
        print("%d\t%s\t%d\t%s" % (i, lab, r.randint(0, 5), t.replace("\n", " ")))' "$@"
}

@test "--split: parts partition the input, sizes by largest remainder, each part in shuffled order" {
    seq 1003 > in
    "$FS_BIN" lines --seed=p --split=80,10,10 -o 'part-%d' in
    # 802.4, 100.3, 100.3: floors 802, 100, 100; the one left goes to the
    # largest remainder (0.4: part 1)
    [ "$(wc -l < part-1)" -eq 803 ]
    [ "$(wc -l < part-2)" -eq 100 ]
    [ "$(wc -l < part-3)" -eq 100 ]
    [ "$(cat part-1 part-2 part-3 | wc -l)" -eq 1003 ]
    [ "$(cat part-1 part-2 part-3 | sort -n | md5sum)" = "$(md5sum < in)" ]
    # one seeded shuffle cut in parts: the parts, in order, are the shuffle
    [ "$(cat part-1 part-2 part-3 | md5sum)" = "$("$FS_BIN" lines --seed=p in | md5sum)" ]
    # named outputs, compressed parts, out of core: the same cut
    "$FS_BIN" lines --seed=p --split=80,10,10 --memory=1M -o a.gz,b.zst,c in
    [ "$( { gzip -dc a.gz; zstd -dc b.zst; cat c; } | md5sum)" = "$(cat part-1 part-2 part-3 | md5sum)" ]
    run "$FS_BIN" lines --split=80,20 -o x,y,z in
    [ "$status" -eq 2 ]
    run "$FS_BIN" lines --split=80 -o 'p-%d' in
    [ "$status" -eq 2 ]
    [[ "$output" == *"invalid --split"* ]]
    run "$FS_BIN" lines --split=1,1 in
    [ "$status" -eq 2 ]
}

@test "--split --stratify: every part holds each value's share (within 1 record), CSV and TSV, memory and --memory=1M" {
    for fmt in csv tsv; do
        labelled 2000 3 $fmt > in.$fmt
        args="--seed=st --header=1 --split=60,25,15 --stratify=label"
        [ $fmt = csv ] && args="$args --csv"
        "$FS_BIN" lines $args -o "m-%d.$fmt" in.$fmt
        "$FS_BIN" lines $args --memory=1M -o "d-%d.$fmt" in.$fmt
        for k in 1 2 3; do
            cmp "m-$k.$fmt" "d-$k.$fmt"
        done
        python3 - "$fmt" in.$fmt m-1.$fmt m-2.$fmt m-3.$fmt <<'PY'
import csv, sys, collections
fmt, src, parts = sys.argv[1], sys.argv[2], sys.argv[3:]
def rows(p):
    with open(p, newline="") as f:
        r = list(csv.reader(f, delimiter="," if fmt == "csv" else "\t"))
    return r[0], r[1:]
hdr, allrows = rows(src)
total = collections.Counter(r[1] for r in allrows)
w = [60, 25, 15]
seen = []
for k, p in enumerate(parts):
    h, rs = rows(p)
    assert h == hdr, "every part starts with the header"
    c = collections.Counter(r[1] for r in rs)
    for lab, n in total.items():
        assert abs(c[lab] - n * w[k] / 100) < 1, (p, lab, c[lab], n)
    seen += rs
assert sorted(seen) == sorted(allrows), "the parts partition the input"
PY
    done
    run "$FS_BIN" lines --seed=1 --header=1 --split=1,1 --stratify=nope -o 'x-%d' in.tsv
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: --stratify: no field nope in the header" ]
    run "$FS_BIN" lines --seed=1 --split=1,1 --stratify=label -o 'x-%d' in.tsv
    [ "$status" -eq 2 ]
    [[ "$output" == *"--stratify: field 'label' is a name: it needs --header=1"* ]]
    run "$FS_BIN" lines --seed=1 --split=1,1 --stratify=0 -o 'x-%d' in.tsv
    [ "$status" -eq 2 ]
    [[ "$output" == *"--stratify: invalid field '0'"* ]]
}

@test "--weights: the same selection in memory, with --memory=1M, from a pipe and compressed; bad weights are errors" {
    for fmt in csv tsv; do
        labelled 3000 4 $fmt > in.$fmt
        args="--seed=w --header=1 --weights=w -n 500"
        [ $fmt = csv ] && args="$args --csv"
        want=$("$FS_BIN" lines $args in.$fmt | md5sum)
        [ "$("$FS_BIN" lines $args --memory=1M in.$fmt | md5sum)" = "$want" ]
        [ "$("$FS_BIN" lines $args --memory=4K in.$fmt | md5sum)" = "$want" ]
        [ "$(gzip -c in.$fmt | "$FS_BIN" lines $args | md5sum)" = "$want" ]
        # by column number too
        [ "$("$FS_BIN" lines ${args/--weights=w/--weights=3} in.$fmt | md5sum)" = "$want" ]
    done
    # weight 0 is never drawn; -n larger than the positive ones: all of them
    printf 'a\t0\nb\t2\nc\t1\n' > small
    [ "$("$FS_BIN" lines --seed=1 --weights=2 -n 5 small | cut -f1 | sort | paste -s -d ' ')" = "b c" ]
    printf 'a\t1\nb\t-2\n' > neg
    run "$FS_BIN" lines --seed=1 --weights=2 -n 1 neg
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: --weights: record 2: -2 is not a weight (a decimal number >= 0)" ]
    run "$FS_BIN" lines --seed=1 --weights=2 neg
    [ "$status" -eq 2 ]
    [[ "$output" == *"--weights needs -n COUNT"* ]]
}

@test "--group-by: groups contiguous, input order within, the same with --memory=1M; --shuffle-within" {
    for fmt in csv tsv; do
        labelled 3000 5 $fmt > in.$fmt
        base="--seed=g --header=1 --group-by=label"
        [ $fmt = csv ] && base="$base --csv"
        for extra in "" "--shuffle-within"; do
            "$FS_BIN" lines $base $extra in.$fmt > mem
            "$FS_BIN" lines $base $extra --memory=1M in.$fmt > disk
            cmp mem disk
            python3 - "$fmt" in.$fmt mem "$extra" <<'PY'
import csv, sys
fmt, src, out, extra = sys.argv[1:5]
d = "," if fmt == "csv" else "\t"
def rows(p):
    with open(p, newline="") as f:
        return list(csv.reader(f, delimiter=d))
a, b = rows(src), rows(out)
assert a[0] == b[0]
labels = [r[1] for r in b[1:]]
runs = [l for i, l in enumerate(labels) if i == 0 or labels[i - 1] != l]
assert len(runs) == len(set(runs)) == 3, runs   # each group contiguous
for lab in set(labels):
    ids = [int(r[0]) for r in b[1:] if r[1] == lab]
    if extra:
        assert ids != sorted(ids), "shuffled within"
    else:
        assert ids == sorted(ids), "input order within a group"
assert sorted(a[1:]) == sorted(b[1:])
PY
        done
    done
    # the order of groups changes with the seed
    seen=""
    for s in 1 2 3 4 5 6 7 8; do
        seen="$seen $("$FS_BIN" lines --seed=$s --header=1 --group-by=2 in.tsv | tail -n +2 | cut -f2 | uniq | paste -s -d '')"
    done
    [ "$(echo $seen | tr ' ' '\n' | sort -u | wc -l)" -ge 3 ]
}
