#!/usr/bin/env python3
"""An independent implementation of docs/stream.md (stream version 5),
written from the specification, not from the C code: every generator, every
algorithm (the bucket path included), `rng`, `perm`, `deal --format=tsv`,
`playlist --spread` / `--weights` and `lines` (--csv, --weights, --group-by,
--split, --stratify).

  stream_spec.py check docs/vectors.md   recompute every row of the tables;
                                         exit 1 on any difference
  stream_spec.py run COMMAND...          print what `fairshuf COMMAND` prints
                                         (e.g. run perm 10 --seed=1; playlist
                                         reads its FILE from the current folder)
  stream_spec.py cli BIN docs/vectors.md check the binary BIN against the
                                         tables (the same rows, run by BIN)

check and cli run the rows in a temporary folder holding the input files
the tables define (the paragraphs that begin "File `NAME`").

ChaCha20 is the `cryptography` package's (OpenSSL), never hand-written."""
import hashlib
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

M = (1 << 64) - 1
M32 = (1 << 32) - 1

# ---- §1 seeds ---------------------------------------------------------


def seed_to_u64(s):
    if s.isdigit() and int(s) <= M:
        return int(s)
    return int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "little")


def seed_to_key(s):
    if re.fullmatch(r"[0-9a-fA-F]{64}", s):
        return bytes.fromhex(s)
    return hashlib.sha256(s.encode()).digest()


# ---- §2 generators: each yields the stream's bytes in chunks ------------


def splitmix_next(x):
    x = (x + 0x9E3779B97F4A7C15) & M
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return x, z ^ (z >> 31)


def words_le(gen, width):
    for v in gen:
        yield v.to_bytes(width, "little")


def chacha20(key, nonce12=bytes(12)):
    counter = 0
    while True:  # 1024 blocks at a time; the counter never wraps here
        enc = Cipher(algorithms.ChaCha20(key, counter.to_bytes(4, "little") + nonce12),
                     mode=None).encryptor()
        yield enc.update(bytes(65536))
        counter += 1024


def xoshiro_state(st):
    rotl = lambda v, k: ((v << k) | (v >> (64 - k))) & M
    st = list(st)
    while True:
        r = (rotl((st[1] * 5) & M, 7) * 9) & M
        t = (st[1] << 17) & M
        st[2] ^= st[0]; st[3] ^= st[1]; st[1] ^= st[2]; st[0] ^= st[3]
        st[2] ^= t
        st[3] = rotl(st[3], 45)
        yield r


def xoshiro(s):
    st = []
    for _ in range(4):
        s, z = splitmix_next(s)
        st.append(z)
    return xoshiro_state(st)


def splitmix(s):
    while True:
        s, z = splitmix_next(s)
        yield z


def pcg64(s):
    mult = 0x2360ED051FC65DA44385DF649FCCF645
    inc, state, M128 = (54 << 1) | 1, 0, (1 << 128) - 1
    step = lambda st: (st * mult + inc) & M128
    state = step((step(state) + s) & M128)
    while True:
        state = step(state)
        x = ((state >> 64) ^ state) & M
        rot = state >> 122
        yield ((x >> rot) | (x << ((64 - rot) & 63))) & M


