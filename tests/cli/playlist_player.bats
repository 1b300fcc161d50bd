#!/usr/bin/env bats
# `fairshuf playlist --state` as a music player ships it (issue 28): spread
# and weights across cycles and edits, play next (queue), start from this
# song (seek-item), concurrent players, print-then-record, bounded and
# checked state files (foreign, damaged, other version, NUL, huge,
# /dev/zero), symlinked states, --force-new; and list details (issue 30:
# byte order mark, CRLF).

setup() {
    bats_require_minimum_version 1.5.0
    B=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    D=$(mktemp -d)
    seq 1 20 | sed 's/^/song/' > "$D/list.txt"
}

load stopped # wait_stopped
load long # pick

teardown() {
    [ -z "${pid:-}" ] || kill -9 "$pid" 2>/dev/null || true
    rm -rf "$D"
}

sorted() { sort | tr '\n' ' '; }

# Steps K times: steps K ACTION-ARGS... (list and state fixed by L and S)
steps() {
    local k=$1
    shift
    for _ in $(seq "$k"); do "$B" playlist "$L" --state="$S" "$@" next; done
}

# Adjacent same-artist pairs within each block of N lines of stdin (TSV,
# artist in field 2).
adj_in_blocks() {
    awk -F'\t' -v n="$1" '{ if ((NR - 1) % n != 0 && $2 == prev) a++; prev = $2 } END { print a + 0 }'
}

# 100 songs: 60 by A, 40 over artists B..K (the minimum within a cycle is
# 2*60 - 100 - 1 = 19 adjacent pairs).
library() {
    { printf 'path\tartist\n'
      for i in $(seq 60); do printf 'a%d\tA\n' "$i"; done
      for k in B C D E F G H I J K; do for i in 1 2 3 4; do printf '%s%d\t%s\n' $k $i $k; done; done
    } > "$1"
}

@test "player --spread over 3 cycles: every song once a cycle, spread within 10% of the stateless order" {
    L=$D/s.tsv S=$D/st
    library "$L"
    steps 300 --spread=artist --seed=sp > "$D/got"
    for c in 0 1 2; do
        [ "$(sed -n "$((c * 100 + 1)),$((c * 100 + 100))p" "$D/got" | sorted)" = "$(tail -n +2 "$L" | sorted)" ]
    done
    stateful=$(adj_in_blocks 100 < "$D/got")
    stateless=$("$B" playlist "$L" --spread=artist --seed=sp --cycles=3 | tail -n +2 | adj_in_blocks 100)
    echo "stateful $stateful stateless $stateless" >&3
    [ "$stateful" -ge 57 ] # the minimum: 3 x 19
    [ $((stateful * 10)) -le $((stateless * 11)) ]
    # control: the plain player (no --spread) fails the same bound; its 300
    # steps are the stateless --cycles=3 order (playlist.bats: "next from a
    # new state prints the --cycles order"), one process instead of 300
    plain=$("$B" playlist "$L" --seed=sp --cycles=3 | tail -n +2 | adj_in_blocks 100)
    [ $((plain * 10)) -gt $((stateless * 11)) ]
    # the window rule across the cycle ends: the last w (10) of a cycle are
    # not among the first 10 of the next
    for c in 0 1; do
        tail=$(sed -n "$((c * 100 + 91)),$((c * 100 + 100))p" "$D/got" | sort)
        head=$(sed -n "$((c * 100 + 101)),$((c * 100 + 110))p" "$D/got" | sort)
        [ -z "$(comm -12 <(echo "$tail") <(echo "$head"))" ]
    done
    # the state does not take another order silently
    run --separate-stderr "$B" playlist "$L" --state="$D/st" next
    [ "$status" -eq 1 ]
    [[ $stderr == *"another order"* ]]
}

