#!/usr/bin/env bats
# faults.bats -- fault injection (issue 10): a full disk (a small tmpfs),
# too many open files (ulimit -n), the OS refusing randomness after N
# calls (tests/support/failrandom.c), SIGKILL and SIGINT in mid-spill, a
# closed or full standard output.  Each run must leave its input as it
# was, present no partial output as success, leave no temporary file,
# say what went wrong and exit 1.  Runs as root in CI (mounts); otherwise
# in a user namespace.

setup() {
    export LC_ALL=C
    T="$BATS_TEST_TMPDIR"
    cd "$T"
    mkdir -p tmp out
    # 6 MB of lines; with --memory=64K the buckets are split a second time
    seq 1 400000 | sed 's/$/ and some padding text/' > big
    cp big big.orig
    FR="$FS_FAILRANDOM"
}

# unchanged FILE: FILE still holds the bytes of FILE.orig
unchanged() { cmp -s "$1" "$1.orig" || { echo "$1 was changed"; ls -l "$1"; return 1; }; }

# nothing_left DIR...: no file left in DIR other than the ones named KEEP
nothing_left() {
    local d
    for d in "$@"; do
        [ -z "$(ls -A "$d")" ] || { echo "left in $d:"; ls -lA "$d"; return 1; }
    done
}

# with_tmpfs SIZE DIR SCRIPT: runs bash SCRIPT with a SIZE tmpfs on DIR, in
# a mount namespace of its own (nothing stays mounted).
with_tmpfs() {
    local u=(-m)
    [ "$(id -u)" -eq 0 ] || u=(-r -m)
    unshare "${u[@]}" bash -c 'mount -t tmpfs -o size="$1" tmpfs "$2" && eval "$3"' \
        _ "$1" "$2" "$3"
}

# issue 10's recipe: one 8 MB line among 266k short ones (17.7 MB); with
# --memory=1M its bucket must be split a second time, which a 22 MiB -T
# cannot hold.  The split used to run after the output was opened: F was
# left with 2 MB, and a pipe got a partial output before the error.
one_long_line() {
    local x=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
    awk -v x=$x 'BEGIN{for(i=0;i<1001;i++) printf "line%d %s\n", i, substr(x,1,10+i%31)}'
    head -c 8000000 /dev/zero | tr '\0' L
    echo
    awk -v x=$x 'BEGIN{for(i=1001;i<266000;i++) printf "line%d %s\n", i, substr(x,1,10+i%31)}'
}

@test "ENOSPC in -T: -o F F untouched, nothing on a pipe, no temp file, exit 1" {
    export FS_BIN T
    one_long_line > F
    cp F F.orig
    with_tmpfs 22m "$T/tmp" '
        "$FS_BIN" lines --seed=s1 --memory=1M -T "$T/tmp" F -o F 2>err1; echo $? >st1
        "$FS_BIN" lines --seed=s1 --memory=1M -T "$T/tmp" F >pipe.out 2>err2; echo $? >st2
        "$FS_BIN" lines --seed=s1 --memory=64K -T "$T/tmp" F -o F 2>err3; echo $? >st3
        ls -A "$T/tmp" >left'
    for i in 1 2 3; do
        [ "$(cat st$i)" = 1 ] || { echo "run $i: $(cat st$i)"; return 1; }
        grep -q "fairshuf: temporary file in '.*tmp': No space left on device" err$i
    done
    unchanged F
    [ ! -s pipe.out ] || { echo "pipe got $(wc -c < pipe.out) bytes"; return 1; }
    [ ! -s left ]
    [ "$(ls -A | grep -c fairshuf)" = 0 ]
}

@test "ENOSPC where -o F lives: F untouched, no temp file, exit 1" {
    export FS_BIN T
    head -c 1000000 big | sed '$d' > out.orig
    with_tmpfs 1500k "$T/out" '
        cp "$T/out.orig" "$T/out/F"
        "$FS_BIN" lines --seed=s "$T/out/F" -o "$T/out/F" 2>err; echo $? >st
        cmp -s "$T/out/F" "$T/out.orig" && echo same >same
        ls -A "$T/out" >left'
    [ "$(cat st)" = 1 ]
    grep -q "write error: No space left on device" err
    [ "$(cat same)" = same ]
    [ "$(cat left)" = F ]
}

@test "EMFILE: -o F F untouched, nothing on a pipe, exit 1; the split path needs no 2 x 64 files" {
    run bash -c 'ulimit -n 20; "$0" lines --memory=1M big -o big' "$FS_BIN"
    [ "$status" -eq 1 ]
    [[ "$output" == *"temporary file in '/tmp': Too many open files"* ]]
    unchanged big
    run bash -c 'ulimit -n 20; "$0" lines --memory=1M big 2>/dev/null | wc -c' "$FS_BIN"
    [ "$output" = 0 ]
    # Second-level splits used to open 64 more files after output began
    # (issue 10: a 35 MB F became 0 bytes): now they fit in 80.
    want=$("$FS_BIN" lines --seed=e big | md5sum)
    run bash -c 'ulimit -n 80; "$0" lines --seed=e --memory=64K big -o big' "$FS_BIN"
    [ "$status" -eq 0 ]
    [ "$(md5sum < big)" = "$want" ]
}

