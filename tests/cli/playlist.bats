#!/usr/bin/env bats
# `fairshuf playlist`: cycles, formats, the persistent player (next, prev,
# current, seek) and its atomic state file, a changed list, and errors.

setup() {
    bats_require_minimum_version 1.5.0
    B=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    D=$(mktemp -d)
    seq 1 20 | sed 's/^/song/' > "$D/list.txt"
}

load stopped # wait_stopped

teardown() {
    [ -z "${pid:-}" ] || kill -9 "$pid" 2>/dev/null || true
    rm -rf "$D"
}

@test "playlist --cycles: every item once per cycle, new order each cycle" {
    run "$B" playlist "$D/list.txt" --seed=a --cycles=3
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 60 ]
    for c in 0 1 2; do
        got=$(printf '%s\n' "${lines[@]:$((c * 20)):20}" | sort | tr '\n' ' ')
        [ "$got" = "$(sort "$D/list.txt" | tr '\n' ' ')" ]
    done
    [ "${lines[*]:0:20}" != "${lines[*]:20:20}" ]
    # reproducible, and another seed differs
    [ "$("$B" playlist "$D/list.txt" --seed=a --cycles=3)" = "$output" ]
    [ "$("$B" playlist "$D/list.txt" --seed=b --cycles=3)" != "$output" ]
}

@test "playlist: the last w of a cycle are not among the first w of the next" {
    run "$B" playlist "$D/list.txt" --seed=w --cycles=30
    [ "${#lines[@]}" -eq 600 ]
    # each of the 29 cycle ends: no item of the last 5 among the next 5 (one awk)
    printf '%s\n' "${lines[@]}" | awk '{ a[NR - 1] = $0 }
        END {
            for (c = 0; c <= 28; c++) {
                split("", t)
                for (i = c * 20 + 15; i < c * 20 + 20; i++) t[a[i]]
                for (i = c * 20 + 20; i < c * 20 + 25; i++)
                    if (a[i] in t) { print "cycle " c " end: " a[i] " again"; bad = 1 }
            }
            exit bad
        }'
}

@test "playlist --state: next from a new state prints the --cycles order, prev walks back" {
    want=$("$B" playlist "$D/list.txt" --seed=s --cycles=2)
    got=$(for i in $(seq 40); do "$B" playlist "$D/list.txt" --seed=s --state="$D/st" next; done)
    [ "$got" = "$want" ]
    back=$(for i in $(seq 39); do "$B" playlist "$D/list.txt" --state="$D/st" prev; done)
    [ "$back" = "$(echo "$want" | head -n 39 | tac)" ]
    run "$B" playlist "$D/list.txt" --state="$D/st" prev
    [ "$status" -eq 1 ]
    [[ $output == *"nothing was played before"* ]]
    [ "$("$B" playlist "$D/list.txt" --state="$D/st" current)" = "$(echo "$want" | head -1)" ]
}

@test "playlist --state: seek=I jumps within the cycle, next continues" {
    want=($("$B" playlist "$D/list.txt" --seed=k --cycles=2))
    "$B" playlist "$D/list.txt" --seed=k --state="$D/st" next
    [ "$("$B" playlist "$D/list.txt" --state="$D/st" seek=7)" = "${want[7]}" ]
    [ "$("$B" playlist "$D/list.txt" --state="$D/st" next)" = "${want[8]}" ]
    run "$B" playlist "$D/list.txt" --state="$D/st" seek=20
    [ "$status" -eq 2 ]
}

@test "playlist: a process killed in the middle of a state update leaves the old state valid" {
    "$B" playlist "$D/list.txt" --seed=c --state="$D/st" next
    before=$(cat "$D/st")
    FAIRSHUF_TEST_STOP_IN_STATE_WRITE=1 "$B" playlist "$D/list.txt" --state="$D/st" next > /dev/null &
    pid=$!
    stopped=$(wait_stopped "$pid")
    tmp=$(ls "$D"/st.tmp.* 2>/dev/null || true)
    kill -9 $pid
    wait $pid || true
    pid=
    [ "$stopped" = T ]
    [ "$(cat "$D/st")" = "$before" ]
    [ -n "$tmp" ] # the half-written temp file exists, beside the state
    want=($("$B" playlist "$D/list.txt" --seed=c --cycles=1))
    [ "$("$B" playlist "$D/list.txt" --state="$D/st" next)" = "${want[1]}" ]
}