@test "player --spread after adds and removes: each song once, nothing replayed, M3U artists" {
    L=$D/s.tsv S=$D/st
    library "$L"
    steps 30 --spread=artist --seed=ed > "$D/played"
    # remove 3 songs not played yet, add 5
    gone=$(comm -23 <(tail -n +2 "$L" | sort) <(sort "$D/played") | head -3)
    grep -vxF "$gone" "$L" > "$D/new"
    for i in 1 2 3 4 5; do printf 'n%d\tL\n' "$i"; done >> "$D/new"
    mv "$D/new" "$L"
    steps 72 --spread=artist 2> "$D/err" > "$D/rest"
    grep -q "the list changed" "$D/err"
    [ -z "$(comm -12 <(sort "$D/played") <(sort "$D/rest"))" ]
    [ -z "$(echo "$gone" | comm -12 - <(sort "$D/rest"))" ]
    [ "$(cat "$D/played" "$D/rest" | sorted)" = "$(tail -n +2 "$L" | sorted)" ]
    # the next cycle: every song of the new list once
    [ "$(steps 102 --spread=artist | sorted)" = "$(tail -n +2 "$L" | sorted)" ]
    # M3U: the artist from #EXTINF
    { echo '#EXTM3U'; for i in $(seq 12); do echo "#EXTINF:100,Solo - Song $i"; echo "/m/s$i.mp3"; done
      for i in $(seq 12); do echo "#EXTINF:100,Other$i - Song"; echo "/m/o$i.mp3"; done; } > "$D/p.m3u"
    L=$D/p.m3u S=$D/m3u
    steps 24 --spread=artist --seed=m > "$D/m.out"
    [ "$(grep -c '^/m/' "$D/m.out")" -eq 24 ]
    [ "$(grep '^/m/' "$D/m.out" | sort -u | wc -l)" -eq 24 ]
    solo_adj=$(grep '^#EXTINF' "$D/m.out" | awk '/Solo/ && p { a++ } { p = /Solo/ } END { print a + 0 }')
    [ "$solo_adj" -le 1 ]
    run --separate-stderr "$B" playlist "$D/p.m3u" --spread=album --seed=m
    [ "$status" -eq 2 ]
}

@test "player --weights over 3 cycles: each song once a cycle, heaviest first, weight 0 never" {
    printf 'path\trating\nbig\t1e300\nzero\t0\n' > "$D/w.tsv"
    for i in $(seq 10); do printf 's%d\t1\n' "$i"; done >> "$D/w.tsv"
    L=$D/w.tsv S=$D/st
    steps 33 --weights=rating --seed=w > "$D/got"
    ! grep -q '^zero' "$D/got"
    for c in 0 1 2; do
        blk=$(sed -n "$((c * 11 + 1)),$((c * 11 + 11))p" "$D/got" | cut -f1)
        [ "$(echo "$blk" | sorted)" = "$(tail -n +2 "$L" | cut -f1 | grep -vx zero | sorted)" ]
        [ "$(echo "$blk" | head -1)" = big ]
    done
    # after an edit mid-cycle: each song of the new list once, weight 0 never
    steps 4 --weights=rating > "$D/played"
    gone=$(comm -23 <(tail -n +2 "$L" | cut -f1 | grep -vx zero | sort) <(cut -f1 "$D/played" | sort) | head -2)
    awk -F'\t' -v g="$(echo $gone)" 'BEGIN { split(g, a, " "); for (k in a) out[a[k]] = 1 } !($1 in out)' "$L" > "$D/new"
    [ "$(wc -l < "$D/new")" -eq 11 ]
    printf 'new1\t2\nzero2\t0\n' >> "$D/new"
    mv "$D/new" "$L"
    steps 6 --weights=rating 2> /dev/null > "$D/rest"
    [ "$(cat "$D/played" "$D/rest" | cut -f1 | sorted)" = "$(tail -n +2 "$L" | cut -f1 | grep -v '^zero' | sorted)" ]
    ! grep -q '^zero' "$D/rest"
    # stateless too: weight 0 never printed; every weight 0 is an error
    [ "$("$B" playlist "$L" --weights=rating --seed=1 --cycles=3 | grep -c zero)" -eq 0 ]
    printf 'path\trating\na\t0\n' > "$D/z.tsv"
    run --separate-stderr "$B" playlist "$D/z.tsv" --weights=rating
    [ "$status" -eq 1 ]
    [[ $stderr == *"every weight is 0"* ]]
}

