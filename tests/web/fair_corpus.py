#!/usr/bin/env python3
"""fair_corpus.py -- a corpus of provably-fair logs for the differential test
(tests/web/differential.test.mjs): honest logs of both schemes made with
fixed seeds, the same logs tampered with (records and bytes), and the
player's evidence (commitment, client seed, deals; right and wrong), each
judged by the reference checker of docs/provably-fair.md.
usage: fair_corpus.py OUTDIR COUNT SEED
Writes OUTDIR/N.log, OUTDIR/N.deals (when the player gives deals) and
OUTDIR/cases.json: [{"id", "what", "commitment", "client_seed", "deals",
"ref": [verdict, rule, line]}] (rule and line null when honest; verdict
"error" when the reference refuses the player's input)."""
import importlib.util, json, os, random, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "provably-fair.md")


def reference():
    """The reference checker, taken from the spec's python block."""
    text = open(DOC, encoding="utf-8").read()
    code = re.search(r"^```python\n(.*?)^```$", text, re.S | re.M).group(1)
    spec = importlib.util.spec_from_loader("ref", loader=None)
    ref = importlib.util.module_from_spec(spec)
    exec(compile(code, DOC + " (python block)", "exec"), ref.__dict__)
    return ref


ref = reference()
V1, V2 = ref.V1, ref.V2
# tables the generator deals: (game, players, decks)
TABLES = [("doudizhu", 3, 1), ("holdem", 2, 1), ("holdem", 6, 1), ("holdem", 10, 1),
          ("holdem", 4, 2), ("poker5", 1, 1), ("poker5", 4, 1), ("poker5", 10, 1),
          ("bridge", 4, 1), ("shengji", 4, 2), ("mahjong", 4, 1), ("blackjack", 1, 6),
          ("blackjack", 7, 2), ("doudizhu", 3, 2)]
SEED_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789 -_.é中🂡\"\\/"


def rec_line(r, rnd, vary):
    """One record as a JSON line: canonical, or (vary) in another valid form:
    keys in another order, spaces, tabs or CRs between tokens, escapes."""
    order = ["scheme", "event", "commitment", "nonce", "client_seed", "game",
             "players", "decks", "deal", "server_seed"]
    keys = sorted(r, key=lambda k: order.index(k) if k in order else len(order))
    if vary and rnd.random() < 0.5:
        rnd.shuffle(keys)
    ws = lambda: rnd.choice(["", " ", "\t", "\r", "  "]) if vary and rnd.random() < 0.3 else ""
    parts = []
    for k in keys:
        v = json.dumps(r[k], ensure_ascii=False)
        lone = isinstance(r[k], str) and any(0xd800 <= ord(c) < 0xe000 for c in r[k])
        if lone or vary and isinstance(r[k], str) and rnd.random() < 0.2:
            v = json.dumps(r[k], ensure_ascii=True)  # \\uXXXX escapes
        if vary and k == "scheme" and rnd.random() < 0.2:
            v = '"\\u0066airshuf' + v[9:]  # "fairshuf-…" with an escape
        if vary and k == "deal" and rnd.random() < 0.1:
            v = v.replace("/", "\\/")
        parts.append(ws() + json.dumps(k) + ws() + ":" + ws() + v + ws())
    return ws() + "{" + ",".join(parts) + "}" + ws()


