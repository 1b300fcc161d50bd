#!/usr/bin/env python3
"""serve_answers.py LOG ANSWERS DEALS -- for the fairshuf serve tests: the
deal records of the log have nonces 0, 1, 2, ... in each period
(gap-free), the log holds at least DEALS deals, and every answered deal (ANSWERS: one JSON answer per
line, from serve-load --record) is in the log with the same nonce, deal,
client seed and commitment.  Exit 1 with the first problem."""
import json
import sys


def main():
    log_path, answers_path, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
    deals = {}        # (commitment, nonce) -> record
    commitment = None
    expect = 0
    total = 0
    for n, line in enumerate(open(log_path, encoding="utf-8"), 1):
        r = json.loads(line)
        if r["event"] == "commit":
            commitment, expect = r["commitment"], 0
        elif r["event"] == "deal":
            if r["nonce"] != expect:
                sys.exit("line %d: nonce %d, expected %d" % (n, r["nonce"], expect))
            deals[(commitment, r["nonce"])] = r
            expect += 1
            total += 1
    if total < want:
        sys.exit("the log has %d deals, expected at least %d" % (total, want))
    seen = set()
    count = 0
    for line in open(answers_path, encoding="utf-8"):
        if not line.strip():
            continue
        a = json.loads(line)
        key = (a["commitment"], a["nonce"])
        if key in seen:
            sys.exit("nonce %d answered twice in one period" % a["nonce"])
        seen.add(key)
        r = deals.get(key)
        if r is None:
            sys.exit("answered deal (nonce %d) is not in the log" % a["nonce"])
        if r["deal"] != a["deal"] or r["client_seed"] != a["client_seed"]:
            sys.exit("answered deal (nonce %d) differs from the log's" % a["nonce"])
        count += 1
    print("%d deals in the log, nonces gap-free; %d answers, each in the log" % (total, count))


main()