@test "queue: queued songs play next, then the cycle resumes; not again in the cycle; across a cycle end" {
    L=$D/list.txt S=$D/st
    steps 5 --seed=q > "$D/played"
    unplayed=($(comm -23 <(sort "$L") <(sort "$D/played")))
    "$B" playlist "$L" --state="$S" queue "${unplayed[0]}" "${unplayed[1]}"
    "$B" playlist "$L" --state="$S" queue "${unplayed[2]}"
    [ "$(steps 3)" = "$(printf '%s\n' "${unplayed[0]}" "${unplayed[1]}" "${unplayed[2]}")" ]
    steps 12 > "$D/rest"
    # the cycle: 5 + 3 queued + 12 = every song once
    [ "$(cat "$D/played" <(printf '%s\n' "${unplayed[@]:0:3}") "$D/rest" | sorted)" = "$(sorted < "$L")" ]
    # at the cycle's end: a queued song plays, then the next full cycle
    "$B" playlist "$L" --state="$S" queue song1
    [ "$(steps 1)" = song1 ]
    [ "$(steps 20 | sorted)" = "$(sorted < "$L")" ]
    run --separate-stderr "$B" playlist "$L" --state="$S" queue nosuch
    [ "$status" -eq 1 ]
    [[ $stderr == *"no item 'nosuch'"* ]]
}

@test "queue after prev: the queued song, then the songs heard after it again, nothing replayed" {
    L=$D/list.txt S=$D/st
    steps 6 --seed=qp > "$D/played"
    "$B" playlist "$L" --state="$S" prev > /dev/null
    "$B" playlist "$L" --state="$S" prev > /dev/null
    x=$(comm -23 <(sort "$L") <(sort "$D/played") | head -1)
    "$B" playlist "$L" --state="$S" queue "$x"
    [ "$(steps 1)" = "$x" ]
    [ "$(steps 2)" = "$(tail -n 2 "$D/played")" ]
    steps 13 > "$D/rest"
    [ "$(cat "$D/played" <(echo "$x") "$D/rest" | sorted)" = "$(sorted < "$L")" ]
    # prev walks back through the queued song
    back=$(for i in 1 2 3; do "$B" playlist "$L" --state="$S" prev; done)
    [ "$back" = "$(tail -n 16 <(cat "$D/played" <(echo "$x") "$D/rest") | head -n 15 | tail -n 3 | tac)" ]
}

@test "seek-item: a new cycle starts at the song; across the cycle end; prev after it" {
    L=$D/list.txt S=$D/st
    steps 4 --seed=si > /dev/null
    [ "$("$B" playlist "$L" --state="$S" seek-item=song7)" = song7 ]
    grep -q ' cycle=1 at=1 ' "$S" # the next cycle, not this one again
    steps 19 > "$D/rest"
    [ "$(cat <(echo song7) "$D/rest" | sorted)" = "$(sorted < "$L")" ]
    [ "$(steps 20 | sorted)" = "$(sorted < "$L")" ]
    # on a fresh state: the first cycle opens with the song
    S=$D/fresh
    [ "$("$B" playlist "$L" --seed=f --state="$S" seek-item=song3)" = song3 ]
    grep -q ' cycle=0 at=1 ' "$S" # nothing of cycle 0 played: it opens it
    steps 3 > "$D/three"
    back=$(for i in 1 2 3; do "$B" playlist "$L" --state="$S" prev; done)
    [ "$back" = "$(printf '%s\n' "$(sed -n 2p "$D/three")" "$(sed -n 1p "$D/three")" song3)" ]
    run --separate-stderr "$B" playlist "$L" --state="$S" prev
    [ "$status" -eq 1 ]
    [ "$(steps 19 | sort -u | wc -l)" -eq 19 ] # 3 heard again, then 16 new
    run --separate-stderr "$B" playlist "$L" --state="$S" seek-item=nosuch
    [ "$status" -eq 1 ]
}