def honest(rnd):
    """An honest log: records (dicts), the periods' facts."""
    scheme = V2 if rnd.random() < 0.8 else V1
    recs, periods = [], []
    n = rnd.choice([1, 1, 2, 2, 3, 4])
    used = set()
    for i in range(n):
        seed = bytes(rnd.getrandbits(8) for _ in range(32))
        commitment = ref.hashlib.sha256(seed).hexdigest()
        game, players, decks = rnd.choice(TABLES)
        while True:
            client = "".join(rnd.choice(SEED_CHARS) for _ in range(rnd.randint(1, 12)))
            if client not in used:
                used.add(client)
                break
        c = {"scheme": scheme, "event": "commit", "commitment": commitment}
        if scheme == V2:
            c.update(game=game, players=players, decks=decks)
        recs.append(c)
        last = i == n - 1
        ending = rnd.choice(["reveal"] * 6 + ["open", "next-commit", "no-deal"]) if last else "reveal"
        p = {"commitment": commitment, "client": client, "seed": seed, "deals": [],
             "table": (game, players, decks)}
        periods.append(p)
        if ending == "no-deal":  # open, its client seed set, no deal yet
            if scheme == V2:
                recs.append({"scheme": scheme, "event": "client_seed", "client_seed": client})
            break
        if scheme == V2:
            recs.append({"scheme": scheme, "event": "client_seed", "client_seed": client})
        for nonce in range(rnd.randint(1, 4)):
            tsv = ref.deal(scheme, seed, client, nonce, game, players, decks)
            recs.append({"scheme": scheme, "event": "deal", "nonce": nonce, "client_seed": client,
                         "game": game, "players": players, "decks": decks, "deal": tsv})
            p["deals"].append((nonce, tsv))
        if ending == "open":
            break
        recs.append({"scheme": scheme, "event": "reveal", "server_seed": seed.hex()})
        if ending == "next-commit":  # a service's log after a rotation
            s2 = bytes(rnd.getrandbits(8) for _ in range(32))
            c2 = {"scheme": scheme, "event": "commit",
                  "commitment": ref.hashlib.sha256(s2).hexdigest()}
            if scheme == V2:
                c2.update(game=game, players=players, decks=decks)
            recs.append(c2)
    return scheme, recs, periods


def swap_cards(tsv, rnd):
    parts = [p.split(" ") for p in tsv.split("\t")]
    flat = [(i, j) for i, p in enumerate(parts) for j in range(len(p))]
    (a, b), (c, d) = rnd.sample(flat, 2)
    parts[a][b], parts[c][d] = parts[c][d], parts[a][b]
    return "\t".join(" ".join(p) for p in parts)


def move_card(tsv, rnd):
    parts = [p.split(" ") for p in tsv.split("\t")]
    src = rnd.choice([i for i, p in enumerate(parts) if len(p) > 1])
    dst = rnd.choice([i for i in range(len(parts)) if i != src])
    parts[dst].insert(0, parts[src].pop())
    return "\t".join(" ".join(p) for p in parts)


def of(recs, event):
    return [i for i, r in enumerate(recs) if r.get("event") == event]


# Tampering with records: each returns False when it does not apply.
def t_field(event, key, value):
    def f(recs, rnd):
        idx = of(recs, event)
        if not idx:
            return False
        r = recs[rnd.choice(idx)]
        r[key] = value(r, rnd) if callable(value) else value
        return True
    return f


def t_deal(fn):
    return t_field("deal", "deal", lambda r, rnd: fn(r["deal"], rnd))


def t_delete(event):
    def f(recs, rnd):
        idx = of(recs, event) if event else list(range(len(recs)))
        if not idx:
            return False
        del recs[rnd.choice(idx)]
        return True
    return f


def t_duplicate(recs, rnd):
    if not recs:
        return False
    i = rnd.randrange(len(recs))
    recs.insert(rnd.randrange(len(recs) + 1), dict(recs[i]))
    return True


def t_swap_lines(recs, rnd):
    if len(recs) < 2:
        return False
    i = rnd.randrange(len(recs) - 1)
    recs[i], recs[i + 1] = recs[i + 1], recs[i]
    return True


def t_reuse_client(recs, rnd):
    """A later period takes an earlier period's client seed (all its records)."""
    seeds = []
    for r in recs:
        if "client_seed" in r and r["client_seed"] not in seeds:
            seeds.append(r["client_seed"])
    if len(seeds) < 2:
        return False
    old, new = seeds[0], rnd.choice(seeds[1:])
    for r in recs:
        if r.get("client_seed") == new:
            r["client_seed"] = old
    return True


def t_recommit(recs, rnd):
    idx = of(recs, "commit")
    if len(idx) < 2:
        return False
    recs[idx[-1]]["commitment"] = recs[idx[0]]["commitment"]
    return True


