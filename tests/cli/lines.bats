#!/usr/bin/env bats
# lines.bats -- fairshuf lines: GNU-identical output for --random-source,
# and the keyed (--seed) design: reproducible across file/pipe, memory
# budget, threads; -n K is the head of the full output; out of core.

setup() {
    export LC_ALL=C
    SHUF="$(dirname "$FS_BIN")/shuf"
    cd "$BATS_TEST_TMPDIR"
}

rand_bytes() { # SEED BYTES > file: a fixed byte string
    "$FS_BIN" rng --seed="$1" --bytes="$2" --format=raw
}

@test "--random-source: byte-identical to GNU shuf for file, -e, -i, -r, -z, pipes" {
    seq 1000 > s1k
    seq 30000 > s30k
    printf 'x\ny\nz' > nonl
    for seed in 1 2 3; do
        rand_bytes "$seed" 400000 > rs
        while IFS= read -r args; do
            eval "set -- $args"
            a=$(/usr/bin/shuf --random-source=rs "$@" | md5sum)
            b=$("$SHUF" --random-source=rs "$@" | md5sum)
            [ "$a" = "$b" ] || { echo "differs: $args"; return 1; }
        done <<'ARGS'
s1k
-n 5 s1k
-n 1000 s1k
-n 2000 s1k
nonl
-z s1k
-e a b c d e f
-n 3 -e a b c d e f
-i 1-100
-i 5-1000000 -n 5
-i 0-18446744073709551614 -n 3
-r -n 10 s1k
-r -n 7 -i 1-1000
-r -n 5 -i 0-18446744073709551614
ARGS
        # stdin with -n: GNU's reservoir path, replayed draw for draw
        for k in 1 5 29999 30000 40000; do
            a=$(/usr/bin/shuf -n "$k" --random-source=rs < <(cat s30k) | md5sum)
            b=$("$SHUF" -n "$k" --random-source=rs < <(cat s30k) | md5sum)
            [ "$a" = "$b" ] || { echo "differs: pipe -n $k"; return 1; }
        done
    done
}

@test "--seed: documented mapping (line i gets the i-th u64 of the seeded stream)" {
    seq 2000 > in
    "$FS_BIN" rng --seed=doc --count=2000 --format=u64 > keys
    paste keys in | sort -k1,1n | cut -f2 > expect
    "$FS_BIN" lines --seed=doc in | cmp - expect
    # -e follows the same order
    "$FS_BIN" lines --seed=doc -e $(seq 2000) | cmp - expect
}

@test "--seed: golden output (stream version 1)" {
    run "$FS_BIN" lines --seed=golden -e a b c d e f g h
    # pinned: a change here is a change of the seeded stream (docs/lines.md)
    [ "$(echo "$output" | paste -s -d ' ')" = "g a f c e d b h" ]
}

@test "--seed: same bytes for file, pipe, --memory=8M, threads 1 and 2, -T" {
    seq 1000000 1400000 | sed 's/$/ some padding text/' > in   # ~10 MB
    "$FS_BIN" lines --seed=s in > ref
    sort in | cmp - <(sort ref)
    ! cmp -s in ref
    cat in | "$FS_BIN" lines --seed=s | cmp - ref
    "$FS_BIN" lines --seed=s --memory=8M in | cmp - ref
    cat in | "$FS_BIN" lines --seed=s --memory=1M -T "$BATS_TEST_TMPDIR" | cmp - ref
    "$FS_BIN" lines --seed=s --threads=1 in | cmp - ref
    "$FS_BIN" lines --seed=s --threads=2 in | cmp - ref
    "$FS_BIN" lines --seed=s --threads=2 --memory=1M in | cmp - ref
}

@test "--seed: a 270 MB file of long lines, read four times instead of held: same bytes as from a pipe" {
    # >= 256 MiB of lines averaging >= 64 bytes: the file is read four times
    # (lib/lines/passes.c), half the key space each time; a pipe is read
    # once into memory.  -n and --header too; under the limit the usual path.
    seq 1 2300000 | awk '{ printf "%d,%0112d\n", $1, $1 * 7 }' > in
    [ "$(stat -c %s in)" -gt 268435456 ]
    cat in | "$FS_BIN" lines --seed=p > ref
    "$FS_BIN" lines --seed=p in | cmp - ref
    "$FS_BIN" lines --seed=p --threads=1 in | cmp - ref
    cat in | "$FS_BIN" lines --seed=p --header=1 -n 1150000 > ref2
    "$FS_BIN" lines --seed=p --header=1 -n 1150000 in | cmp - ref2
    # a budget a window does not fit: on disk, the same bytes
    "$FS_BIN" lines --seed=p --memory=64M -T "$BATS_TEST_TMPDIR" in | cmp - ref
    # the file changes between the reads: the output is opened after the
    # first, so once a byte has come through the pipe the first read is over;
    # the second finds the file changed: an error, exit 1
    # (--memory: the default budget follows the machine's free memory, and
    # under too little of it the file would be read once, out of core)
    mkfifo fifo
    # (1) one byte rewritten in place, every line end kept: only the file's
    # modification time tells; (2) the file cut short
    for change in "printf Z | dd of=in bs=1 seek=0 conv=notrunc status=none" \
                  "truncate -s -10 in"; do
        "$FS_BIN" lines --memory=2G in > fifo 2> err &
        pid=$!
        exec 8< fifo
        IFS= read -r -N 1 -u 8 first
        eval "$change"
        cat <&8 > /dev/null
        exec 8<&-
        status=0
        wait "$pid" || status=$?
        [ "$status" -eq 1 ]
        grep -qx "fairshuf: in: file changed as we read it (a large file is read more than once, not held in memory)" err
    done
    [ "$(head -c 1 in)" = Z ] # the edit was made
    rm -f in ref ref2 fifo
}

