#!/usr/bin/env bats
# `fairshuf mpd` against a real MPD (tests/cli/mpd_server.bash starts one
# per test file on loopback, null output, short generated FLAC files):
# shuffle gives `fairshuf playlist`'s order of the queue; uniform over the 6
# orders of 3 songs while MPD's own shuffle (the control) is not; --spread
# in the queue; --weights from stickers; errors; `run` playing cycles
# with an edit, a "play next" insert, a pick by hand and restarts; inserts
# and nexts sent back to back (no waiting for run) or as one command list;
# consume mode; MPD_HOST a unix socket.

setup_file() {
    bats_require_minimum_version 1.5.0
    load mpd_server
    mpd_have || skip
    export D=$(mktemp -d)
    mpd_music "$D" 12 20 3
    mpd_start "$D"
    echo "$MPD_PID" > "$D/mpd.pid"
    export MPD_HOST MPD_PORT MPD_DIR
}

teardown_file() {
    [ -n "${D:-}" ] || return 0
    MPD_PID=$(cat "$D/mpd.pid" 2>/dev/null)
    load mpd_server
    mpd_stop
    rm -rf "$D"
}

setup() {
    load mpd_server
    mpd_have || skip
    B=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    export FS_MPD=$(dirname "$B")/fairshuf-mpd
    [ -x "$FS_MPD" ] || skip "fairshuf-mpd is not built (libmpdclient-dev)"
    # A real player's timing, tested in make check's build and under the
    # sanitizers; the clang build (CI's third pass) does not rerun it.
    ! readelf -p .comment "${FS_BIN:-build/fairshuf}" 2>/dev/null | grep -q clang ||
        skip "real players' tests do not rerun on the clang build"
    mpc -q stop; mpc -q clear; mpc -q random off; mpc -q repeat off; mpc -q consume off
    MPD_PID=$(cat "$D/mpd.pid")
}

teardown() {
    [ -z "${run_pid:-}" ] || { kill "$run_pid" 2>/dev/null; wait "$run_pid" 2>/dev/null; } || true
}

queue() { mpc playlist -f "${1:-%file%}"; }
fill() { local i; for i in "$@"; do mpc -q add "s$i.flac"; done; }

@test "shuffle: the queue in fairshuf playlist's order of its files (plain, --spread, --weights)" {
    for s in 1 2 x; do
        mpc -q clear; fill 3 1 4 5 9 2 6 8 7
        queue > "$D/q.txt"
        "$B" mpd --seed=$s shuffle
        [ "$(queue)" = "$("$B" playlist "$D/q.txt" --seed=$s)" ]
        [ "$(queue | sort)" = "$(sort "$D/q.txt")" ]
    done
    # --spread=artist: the TSV of the queue through fairshuf playlist
    mpc -q clear; fill 3 1 4 5 9 2 6 8 7
    { printf 'file\tartist\n'; queue '%file%\t%artist%'; } > "$D/q.tsv"
    "$B" mpd --seed=sp --spread=artist shuffle
    [ "$(queue)" = "$("$B" playlist "$D/q.tsv" --seed=sp --spread=artist | tail -n +2 | cut -f1)" ]
    # --spread=album too (another tag, another order)
    mpc -q clear; fill 3 1 4 5 9 2 6 8 7
    { printf 'file\talbum\n'; queue '%file%\t%album%'; } > "$D/q.tsv"
    "$B" mpd --seed=sp --spread=album shuffle
    [ "$(queue)" = "$("$B" playlist "$D/q.tsv" --seed=sp --spread=album | tail -n +2 | cut -f1)" ]
    # --weights=sticker:rating: songs without it weigh --default-weight;
    # weight 0 goes last
    mpc -q clear; fill 1 2 3 4 5
    mpc sticker s1.flac set rating 10; mpc sticker s2.flac set rating 0
    mpc sticker s3.flac set rating 0.5
    { printf 'file\trating\n'; printf 's1.flac\t10\ns3.flac\t0.5\ns4.flac\t2\ns5.flac\t2\n'; } > "$D/w.tsv"
    "$B" mpd --seed=w --weights=sticker:rating --default-weight=2 shuffle
    [ "$(queue)" = "$("$B" playlist "$D/w.tsv" --seed=w --weights=rating | tail -n +2 | cut -f1; echo s2.flac)" ]
}