def mt19937(s):
    x = [s & M32]
    for i in range(1, 624):
        x.append((1812433253 * (x[-1] ^ (x[-1] >> 30)) + i) & M32)
    while True:
        for k in range(624):
            y = (x[k] & 0x80000000) | (x[(k + 1) % 624] & 0x7FFFFFFF)
            x[k] = x[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        for y in x:
            y ^= y >> 11
            y ^= (y << 7) & 0x9D2C5680
            y ^= (y << 15) & 0xEFC60000
            yield y ^ (y >> 18)


def mt19937_64(s):
    x = [s]
    for i in range(1, 312):
        x.append((6364136223846793005 * (x[-1] ^ (x[-1] >> 62)) + i) & M)
    while True:
        for k in range(312):
            y = (x[k] & 0xFFFFFFFF80000000) | (x[(k + 1) % 312] & 0x7FFFFFFF)
            x[k] = x[(k + 156) % 312] ^ (y >> 1) ^ (0xB5026F5AA96619E9 if y & 1 else 0)
        for y in x:
            y ^= (y >> 29) & 0x5555555555555555
            y ^= (y << 17) & 0x71D67FFFEDA60000
            y ^= (y << 37) & 0xFFF7EEE000000000
            yield y ^ (y >> 43)


def glibc_rand_outputs(s):
    """glibc TYPE_3 after srand(s mod 2^32): r[i] = r[i-31] + r[i-3]."""
    word = s & M32
    word = word - (1 << 32) if word >> 31 else word  # int32_t
    r = [word or 1]
    for _ in range(1, 31):
        prev = r[-1]
        hi = abs(prev) // 127773 * (1 if prev >= 0 else -1)  # C's truncation
        lo = prev - hi * 127773
        w = 16807 * lo - 2836 * hi
        r.append(w + 2147483647 if w < 0 else w)
    r = [v & M32 for v in r]
    r += r[0:3]  # r[31..33] = r[0..2]
    i = 34  # r holds r[i-34 .. i-1]
    while True:
        v = (r[-31] + r[-3]) & M32
        r.append(v)
        del r[0]
        if i >= 344:
            yield v >> 1
        i += 1


def glibc_rand(s):
    """31-bit outputs, bits concatenated least significant first."""
    acc = nacc = 0
    out = bytearray()
    for v in glibc_rand_outputs(s):
        acc |= v << nacc
        nacc += 31
        while nacc >= 8:
            out.append(acc & 255)
            acc >>= 8
            nacc -= 8
        if len(out) >= 4096:
            yield bytes(out)
            out = bytearray()


def delphi(s):
    x = s & M32
    while True:
        x = (x * 134775813 + 1) & M32
        yield x


def generator(name, seed):
    if name == "chacha20":
        return chacha20(seed_to_key(seed))
    s = seed_to_u64(seed)
    table = {"xoshiro256ss": (xoshiro, 8), "pcg64": (pcg64, 8),
             "mt19937": (mt19937, 4), "mt19937_64": (mt19937_64, 8),
             "splitmix64": (splitmix, 8), "delphi": (delphi, 4)}
    if name == "rand":
        return glibc_rand(s)
    f, width = table[name]
    return words_le(f(s), width)


class Stream:
    """Consumers read the byte stream in order: u64 = next 8 bytes LE."""

    def __init__(self, chunks):
        self.chunks, self.buf, self.pos = chunks, b"", 0

    def take(self, n):
        while len(self.buf) - self.pos < n:
            self.buf = self.buf[self.pos:] + next(self.chunks)
            self.pos = 0
        b = self.buf[self.pos:self.pos + n]
        self.pos += n
        return b

    def u64(self):
        return int.from_bytes(self.take(8), "little")

    def u32(self):
        return int.from_bytes(self.take(4), "little")


# ---- §3 bounded integers ------------------------------------------------


def below(g, n):
    t = (1 << 64) % n
    while True:
        m = g.u64() * n
        if m & M >= t:
            return m >> 64


def batch(g, bounds):
    p = 1
    for b in bounds:
        p *= b
    t = (1 << 64) % p
    while True:
        lo, js = g.u64(), []
        for b in bounds:
            m = lo * b
            js.append(m >> 64)
            lo = m & M
        if lo >= t:
            return js


# ---- §4 algorithms ------------------------------------------------------


def durstenfeld(a, g):
    for i in range(len(a) - 1, 0, -1):
        j = below(g, i + 1)
        a[i], a[j] = a[j], a[i]


def batch_k(m):
    for k, lim in ((6, 1 << 10), (5, 1 << 12), (4, 1 << 15), (3, 1 << 20), (2, 1 << 30)):
        if m <= lim:
            return k
    return 1


def durstenfeld_batched(a, g):
    i = len(a) - 1
    while i > 0:
        k = min(batch_k(i + 1), i)
        js = batch(g, [i + 1 - t for t in range(k)])
        for t in range(k):
            a[i - t], a[js[t]] = a[js[t]], a[i - t]
        i -= k


def inside_out(a, g):
    src, out = list(a), [a[0]]
    for i in range(1, len(a)):
        j = below(g, i + 1)
        out.append(None)
        out[i] = out[j]
        out[j] = src[i]
    a[:] = out


def fisher_yates(a, g):
    left = list(a)
    for k in range(len(a)):
        a[k] = left.pop(below(g, len(left)))


def sattolo(a, g):
    for i in range(len(a) - 1, 0, -1):
        j = below(g, i)
        a[i], a[j] = a[j], a[i]


def rejection(a, g):
    out = [None] * len(a)
    for x in a:
        while True:
            slot = below(g, len(a))
            if out[slot] is None:
                break
        out[slot] = x
    a[:] = out


def sort_key(a, g):
    k = sorted([g.u64(), i] for i in range(len(a)))

    def break_ties(lo, hi):
        found, i = False, lo
        while i < hi:
            j = i + 1
            while j < hi and k[j][0] == k[i][0]:
                j += 1
            if j - i > 1:
                found = True
                while True:
                    for t in range(i, j):
                        k[t][0] = g.u64()
                    k[i:j] = sorted(k[i:j])
                    if not break_ties(i, j):
                        break
            i = j
        return found

    break_ties(0, len(k))
    a[:] = [a[i] for _, i in k]


def child(crypto, key, q):
    if crypto:
        return Stream(chacha20(key, bytes(4) + q.to_bytes(8, "little")))
    kw = [int.from_bytes(key[8 * i:8 * i + 8], "little") for i in range(4)]
    x, st = kw[0] ^ ((q * 0x9E3779B97F4A7C15) & M), []
    for i in range(4):
        x, z = splitmix_next(x)
        st.append(z ^ kw[i])
    if not any(st):
        st[0] = 1
    return Stream(words_le(xoshiro_state(st), 8))


def label_stream(crypto, key, c):
    """§4 step 4: chunk c's labels. chacha20: child c; otherwise SplitMix64
    started at K1 xor (c * golden) (version 2), as little-endian bytes."""
    if crypto:
        return child(True, key, c)
    k1 = int.from_bytes(key[8:16], "little")
    return Stream(words_le(splitmix(k1 ^ ((c * 0x9E3779B97F4A7C15) & M)), 8))


def bucket(a, g, size, crypto):
    n = len(a)
    key = g.take(32)
    L = 1
    while L < 8 and (262144 << L) < n * size:
        L += 1
    B, C = 1 << L, (n + (1 << 20) - 1) >> 20
    lab = []
    for c in range(C):
        ch, m = label_stream(crypto, key, c), min(n, (c + 1) << 20) - (c << 20)
        # one byte per label, its top L bits; version 5: the labels are a
        # sequence, read in step 5's order
        while m > 0:
            k = min(m, 4096)
            lab.extend(byte >> (8 - L) for byte in ch.take(k))
            m -= k
    start = [0] * (B + 1)
    for b in range(B):
        start[b + 1] = start[b] + lab.count(b)
    # version 5, step 5: the scatter.  The element at head[b] is in hand;
    # label k sends it to bucket l (a swap with l's first unfilled
    # position, a no-op when l == b), and head[l] moves on.
    head = start[:B]
    k = 0
    for b in range(B):
        while head[b] < start[b + 1]:
            l = lab[k]
            k += 1
            h, q = head[b], head[l]
            a[h], a[q] = a[q], a[h]
            head[l] += 1
    assert k == n
    for b in range(B):
        lo, hi = start[b], start[b + 1]
        if hi - lo >= 2:
            part = a[lo:hi]
            durstenfeld_batched(part, child(crypto, key, C + b))
            a[lo:hi] = part


def auto(a, g, size, crypto):
    if len(a) >= 2 and len(a) * size >= 16 << 20:
        bucket(a, g, size, crypto)
    else:
        durstenfeld_batched(a, g)


def naive_swap(a, g):
    n = len(a)
    for _ in range(g.u32() % 1023):
        x = g.u32() % n
        y = g.u32() % n
        a[x], a[y] = a[y], a[x]


def swap_any(a, g):
    for i in range(len(a)):
        j = below(g, len(a))
        a[i], a[j] = a[j], a[i]


def mod_bias(a, g):
    for i in range(len(a) - 1, 0, -1):
        j = (g.u32() >> 17) % (i + 1)
        a[i], a[j] = a[j], a[i]


def asf_1999(a, g):
    n = len(a)
    for i in range(n):
        j = (g.u32() * (n - 1)) >> 32
        a[i], a[j] = a[j], a[i]


def random_comparator(a, g):
    n, width = len(a), 1
    while width < n:
        tmp = []
        for lo in range(0, n, 2 * width):
            mid, hi = min(lo + width, n), min(lo + 2 * width, n)
            i, j = lo, mid
            while i < mid and j < hi:
                if g.u32() & 1:
                    tmp.append(a[i]); i += 1
                else:
                    tmp.append(a[j]); j += 1
            tmp += a[i:mid] + a[j:hi]
        a[:] = tmp
        width *= 2


SIMPLE = {"durstenfeld": durstenfeld, "inside-out": inside_out,
          "fisher-yates": fisher_yates, "sattolo": sattolo,
          "rejection": rejection, "sort-key": sort_key,
          "naive-swap": naive_swap, "swap-any": swap_any,
          "mod-bias": mod_bias, "asf-1999": asf_1999,
          "random-comparator": random_comparator}


def shuffle(alg, a, g, size, crypto):
    if len(a) < 2:
        return
    if alg == "auto":
        auto(a, g, size, crypto)
    elif alg == "bucket":
        bucket(a, g, size, crypto)
    else:
        SIMPLE[alg](a, g)


# ---- §6 playlist --spread / --weights -----------------------------------


def tsv_list(data, field):
    """(header bytes, [item lines], [values]) of a TSV list (§6 Input)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":  # nothing after the last LF
        lines.pop()
    header = data[:len(lines[0]) + 1] if b"\n" in data else data
    first = lines[0][3:] if lines[0].startswith(b"\xef\xbb\xbf") else lines[0]
    names = first.rstrip(b"\r\n").split(b"\t")  # a byte order mark is no field
    items = [x[:-1] if x.endswith(b"\r") else x for x in lines[1:]]
    items = [x for x in items if x]
    if not items:
        raise SystemExit("no items")
    if field.encode() not in names:
        raise SystemExit("no field %r" % field)
    f = names.index(field.encode())
    values = [(x.split(b"\t") + [b""] * (f + 1))[f] for x in items]
    return header, items, values


DEC = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
HEX = re.compile(rb"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?\d+)?")


def weight(v):
    """strtod over the whole value (C locale), finite and not negative."""
    s = v.lstrip(b" \t\n\v\f\r")
    if len(v) >= 64 or not s:
        raise SystemExit("invalid weight %r" % v)
    if HEX.fullmatch(s):
        w = float.fromhex(s.decode())
    elif DEC.fullmatch(s):
        w = float(s)
    else:
        raise SystemExit("invalid weight %r" % v)
    if not (0 <= w < float("inf")):
        raise SystemExit("invalid weight %r" % v)
    return w


def weighted_order(ws, g):
    keys = []
    for i, w in enumerate(ws):
        u = (float(g.u64() >> 11) + 0.5) * 2.0 ** -53  # binary64, rounded
        e = -math.log(u)
        key = math.log(e) - math.log(w) if e > 0 else -math.inf
        keys.append((key, i))
    return [i for _, i in sorted(keys)]


def spread_order(values, g):
    n = len(values)
    names = sorted(set(values))  # bytes compare unsigned, prefix first
    gid = {v: k for k, v in enumerate(names)}
    a = [g.u64() for _ in range(n)]
    b = [g.u64() for _ in names]
    seqs = [[] for _ in names]
    for i in sorted(range(n), key=lambda i: (a[i], i)):
        seqs[gid[values[i]]].append(i)
    run = []
    for k in sorted(range(len(names)), key=lambda k: (len(seqs[k]), b[k], k)):
        s = seqs[k]
        if len(s) == len(run):
            into_run = g.u64() & 1 == 1
        else:
            into_run = len(s) < len(run)
        short, long_ = (s, run) if into_run else (run, s)
        f = float(g.u64() >> 11) * 2.0 ** -53
        m, l = len(short), len(long_)
        merged, z = [], 0
        for j in range(m):
            gap = min(l, math.floor((float(j) + f) * float(l + 1) / float(m)))
            merged += long_[z:gap]
            z = max(z, gap)
            merged.append(short[j])
        run = merged + long_[z:]
    return run


def playlist(path, opts):
    data = open(path, "rb").read()
    weights = "weights" in opts
    header, items, values = tsv_list(data, opts["weights" if weights else "spread"])
    ws = [weight(v) for v in values] if weights else None
    if weights:  # weight 0: the item is left out (no draw, not printed)
        keep = [i for i, w in enumerate(ws) if w > 0]
        if not keep:
            raise SystemExit("every weight is 0")
        items, ws = [items[i] for i in keep], [ws[i] for i in keep]
    g = Stream(chacha20(seed_to_key(opts["seed"])))
    out = header
    for _ in range(int(opts.get("cycles", 1))):
        order = weighted_order(ws, g) if weights else spread_order(values, g)
        out += b"".join(items[i] + b"\n" for i in order)
    return out


# ---- §6 lines --csv / --weights / --group-by (docs/lines.md) -------------


def lines_records(data, csv_mode):
    """Records with their ends: CSV ends at LF outside quotes, a last
    record without one gets the first record's end; lines end at LF."""
    recs, cur, inq, first_end = [], b"", False, None
    for ch in data:
        c = bytes([ch])
        cur += c
        if c == b'"' and csv_mode:
            inq = not inq
        elif c == b"\n" and not inq:
            if first_end is None:
                first_end = b"\r\n" if cur.endswith(b"\r\n") else b"\n"
            recs.append(cur)
            cur = b""
    if cur:
        recs.append(cur + (first_end if csv_mode and first_end else b"\n"))
    return recs


def lines_field(rec, csv_mode, col):
    import csv as csvmod
    text = rec.rstrip(b"\r\n").decode()
    fields = next(csvmod.reader([text])) if csv_mode else text.split("\t")
    return fields[col].encode()


def lines_cmd(path, opts):
    data = open(path, "rb").read()
    csv_mode = "csv" in opts
    recs = lines_records(data, csv_mode)
    h = int(opts.get("header", 0))
    hdr, recs = recs[:h], recs[h:]

    def column(spec):  # a number from 1, or a name in the header
        if spec.isdigit():
            return int(spec) - 1
        names = next(__import__("csv").reader([hdr[0].rstrip(b"\r\n").decode()])) \
            if csv_mode else hdr[0].rstrip(b"\r\n").decode().split("\t")
        return names.index(spec)

    g = Stream(chacha20(seed_to_key(opts["seed"])))
    words = [g.u64() for _ in range(len(recs))]
    if "weights" in opts:
        col = column(opts["weights"])
        keys = []
        for i, r in enumerate(recs):
            w = float(lines_field(r, csv_mode, col))
            if w > 0:
                u = ((words[i] >> 11) + 0.5) * 2.0 ** -53
                keys.append((math.log(-math.log(u)) - math.log(w), i))
        order = [i for _, i in sorted(keys)][:int(opts["head-count"])]
    elif "group-by" in opts:
        col = column(opts["group-by"])
        ids, group = {}, []
        for r in recs:
            group.append(ids.setdefault(lines_field(r, csv_mode, col), len(ids)))
        kg = hashlib.sha256(("fairshuf lines groups v1:" +
                             seed_to_key(opts["seed"]).hex()).encode()).digest()
        g2 = Stream(chacha20(kg))
        gw = [g2.u64() for _ in range(len(ids))]
        rank = {x: r for r, x in enumerate(sorted(range(len(ids)), key=lambda x: (gw[x], x)))}
        within = "shuffle-within" in opts
        order = sorted(range(len(recs)), key=lambda i: (
            rank[group[i]], words[i] if within else 0, i))
    else:
        order = sorted(range(len(recs)), key=lambda i: (words[i], i))
        if "head-count" in opts:
            order = order[:int(opts["head-count"])]
    if "split" in opts:
        return lines_split(opts, hdr, recs, order, csv_mode, column)
    return b"".join(hdr) + b"".join(recs[i] for i in order)


def split_sizes(n, ws):
    """§6 --split sizes: floor(n·Wp/W), then one each to the largest
    remainders n·Wp mod W, equal remainders to the lower part first."""
    total = sum(ws)
    sizes = [n * w // total for w in ws]
    by_rem = sorted(range(len(ws)), key=lambda p: (-(n * ws[p] % total), p))
    for p in by_rem[:n - sum(sizes)]:
        sizes[p] += 1
    return sizes


def lines_split(opts, hdr, recs, order, csv_mode, column):
    """The part files of --split (with --stratify), shown as the table
    shows them: `==> NAME <==` then each file's lines."""
    ws = [int(x) for x in opts["split"].split(",")]
    parts = [[] for _ in ws]
    if "stratify" in opts:
        col = column(opts["stratify"])
        value = [lines_field(r, csv_mode, col)[:4096] for r in recs]
        count = {}
        for v in value:  # the whole input, -n not applied
            count[v] = count.get(v, 0) + 1
        seen = {}
        for i in order:
            j = seen.get(value[i], 0)
            seen[value[i]] = j + 1
            cut = split_sizes(count[value[i]], ws)
            q = 0  # the first part with j < size1 + ... + sizeq
            while q + 1 < len(ws) and j >= sum(cut[:q + 1]):
                q += 1
            parts[q].append(i)
    else:
        at = 0
        for q, size in enumerate(split_sizes(len(order), ws)):
            parts[q] = order[at:at + size]
            at += size
    out = b""
    for q, part in enumerate(parts):
        out += b"==> %s <==\n" % part_name(opts["output"], q, len(ws)).encode()
        out += b"".join(hdr) + b"".join(recs[i] for i in part)
    return out


def part_name(o, q, k):
    """-o 'NAME%d': part q+1 in place of the first %d; or the q-th of A,B,..."""
    if "%d" in o:
        return o.replace("%d", str(q + 1), 1)
    return o.split(",")[q]


# ---- §6 commands --------------------------------------------------------

GAMES = {  # deck, players, hand size, extra parts (count) dealt in blocks
    "doudizhu": ("54", 3, 17, [3]),
    "bridge": ("52", 4, 13, []),
}


def fresh_deck(kind):
    cards = [r + s for s in "shdc" for r in "A23456789TJQK"]
    return cards + ["BJ", "RJ"] if kind == "54" else cards


def parse(args):
    opts, pos = {}, []
    args = iter(args)
    for x in args:
        if x.startswith("--"):
            k, _, v = x[2:].partition("=")
            opts[k] = v
        elif x == "-o":  # lines --split's outputs
            opts["output"] = next(args)
        else:
            pos.append(x)
    return opts, pos


def run(argv):
    cmd, (opts, pos) = argv[0], parse(argv[1:])
    rng = opts.get("rng", "chacha20")
    g = Stream(generator(rng, opts["seed"]))
    crypto = rng == "chacha20"
    count = int(opts.get("count", 1))
    out = []
    if cmd == "rng":
        fmt = opts.get("format", "u32" if rng in ("mt19937", "rand", "delphi") else "u64")
        if "bytes" in opts:
            return [g.take(int(opts["bytes"])).hex()]
        for _ in range(int(opts.get("count", 10))):
            v = g.u64() if fmt == "u64" else g.u32()
            out.append(str(v))
    elif cmd == "perm":
        n, alg = int(pos[0]), opts.get("algorithm", "auto")
        base = 1 if "one-based" in opts else 0
        for _ in range(count):
            a = list(range(base, n + base))
            shuffle(alg, a, g, 8, crypto)  # perm's elements: 8 bytes
            out.append(" ".join(map(str, a)))
    elif cmd == "playlist":
        return playlist(pos[0], opts).decode().split("\n")[:-1]
    elif cmd == "lines":
        return lines_cmd(pos[0], opts).decode().split("\n")[:-1]
    elif cmd == "deal":
        kind, players, hand, extra = GAMES[opts.get("game", "doudizhu")]
        alg = opts.get("algorithm", "auto")
        for _ in range(count):
            a = fresh_deck(kind)
            shuffle(alg, a, g, 4, crypto)  # cards: 4 bytes
            parts, p = [], 0
            for size in [hand] * players + extra:
                parts.append(" ".join(a[p:p + size]))
                p += size
            out.append("\t".join(parts))
    return out


def digest(lines):
    return hashlib.sha256("".join(x + "\n" for x in lines).encode()).hexdigest()


def rows(path):
    """Table rows `| \\`fairshuf ARGS\\` | output |` of docs/vectors.md."""
    for line in open(path, encoding="utf-8"):
        m = re.match(r"\|\s*`fairshuf ([^`]*)`\s*\|\s*(.*?)\s*\|\s*$", line)
        if m:
            yield m.group(1), m.group(2)


def many_tsv():
    """docs/vectors.md's many.tsv, built from its description there."""
    rows = ["title\tartist\tplays"]
    for i in range(1, 201):
        rows.append("s%d\t%s\t%d" % (i, "dom" if i > 120 else "a%d" % (i % 9), i))
    return "".join(r + "\n" for r in rows).encode()


def files(path):
    """The input files of docs/vectors.md: a paragraph "File `NAME` ..." and
    a fenced block, or a file described in words (built here) and its
    sha256."""
    text, out = open(path, encoding="utf-8").read(), {}
    para = r"^File `([^`]+)`(?:(?!\n\n).)*"  # to the end of its paragraph
    for m in re.finditer(para + r"\n\n```[^\n]*\n(.*?)^```", text, re.M | re.S):
        out[m.group(1)] = m.group(2).encode()
    for m in re.finditer(para + r"\(sha256\s+`([0-9a-f]{64})`\)", text, re.M | re.S):
        data = {"many.tsv": many_tsv}[m.group(1)]()
        if hashlib.sha256(data).hexdigest() != m.group(2):
            raise SystemExit("%s: not the file the table describes" % m.group(1))
        out[m.group(1)] = data
    return out


def expected(cell):
    """Output lines of a cell: `a` <br> `b`, or sha256 `hex`."""
    m = re.fullmatch(r"sha256 `([0-9a-f]{64})`", cell)
    if m:
        return "sha256", m.group(1)
    return "lines", re.findall(r"`([^`]*)`", cell)


def check_rows(table, binary):
    """Each row run by the spec (binary None) or by the binary; the number
    of mismatches and of rows."""
    bad = checked = 0
    for args, cell in rows(table):
        kind, want = expected(cell)
        if binary:
            argv = shlex.split(args)
            res = subprocess.run([binary] + argv,
                                 capture_output=True, check=True)
            got = res.stdout.decode().split("\n")[:-1]
            if argv[0] == "lines":  # --split: the part files instead
                got += binary_parts(parse(argv[1:])[0])
        else:
            got = run(shlex.split(args))
        if kind == "sha256":
            got = digest(got)
        checked += 1
        if got != want:
            bad += 1
            print("MISMATCH fairshuf %s\n  %s: %s\n  table: %s" %
                  (args, "binary" if binary else "spec", got, want))
    return bad, checked


def binary_parts(opts):
    """The part files a --split row wrote, as the table shows them; each
    is removed once read (so the next row starts without them)."""
    if "split" not in opts:
        return []
    got, k = [], len(opts["split"].split(","))
    for q in range(k):
        name = part_name(opts["output"], q, k)
        with open(name, "rb") as f:
            got += ["==> %s <==" % name] + f.read().decode().split("\n")[:-1]
        os.remove(name)
    return got


def main():
    if sys.argv[1:2] == ["run"]:
        print("\n".join(run(sys.argv[2:])))
        return 0
    cli = sys.argv[1] == "cli"
    table = os.path.abspath(sys.argv[3] if cli else sys.argv[2])
    binary = sys.argv[2] if cli else None
    if cli and os.sep in binary:
        binary = os.path.abspath(binary)
    tmp = tempfile.mkdtemp(prefix="stream_spec.")
    try:
        for name, data in files(table).items():  # playlist rows read these
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
        os.chdir(tmp)
        bad, checked = check_rows(table, binary)
    finally:
        shutil.rmtree(tmp)
    print("%d rows checked, %d mismatches" % (checked, bad))
    return 1 if bad or checked == 0 else 0


sys.exit(main())