@test "two concurrent next loops (1,000 steps; make check 200) replay nothing within a cycle" {
    L=$D/list.txt
    k=$(pick 500 100) # make check: 200 steps, 10 cycles
    "$B" playlist "$L" --seed=cc --state="$D/st" next > "$D/a"
    loop() { for _ in $(seq "$1"); do "$B" playlist "$L" --state="$D/st" next; done; }
    loop $((k - 1)) >> "$D/a" &
    p1=$!
    loop "$k" > "$D/b" &
    p2=$!
    wait $p1 $p2
    # 2k steps = k / 10 cycles of 20: every song exactly k / 10 times
    [ "$(cat "$D/a" "$D/b" | wc -l)" -eq $((2 * k)) ]
    [ "$(cat "$D/a" "$D/b" | sort | uniq -c | awk -v c=$((k / 10)) '$1 != c' | wc -l)" -eq 0 ]
    grep -q "step=$((2 * k)) " "$D/st"
}

@test "a step is recorded only once its song is printed" {
    L=$D/list.txt
    "$B" playlist "$L" --seed=pr --state="$D/st" next > /dev/null
    before=$(cat "$D/st")
    run --separate-stderr bash -c "'$B' playlist '$L' --state='$D/st' next > /dev/full"
    [ "$status" -eq 1 ]
    [[ $stderr == *"write error"*"not recorded"* ]]
    [ "$(cat "$D/st")" = "$before" ]
}

@test "kill -9 in the middle of a queue leaves the old state" {
    L=$D/list.txt
    "$B" playlist "$L" --seed=kq --state="$D/st" next > /dev/null
    before=$(cat "$D/st")
    FAIRSHUF_TEST_STOP_IN_STATE_WRITE=1 "$B" playlist "$L" --state="$D/st" queue song9 &
    pid=$!
    stopped=$(wait_stopped "$pid")
    kill -9 $pid
    wait $pid || true
    pid=
    [ "$stopped" = T ]
    [ "$(cat "$D/st")" = "$before" ]
    rm -f "$D"/st.tmp.*
    "$B" playlist "$L" --state="$D/st" queue song9
    [ "$("$B" playlist "$L" --state="$D/st" next)" = song9 ]
}

@test "kill -9 during next: stopped half-way the old state; a crash loop leaves the old or the new" {
    L=$D/list.txt S=$D/st
    "$B" playlist "$L" --seed=kn --state="$S" next > /dev/null
    before=$(cat "$S")
    FAIRSHUF_TEST_STOP_IN_STATE_WRITE=1 "$B" playlist "$L" --state="$S" next > "$D/half" &
    pid=$!
    [ "$(wait_stopped "$pid")" = T ]
    { kill -9 $pid; wait $pid; } 2> /dev/null || true
    pid=
    [ "$(cat "$S")" = "$before" ] # printed but not recorded: it plays again
    [ "$("$B" playlist "$L" --state="$S" next)" = "$(cat "$D/half")" ]
    # the crash loop: kill -9 at random points of next and queue; after each
    # kill the state is the old one or the one the uninterrupted step writes
    # (worked out first on a copy), never anything else
    mkdir "$D/ref"
    old=0 new=0
    # a soak: 40 kills under make check-long, 16 (4 of them in queue) in make check
    for i in $(seq "$(pick 40 16)"); do
        act=(next)
        [ $((i % 4)) -ne 0 ] || act=(queue "song$((i % 20 + 1))")
        cp "$S" "$D/ref/st"
        cp "$S" "$D/before"
        "$B" playlist "$L" --state="$D/ref/st" "${act[@]}" > /dev/null
        ! cmp -s "$D/before" "$D/ref/st"
        "$B" playlist "$L" --state="$S" "${act[@]}" > /dev/null &
        pid=$!
        sleep "0.0$((RANDOM % 3))$((RANDOM % 10))"
        kill -9 $pid || true
        wait $pid || true
        pid=
        if cmp -s "$S" "$D/ref/st"; then
            new=$((new + 1))
        else
            cmp "$S" "$D/before"
            old=$((old + 1))
        fi
    done 2> /dev/null
    echo "crash loop: $old old states, $new new" >&3
    rm -f "$S".tmp.*
    # the player goes on from what was left: the rest of its cycle (and what
    # is still queued), then a new cycle of 20, each song once
    c0=$(sed -n '2s/.* cycle=\([0-9]*\) .*/\1/p' "$S")
    for _ in $(seq 40); do
        first=$(steps 1)
        grep -q " cycle=$((c0 + 1)) at=1 " "$S" && break
    done
    grep -q " cycle=$((c0 + 1)) at=1 " "$S"
    [ "$( (echo "$first"; steps 19) | sorted)" = "$(sorted < "$L")" ]
}