@test "shuffle: a playing song stays current and goes first, the rest in fairshuf's order" {
    fill 1 2 3 4 5 6
    queue > "$D/q.txt"
    mpc -q play 4; mpc -q pause
    "$B" mpd --seed=p shuffle
    [ "$(mpc current -f %file%)" = s4.flac ]
    [ "$(queue)" = "$(echo s4.flac; "$B" playlist "$D/q.txt" --seed=p | grep -vx s4.flac)" ]
}

@test "shuffle: uniform over the 6 orders of 3 songs; MPD's own shuffle (the control) is not" {
    # chi-square on 5 df, the 1e-3 critical value 20.52.  fairshuf: seeds
    # 1..600 through MPD (each a process: 600 keeps the file short;
    # FS_TEST_LONG=1: 6000); the counts are fixed by the seeds (precomputed:
    # 101 97 90 94 109 109, chi2 3.08).  MPD's shuffle: 12,000 (one
    # connection; its bias, 4/27 vs 5/27, gives chi2 about 153).
    k=600
    [ "${FS_TEST_LONG:-0}" = 1 ] && k=6000
    read -r -a fair < <(python3 "$BATS_TEST_DIRNAME/mpd_orders.py" fairshuf $k)
    read -r -a ctl < <(python3 "$BATS_TEST_DIRNAME/mpd_orders.py" mpd 12000)
    echo "# fairshuf ${fair[*]}; MPD ${ctl[*]}" >&3
    [ "$k" != 600 ] || [ "${fair[*]}" = "101 97 90 94 109 109 3.08" ]
    python3 -c "import sys; sys.exit(not float(sys.argv[1]) < 20.52)" "${fair[6]}"
    python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 20.52)" "${ctl[6]}"
}

@test "shuffle --spread=artist: fewer adjacent same-artist songs than plain shuffle" {
    # 9 songs over 3 artists, 3 each (the minimum is 0): over 40 seeds
    # spread leaves 11 adjacent pairs, plain shuffle (the control, which
    # fails the bound) 81 (expected 2 per order: 80)
    adj() { queue %artist% | awk 'NR > 1 && $0 == p { a++ } { p = $0 } END { print a + 0 }'; }
    spread=0 plain=0
    for s in $(seq 40); do
        mpc -q clear; fill 1 2 3 4 5 6 7 8 9
        "$B" mpd --seed=$s --spread=artist shuffle; spread=$((spread + $(adj)))
        mpc -q clear; fill 1 2 3 4 5 6 7 8 9
        "$B" mpd --seed=$s shuffle; plain=$((plain + $(adj)))
    done
    echo "# adjacent same-artist pairs in 40 orders: spread $spread, plain $plain" >&3
    [ "$spread" -le 20 ]
    [ "$plain" -gt 20 ]
}

@test "errors: MPD unreachable, a password refused, usage" {
    port=$(mpd_free_port)
    run -1 "$B" mpd --port=$port shuffle
    [[ $output == "fairshuf: MPD at 127.0.0.1:$port: "*"onnection refused"* ]]
    echo wrong > "$D/pw"
    run -1 "$B" mpd --password-file="$D/pw" shuffle
    [[ $output == "fairshuf: MPD at "*": password refused: "* ]]
    # run: a refused password ends it; an MPD not there is retried
    mkdir -p "$D/err"
    run -1 "$B" mpd --password-file="$D/pw" --state="$D/err/st" run
    [[ $output == "fairshuf: MPD at "*": password refused: "* ]]
    run -124 timeout 2 "$B" mpd --port=$port --state="$D/err/st" run
    [[ $output == "fairshuf: MPD at 127.0.0.1:$port: "*"(retrying)" ]]
    run -1 "$B" mpd --password-file="$D/none" shuffle
    [[ $output == *"$D/none: No such file or directory"* ]]
    run -2 "$B" mpd --spread=genre shuffle
    [[ $output == *"invalid --spread: 'genre'"* ]]
    run -2 "$B" mpd --weights=rating shuffle
    [[ $output == *"must be sticker:NAME"* ]]
    run -2 "$B" mpd dance
    [[ $output == *"invalid action 'dance'"* ]]
    run -0 "$B" mpd --help
    [[ $output == *"Usage: fairshuf mpd"* ]]
}

