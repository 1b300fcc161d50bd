#!/usr/bin/env bats
# contrib/mpv/fairshuf.lua in a real, headless mpv (null audio and video,
# an IPC socket): shuffle play through `fairshuf playlist --state`, every
# entry once per cycle through two cycles, no repeat at the boundary, exactly fairshuf's order; folder spread.
# The songs last 20 s: tests/cli/mpv_drive.py moves mpv on
# with playlist-next once the script says it placed the next entry.

setup() {
    bats_require_minimum_version 1.5.0
    for t in mpv sox; do command -v $t >/dev/null || skip "$t is not installed (scripts/setup.sh test)"; done
    # A real player's timing, tested in make check's build and under the
    # sanitizers; the clang build (CI's third pass) does not rerun it.
    ! readelf -p .comment "${FS_BIN:-build/fairshuf}" 2>/dev/null | grep -q clang ||
        skip "real players' tests do not rerun on the clang build"
    B=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    D=$(mktemp -d)
    mkdir -p "$D/a" "$D/b"
    for i in 1 2 3; do
        sox -q -n -r 8000 -c 1 -b 16 "$D/a/s$i.flac" synth 20 sine $((300 + 20 * i))
        sox -q -n -r 8000 -c 1 -b 16 "$D/b/t$i.flac" synth 20 sine $((500 + 20 * i))
    done
    # relative paths (mpv runs in D): the same list, the same orders, in
    # every run of the test
    (cd "$D" && ls a/*.flac b/*.flac > list)
}

teardown() {
    [ -n "${BATS_TEST_COMPLETED:-}" ] || grep -h "fairshuf\]\|playlist-\|Run command: quit" "$D/mpv.log" 2>/dev/null | grep -v "\]\[d\]\[fairshuf\]" | tail -40 >&3 || true
    [ -z "${mpv_pid:-}" ] || { kill "$mpv_pid" 2>/dev/null; wait "$mpv_pid" 2>/dev/null; } || true
    rm -rf "$D"
}

# mpv with the script; options as script-opts (fairshuf-NAME=VALUE)
start_mpv() {
    local opts="fairshuf-bin=$B,fairshuf-state=$D/st$1"
    shift
    (cd "$D" && exec mpv --no-config --idle=yes --ao=null --vo=null --no-terminal \
        --input-ipc-server="$D/sock" --script="$BATS_TEST_DIRNAME/../../contrib/mpv/fairshuf.lua" \
        --script-opts="$opts" --log-file="$D/mpv.log") &
    mpv_pid=$!
}

distinct() { sort -u | wc -l; }
# adjacent entries of one folder (a or b)
adjacent() { sed "s|$D/||; s|/.*||" | awk 'NR > 1 && $0 == p { a++ } { p = $0 } END { print a + 0 }'; }

@test "mpv script: every entry once per cycle over two cycles, no repeat at the boundary" {
    start_mpv ",fairshuf-seed=loop,fairshuf-spread=no"
    python3 "$BATS_TEST_DIRNAME/mpv_drive.py" "$D/sock" 12 list > "$D/seq"
    sed "s|$D/||" "$D/seq" | tr '\n' ' ' >&3; echo >&3
    [ "$(wc -l < "$D/seq")" -eq 12 ]
    [ "$(head -n 6 "$D/seq" | distinct)" -eq 6 ]
    [ "$(tail -n 6 "$D/seq" | distinct)" -eq 6 ]
    [ "$(sed -n 6p "$D/seq")" != "$(sed -n 7p "$D/seq")" ]
    # the second cycle is another order
    [ "$(head -n 6 "$D/seq")" != "$(tail -n 6 "$D/seq")" ]
    # exactly fairshuf's order of the list (the playlist's paths sorted)
    [ "$(cat "$D/seq")" = "$("$B" playlist "$D/st.tsv" --seed=loop --cycles=2 | tail -n +2 | cut -f1)" ]
    # the control of the spread test below: 6 pairs of one folder side by
    # side
    [ "$(adjacent < "$D/seq")" -gt 2 ]
}

@test "mpv script: spread=folder plays the player's spread order: fewer entries of one folder side by side" {
    start_mpv "-spread,fairshuf-seed=sp,fairshuf-spread=folder"
    python3 "$BATS_TEST_DIRNAME/mpv_drive.py" "$D/sock" 12 list > "$D/seq"
    sed "s|$D/||" "$D/seq" | tr '\n' ' ' >&3; echo >&3
    [ "$(head -n 6 "$D/seq" | distinct)" -eq 6 ]
    [ "$(tail -n 6 "$D/seq" | distinct)" -eq 6 ]
    # exactly what the player gives, stepped by the CLI on a new state
    for i in $(seq 12); do
        "$B" playlist "$D/st-spread.tsv" --state="$D/replay" --spread=folder --seed=sp next | cut -f1
    done > "$D/replay.seq"
    [ "$(cat "$D/seq")" = "$(cat "$D/replay.seq")" ]
    # 3 and 3 in 12: 2 pairs side by side (a plain shuffle: 4 expected;
    # the plain order of the first test, the control, has 6)
    [ "$(adjacent < "$D/seq")" -le 2 ]
}

@test "mpv script: without it mpv plays the playlist in its order (the control)" {
    (cd "$D" && exec mpv --no-config --idle=yes --ao=null --vo=null --no-terminal \
        --input-ipc-server="$D/sock") &
    mpv_pid=$!
    # no fairshuf-placed message ever comes: the driver gives up
    run ! timeout 5 python3 "$BATS_TEST_DIRNAME/mpv_drive.py" "$D/sock" 2 list
}

@test "fairshuf playlist --state peek (what the script plans with): next's item, the state unchanged" {
    seq 1 7 | sed 's/^/song/' > "$D/l.txt"
    "$B" playlist "$D/l.txt" --state="$D/p" --seed=pk next >/dev/null
    for _ in $(seq 9); do
        cp "$D/p" "$D/p.before"
        a=$("$B" playlist "$D/l.txt" --state="$D/p" peek)
        cmp "$D/p" "$D/p.before"
        [ "$("$B" playlist "$D/l.txt" --state="$D/p" peek)" = "$a" ]
        [ "$("$B" playlist "$D/l.txt" --state="$D/p" next)" = "$a" ]
    done
    run -2 "$B" playlist "$D/l.txt" --state="$D/p" peek extra
    run -2 "$B" playlist "$D/l.txt" peek
}
