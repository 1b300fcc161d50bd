#!/usr/bin/env bats
# `fairshuf playlist` as users type it: CRLF M3U lists (every line of an
# entry loses its CR), TSV items named by their path, weights with blanks
# and unrated items (--weights-default), one message for a write error, a
# bounded queue, a lock that gives up, and state files only the owner reads.

setup() {
    bats_require_minimum_version 1.5.0
    B=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    D=$(mktemp -d)
}

teardown() {
    [ -z "${pid:-}" ] || kill -9 "$pid" 2>/dev/null || true
    rm -rf "$D"
}

crlf_m3u() {
    printf '#EXTM3U\r\n' > "$D/l.m3u"
    for i in 1 2 3 4 5; do
        printf '#EXTINF:%d,Artist%d - Song %d\r\n/music/%d.flac\r\n' \
            "$i" $((i % 2)) "$i" "$i" >> "$D/l.m3u"
    done
}

@test "a CRLF M3U list comes out with LF line ends throughout, #EXTINF lines included" {
    crlf_m3u
    run --separate-stderr "$B" playlist "$D/l.m3u" --seed=s --cycles=2
    [ "$status" -eq 0 ]
    [ "$(printf '%s' "$output" | grep -c $'\r')" -eq 0 ]
    [ "$(printf '%s\n' "$output" | grep -c '^#EXTINF:')" -eq 10 ]
    [ "${lines[0]}" = "#EXTM3U" ]
    run --separate-stderr "$B" playlist "$D/l.m3u" --seed=s --spread=artist
    [ "$status" -eq 0 ]
    [ "$(printf '%s' "$output" | grep -c $'\r')" -eq 0 ]
    "$B" playlist "$D/l.m3u" --state="$D/st" next > "$D/step"
    [ "$(grep -c $'\r' "$D/step")" -eq 0 ]
    [ "$(wc -l < "$D/step")" -eq 2 ]
    # control: the list itself has CRs on its #EXTINF lines
    [ "$(grep -c $'^#EXTINF.*\r$' "$D/l.m3u")" -eq 5 ]
}

@test "queue and seek-item take a TSV row's path (first field) as well as the whole row" {
    printf 'path\tartist\trating\n/m/a.flac\tX\t3\n/m/b.flac\tY\t1\n/m/c.flac\tZ\t2\n' > "$D/l.tsv"
    "$B" playlist "$D/l.tsv" --state="$D/st" --seed=q seek-item=/m/b.flac > "$D/o"
    [ "$(cut -f1 "$D/o")" = /m/b.flac ]
    "$B" playlist "$D/l.tsv" --state="$D/st" queue /m/c.flac
    [ "$("$B" playlist "$D/l.tsv" --state="$D/st" next | cut -f1)" = /m/c.flac ]
    "$B" playlist "$D/l.tsv" --state="$D/st" queue "$(printf '/m/a.flac\tX\t3')"
    [ "$("$B" playlist "$D/l.tsv" --state="$D/st" next | cut -f1)" = /m/a.flac ]
    run "$B" playlist "$D/l.tsv" --state="$D/st" queue /m/d.flac
    [ "$status" -eq 1 ]
    [[ "$output" == *"no item '/m/d.flac' in the list"* ]]
    # a plain list is matched by the whole line only
    printf '/m/a.flac\tX\n' > "$D/plain.txt"
    run "$B" playlist "$D/plain.txt" --format=plain --state="$D/st2" queue /m/a.flac
    [ "$status" -eq 1 ]
}

@test "--weights reads ' 1' and '1 ' alike, as lines --weights does" {
    printf 'path\tw\na\t1\nb\t2\nc\t3\nd\t4\n' > "$D/plain.tsv"
    printf 'path\tw\na\t 1\nb\t2 \nc\t 3 \nd\t4\r\n' > "$D/blank.tsv"
    a=$("$B" playlist "$D/plain.tsv" --weights=w --seed=b --cycles=3)
    b=$("$B" playlist "$D/blank.tsv" --weights=w --seed=b --cycles=3)
    [ "$(echo "$a" | cut -f1)" = "$(echo "$b" | cut -f1)" ]
    printf 'path\tw\na\t1x\n' > "$D/bad.tsv"
    run "$B" playlist "$D/bad.tsv" --weights=w --seed=b
    [ "$status" -eq 1 ]
    [[ "$output" == *"invalid weight '1x'"* ]]
}