# run's tests move MPD on with `next` (songs of 20 s never end by
# themselves), each time once fairshuf has followed the last change (its
# state changed: what a user's next command can count on), and record the
# song MPD plays then.
wait_state() { # old state text: until the state differs (10 s at most)
    local i
    for i in $(seq 200); do [ "$(cat "$D/run/st" 2>/dev/null)" != "$1" ] && return 0; sleep 0.05; done
    echo "fairshuf did not follow:"; cat "$D/run.err"; return 1
}
settle() { # until the state stays the same for 0.5 s (10 s at most)
    local i k=0 last now
    last=$(cat "$D/run/st" 2>/dev/null)
    for i in $(seq 200); do
        sleep 0.05; now=$(cat "$D/run/st" 2>/dev/null)
        if [ "$now" = "$last" ]; then k=$((k + 1)); [ "$k" -ge 10 ] && return 0; else k=0; last=$now; fi
    done
}
now() { mpc current -f %file% >> "$D/seq"; }
advance() { # k: k times `mpc next`
    local k old
    for k in $(seq "$1"); do
        old=$(cat "$D/run/st"); mpc -q next; wait_state "$old"; now
    done
}
edit() { # mpc command...: a change fairshuf follows
    local old; old=$(cat "$D/run/st"); mpc -q "$@"; wait_state "$old"
}
start_run() { # args...: fairshuf mpd run in the background, placed once
    "$B" mpd --state="$D/run/st" "$@" run 2>>"$D/run.err" &
    run_pid=$!
    local i
    for i in $(seq 100); do [ -s "$D/run/st" ] && break; sleep 0.05; done
    [ -s "$D/run/st" ]
}
distinct() { sort | uniq | wc -l; }
mpd_list() { # command...: sent to MPD as one command list, which it runs as
    # one request (fairshuf sees the commands as one change, whatever the timing)
    python3 - "$MPD_PORT" "$@" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
f = s.makefile("rwb")
f.readline()
f.write(b"command_list_begin\n" + b"".join(c.encode() + b"\n" for c in sys.argv[2:]) + b"command_list_end\n")
f.flush()
line = f.readline()
while line and not line.startswith((b"OK", b"ACK")):
    line = f.readline()
sys.exit(0 if line.startswith(b"OK") else 1)
PY
}

@test "run: every song once per cycle, no repeat at the boundary, with a removal, an addition and a play-next insert" {
    rm -rf "$D/run" "$D/seq"; mkdir "$D/run"; : > "$D/run.err"
    fill 1 2 3 4 5 6
    start_run --seed=run
    edit play; now
    advance 2
    cur=$(tail -n 1 "$D/seq")
    # remove a song not played yet and not the one placed next; add s7 at
    # the end; insert s8 after the current one ("play next")
    pos=$(mpc current -f %position%)
    gone=$(queue | awk -v p="$pos" 'NR > p + 1' | grep -vxF -f "$D/seq" | head -n 1)
    [ -n "$gone" ]
    edit del "$(queue | grep -nxF "$gone" | cut -d: -f1)"
    edit add s7.flac
    edit insert s8.flac
    advance 11 # the rest of the cycle (6 - 1 + 2 songs) and the next one
    { tr '\n' ' ' < "$D/seq"; echo "(removed $gone)"; } >&3
    # s8 right after the song playing when it was inserted
    [ "$(sed -n 4p "$D/seq")" = s8.flac ]
    # each cycle: its 7 songs once; the removed never
    [ "$(head -n 7 "$D/seq" | distinct)" -eq 7 ]
    [ "$(tail -n 7 "$D/seq" | distinct)" -eq 7 ]
    [ "$(head -n 7 "$D/seq" | sort)" = "$(tail -n 7 "$D/seq" | sort)" ]
    ! grep -qxF "$gone" "$D/seq"
    # the boundary: the last song of a cycle does not open the next
    [ "$(sed -n 7p "$D/seq")" != "$(sed -n 8p "$D/seq")" ]
}

@test "run: survives restarts of itself and of MPD; MPD's previous steps back; a song picked by hand starts a cycle" {
    rm -rf "$D/run" "$D/seq"; mkdir "$D/run"; : > "$D/run.err"
    fill 1 2 3 4 5 6
    start_run --seed=again
    edit play; now
    advance 1
    # fairshuf restarts: the player goes on from its state
    kill "$run_pid"; wait "$run_pid" || true
    start_run --seed=again
    advance 2
    # MPD restarts (its state file keeps the queue and the song): fairshuf
    # reconnects with back-off and goes on
    mpd_restart
    echo "$MPD_PID" > "$D/mpd.pid"
    for i in $(seq 100); do grep -q "connected again" "$D/run.err" && break; sleep 0.1; done
    grep -q "connected again" "$D/run.err"
    sleep 0.3
    mpc -q play
    advance 5 # the first cycle's last 2 and 3 of the next
    { tr '\n' ' ' < "$D/seq"; echo; } >&3
    [ "$(head -n 6 "$D/seq" | distinct)" -eq 6 ]
    [ "$(tail -n 3 "$D/seq" | distinct)" -eq 3 ]
    [ "$(sed -n 6p "$D/seq")" != "$(sed -n 7p "$D/seq")" ] # the boundary
    # MPD's previous: the song played before; then on to the one left
    edit prev; now
    [ "$(tail -n 1 "$D/seq")" = "$(sed -n 8p "$D/seq")" ]
    advance 1
    [ "$(tail -n 1 "$D/seq")" = "$(sed -n 9p "$D/seq")" ]
    # a pick by hand: the song starts a cycle, which plays every song once
    pick=$(queue | head -n 1)
    : > "$D/seq"
    edit play 1; now
    advance 5
    [ "$(head -n 1 "$D/seq")" = "$pick" ]
    [ "$(distinct < "$D/seq")" -eq 6 ]
}