@test "state input is bounded: /dev/zero, a 1 GB file, a NUL byte are refused at once" {
    L=$D/list.txt
    run --separate-stderr timeout 5 "$B" playlist "$L" --state=/dev/zero next
    [ "$status" -eq 1 ]
    [[ $stderr == *"not a regular file"* ]]
    truncate -s 1G "$D/big"
    # refused by its size, before a byte is read ("too large", not the NUL
    # byte a read would meet first; no timed assertion)
    run --separate-stderr timeout 5 "$B" playlist "$L" --state="$D/big" next
    [ "$status" -eq 1 ]
    [[ $stderr == *"too large"* ]]
    [ "$(stat -c %s "$D/big")" -eq 1073741824 ]
    "$B" playlist "$L" --seed=nul --state="$D/st" next > /dev/null
    sed '1s/ n=20/ n=20\x00/' "$D/st" > "$D/st0"
    run --separate-stderr "$B" playlist "$L" --state="$D/st0" next
    [ "$status" -eq 1 ]
    [[ $stderr == *"NUL byte"* ]]
}

@test "a symlinked state stays a symlink; the file it points to is replaced" {
    L=$D/list.txt
    mkdir "$D/real"
    ln -s real/state "$D/link"
    "$B" playlist "$L" --seed=ln --state="$D/link" next > /dev/null
    [ -L "$D/link" ]
    [ -f "$D/real/state" ]
    a=$(cat "$D/real/state")
    "$B" playlist "$L" --state="$D/link" next > /dev/null
    [ -L "$D/link" ]
    [ "$(cat "$D/real/state")" != "$a" ]
    grep -q 'step=2 ' "$D/real/state"
}

@test "a state for another list, another version or damaged is refused; --force-new starts over" {
    L=$D/list.txt
    "$B" playlist "$L" --seed=fo --state="$D/st" next > /dev/null
    before=$(cat "$D/st")
    cp "$L" "$D/other.txt"
    run --separate-stderr "$B" playlist "$D/other.txt" --state="$D/st" next
    [ "$status" -eq 1 ]
    [[ $stderr == *"made for another list"*"--force-new"* ]]
    [ "$(cat "$D/st")" = "$before" ]
    sed '1s/^fairshuf-playlist 1 /fairshuf-playlist 7 /' "$D/st" > "$D/v7"
    run --separate-stderr "$B" playlist "$L" --state="$D/v7" next
    [ "$status" -eq 1 ]
    [[ $stderr == *"another version"* ]]
    sed '2s/^player 2 /player 3 /' "$D/st" > "$D/p3"
    run --separate-stderr "$B" playlist "$L" --state="$D/p3" next
    [ "$status" -eq 1 ]
    [[ $stderr == *"another version"* ]]
    head -c 150 "$D/st" > "$D/cut"
    run --separate-stderr "$B" playlist "$L" --state="$D/cut" next
    [ "$status" -eq 1 ]
    [[ $stderr == "fairshuf: $D/cut: not a fairshuf playlist state (--force-new starts over)" ]]
    sed '$d' "$D/st" > "$D/nosum"
    run --separate-stderr "$B" playlist "$L" --state="$D/nosum" next
    [ "$status" -eq 1 ]
    [[ $stderr == *"damaged (incomplete) (--force-new starts over)" ]]
    # refused states are left as they were; --force-new is named in the error
    cmp "$D/v7" <(sed '1s/^fairshuf-playlist 1 /fairshuf-playlist 7 /' "$D/st")
    cmp "$D/cut" <(head -c 150 "$D/st")
    # --force-new: a new player, on purpose
    run --separate-stderr "$B" playlist "$D/other.txt" --seed=fo --force-new --state="$D/st" next
    [ "$status" -eq 0 ]
    [ "$output" = "$("$B" playlist "$D/other.txt" --seed=fo | head -1)" ]
    grep -q 'step=1 ' "$D/st"
    run --separate-stderr "$B" playlist "$L" --force-new
    [ "$status" -eq 2 ]
}