@test "getrandom failing after N calls: lines exits 1, -o F untouched, no wrong output" {
    printf 'keep\n' > F
    cp F F.orig
    # the OS-keyed stream of -i re-keys every MiB: the second key is refused
    FS_FAILRANDOM_AFTER=3 LD_PRELOAD="$FR" "$FS_BIN" lines -i 1-3000000 -o F 2>err && return 1
    grep -q "operating system refused randomness" err
    unchanged F
    ls -A | grep -q fairshuf && return 1
    # to a pipe: the values drawn before the failure only, all distinct
    run bash -c 'FS_FAILRANDOM_AFTER=3 LD_PRELOAD="$1" "$0" lines -i 1-3000000 > o; echo $?' "$FS_BIN" "$FR"
    [[ "$output" == *"refused randomness"* ]] && [[ "$output" == *1 ]]
    [ "$(sort o | uniq -d | wc -l)" = 0 ]
    # refused from the first call: nothing written, F untouched
    LD_PRELOAD="$FR" "$FS_BIN" lines big -o big 2>err && return 1
    grep -q "cannot key the generator" err
    unchanged big
}

# sodium_init runs before the first draw and no word of a failed re-seed is
# used.  FS_FAILRANDOM_AFTER=N lets N calls through: N = 0 refuses
# libsodium's own probe, N = 1 its start-up canary (libsodium then calls its
# misuse handler: the CLI's reports and exits 1 instead of aborting).

@test "getrandom failing after N calls: lines -e exits 0 or 1 with a message, never aborts " {
    for n in 0 1 2 3 4; do
        run env FS_FAILRANDOM_AFTER=$n LD_PRELOAD="$FR" "$FS_BIN" lines -e a b
        [ "$status" -eq 0 ] || { [ "$status" -eq 1 ] && [[ "$output" == fairshuf:* ]]; } \
            || { echo "lines -e after $n: $status $output"; return 1; }
    done
}

@test "getrandom failing after N calls: rng exits 1 and never prints a zero word " {
    for n in 0 1 2 3 4; do
        st=0
        FS_FAILRANDOM_AFTER=$n LD_PRELOAD="$FR" "$FS_BIN" rng --count=300000 >r.out 2>r.err || st=$?
        [ "$st" -eq 1 ] || { echo "rng after $n: status $st"; return 1; }
        grep -q '^fairshuf: ' r.err
        [ "$(grep -c '^0$' r.out)" = 0 ] || { echo "rng after $n: zero words"; return 1; }
    done
}

@test "getrandom failing after N calls: perm and deal exit 1, never repeat a failed order " {
    for n in 0 1 2 3 4; do
        # a failed generator repeats one order: never printed
        st=0
        FS_FAILRANDOM_AFTER=$n LD_PRELOAD="$FR" "$FS_BIN" perm 52 --count=100000 >p.out 2>p.err || st=$?
        [ "$st" -eq 1 ] || { echo "perm after $n: status $st"; return 1; }
        [ "$(sort p.out | uniq -d | wc -l)" = 0 ]
        st=0
        FS_FAILRANDOM_AFTER=$n LD_PRELOAD="$FR" "$FS_BIN" deal --count=100000 --format=tsv >d.out 2>d.err || st=$?
        [ "$st" -eq 1 ] || { echo "deal after $n: status $st"; return 1; }
        [ "$(sort d.out | uniq -d | wc -l)" = 0 ]
        grep -q '^fairshuf: ' p.err && grep -q '^fairshuf: ' d.err
    done
}

# kill_mid_spill SIGNAL: lines reading a FIFO is stopped by SIGNAL while
# its buckets are on disk; prints the exit status.
kill_mid_spill() {
    mkfifo fifo
    # (a background job starts with SIGINT ignored; a user's Ctrl-C does not)
    env --default-signal=INT "$FS_BIN" lines --seed=k --memory=64K -T "$T/tmp" fifo -o F 2>err &
    local pid=$!
    exec 3>fifo
    head -c 3000000 big >&3  # consumed: the first split files exist
    kill -"$1" "$pid"
    local st=0
    wait "$pid" || st=$?
    exec 3>&-
    echo "$st"
}

@test "SIGKILL and SIGINT mid-spill: F untouched, no temp file" {
    for sig in KILL INT TERM; do
        printf 'keep\n' > F
        cp F F.orig
        rm -f fifo
        st=$(kill_mid_spill $sig)
        case $sig in KILL) [ "$st" = 137 ] ;; INT) [ "$st" = 130 ] ;; TERM) [ "$st" = 143 ] ;; esac
        unchanged F
        nothing_left "$T/tmp"
        [ "$(ls -A | grep -c fairshuf)" = 0 ]
    done
}