@test "--seed: out of core with 78K-line buckets (split intake, scatter from a midpoint) = in memory" {
    # 5e6 lines do not fit --memory=48M: 64 buckets of about 78K lines, so the
    # intake runs in two lanes, each bucket is loaded by two threads and
    # scattered by two from a block start near its middle
    seq 1 5000000 > in
    "$FS_BIN" lines --seed=m in > ref
    "$FS_BIN" lines --seed=m --threads=2 --memory=48M -T "$BATS_TEST_TMPDIR" in | cmp - ref
    cat in | "$FS_BIN" lines --seed=m --threads=2 --memory=48M -T "$BATS_TEST_TMPDIR" | cmp - ref
    "$FS_BIN" lines --seed=m --threads=1 --memory=48M -T "$BATS_TEST_TMPDIR" in | cmp - ref
}

@test "--seed: pinned bytes of a 70001-line file, any threads, memory or disk" {
    # >= 65536 lines: the threaded paths (key histogram counted while
    # reading, buckets filled from both ends, chunks gathered in parallel
    # and written in order); lines of 3 to 600000 bytes (a line longer than
    # a gather buffer is written on its own) and no final newline.  The
    # md5 was computed by the engine before those paths existed.
    awk -v pad="$(head -c 3000 /dev/zero | tr '\0' x)" 'BEGIN {
        for (i = 0; i < 70000; i++) {
            n = (i % 7 == 0) ? 40 : (i % 13 == 0 ? 3000 : 3)
            printf "%d-%s\n", i, substr(pad, 1, n)
        } }' > in
    { head -c 600000 /dev/zero | tr '\0' y; echo; } >> in
    printf 'last-no-newline' >> in
    want=17ce445cf675ec738ca3af626715a397
    for a in --threads=1 --threads=2 --threads=3 --threads=4 --memory=1M; do
        [ "$("$FS_BIN" lines --seed=long $a in | md5sum | cut -d' ' -f1)" = "$want" ]
    done
    [ "$(cat in | "$FS_BIN" lines --seed=long | md5sum | cut -d' ' -f1)" = "$want" ]
}

@test "--seed: -n K is the head of the full output (memory and disk)" {
    seq 50000 > in
    "$FS_BIN" lines --seed=h in > full
    for k in 1 2 17 1000 49999 50000 60000; do
        "$FS_BIN" lines --seed=h -n "$k" in | cmp - <(head -n "$k" full)
        "$FS_BIN" lines --seed=h -n "$k" --memory=64K in | cmp - <(head -n "$k" full)
    done
    "$FS_BIN" lines --seed=h -i 1-1000000 > fulli
    for k in 1 5 100 200000; do
        "$FS_BIN" lines --seed=h -i 1-1000000 -n "$k" | cmp - <(head -n "$k" fulli)
    done
}

@test "permutation at sizes 0, 1, 2, 1000 and larger than --memory" {
    for n in 0 1 2 1000; do
        seq "$n" > in
        "$FS_BIN" lines in | sort -n | cmp - in
        "$FS_BIN" lines --memory=4K in | sort -n | cmp - in
    done
    # lines of many lengths, some long, no final newline, over a 64K budget
    awk 'BEGIN { for (i = 0; i < 20000; i++) { s = i; for (j = 0; j < i % 50; j++) s = s "x"; print s }
                 for (j = 0; j < 100000; j++) printf "L"; printf "\n"; printf "last" }' > in
    "$FS_BIN" lines --memory=64K in | sort > out
    { cat in; echo; } | sort | cmp - out
    # empty lines and NUL-terminated records
    printf '\n\n\na\n\n' | "$FS_BIN" lines --memory=4K | sort | cmp - <(printf '\n\n\n\na\n')
    printf 'a\0b\nc\0\0' | "$FS_BIN" lines -z --memory=4K | sort -z | od -c > out
    printf 'a\0b\nc\0\0' | sort -z | od -c | cmp - out
}