def t_scheme_swap(recs, rnd):
    if not recs:
        return False
    r = rnd.choice(recs)
    r["scheme"] = V1 if r["scheme"] == V2 else V2
    return True


def t_extra_key(recs, rnd):
    if not recs:
        return False
    rnd.choice(recs)["note"] = "x"
    return True


def t_drop_key(recs, rnd):
    if not recs:
        return False
    r = rnd.choice(recs)
    del r[rnd.choice(sorted(r))]
    return True


RECORD_TAMPERS = {
    "nonce+1": t_field("deal", "nonce", lambda r, rnd: r["nonce"] + 1),
    "nonce-1": t_field("deal", "nonce", lambda r, rnd: max(0, r["nonce"] - 1) if r["nonce"] else 1),
    "nonce 2^64-1": t_field("deal", "nonce", 2**64 - 1),
    "nonce 2^64": t_field("deal", "nonce", 2**64),
    "cards swapped": t_deal(swap_cards),
    "card moved": t_deal(move_card),
    "deal double space": t_deal(lambda t, rnd: t.replace(" ", "  ", 1)),
    "deal trailing tab": t_deal(lambda t, rnd: t + "\t"),
    "deal lower-case": t_deal(lambda t, rnd: t.lower()),
    "deal trailing LF": t_deal(lambda t, rnd: t + "\n"),
    "deal with a flower tile": t_deal(lambda t, rnd: re.sub(r"\b[1-9][mps]\b", "1f", t, count=1)),
    "deal with a joker": t_deal(lambda t, rnd: re.sub(r"\b[2-9][shdc]\b", "BJ", t, count=1)),
    "deal one part fewer": t_deal(lambda t, rnd: t.rsplit("\t", 1)[0]),
    "client seed changed in a deal": t_field("deal", "client_seed", lambda r, rnd: r["client_seed"] + "x"),
    "client seed record changed": t_field("client_seed", "client_seed", lambda r, rnd: r["client_seed"] + "y"),
    "client seed with a control": t_field("client_seed", "client_seed", lambda r, rnd: r["client_seed"] + "\x01"),
    "client seed empty": t_field("client_seed", "client_seed", ""),
    "client seed 257 bytes": t_field("deal", "client_seed", "x" * 257),
    "client seed NUL": t_field("deal", "client_seed", lambda r, rnd: r["client_seed"] + "\0"),
    "client seed lone surrogate": t_field("deal", "client_seed", lambda r, rnd: r["client_seed"] + "\ud800"),
    "game changed": t_field("deal", "game", lambda r, rnd: rnd.choice(["holdem", "poker5", "bridge", "canasta"])),
    "players changed": t_field("deal", "players", lambda r, rnd: rnd.choice([0, 1, 2, 3, 4, 11, 1001])),
    "decks changed": t_field("deal", "decks", lambda r, rnd: rnd.choice([1, 2, 3, 0, 1001])),
    "commit game changed": t_field("commit", "game", lambda r, rnd: rnd.choice(["poker5", "holdem", "nosuch"])),
    "commit players": t_field("commit", "players", lambda r, rnd: rnd.choice([1, 2, 5, 0, 11])),
    "commitment upper-case": t_field("commit", "commitment", lambda r, rnd: r["commitment"].upper()),
    "commitment short": t_field("commit", "commitment", lambda r, rnd: r["commitment"][:-1]),
    "reveal one digit": t_field("reveal", "server_seed",
                                lambda r, rnd: ("1" if r["server_seed"][0] == "0" else "0") + r["server_seed"][1:]),
    "reveal deleted": t_delete("reveal"),
    "deal deleted": t_delete("deal"),
    "client seed record deleted": t_delete("client_seed"),
    "commit deleted": t_delete("commit"),
    "a line deleted": t_delete(None),
    "a line duplicated": t_duplicate,
    "two lines swapped": t_swap_lines,
    "client seed reused": t_reuse_client,
    "recommitted": t_recommit,
    "scheme swapped": t_scheme_swap,
    "unknown scheme": t_field("commit", "scheme", "fairshuf-pf-3"),
    "an extra key": t_extra_key,
    "a key dropped": t_drop_key,
    "nonce as a string": t_field("deal", "nonce", lambda r, rnd: str(r["nonce"])),
    "players as a string": t_field("deal", "players", lambda r, rnd: str(r["players"])),
}