@test "SIGINT, SIGTERM, SIGKILL while writing -o F (endless -r): F untouched, nothing left" {
    for sig in INT TERM KILL; do
        printf 'keep\n' > F
        cp F F.orig
        env --default-signal=INT "$FS_BIN" lines -r -i 1-5 -o F &
        pid=$!
        # wait (without a clock) until its output file is open
        for _ in $(seq 1000); do
            ls -l /proc/$pid/fd 2>/dev/null | grep -q "$T/[#.]" && break
            sleep 0.01
        done
        ls -l /proc/$pid/fd | grep -q "$T/[#.]"
        kill -$sig $pid
        st=0
        wait $pid || st=$?
        [ "$st" -gt 128 ]
        unchanged F
        [ "$(ls -A | grep -c fairshuf)" = 0 ]
    done
}

@test "closed and full standard output: exit 1 with a message, input untouched" {
    for args in "big" "--memory=64K big" "--seed=s big" "-i 1-100000" "-e a b" \
                "--random-source=big big" "-r -n 5 -e a"; do
        run bash -c '"$0" lines $1 >&-' "$FS_BIN" "$args"
        [ "$status" -eq 1 ] && [[ "$output" == *"write error: Bad file descriptor"* ]] \
            || { echo "closed, $args: $status $output"; return 1; }
        run bash -c '"$0" lines $1 >/dev/full' "$FS_BIN" "$args"
        [ "$status" -eq 1 ] && [[ "$output" == *"write error: No space left on device"* ]] \
            || { echo "full, $args: $status $output"; return 1; }
    done
    unchanged big
    for cmd in "rng --count=10" "perm 10" "deal" "rng --count=100000 --format=raw"; do
        run bash -c '"$0" $1 >&-' "$FS_BIN" "$cmd"
        [ "$status" -eq 1 ] && [[ "$output" == fairshuf:*"write error"* ]] || { echo "$cmd >&-: $status"; return 1; }
        run bash -c '"$0" $1 >/dev/full' "$FS_BIN" "$cmd"
        [ "$status" -eq 1 ] && [[ "$output" == fairshuf:*"write error"* ]] || { echo "$cmd >/dev/full: $status"; return 1; }
    done
}

@test "a random source running dry: -o F F untouched, nothing on a pipe" {
    printf 'x' > tiny
    { echo head; seq 300; } > F
    cp F F.orig
    run "$FS_BIN" lines --random-source=tiny --header=1 F -o F
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: 'tiny': end of file" ]
    unchanged F
    run bash -c '"$0" lines --random-source=tiny --header=1 F 2>/dev/null | wc -c' "$FS_BIN"
    [ "$output" = 0 ]
    for a in "-i 1-1000" "-n 3 F" "F"; do
        "$FS_BIN" lines --random-source=tiny $a -o F 2>/dev/null && return 1
        unchanged F
    done
    [ "$(ls -A | grep -c fairshuf)" = 0 ]
}

load stopped # wait_stopped

# stop_and_signal SIG CMD...: runs CMD with FAIRSHUF_TEST_STOP_PENDING (it
# stops itself once its temporary output file exists), sends SIG, lets it
# go on; prints the exit status.
stop_and_signal() {
    local sig=$1 st=0
    shift
    FAIRSHUF_TEST_STOP_PENDING=1 env --default-signal=INT "$@" > /dev/null 2>&1 &
    local pid=$!
    [ "$(wait_stopped $pid)" = T ] || { kill -9 $pid; echo stuck; return; }
    ls -A out | grep -q "fairshuf-" || { kill -9 $pid; echo no-temp; return; }
    kill -"$sig" $pid
    kill -CONT $pid
    wait $pid || st=$?
    echo "$st"
}

@test "SIGINT, SIGTERM while writing --svg or --report: no picture, no temp file" {
    for sig in INT TERM; do
        want=$([ $sig = INT ] && echo 130 || echo 143)
        st=$(stop_and_signal $sig "$FS_BIN" verify -a auto --n=3 --trials=1000 --svg=out/v.svg)
        [ "$st" = "$want" ] || { echo "verify --svg, $sig: $st"; return 1; }
        nothing_left out
        st=$(stop_and_signal $sig "$FS_BIN" verify -a auto --n=3 --trials=1000 --report=out/r.html)
        [ "$st" = "$want" ] || { echo "verify --report, $sig: $st"; return 1; }
        nothing_left out
        st=$(stop_and_signal $sig "$FS_BIN" bench --sizes=54 --runs=1 --min-time=1 --rng=xoshiro256ss --svg=out/b.svg)
        [ "$st" = "$want" ] || { echo "bench --svg, $sig: $st"; return 1; }
        nothing_left out
    done
    # and without the signal the picture is made
    "$FS_BIN" verify -a auto --n=3 --trials=1000 --svg=out/v.svg > /dev/null
    [ -s out/v.svg ] && [ "$(ls -A out)" = v.svg ]
}