@test "a UTF-8 byte order mark before #EXTM3U or a TSV header; CRLF lines lose the CR" {
    printf '\xef\xbb\xbf#EXTM3U\n#EXTINF:1,A - x\n/a.mp3\n#EXTINF:1,B - y\n/b.mp3\n' > "$D/bom.m3u"
    run "$B" playlist "$D/bom.m3u" --seed=b
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 5 ]
    [ "${lines[0]}" = $'\xef\xbb\xbf#EXTM3U' ]
    [ "$(printf '%s\n' "${lines[@]}" | grep -c '^/')" -eq 2 ]
    printf '\xef\xbb\xbfpath\trating\na\t1\nb\t2\n' > "$D/bom.tsv"
    run "$B" playlist "$D/bom.tsv" --weights=path --seed=b
    [ "$status" -eq 1 ]
    run "$B" playlist "$D/bom.tsv" --weights=rating --seed=b
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 3 ]
    # the same through the reference implementation of docs/stream.md §6
    [ "$(python3 "$BATS_TEST_DIRNAME/stream_spec.py" run playlist "$D/bom.tsv" --weights=rating --seed=b)" = "$output" ]
    # a hexadecimal weight is what C reads (stream.md §6): 0x10 is 16
    printf 'path\trating\na\t0x10\nb\t1e-300\n' > "$D/hex.tsv"
    for s in 1 2 3 4 5; do
        [ "$("$B" playlist "$D/hex.tsv" --weights=rating --seed=$s | sed -n 2p | cut -f1)" = a ]
    done
    # weight 0 left out: the binary and the reference agree
    printf 'path\trating\na\t1\nz\t0\nb\t2\nc\t0x1p-2\n' > "$D/zero.tsv"
    [ "$(python3 "$BATS_TEST_DIRNAME/stream_spec.py" run playlist "$D/zero.tsv" --weights=rating --seed=z --cycles=3)" = "$("$B" playlist "$D/zero.tsv" --weights=rating --seed=z --cycles=3)" ]
    # plain list without a header: the mark is printed first, once
    printf '\xef\xbb\xbfone\ntwo\n' > "$D/bom.txt"
    [ "$("$B" playlist "$D/bom.txt" --seed=b | head -c 3 | od -An -tx1 | tr -d ' ')" = efbbbf ]
    [ "$("$B" playlist "$D/bom.txt" --seed=b | tail -c +4 | sorted)" = "one two " ]
    # CRLF: an item is its line without the CR (documented)
    printf 'one\r\ntwo\r\n' > "$D/crlf.txt"
    [ "$("$B" playlist "$D/crlf.txt" --seed=c | od -c | grep -c '\\r')" -eq 0 ]
}

@test "the state does not grow with the cycle; the copy of the list is kept beside it, one at a time" {
    seq 1 3000 | sed 's/^/track/' > "$D/big.txt"
    L=$D/big.txt S=$D/st
    "$B" playlist "$L" --seed=sz --state="$S" next > /dev/null
    small=$(stat -c %s "$S")
    "$B" playlist "$L" --state="$S" seek=2980 > /dev/null
    steps 50 > /dev/null # across the cycle's end
    grep -q "cycle=1 " "$S"
    [ "$(stat -c %s "$S")" -le $((small + 32)) ]
    [ "$small" -lt 600 ]
    [ "$(ls "$D"/st.list-* | wc -l)" -eq 1 ]
    cmp "$L" "$D"/st.list-*
    # an edit: the copy tells what was played; then the copy follows the list
    echo track3001 >> "$L"
    steps 1 2> /dev/null > /dev/null
    [ "$(ls "$D"/st.list-* | wc -l)" -eq 1 ]
    cmp "$L" "$D"/st.list-*
    # the copy missing when it is needed: a clear error, the state kept
    echo track3002 >> "$L"
    rm "$D"/st.list-*
    before=$(cat "$S")
    run --separate-stderr "$B" playlist "$L" --state="$S" next
    [ "$status" -eq 1 ]
    [[ $stderr == *"copy of the list"*"is missing"*"--force-new"* ]]
    [ "$(cat "$S")" = "$before" ]
}
