#!/usr/bin/env python3
"""mpd_orders.py -- counts the orders of 3 songs after K shuffles of MPD's
queue (tests/cli/mpd.bats).  Before each shuffle the queue is reset to
s1.flac s2.flac s3.flac.  MODE "mpd": MPD's own `shuffle` command (what
`mpc shuffle` sends), K trials pipelined on one connection; MODE "fairshuf":
`fairshuf-mpd --seed=k shuffle` for k = 1..K, a process each.  Prints the
six counts (orders in lexicographic order) and Pearson's chi-square."""
import itertools
import os
import socket
import subprocess
import sys

host, port = os.environ["MPD_HOST"], int(os.environ["MPD_PORT"])
mode, k = sys.argv[1], int(sys.argv[2])
songs = ["s1.flac", "s2.flac", "s3.flac"]
orders = list(itertools.permutations(songs))
count = {o: 0 for o in orders}

sock = socket.create_connection((host, port))
f = sock.makefile("rwb")
assert f.readline().startswith(b"OK MPD")

RESET = ("command_list_begin\nclear\n" +
         "".join('add "%s"\n' % s for s in songs))


def answers(n):
    """Reads n answers to `playlistinfo`-like commands: the files of each."""
    out = []
    for _ in range(n):
        files = []
        while True:
            line = f.readline().decode()
            if line == "OK\n":
                break
            if line.startswith("ACK"):
                sys.exit("MPD: " + line)
            if line.startswith("file: "):
                files.append(line[6:-1])
        out.append(tuple(files))
    return out


if mode == "mpd":
    done = 0
    while done < k:
        batch = min(500, k - done)
        f.write(((RESET + "shuffle\ncommand_list_end\nplaylistinfo\n") *
                 batch).encode())
        f.flush()
        for i, got in enumerate(answers(2 * batch)):
            if i % 2 == 1:
                count[got] += 1
        done += batch
else:
    exe = os.environ["FS_MPD"]
    for seed in range(1, k + 1):
        f.write((RESET + "command_list_end\n").encode())
        f.flush()
        answers(1)
        subprocess.run([exe, "--seed=%d" % seed, "shuffle"], check=True)
        f.write(b"playlistinfo\n")
        f.flush()
        count[answers(1)[0]] += 1

e = k / 6
chi2 = sum((count[o] - e) ** 2 / e for o in orders)
print(" ".join(str(count[o]) for o in orders), "%.2f" % chi2)