# Tampering with bytes: the log as a list of lines (bytes, without LF).
def b_line(fn):
    def f(lines, rnd):
        if not lines:
            return False
        i = rnd.randrange(len(lines))
        lines[i] = fn(lines[i], rnd)
        return True
    return f


def inside_string(line, rnd, what):
    """what inserted into a string value: the client seed's when the record
    has one (a lenient decoder would make it another seed), else the first."""
    k = line.find(b'"client_seed":"')
    k = k + len(b'"client_seed":"') if k >= 0 and rnd.random() < 0.7 else line.find(b'":"') + 3
    if k < 3:
        return line + what
    return line[:k] + what + line[k:]


BYTE_TAMPERS = {
    "BOM": lambda lines, rnd: bool(lines) and lines.__setitem__(0, b"\xef\xbb\xbf" + lines[0]) is None,
    "invalid byte": b_line(lambda l, rnd: inside_string(l, rnd, b"\xff")),
    "CESU-8 surrogate": b_line(lambda l, rnd: inside_string(l, rnd, b"\xed\xa0\x80")),
    "overlong NUL": b_line(lambda l, rnd: inside_string(l, rnd, b"\xc0\x80")),
    "overlong slash": b_line(lambda l, rnd: inside_string(l, rnd, b"\xc0\xaf")),
    "truncated UTF-8": b_line(lambda l, rnd: inside_string(l, rnd, b"\xe4\xb8")),
    "raw control in a string": b_line(lambda l, rnd: inside_string(l, rnd, b"\x01")),
    "raw tab in a string": b_line(lambda l, rnd: inside_string(l, rnd, b"\t")),
    "raw CR in a string": b_line(lambda l, rnd: inside_string(l, rnd, b"\r")),
    "escaped NUL": b_line(lambda l, rnd: inside_string(l, rnd, b"\\u0000")),
    "escaped lone surrogate": b_line(lambda l, rnd: inside_string(l, rnd, b"\\udc00")),
    "lone CR between tokens": b_line(lambda l, rnd: l.replace(b",", b",\r", 1)),
    "CR LF line end": b_line(lambda l, rnd: l + b"\r"),
    "blank line": lambda lines, rnd: lines.insert(rnd.randrange(len(lines) + 1), b"") is None,
    "line cut": b_line(lambda l, rnd: l[:rnd.randrange(1, max(2, len(l)))]),
    "form feed between tokens": b_line(lambda l, rnd: l.replace(b",", b",\x0c", 1)),
    "NBSP between tokens": b_line(lambda l, rnd: l.replace(b",", b",\xc2\xa0", 1)),
    "leading zero": b_line(lambda l, rnd: re.sub(rb'("(?:nonce|players|decks)":)([0-9])', rb"\g<1>0\2", l, count=1)),
    "a fraction": b_line(lambda l, rnd: re.sub(rb'("(?:nonce|players|decks)":[0-9]+)', rb"\1.0", l, count=1)),
    "an exponent": b_line(lambda l, rnd: re.sub(rb'("(?:nonce|players|decks)":[0-9]+)', rb"\1e0", l, count=1)),
    "a minus": b_line(lambda l, rnd: re.sub(rb'("(?:nonce|players|decks)":)', rb"\1-", l, count=1)),
    "true for a number": b_line(lambda l, rnd: re.sub(rb'("(?:nonce|players|decks)":)[0-9]+', rb"\1true", l, count=1)),
    "trailing comma": b_line(lambda l, rnd: l[:-1] + b",}" if l.endswith(b"}") else l + b","),
    "text after the object": b_line(lambda l, rnd: l + b" x"),
    "two objects": b_line(lambda l, rnd: l + l),
    "an array": b_line(lambda l, rnd: b"[" + l + b"]"),
    "an escaped key": b_line(lambda l, rnd: l.replace(b'"scheme"', b'"sch\\u0065me"', 1)),
    "an unknown escape": b_line(lambda l, rnd: inside_string(l, rnd, b"\\x")),
    "DEL in a string": b_line(lambda l, rnd: inside_string(l, rnd, b"\x7f")),
    "no final LF": None,  # handled when joining
}


