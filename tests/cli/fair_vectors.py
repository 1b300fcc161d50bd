#!/usr/bin/env python3
"""Checks the "Provably fair" rows of docs/vectors.md against the binary
and against the reference checker of docs/provably-fair.md (extracted from
its python block into REF).
usage: fair_vectors.py FAIRSHUF REF.py docs/vectors.md
Prints each mismatch; exit 1 if any, else prints "N deal rows, N log rows"."""
import importlib.util, json, os, re, subprocess, sys, tempfile

binary, refpath, table = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("ref", refpath)
ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref)
text = open(table, encoding="utf-8").read()
text = text[text.index("## Provably fair"):]
cells = lambda line: [c.strip() for c in line.strip().strip("|").split(" | ")]
tick = lambda c: re.findall(r"`([^`]*)`", c)
bad = ndeal = nlog = 0
tmp = tempfile.mkdtemp(prefix="fair_vectors.")
for line in text.splitlines():
    if not line.startswith("| `fairshuf-pf-"):
        continue
    c = [tick(x)[0] for x in cells(line)]
    scheme, seed, client, nonce, game, players, decks, key, tsv = c
    client, nonce, tsv = json.loads(client), int(nonce), tsv.replace("\\t", "\t")
    sf = os.path.join(tmp, "seed.hex")
    with open(sf, "w") as f:
        f.write(seed + "\n")
    os.chmod(sf, 0o600)
    got = subprocess.run([binary, "fair", "deal", "--server-seed-file=" + sf,
                          "--client-seed=" + client, "--nonce=%d" % nonce,
                          "--game=" + game, "--players=" + players,
                          "--decks=" + decks, "--scheme=" + scheme,
                          "--format=tsv"], capture_output=True, text=True,
                         check=True).stdout.rstrip("\n")
    want = ref.deal(scheme, bytes.fromhex(seed), client, nonce, game,
                    int(players), int(decks))
    ndeal += 1
    if not got == want == tsv:
        bad += 1
        print("MISMATCH deal row %s %r %d %s\n  binary %s\n  ref    %s\n  table  %s"
              % (scheme, client, nonce, game, got, want, tsv))
for line in text.splitlines():
    m = cells(line)
    if len(m) != 6 or not line.startswith("| ") or m[0] in ("case", "---"):
        continue
    name, log, player, verdict, rule, at = m
    records = tick(log) if log != "(empty)" else []
    data = "".join(r + "\n" for r in records).encode()
    pl = json.loads(tick(player)[0]) if player != "-" else {}
    lf = os.path.join(tmp, "case.log")
    with open(lf, "wb") as f:
        f.write(data)
    args = [binary, "fair", "check", "--log=" + lf, "--format=json"]
    if "commitment" in pl:
        args.append("--commitment=" + pl["commitment"])
    if "client_seed" in pl:
        args.append("--client-seed=" + pl["client_seed"])
    if "deals" in pl:
        mf = os.path.join(tmp, "mine")
        with open(mf, "w") as f:
            f.write("".join("%d\t%s\n" % (n, t) for n, t in pl["deals"]))
        args.append("--my-deals=" + mf)
    j = json.loads(subprocess.run(args, capture_output=True, text=True).stdout)
    got = (j["verdict"], j["rule"] or "-", "-" if j["line"] is None else str(j["line"]))
    v, r, l = ref.check_log(data, pl.get("commitment"), pl.get("client_seed"),
                            [tuple(d) for d in pl.get("deals", ())])
    refgot = (v, r or "-", "-" if l is None else str(l))
    want = (tick(verdict)[0], tick(rule)[0], tick(at)[0])
    nlog += 1
    if not got == refgot == want:
        bad += 1
        print("MISMATCH log row '%s'\n  binary %s\n  ref    %s\n  table  %s"
              % (name, got, refgot, want))
print("%d deal rows, %d log rows" % (ndeal, nlog))
sys.exit(1 if bad or ndeal < 10 or nlog < 20 else 0)
