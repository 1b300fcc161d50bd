#!/usr/bin/env bash
# mpd_random.sh [N] [STEPS] -- MPD's own random mode (random and repeat on)
# against shuffle play: a real MPD (tests/cli/mpd_server.bash) with N songs
# (default 4) is moved on with `next` STEPS times (default 600 N); for each
# of the N alignments of the sequence into blocks of N, how many blocks play
# every song once (shuffle play: all of them), and how often one song plays
# twice in a row (shuffle play with the boundary rule: never)
# (docs/playlist.md "In MPD and mpv").
set -euo pipefail
n=${1:-4}
steps=${2:-$((600 * n))}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
source "$here/../tests/cli/mpd_server.bash"
mpd_have
D=$(mktemp -d)
trap 'mpd_stop; rm -rf "$D"' EXIT
mpd_music "$D" "$n" 30 2 >/dev/null
unset MPD_PORT
mpd_start "$D"
mpc -q add /; mpc -q random on; mpc -q repeat on; mpc -q play
python3 - "$n" "$steps" <<'PY'
import os, socket, sys
n, steps = int(sys.argv[1]), int(sys.argv[2])
s = socket.create_connection((os.environ["MPD_HOST"], int(os.environ["MPD_PORT"])))
f = s.makefile("rwb")
f.readline()
def cmd(c):
    f.write((c + "\n").encode()); f.flush(); out = []
    while True:
        line = f.readline().decode()
        if line == "OK\n":
            return out
        if line.startswith("ACK"):
            sys.exit(line)
        out.append(line.strip())
seq = []
for _ in range(steps):
    seq.append([l[6:] for l in cmd("currentsong") if l.startswith("file: ")][0])
    cmd("next")
twice = sum(a == b for a, b in zip(seq, seq[1:]))
print("%d plays: the same song twice in a row %d times (%.1f %%)"
      % (len(seq), twice, 100.0 * twice / (len(seq) - 1)))
for off in range(n):
    t = seq[off:]
    c = len(t) // n
    once = sum(len(set(t[k * n:(k + 1) * n])) == n for k in range(c))
    rep = sum(t[k * n - 1] == t[k * n] for k in range(1, c))
    print("alignment %d: %d blocks of %d, %d play every song once, %d boundaries repeat a song"
          % (off, c, n, once, rep))
PY