def player(rnd, periods, recs):
    """The player's evidence: right, partial or wrong."""
    pl = {}
    p = rnd.choice(periods)
    kind = rnd.random()
    if rnd.random() < 0.6:
        c = p["commitment"]
        r = rnd.random()
        if r < 0.05:
            c = c.upper()
        elif r < 0.1:
            c = "%064x" % rnd.getrandbits(256)
        elif r < 0.15:
            c = rnd.choice(periods)["commitment"]
        pl["commitment"] = c
    if rnd.random() < 0.5:
        s = p["client"]
        if rnd.random() < 0.1:
            s = s + "z"
        pl["client_seed"] = s
    if rnd.random() < 0.6 and p["deals"]:
        ds = list(p["deals"])
        if rnd.random() < 0.5:
            ds = rnd.sample(ds, rnd.randint(1, len(ds)))
            ds.sort()
        lines = []
        nxt = 0
        for nonce, tsv in ds:
            r = rnd.random()
            if r < 0.05:
                tsv = swap_cards(tsv, rnd)
            elif r < 0.08:
                nonce += 7
            form = rnd.random()
            if nonce == nxt and form < 0.4:
                line = tsv
            elif form < 0.5:
                line = "%03d\t%s" % (nonce, tsv)  # M2: leading zeros
            else:
                line = "%d\t%s" % (nonce, tsv)
            end = rnd.choice(["\n"] * 6 + ["\r\n", "\r\n", "\r\r\n", "\n\n"])
            lines.append(line + end)
            nxt = nonce + 1
        pl["deals"] = "".join(lines)
    return pl


def main():
    out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rnd = random.Random(seed)
    cases = []
    names = sorted(RECORD_TAMPERS)
    bnames = sorted(BYTE_TAMPERS)
    for n in range(count):
        scheme, recs, periods = honest(rnd)
        what = ["%s, %d records" % (scheme, len(recs))]
        vary = rnd.random() < 0.4
        roll = rnd.random()
        if roll < 0.45:
            for _ in range(rnd.choice([1, 1, 1, 2])):
                name = rnd.choice(names)
                try:
                    if RECORD_TAMPERS[name](recs, rnd) is not False:
                        what.append(name)
                except (KeyError, IndexError, TypeError, ValueError, AttributeError):
                    pass  # not applicable to this log (a field already changed)
        lines = [rec_line(r, rnd, vary).encode() for r in recs]
        final_lf = True
        if 0.45 <= roll < 0.75:
            name = rnd.choice(bnames)
            if name == "no final LF":
                final_lf = False
                what.append(name)
            elif BYTE_TAMPERS[name](lines, rnd) is not False:
                what.append(name)
        if vary and rnd.random() < 0.2:
            final_lf = False
        data = b"".join(l + b"\n" for l in lines)
        if not final_lf and data:
            data = data[:-1]
        if rnd.random() < 0.03:
            data, what = b"", ["the empty log"]
        pl = player(rnd, periods, recs) if rnd.random() < 0.6 else {}
        with open(os.path.join(out, "%d.log" % n), "wb") as f:
            f.write(data)
        mine = ()
        case = {"id": n, "what": "; ".join(what)}
        if "commitment" in pl:
            case["commitment"] = pl["commitment"]
        if "client_seed" in pl:
            case["client_seed"] = pl["client_seed"]
        try:
            if "deals" in pl:
                path = os.path.join(out, "%d.deals" % n)
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(pl["deals"])
                case["deals"] = True
                mine = ref.my_deals(path)
            v, rule, line = ref.check_log(data, pl.get("commitment"), pl.get("client_seed"), mine)
            case["ref"] = [v, rule, line]
        except ValueError as e:
            case["ref"] = ["error", None, None]
        cases.append(case)
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(cases, f)


if __name__ == "__main__":
    main()
