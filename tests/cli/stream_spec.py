#!/usr/bin/env python3
"""An independent implementation of docs/stream.md for xoshiro256ss and the
named durstenfeld algorithm, used to check that the specification alone is
enough to reproduce `fairshuf perm` output.  Usage: stream_spec.py SEED N K"""
import hashlib
import sys

M = (1 << 64) - 1


def seed_to_u64(s):
    if s.isdigit() and int(s) <= M:
        return int(s)
    return int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "little")


def xoshiro(seed):
    x = seed
    st = []
    for _ in range(4):
        x = (x + 0x9E3779B97F4A7C15) & M
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
        st.append(z ^ (z >> 31))
    rotl = lambda v, k: ((v << k) | (v >> (64 - k))) & M
    while True:
        r = (rotl((st[1] * 5) & M, 7) * 9) & M
        t = (st[1] << 17) & M
        st[2] ^= st[0]; st[3] ^= st[1]; st[1] ^= st[2]; st[0] ^= st[3]
        st[2] ^= t
        st[3] = rotl(st[3], 45)
        yield r


def below(gen, n):
    """Lemire: accept x iff (x*n mod 2^64) >= 2^64 mod n; result x*n >> 64."""
    t = (1 << 64) % n
    while True:
        m = next(gen) * n
        if (m & M) >= t:
            return m >> 64


def main():
    seed, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    g = xoshiro(seed_to_u64(seed))
    for _ in range(k):
        a = list(range(n))
        for i in range(n - 1, 0, -1):
            j = below(g, i + 1)
            a[i], a[j] = a[j], a[i]
        print(" ".join(map(str, a)))


main()
