#!/usr/bin/env bats
# contrib/mpv/fairshuf.lua in a real, headless mpv (null audio and video,
# an IPC socket): shuffle play through `fairshuf playlist --state`, every
# entry once per cycle through two cycles, no repeat at the boundary.  The songs last 20 s: tests/cli/mpv_drive.py moves mpv on
# with playlist-next once the script says it placed the next entry.

setup() {
    bats_require_minimum_version 1.5.0
    for t in mpv sox; do command -v $t >/dev/null || skip "$t is not installed (scripts/setup.sh test)"; done
    B=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    D=$(mktemp -d)
    mkdir -p "$D/a" "$D/b"
    for i in 1 2 3; do
        sox -q -n -r 8000 -c 1 -b 16 "$D/a/s$i.flac" synth 20 sine $((300 + 20 * i))
        sox -q -n -r 8000 -c 1 -b 16 "$D/b/t$i.flac" synth 20 sine $((500 + 20 * i))
    done
    ls "$D"/a/*.flac "$D"/b/*.flac > "$D/list"
}

teardown() {
    grep -h "fairshuf" "$D/mpv.log" 2>/dev/null | grep -i "error" | head -5 || true
    [ -z "${mpv_pid:-}" ] || { kill "$mpv_pid" 2>/dev/null; wait "$mpv_pid" 2>/dev/null; } || true
    rm -rf "$D"
}

# mpv with the script; options as script-opts (fairshuf-NAME=VALUE)
start_mpv() {
    local opts="fairshuf-bin=$B,fairshuf-state=$D/st$1"
    shift
    mpv --no-config --idle=yes --ao=null --vo=null --no-terminal \
        --input-ipc-server="$D/sock" --script="$BATS_TEST_DIRNAME/../../contrib/mpv/fairshuf.lua" \
        --script-opts="$opts" --log-file="$D/mpv.log" &
    mpv_pid=$!
}

distinct() { sort -u | wc -l; }

@test "mpv script: every entry once per cycle over two cycles, no repeat at the boundary" {
    start_mpv ",fairshuf-seed=loop"
    python3 "$BATS_TEST_DIRNAME/mpv_drive.py" "$D/sock" 12 "$D/list" > "$D/seq"
    sed "s|$D/||" "$D/seq" | tr '\n' ' ' >&3; echo >&3
    [ "$(wc -l < "$D/seq")" -eq 12 ]
    [ "$(head -n 6 "$D/seq" | distinct)" -eq 6 ]
    [ "$(tail -n 6 "$D/seq" | distinct)" -eq 6 ]
    [ "$(sed -n 6p "$D/seq")" != "$(sed -n 7p "$D/seq")" ]
    # the second cycle is another order
    [ "$(head -n 6 "$D/seq")" != "$(tail -n 6 "$D/seq")" ]
}

@test "mpv script: without it mpv plays the playlist in its order (the control)" {
    mpv --no-config --idle=yes --ao=null --vo=null --no-terminal \
        --input-ipc-server="$D/sock" &
    mpv_pid=$!
    # no fairshuf-placed message ever comes: the driver gives up
    run ! timeout 5 python3 "$BATS_TEST_DIRNAME/mpv_drive.py" "$D/sock" 2 "$D/list"
}
