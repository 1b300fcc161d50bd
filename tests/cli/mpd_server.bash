# mpd_server.bash -- a real MPD for a test: its own folder (mktemp), a null
# audio output, loopback on a free port, its database, state and sticker
# files there, and a music folder of short generated FLAC files with tags
# (sox, metaflac); it listens on a unix socket too, MPD_DIR/socket.  Loaded by tests/cli/mpd.bats; needs mpd, mpc, sox and
# metaflac (scripts/setup.sh test installs them).
#
#   mpd_music DIR N SECS [ARTISTS]  N songs sN.flac of SECS seconds; the
#                                   artist of song i is letter (i % ARTISTS)
#   mpd_start DIR                   MPD on DIR/music; sets MPD_PORT, MPC
#   mpd_stop                        stops it (waits for it to end)
#   mpd_restart                     stop, then start on the same port

mpd_have() {
    local t
    for t in mpd mpc sox metaflac; do
        command -v "$t" >/dev/null || { echo "# $t is not installed (scripts/setup.sh test)"; return 1; }
    done
}

mpd_music() { # dir n secs [artists]
    local dir=$1 n=$2 secs=$3 arts=${4:-3} i a
    mkdir -p "$dir/music"
    for i in $(seq "$n"); do
        a=$(printf "\\x$(printf %x $((65 + i % arts)))")
        sox -q -n -r 8000 -c 1 -b 16 "$dir/music/s$i.flac" synth "$secs" sine $((200 + 20 * i))
        metaflac --set-tag="ARTIST=Artist $a" --set-tag="ALBUM=Album $((i % 2))" \
            --set-tag="TITLE=Song $i" "$dir/music/s$i.flac"
    done
}

mpd_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

mpd_start() { # dir
    MPD_DIR=$1
    [ -n "${MPD_PORT:-}" ] || MPD_PORT=$(mpd_free_port)
    export MPD_HOST=127.0.0.1 MPD_PORT
    # no `user` line: MPD runs as whoever starts it (root included)
    cat > "$MPD_DIR/mpd.conf" <<CONF
music_directory "$MPD_DIR/music"
db_file "$MPD_DIR/db"
state_file "$MPD_DIR/state"
sticker_file "$MPD_DIR/sticker.sql"
log_file "$MPD_DIR/log"
log_level "verbose"
bind_to_address "127.0.0.1"
bind_to_address "$MPD_DIR/socket"
port "$MPD_PORT"
auto_update "no"
restore_paused "yes"
audio_output {
    type "null"
    name "null"
    mixer_type "none"
}
CONF
    [ -z "${MPD_PASSWORD:-}" ] || echo "password \"$MPD_PASSWORD@read,add,control,admin\"" >> "$MPD_DIR/mpd.conf"
    mpd --no-daemon "$MPD_DIR/mpd.conf" >>"$MPD_DIR/mpd.out" 2>&1 &
    MPD_PID=$!
    local i
    for i in $(seq 100); do
        mpc -q status >/dev/null 2>&1 && break
        sleep 0.05
    done
    mpc -q status >/dev/null 2>&1 || { cat "$MPD_DIR/mpd.out" "$MPD_DIR/log" >&2; return 1; }
    mpc -q update --wait >/dev/null 2>&1 || true
}

mpd_stop() {
    [ -n "${MPD_PID:-}" ] || return 0
    kill "$MPD_PID" 2>/dev/null || true
    local i
    for i in $(seq 100); do kill -0 "$MPD_PID" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$MPD_PID" 2>/dev/null || true
    wait "$MPD_PID" 2>/dev/null || true
    MPD_PID=
}

mpd_restart() {
    mpd_stop
    mpd_start "$MPD_DIR"
}