@test "-o F F is safe in every mode; -o is opened only after input" {
    seq 1000 > f
    "$FS_BIN" lines --seed=1 -o f f
    sort -n f | cmp - <(seq 1000)
    seq 1000 > f
    "$FS_BIN" lines --seed=1 --memory=8K -o f f
    sort -n f | cmp - <(seq 1000)
    # input error: the output file is neither created nor truncated
    seq 5 > g
    run "$FS_BIN" lines --seed=1 -o g /nonexistent
    [ "$status" -eq 1 ]
    seq 5 | cmp - g
    run "$FS_BIN" lines --seed=1 -o h /nonexistent
    [ ! -e h ]
}

@test "-o F: a new file renamed over F; F keeps its mode; a link keeps its target" {
    seq 100 > f
    chmod 640 f
    "$FS_BIN" lines --seed=1 -o f f
    [ "$(stat -c %a f)" = 640 ]
    sort -n f | cmp - <(seq 100)
    # a new F: 0666 less the umask, as GNU's open(O_CREAT)
    (umask 027; "$FS_BIN" lines --seed=1 -o new f)
    [ "$(stat -c %a new)" = 640 ]
    (umask 022; "$FS_BIN" lines --seed=1 -o new2 -i 1-3)
    [ "$(stat -c %a new2)" = 644 ]
    # a symbolic link stays a link to the shuffled file
    seq 50 > target
    ln -s target link
    "$FS_BIN" lines --seed=2 -o link link
    [ -L link ] && [ "$(readlink link)" = target ]
    sort -n target | cmp - <(seq 50)
    # not regular files are written in place, as GNU does
    "$FS_BIN" lines -o /dev/null -i 1-5
    # nothing else left in the folder
    [ "$(ls -A | grep -c fairshuf)" = 0 ]
    # a folder that does not exist: GNU's message
    run "$FS_BIN" lines -o nodir/x -e a
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: nodir/x: No such file or directory" ]
}

@test "--header=N keeps the first lines in place" {
    printf 'H1\nH2\n' > in
    seq 100 >> in
    "$FS_BIN" lines --seed=x --header=2 in > out
    [ "$(head -n 2 out | paste -s -d ' ')" = "H1 H2" ]
    tail -n +3 out | sort -n | cmp - <(seq 100)
    "$FS_BIN" lines --seed=x --header=2 --memory=4K in | cmp - out
    cat in | "$FS_BIN" lines --seed=x --header=2 --memory=4K | cmp - out
    [ "$("$FS_BIN" lines --header=5 -e a b | paste -s -d ' ')" = "a b" ]
    "$FS_BIN" lines --seed=x --header=2 -n 3 in | cmp - <(head -n 5 out)
}

@test "temporary files: none left behind, a full disk names the directory" {
    seq 200000 > in
    mkdir tmpd
    "$FS_BIN" lines --memory=256K -T tmpd in > /dev/null
    [ -z "$(ls -A tmpd)" ]
    # a file size limit makes temporary writes fail like a full disk
    run bash -c 'trap "" XFSZ; ulimit -f 64; "$0" lines --memory=256K -T tmpd in > /dev/null' "$FS_BIN"
    [ "$status" -eq 1 ]
    [[ "$output" == *"temporary file in 'tmpd': File too large"* ]]
    [ -z "$(ls -A tmpd)" ]
    run "$FS_BIN" lines --memory=64K -T /nonexistent in
    [ "$status" -eq 1 ]
    [[ "$output" == *"'/nonexistent'"* ]]
    # killed mid-run: still nothing left
    seq 1000000 > big
    "$FS_BIN" lines --memory=64K -T tmpd big > /dev/null &
    pid=$!
    sleep 0.2
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    [ -z "$(ls -A tmpd)" ]
}

@test "without --seed: OS-keyed, different runs differ, still a permutation" {
    seq 1000 > in
    a=$("$FS_BIN" lines in | md5sum)
    b=$("$FS_BIN" lines in | md5sum)
    [ "$a" != "$b" ]
    "$FS_BIN" lines in | sort -n | cmp - in
}

@test "--progress writes to stderr only; --no-progress silences" {
    seq 300000 > in
    "$FS_BIN" lines --progress --seed=p in 2>err > out
    grep -q "writing" err
    "$FS_BIN" lines --seed=p in | cmp - out
    "$FS_BIN" lines --no-progress --seed=p in 2>err > /dev/null
    [ ! -s err ]
}

@test "repeat with --seed is reproducible; -i -r draws in range" {
    a=$("$FS_BIN" lines --seed=r -r -n 50 -e a b c | md5sum)
    b=$("$FS_BIN" lines --seed=r -r -n 50 -e a b c | md5sum)
    [ "$a" = "$b" ]
    "$FS_BIN" lines --seed=r -r -n 1000 -i 3-7 | sort -nu | paste -s -d ' ' | grep -qx '3 4 5 6 7'
}