@test "playlist: SIGTERM or SIGINT in the middle of a state update: old state, no temp file" {
    "$B" playlist "$D/list.txt" --seed=c --state="$D/st" next
    before=$(cat "$D/st")
    for sig in TERM INT; do
        # (a background job starts with SIGINT ignored; a user's Ctrl-C does not)
        FAIRSHUF_TEST_STOP_IN_STATE_WRITE=1 env --default-signal=INT \
            "$B" playlist "$D/list.txt" --state="$D/st" next > /dev/null &
        pid=$!
        [ "$(wait_stopped "$pid")" = T ]
        [ -n "$(ls "$D"/st.tmp.* 2>/dev/null)" ] # the half-written temp file
        kill -$sig $pid
        kill -CONT $pid
        st=0
        wait $pid || st=$?
        pid=
        case $sig in TERM) [ "$st" = 143 ] ;; INT) [ "$st" = 130 ] ;; esac
        [ "$(cat "$D/st")" = "$before" ]
        [ -z "$(ls "$D"/st.tmp.* 2>/dev/null)" ] # removed by the handler
    done
}

@test "playlist: M3U entries keep their #EXTINF lines; TSV keeps the header" {
    { echo '#EXTM3U'; for i in 1 2 3 4 5; do echo "#EXTINF:123,Artist $i - Title $i"; echo "/music/$i.mp3"; done; } > "$D/p.m3u"
    run "$B" playlist "$D/p.m3u" --seed=m
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = '#EXTM3U' ]
    [ "${#lines[@]}" -eq 11 ]
    for k in 1 3 5 7 9; do
        n=${lines[$k]#\#EXTINF:123,Artist }
        n=${n%% *}
        [ "${lines[$((k + 1))]}" = "/music/$n.mp3" ]
    done
    got=$("$B" playlist "$D/p.m3u" --seed=m --state="$D/st3" next)
    [ "$got" = "$(printf '%s\n%s' "${lines[1]}" "${lines[2]}")" ]
    printf 'path\tartist\na.mp3\tX\nb.mp3\tY\nc.mp3\tZ\n' > "$D/t.tsv"
    run "$B" playlist "$D/t.tsv" --seed=t
    [ "${lines[0]}" = "$(printf 'path\tartist')" ]
    [ "${#lines[@]}" -eq 4 ]
}

# Steps the player k times: next_n K [FILE]
# (in sh: a fork of the small dash costs less than one of the bats shell)
next_n() {
    sh -c 'k=$1; shift; while [ "$k" -gt 0 ]; do "$@" || exit; k=$((k - 1)); done' \
        next_n "$1" "$B" playlist "${2:-$D/list.txt}" --state="$D/st" next 2>/dev/null
}

sorted() { sort | tr '\n' ' '; }

@test "playlist: items added mid-cycle play later in the cycle, nothing is replayed" {
    "$B" playlist "$D/list.txt" --seed=x --state="$D/st" next > "$D/played"
    next_n 6 >> "$D/played"
    cp "$D/st" "$D/st2"
    for f in "$D"/st.list-*; do cp "$f" "$D/st2${f#"$D"/st}"; done # its copy of the list
    printf 'song21\nsong22\nsong23\n' >> "$D/list.txt"
    run --separate-stderr "$B" playlist "$D/list.txt" --state="$D/st" next
    [ "$status" -eq 0 ]
    [[ $stderr == *"the list changed"* ]]
    # reproducible: a copy of the state makes the same step
    [ "$("$B" playlist "$D/list.txt" --state="$D/st2" next 2>/dev/null)" = "$output" ]
    echo "$output" > "$D/rest"
    next_n 15 >> "$D/rest"
    # the cycle: the 7 played, then the 16 others -- each of the 23 once
    [ -z "$(comm -12 <(sort "$D/played") <(sort "$D/rest"))" ]
    [ "$(cat "$D/played" "$D/rest" | sorted)" = "$(sorted < "$D/list.txt")" ]
    grep -qx song21 "$D/rest"
    # then a normal full cycle of the new list
    [ "$(next_n 23 | sorted)" = "$(sorted < "$D/list.txt")" ]
    grep -q 'n=23 ' "$D/st"
}

