#!/usr/bin/env bats
# `fairshuf playlist`: cycles, formats, the persistent player (next, prev,
# current, seek) and its atomic state file, a changed list, and errors.

setup() {
    bats_require_minimum_version 1.5.0
    B=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    D=$(mktemp -d)
    seq 1 20 | sed 's/^/song/' > "$D/list.txt"
}

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
    for c in $(seq 0 28); do
        tail=$(printf '%s\n' "${lines[@]:$((c * 20 + 15)):5}" | sort)
        head=$(printf '%s\n' "${lines[@]:$((c * 20 + 20)):5}" | sort)
        [ -z "$(comm -12 <(echo "$tail") <(echo "$head"))" ]
    done
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
    for i in $(seq 100); do
        [ "$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)" = T ] && break
        sleep 0.05
    done
    stopped=$(awk '{print $3}' /proc/$pid/stat)
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

@test "playlist: a changed list starts over on the new list, reproducibly" {
    "$B" playlist "$D/list.txt" --seed=x --state="$D/st" next
    cp "$D/st" "$D/st2"
    echo song21 >> "$D/list.txt"
    run --separate-stderr "$B" playlist "$D/list.txt" --state="$D/st" next
    [ "$status" -eq 0 ]
    [[ $stderr == *"the list changed"* ]]
    [ "$("$B" playlist "$D/list.txt" --state="$D/st2" next 2>/dev/null)" = "$output" ]
    grep -q 'n=21 ' "$D/st"
    got=$(for i in $(seq 20); do "$B" playlist "$D/list.txt" --state="$D/st" next; done | cat - <(echo "$output") | sort | tr '\n' ' ')
    [ "$got" = "$(sort "$D/list.txt" | tr '\n' ' ')" ]
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
    [ "$stderr" = "fairshuf: $D/bad.tsv:3: invalid weight 'x': must be a positive number" ]
    [ -z "$output" ]
    for v in 0 -1 nan inf; do
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
    run --separate-stderr "$B" playlist "$D/s.tsv" --spread=artist --state="$D/st" next
    [ "$status" -eq 2 ]
}
