#!/usr/bin/env python3
"""mpv_drive.py SOCKET K LIST -- loads the playlist LIST into a headless,
idle mpv running contrib/mpv/fairshuf.lua and steps it K times
(tests/cli/mpv.bats): each time, once the
script has placed the next entry (its `fairshuf-placed` message), prints
the path mpv plays and sends `playlist-next`."""
import json
import os
import socket
import sys
import time

sock_path, k, playlist = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for _ in range(200):
    if os.path.exists(sock_path):
        break
    time.sleep(0.05)
s = socket.socket(socket.AF_UNIX)
s.settimeout(20)
s.connect(sock_path)
f = s.makefile("rwb")
placed = 0


def line():
    global placed
    msg = json.loads(f.readline())
    if (msg.get("event") == "client-message" and
            msg.get("args", [""])[0] == "fairshuf-placed"):
        placed += 1
    return msg


def command(*args):
    f.write((json.dumps({"command": list(args)}) + "\n").encode())
    f.flush()
    while True:
        msg = line()
        if "error" in msg and "event" not in msg:
            return msg.get("data")


def wait_placed(n):
    while placed < n:
        line()


command("loadlist", playlist, "replace")
wait_placed(1)
for step in range(k):
    print(command("get_property", "path"), flush=True)
    if step + 1 < k:
        command("playlist-next")
        wait_placed(step + 2)
command("quit")