@test "playlist: items removed mid-cycle are skipped, nothing is replayed" {
    "$B" playlist "$D/list.txt" --seed=r --state="$D/st" next > "$D/played"
    next_n 7 >> "$D/played"
    # remove one played item and three not played yet
    gone=$(comm -23 <(sort "$D/list.txt") <(sort "$D/played") | head -3)
    { echo "$gone"; head -1 "$D/played"; } > "$D/gone"
    grep -vxF -f "$D/gone" "$D/list.txt" > "$D/new"
    mv "$D/new" "$D/list.txt"
    next_n 9 > "$D/rest"
    [ "$(wc -l < "$D/rest")" -eq 9 ]
    [ -z "$(comm -12 <(sort "$D/played") <(sort "$D/rest"))" ]
    [ -z "$(comm -12 <(sort "$D/gone") <(sort "$D/rest"))" ]
    # played (bar the removed one) + rest = the new list
    [ "$(cat "$D/played" "$D/rest" | grep -vxF -f "$D/gone" | sorted)" = "$(sorted < "$D/list.txt")" ]
    # the next step starts the next cycle: the 16 items again
    [ "$(next_n 16 | sorted)" = "$(sorted < "$D/list.txt")" ]
}

@test "playlist: add and remove mid-cycle, twice, with duplicate lines" {
    printf 'dup\ndup\n' >> "$D/list.txt"
    "$B" playlist "$D/list.txt" --seed=ar --state="$D/st" next > "$D/played"
    next_n 4 >> "$D/played"
    sed -i '/^song1[0-5]$/d' "$D/list.txt"
    printf 'new1\ndup\n' >> "$D/list.txt"
    next_n 3 >> "$D/played"
    sed -i '/^song2$/d' "$D/list.txt"
    printf 'new2\n' >> "$D/list.txt"
    run next_n 30
    # one cycle = every line of the final list once (dup three times),
    # except items removed after being played, then the next cycle starts
    all=$(cat "$D/played"; printf '%s\n' "${lines[@]}")
    cyc=$(echo "$all" | head -n $(( $(wc -l < "$D/list.txt") + $(grep -cx 'song2\|song1[0-5]' "$D/played" || true) )))
    [ "$(echo "$cyc" | grep -vx 'song2\|song1[0-5]' | sorted)" = "$(sorted < "$D/list.txt")" ]
    [ "$(echo "$cyc" | grep -cx dup)" -le 3 ]
}

@test "playlist: prev after a change walks back through what was played" {
    "$B" playlist "$D/list.txt" --seed=p --state="$D/st" next > "$D/played"
    next_n 4 >> "$D/played"
    echo song21 >> "$D/list.txt"
    next_n 2 >> "$D/played"
    back=$(for i in $(seq 6); do "$B" playlist "$D/list.txt" --state="$D/st" prev; done)
    [ "$back" = "$(head -n 6 "$D/played" | tac)" ]
    run "$B" playlist "$D/list.txt" --state="$D/st" prev
    [ "$status" -eq 1 ]
    [[ $output == *"nothing was played before"* ]]
    # next walks forward through the same items
    [ "$(next_n 6)" = "$(tail -n 6 "$D/played")" ]
    [ "$("$B" playlist "$D/list.txt" --state="$D/st" current)" = "$(tail -1 "$D/played")" ]
    # a played item removed is skipped going back
    third=$(sed -n 3p "$D/played")
    grep -vx "$third" "$D/list.txt" > "$D/new" && mv "$D/new" "$D/list.txt"
    back=$(for i in $(seq 5); do "$B" playlist "$D/list.txt" --state="$D/st" prev 2>/dev/null; done)
    [ "$back" = "$(head -n 6 "$D/played" | grep -vx "$third" | tac)" ]
}