@test "run --spread=artist and --weights=sticker:NAME: spread cycles; weight 0 never plays" {
    rm -rf "$D/run" "$D/seq"; mkdir "$D/run"; : > "$D/run.err"
    fill 1 2 3 4 5 6 7 8 9 # 3 artists, 3 songs each
    start_run --seed=sp --spread=artist
    edit play; now
    advance 17 # two cycles
    { tr '\n' ' ' < "$D/seq"; echo; } >&3
    [ "$(head -n 9 "$D/seq" | distinct)" -eq 9 ]
    [ "$(tail -n 9 "$D/seq" | distinct)" -eq 9 ]
    queue '%file%\t%artist%' > "$D/artists"
    adj=$(awk -F'\t' 'NR == FNR { a[$1] = $2; next } FNR > 1 && a[$1] == p { n++ } { p = a[$1] } END { print n + 0 }' "$D/artists" "$D/seq")
    echo "# adjacent same-artist pairs in 18 plays: $adj (plain: 4 expected)" >&3
    [ "$adj" -le 1 ]
    kill "$run_pid"; wait "$run_pid" || true; run_pid=
    # weights: s2 weighs 0; s1 10 and s3 0.5 (stickers of the first test),
    # s4 has none (--default-weight: 1)
    rm -rf "$D/run" "$D/seq"; mkdir "$D/run"; mpc -q stop; mpc -q clear; fill 1 2 3 4
    mpc sticker s2.flac set rating 0
    start_run --seed=w --weights=sticker:rating
    edit play; now
    advance 5 # two cycles of the 3 songs that can play
    { tr '\n' ' ' < "$D/seq"; echo; } >&3
    ! grep -qx s2.flac "$D/seq"
    [ "$(head -n 3 "$D/seq" | distinct)" -eq 3 ]
    [ "$(tail -n 3 "$D/seq" | distinct)" -eq 3 ]
    # a state made with --spread is refused with --weights
    kill "$run_pid"; wait "$run_pid" || true; run_pid=
    run -1 "$B" mpd --state="$D/run/st" --seed=w --spread=artist run
    [[ $output == *"the state was made with another order"* ]]
}

@test "run: a song the user moves right after the current one plays next, once in the cycle" {
    rm -rf "$D/run" "$D/seq"; mkdir "$D/run"; : > "$D/run.err"
    fill 1 2 3 4 5 6
    start_run --seed=move
    edit play; now
    advance 1
    pos=$(mpc current -f %position%)
    # an unplayed song that is not the one placed next
    pick=$(queue | awk -v p="$pos" 'NR > p + 1' | grep -vxF -f "$D/seq" | head -n 1)
    from=$(queue | grep -nxF "$pick" | cut -d: -f1)
    edit move "$from" $((pos + 1))
    advance 4 # the rest of the cycle
    tr '\n' ' ' < "$D/seq" >&3; echo "(moved $pick)" >&3
    [ "$(sed -n 3p "$D/seq")" = "$pick" ]
    [ "$(distinct < "$D/seq")" -eq 6 ]
}

