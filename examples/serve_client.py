#!/usr/bin/env python3
"""serve_client.py -- a game server's side of `fairshuf serve`, standard
library only (docs/service.md).  Opens a table, shows the player its
commitment, takes the player's client seed, deals three hands, rotates
(reveals the seed), then checks the table's public log with
`fairshuf fair check` as the player would.

  python3 examples/serve_client.py --url=http://127.0.0.1:8080 \\
      --token-file=token [--game=doudizhu] [--fairshuf=fairshuf]
"""
import argparse
import hashlib
import json
import secrets
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request


class Service:
    def __init__(self, url, token):
        self.url = url.rstrip("/")
        self.token = token

    def call(self, method, path, body=None):
        """One request; the decoded JSON answer, or SystemExit with the
        service's {"error": {"code", "message"}}."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                text = r.read().decode()
                return text if path.endswith("/log") else json.loads(text)
        except urllib.error.HTTPError as e:
            err = json.loads(e.read().decode())["error"]
            sys.exit("%s %s: %d %s: %s" % (method, path, e.code, err["code"], err["message"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:8080")
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--game", default="doudizhu")
    ap.add_argument("--fairshuf", default="fairshuf", help="the CLI, for the check")
    a = ap.parse_args()
    with open(a.token_file, encoding="ascii") as f:
        svc = Service(a.url, f.readline().strip())

    table = svc.call("POST", "/v1/tables", {"game": a.game})
    tid, commitment = table["table"], table["commitment"]
    print("table %d (%s): commitment %s" % (tid, a.game, commitment))
    # The player chooses the client seed after seeing the commitment.
    client_seed = "py-" + secrets.token_hex(8)
    svc.call("POST", "/v1/tables/%d/client-seed" % tid, {"client_seed": client_seed})
    seen = []
    for _ in range(3):
        d = svc.call("POST", "/v1/tables/%d/deals" % tid)
        seen.append(d)
        print("deal %d: %s" % (d["nonce"], d["deal"].replace("\t", " | ")))
    rot = svc.call("POST", "/v1/tables/%d/rotate" % tid)
    seed = rot["server_seed"]
    if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != commitment:
        sys.exit("the revealed seed is not the commitment's")
    print("revealed %s; next commitment %s" % (seed, rot["commitment"]))

    log = svc.call("GET", "/v1/tables/%d/log" % tid)
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as lf, \
            tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as df:
        lf.write(log)
        for d in seen:  # the deals the player saw: nonce TAB deal
            df.write("%d\t%s\n" % (d["nonce"], d["deal"]))
    r = subprocess.run([a.fairshuf, "fair", "check", "--log=" + lf.name,
                        "--commitment=" + commitment, "--client-seed=" + client_seed,
                        "--my-deals=" + df.name], capture_output=True, text=True)
    print("check: %s" % (r.stdout.strip() or r.stderr.strip()))
    sys.exit(r.returncode)


main()