# Rewrites the checksum line of a state whose first two lines were edited.
resum() {
    head -n 2 "$1" > "$1.new"
    echo "sum=$(b2sum -l 128 < "$1.new" | cut -d' ' -f1)" >> "$1.new"
    mv "$1.new" "$1"
}

@test "playlist: a damaged record of the cycle is rejected, the state left alone" {
    "$B" playlist "$D/list.txt" --seed=d --state="$D/st2" next > /dev/null
    for bad in 's/ at=[0-9]*/ at=99/' 's/ids=/ids=z/' 's/ frozen=0/ frozen=5/' 's/ids=.*/ids=12/' 's/ passed=[0-9]*/ passed=0/'; do
        sed "2$bad" "$D/st2" > "$D/st3"
        before=$(cat "$D/st3")
        # the checksum sees the change
        run --separate-stderr "$B" playlist "$D/list.txt" --state="$D/st3" next
        [ "$status" -eq 1 ]
        [[ $stderr == *"damaged (checksum mismatch)"* ]]
        [ "$(cat "$D/st3")" = "$before" ]
        # and with a matching checksum the parser does
        resum "$D/st3"
        before=$(cat "$D/st3")
        run --separate-stderr "$B" playlist "$D/list.txt" --state="$D/st3" next
        [ "$status" -eq 1 ]
        [[ $stderr == *"not a fairshuf playlist state"* ]]
        [ "$(cat "$D/st3")" = "$before" ]
    done
}

@test "playlist: a process killed while recording a change leaves the old state valid" {
    "$B" playlist "$D/list.txt" --seed=kc --state="$D/st" next > "$D/played"
    next_n 3 >> "$D/played"
    echo song21 >> "$D/list.txt"
    next_n 1 >> "$D/played"
    before=$(cat "$D/st")
    echo song22 >> "$D/list.txt"
    FAIRSHUF_TEST_STOP_IN_STATE_WRITE=1 "$B" playlist "$D/list.txt" --state="$D/st" next > /dev/null 2>&1 &
    pid=$!
    stopped=$(wait_stopped "$pid")
    kill -9 $pid
    wait $pid || true
    pid=
    [ "$stopped" = T ]
    [ "$(cat "$D/st")" = "$before" ]
    rm -f "$D"/st.tmp.*
    next_n 17 > "$D/rest"
    [ -z "$(comm -12 <(sort "$D/played") <(sort "$D/rest"))" ]
    [ "$(cat "$D/played" "$D/rest" | sorted)" = "$(sorted < "$D/list.txt")" ]
}

@test "playlist: errors name the problem with the right status" {
    run --separate-stderr "$B" playlist
    [ "$status" -eq 2 ]
    run --separate-stderr "$B" playlist "$D/list.txt" next
    [ "$status" -eq 2 ]
    [[ $stderr == *"needs --state"* ]]
    run --separate-stderr "$B" playlist "$D/list.txt" --state="$D/st" jump
    [ "$status" -eq 2 ]
    run --separate-stderr "$B" playlist "$D/nope.txt" --seed=x
    [ "$status" -eq 1 ]
    [[ $stderr == "fairshuf: $D/nope.txt: No such file or directory" ]]
    : > "$D/empty"
    run --separate-stderr "$B" playlist "$D/empty"
    [ "$status" -eq 1 ]
    [[ $stderr == *"no items"* ]]
    echo garbage > "$D/bad"
    run --separate-stderr "$B" playlist "$D/list.txt" --state="$D/bad" next
    [ "$status" -eq 1 ]
    [[ $stderr == *"not a fairshuf playlist state"* ]]
    [ "$(cat "$D/bad")" = garbage ]
    "$B" playlist "$D/list.txt" --seed=one --state="$D/st" next
    run --separate-stderr "$B" playlist "$D/list.txt" --seed=two --state="$D/st" next
    [ "$status" -eq 1 ]
    [[ $stderr == *"another seed"* ]]
    run --separate-stderr "$B" playlist "$D/list.txt" --window=65
    [ "$status" -eq 2 ]
    run --separate-stderr "$B" playlist "$D/list.txt" --format=xml
    [ "$status" -eq 2 ]
    "$B" playlist --help | awk 'length > 80 { exit 1 }'
    "$B" --help | grep -q playlist
}