@test "run: inserts and nexts back to back (no waiting for fairshuf): no insert lost, every song once in the cycle" {
    # `mpc insert` (add at the end, then move after the current song by
    # position) and `mpc next` at once, 6 times, then (once fairshuf has
    # caught up) `next` at a user's pace, each once fairshuf has followed
    # the one before: in the burst fairshuf's own moves and its events come
    # in between anywhere.
    # The 12 songs of the cycle (6 + the 6 inserted) play once each, the
    # next cycle opens with another song, run never loses MPD.  How many
    # inserted songs MPD played at their own `next` is printed: all, unless
    # a `next` comes between a move of fairshuf's that MPD ran after the
    # insert and the move that puts the insert back in front (then it plays
    # one song later).
    for round in 1 2 3; do
        rm -rf "$D/run" "$D/seq"; mkdir "$D/run"; : > "$D/run.err"
        mpc -q stop; mpc -q clear; fill 1 2 3 4 5 6
        start_run --seed=bb$round
        edit play; now
        for i in 7 8 9 10 11 12; do
            mpc -q insert "s$i.flac"; mpc -q next; now
        done
        settle # once, before the part at a user's pace
        advance 5 # the rest of the cycle (6 + 6 songs)
        advance 1 || { cat "$D/run.err"; false; } # the next cycle's first
        at=$(sed -n 2,7p "$D/seq" | paste - <(printf 's%d.flac\n' 7 8 9 10 11 12) | awk '$1 == $2' | wc -l)
        { echo "round $round: $at of 6 at their next:"; tr '\n' ' ' < "$D/seq"; echo; } >&3
        [ "$(head -n 12 "$D/seq" | distinct)" -eq 12 ]
        [ "$(sed -n 12p "$D/seq")" != "$(sed -n 13p "$D/seq")" ]
        ! grep -q "reconnecting\|retrying" "$D/run.err"
        kill "$run_pid"; wait "$run_pid" || true; run_pid=
    done
}

@test "run: an insert and next seen as one change play the song out of turn; a song added and played last gets a next" {
    # MPD runs each command list as one request: fairshuf's next look sees
    # the insert and the next at once, every time.  The inserted song is
    # current (MPD's order); fairshuf takes it as "play next" then next, not
    # as a pick that starts a new cycle (which replays songs).
    rm -rf "$D/run" "$D/seq"; mkdir "$D/run"; : > "$D/run.err"
    fill 1 2 3 4 5 6
    start_run --seed=one
    edit play; now
    for i in 7 8 9; do
        old=$(cat "$D/run/st"); mpd_list "addid s$i.flac +0" next; wait_state "$old"; now
    done
    advance 5 # the rest of the cycle (6 + 3 songs)
    advance 1
    tr '\n' ' ' < "$D/seq" >&3; echo >&3
    [ "$(sed -n 2,4p "$D/seq" | tr '\n' ' ')" = "s7.flac s8.flac s9.flac " ]
    [ "$(head -n 9 "$D/seq" | distinct)" -eq 9 ]
    [ "$(sed -n 9p "$D/seq")" != "$(sed -n 10p "$D/seq")" ]
    # a song added at the end and played at once (the last in the queue):
    # the next song is placed after it (else MPD stops when it ends)
    old=$(cat "$D/run/st"); mpd_list "add s10.flac" "play 9"; wait_state "$old"
    [ "$(mpc current -f %file%)" = s10.flac ]
    settle
    pos=$(mpc current -f %position%)
    [ -n "$(queue | sed -n "$((pos + 1))p")" ]
}

@test "run with MPD's consume mode: every song once in fairshuf's order, then the queue is empty" {
    # consume removes each song once the next starts: the player sees
    # removals of songs it played (the cycle keeps them as played)
    rm -rf "$D/run" "$D/seq"; mkdir "$D/run"; : > "$D/run.err"
    fill 1 2 3 4 5 6
    mpc -q consume on
    start_run --seed=co
    edit play; now
    advance 5
    tr '\n' ' ' < "$D/seq" >&3; echo >&3
    [ "$(distinct < "$D/seq")" -eq 6 ]
    [ "$(queue)" = "$(tail -n 1 "$D/seq")" ] # the others consumed
    mpc -q next
    [ -z "$(queue)" ]
}

@test "MPD_HOST a unix socket: shuffle and run reach MPD there; a missing socket is named" {
    sock=$MPD_DIR/socket
    [ -S "$sock" ]
    fill 3 1 4 5 9 2
    queue > "$D/q.txt"
    MPD_HOST=$sock "$B" mpd --seed=so shuffle
    [ "$(queue)" = "$("$B" playlist "$D/q.txt" --seed=so)" ]
    rm -rf "$D/run" "$D/seq"; mkdir "$D/run"; : > "$D/run.err"
    MPD_HOST=$sock start_run --seed=so
    edit play; now
    advance 3
    [ "$(distinct < "$D/seq")" -eq 4 ]
    run -1 env MPD_HOST="$D/none.sock" "$B" mpd shuffle
    [[ $output == "fairshuf: MPD at $D/none.sock: "* ]]
}
