#!/usr/bin/env bats
# outfile.bats -- every file writer of the CLI (lines -o, verify --svg and
# --report, the --swaps sweep SVG, bench --svg) follows lib/outfile.h: a
# device node, a FIFO or a symbolic link named as the output stays what it
# was (a device and a FIFO are written in place, a link is followed).

setup() {
    FS=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    T=$(mktemp -d)
    cd "$T"
}

teardown() {
    cd /
    rm -rf "$T"
}

# writer KIND FILE: runs one writer with FILE as its output.
writer() {
    case $1 in
    lines) "$FS" lines -i 1-5 --seed=1 -o "$2" ;;
    svg) "$FS" verify -a fisher-yates -N 3 --trials=200 --seed=1 --svg="$2" > /dev/null ;;
    report) "$FS" verify -a fisher-yates -N 3 --trials=200 --seed=1 --report="$2" > /dev/null ;;
    sweep) "$FS" verify --swaps=1,3 -N 3 --trials=200 --seed=1 --svg="$2" > /dev/null ;;
    bench) "$FS" bench --sizes=54 --runs=1 --min-time=1 --rng=xoshiro256ss --svg="$2" > /dev/null ;;
    esac
}

WRITERS="lines svg report sweep bench"

@test "a device node (/dev/null, /dev/full) is written in place, never replaced" {
    [ "$(id -u)" = 0 ] || skip "mknod needs root"
    mknod null c 1 3
    mknod full c 1 7
    for w in $WRITERS; do
        writer $w null || { echo "$w to null failed"; return 1; }
        [ -c null ] || { echo "$w replaced the device node"; ls -l; return 1; }
        run writer $w full
        [ "$status" -eq 1 ] || { echo "$w to full: $status $output"; return 1; }
        [[ "$output" == *"No space left on device"* ]] || { echo "$w: $output"; return 1; }
        [ -c full ] || { echo "$w replaced the full device"; return 1; }
    done
    [ "$(ls -A | grep -c fairshuf)" = 0 ]
}

@test "a FIFO is written through, never replaced" {
    mkfifo fifo
    for w in $WRITERS; do
        cat fifo > got &
        reader=$!
        writer $w fifo || { kill $reader; echo "$w to fifo failed"; return 1; }
        [ -p fifo ] || { kill $reader; echo "$w replaced the FIFO"; ls -l; return 1; }
        wait $reader
        [ -s got ] || { echo "$w wrote nothing through the FIFO"; return 1; }
        rm got
    done
    [ "$(ls -A | grep -c fairshuf)" = 0 ]
}

@test "a symbolic link is followed: the link stays, the file it names is replaced" {
    mkdir d
    for w in $WRITERS; do
        echo old > d/real
        chmod 640 d/real
        ln -sf d/real link
        writer $w link || { echo "$w to link failed"; return 1; }
        [ -L link ] || { echo "$w replaced the link"; ls -l; return 1; }
        [ "$(readlink link)" = d/real ] || return 1
        [ "$(cat d/real)" != old ] || { echo "$w left the target as it was"; return 1; }
        [ "$(stat -c %a d/real)" = 640 ] || { echo "$w: mode $(stat -c %a d/real)"; return 1; }
    done
    [ "$(ls -A . d | grep -c fairshuf)" = 0 ]
}

@test "a write error names the file and the reason" {
    for w in svg report bench; do
        run writer $w /nonexistent-dir/x
        [ "$status" -eq 1 ] || { echo "$w: $status $output"; return 1; }
        [[ "$output" == "fairshuf: /nonexistent-dir/x: "*"No such file or directory" ]] \
            || { echo "$w: $output"; return 1; }
    done
}