@test "playlist --weights: weighted order, log-space weights, errors name the line" {
    printf 'path\tartist\trating\na.mp3\tX\t1\nb.mp3\tY\t1e300\nc.mp3\tZ\t1e-300\nd.mp3\tZ\t5\n' > "$D/w.tsv"
    run "$B" playlist "$D/w.tsv" --weights=rating --seed=1 --cycles=50
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$(printf 'path\tartist\trating')" ]
    [ "${#lines[@]}" -eq 201 ]
    # 1e300 always first, 1e-300 always last
    [ "$(printf '%s\n' "${lines[@]:1}" | awk 'NR % 4 == 1' | sort -u | cut -f1)" = b.mp3 ]
    [ "$(printf '%s\n' "${lines[@]:1}" | awk 'NR % 4 == 0' | sort -u | cut -f1)" = c.mp3 ]
    printf 'path\trating\na\t1\nb\tx\n' > "$D/bad.tsv"
    run --separate-stderr "$B" playlist "$D/bad.tsv" --weights=rating
    [ "$status" -eq 1 ]
    [ "$stderr" = "fairshuf: $D/bad.tsv:3: invalid weight 'x': must be a number, 0 or more" ]
    [ -z "$output" ]
    for v in -1 nan inf 1e; do
        printf 'path\trating\na\t%s\n' "$v" > "$D/bad.tsv"
        run --separate-stderr "$B" playlist "$D/bad.tsv" --weights=rating
        [ "$status" -eq 1 ]
        [[ $stderr == *"bad.tsv:2: invalid weight"* ]]
    done
    printf 'path\trating\na\t1\nb\n' > "$D/bad.tsv"
    run --separate-stderr "$B" playlist "$D/bad.tsv" --weights=rating
    [[ $stderr == *"bad.tsv:3: missing weight 'rating'"* ]]
    run --separate-stderr "$B" playlist "$D/bad.tsv" --weights=stars
    [[ $stderr == *"no field 'stars'"* ]]
    run --separate-stderr "$B" playlist "$D/list.txt" --weights=rating
    [ "$status" -eq 2 ]
}

@test "playlist --spread: fewer adjacent same-artist pairs than plain shuffle" {
    { printf 'path\tartist\n'; for i in $(seq 40); do printf 'a%d\tA\n' $i; done
      for k in B C D E F G H I J K; do for i in 1 2 3 4 5 6; do printf '%s%d\t%s\n' $k $i $k; done; done; } > "$D/s.tsv"
    adj() { cut -f2 | awk 'NR > 2 && $0 == prev { n++ } { prev = $0 } END { print n + 0 }'; }
    spread=0 plain=0
    for s in 1 2 3 4 5; do
        out=$("$B" playlist "$D/s.tsv" --spread=artist --seed=$s)
        [ "$(echo "$out" | tail -n +2 | sort | tr '\n' ' ')" = "$(tail -n +2 "$D/s.tsv" | sort | tr '\n' ' ')" ]
        spread=$((spread + $(echo "$out" | adj)))
        plain=$((plain + $("$B" playlist "$D/s.tsv" --seed=$s | adj)))
    done
    # 40 of 100 by one artist: the minimum is 0; plain shuffle expects ~18.4 a list
    [ "$spread" -le 5 ]
    [ "$plain" -ge 40 ]
    run --separate-stderr "$B" playlist "$D/s.tsv" --spread=genre
    [ "$status" -eq 1 ]
    [[ $stderr == *"no field 'genre'"* ]]
}
