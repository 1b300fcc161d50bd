#!/usr/bin/env python3
"""serve_vrf_answers.py LOG ANSWERS [MIN]: every vrf deal answer in ANSWERS
(one JSON answer a line, as serve-load --record writes them) carries its
hand record exactly as the table's log holds it (byte for byte: the text
after ,"record": up to the answer's closing brace), each record is in LOG
once, and there are at least MIN answers.  Exit 0, else 1 with the first
answer that is not in the log."""
import json
import sys

log = open(sys.argv[1], encoding="utf-8").read().split("\n")
lines = {}
for n, line in enumerate(log, 1):
    if line:
        lines.setdefault(line, []).append(n)
answers = [a for a in open(sys.argv[2], encoding="utf-8").read().split("\n") if a]
need = int(sys.argv[3]) if len(sys.argv) > 3 else 1
if len(answers) < need:
    sys.exit("only %d answers (at least %d expected)" % (len(answers), need))
for a in answers:
    key = ',"record":'
    raw = a[a.index(key) + len(key):].rstrip()
    if not raw.endswith("}}"):
        sys.exit("an answer that does not end with its record: " + a[:200])
    raw = raw[:-1]
    j = json.loads(a)
    if json.loads(raw) != j["record"] or j["record"]["hand"] != j["hand"]:
        sys.exit("an answer whose record is not its own: " + a[:200])
    if len(lines.get(raw, [])) != 1:
        sys.exit("hand %d answered but %s the log: %s" %
                 (j["hand"], "not in" if raw not in lines else "twice in",
                  raw[:200]))
print("%d answers, each in the log once" % len(answers))