@test "--weights-default weighs unrated items (empty, missing or 0); without it empty is an error and 0 never plays" {
    printf 'path\trating\na\t\nb\t0\nc\t5\nd\n' > "$D/r.tsv"
    run "$B" playlist "$D/r.tsv" --weights=rating --seed=d
    [ "$status" -eq 1 ]
    [[ "$output" == *"missing weight 'rating'"*"--weights-default"* ]]
    run --separate-stderr "$B" playlist "$D/r.tsv" --weights=rating --weights-default=2 --seed=d
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$output" | tail -n +2 | cut -f1 | sort | tr '\n' ' ')" = "a b c d " ]
    printf 'path\trating\nb\t0\nc\t5\n' > "$D/z.tsv"
    run --separate-stderr "$B" playlist "$D/z.tsv" --weights=rating --seed=d
    [ "$(printf '%s\n' "$output" | tail -n +2 | cut -f1 | tr '\n' ' ')" = "c " ]
    run "$B" playlist "$D/z.tsv" --weights-default=2 --seed=d
    [ "$status" -eq 2 ]
    [[ "$output" == *"--weights-default needs --weights=FIELD"* ]]
    for bad in 0 -1 x inf; do
        run "$B" playlist "$D/z.tsv" --weights=rating --weights-default="$bad"
        [ "$status" -eq 2 ]
    done
    # the player (--state) reads them the same way
    "$B" playlist "$D/r.tsv" --weights=rating --weights-default=2 --seed=d --state="$D/st" next
}

@test "a write error of a step is reported once, and the step is not recorded" {
    printf 'a\nb\nc\n' > "$D/l.txt"
    [ -w /dev/full ] || skip "no /dev/full"
    run --separate-stderr bash -c '"$0" playlist "$1" --state="$2" --seed=w next > /dev/full' \
        "$B" "$D/l.txt" "$D/st"
    [ "$status" -eq 1 ]
    [ "$(printf '%s\n' "$stderr" | grep -c 'write error')" -eq 1 ]
    [[ "$stderr" == *"the step is not recorded"* ]]
    [ ! -e "$D/st" ]
}

@test "the queue holds at most 4096 items: one more is refused and nothing is queued; a full queue's state reads back" {
    printf 'a\nb\nc\n' > "$D/l.txt"
    run "$B" playlist "$D/l.txt" --state="$D/st" --seed=q queue $(yes a | head -n 4097)
    [ "$status" -eq 1 ]
    [[ "$output" == *"queue holds 4096 items"* ]]
    [ ! -e "$D/st" ]
    "$B" playlist "$D/l.txt" --state="$D/st" --seed=q queue $(yes b | head -n 4096)
    run "$B" playlist "$D/l.txt" --state="$D/st" queue c
    [ "$status" -eq 1 ]
    [ "$("$B" playlist "$D/l.txt" --state="$D/st" next)" = b ]
    [ "$("$B" playlist "$D/l.txt" --state="$D/st" next)" = b ]
}

@test "a state's folder held by another process: the step gives up after --lock-wait with a message" {
    command -v flock > /dev/null || skip "no flock(1)"
    printf 'a\nb\n' > "$D/l.txt"
    mkdir "$D/s"
    flock -o "$D/s" sleep 20 > /dev/null 2>&1 3>&- &
    pid=$!
    sleep 0.3
    start=$(date +%s%N)
    run "$B" playlist "$D/l.txt" --state="$D/s/st" --lock-wait=0.5 next
    took=$(( ($(date +%s%N) - start) / 1000000 ))
    [ "$status" -eq 1 ]
    [[ "$output" == *"another player has held the state's folder for 0.5 s"* ]]
    [ "$took" -lt 10000 ]
    [ ! -e "$D/s/st" ]
    run "$B" playlist "$D/l.txt" --state="$D/s/st" --lock-wait=-1 next
    [ "$status" -eq 2 ]
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
    "$B" playlist "$D/l.txt" --state="$D/s/st" --lock-wait=0.5 next
}

@test "the state and the copy of its list are created 0600 (the state holds the player's key)" {
    printf 'a\nb\n' > "$D/l.txt"
    (umask 022 && "$B" playlist "$D/l.txt" --state="$D/st" next > /dev/null)
    [ "$(stat -c %a "$D/st")" = 600 ]
    for f in "$D"/st.list-*; do [ "$(stat -c %a "$f")" = 600 ]; done
    ls "$D"/st.list-* > /dev/null
}
