#!/usr/bin/env python3
"""An independent implementation of docs/keyed.md (seed -> epoch key ->
ChaCha20 key schedule -> SipHash-2-4 Feistel -> cycle-walking), used to
check that the specification alone reproduces `fairshuf perm --lazy`.
SipHash-2-4 is written out here from Aumasson & Bernstein's paper (a test
reference, not library code); ChaCha20 comes from the `cryptography`
package.  Usage: keyed_spec.py SEED EPOCH N I..."""
import hashlib
import hmac
import struct
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

M = (1 << 64) - 1


def rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & M


def siphash24(key, msg):
    k0, k1 = struct.unpack("<QQ", key)
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D,
         k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def rnd():
        v[0] = (v[0] + v[1]) & M; v[1] = rotl(v[1], 13); v[1] ^= v[0]
        v[0] = rotl(v[0], 32)
        v[2] = (v[2] + v[3]) & M; v[3] = rotl(v[3], 16); v[3] ^= v[2]
        v[0] = (v[0] + v[3]) & M; v[3] = rotl(v[3], 21); v[3] ^= v[0]
        v[2] = (v[2] + v[1]) & M; v[1] = rotl(v[1], 17); v[1] ^= v[2]
        v[2] = rotl(v[2], 32)

    b = (len(msg) & 0xFF) << 56
    full = len(msg) // 8 * 8
    for i in range(0, full, 8):
        m = struct.unpack("<Q", msg[i:i + 8])[0]
        v[3] ^= m; rnd(); rnd(); v[0] ^= m
    tail = msg[full:]
    m = b | int.from_bytes(tail, "little")
    v[3] ^= m; rnd(); rnd(); v[0] ^= m
    v[2] ^= 0xFF
    for _ in range(4):
        rnd()
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def seed_to_key(s):
    if len(s) == 64 and all(c in "0123456789abcdefABCDEF" for c in s):
        return bytes.fromhex(s)
    return hashlib.sha256(s.encode()).digest()


def epoch_key(seed, epoch):
    return hmac.new(seed_to_key(seed), b"fairshuf keyed epoch" +
                    struct.pack("<Q", epoch), hashlib.sha256).digest()


class Keyed:
    def __init__(self, n, key):
        b = 2
        while b < 64 and (1 << b) < n:
            b += 2
        self.n, self.h, self.mask = n, b // 2, (1 << (b // 2)) - 1
        self.rounds = 24 if self.h <= 2 else 12 if self.h <= 4 else 8
        nonce = b"fsk1" + struct.pack("<Q", n)
        # cryptography's ChaCha20 nonce: 4-byte LE counter, then the nonce
        ks = Cipher(algorithms.ChaCha20(key, b"\0\0\0\0" + nonce),
                    None).encryptor().update(b"\0" * 385)
        self.rk = [ks[16 * r:16 * r + 16] for r in range(self.rounds)]
        self.odd = ks[384] & 1

    def f(self, r, x):
        return siphash24(self.rk[r], struct.pack("<Q", x)) & self.mask

    def enc(self, x):
        l, r = x >> self.h, x & self.mask
        for k in range(self.rounds):
            l, r = r, l ^ self.f(k, r)
        y = l << self.h | r
        return y ^ 1 if y < 2 and self.odd else y

    def at(self, i):
        x = self.enc(i)
        while x >= self.n:
            x = self.enc(x)
        return x


def main():
    seed, epoch, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    p = Keyed(n, epoch_key(seed, epoch))
    print(" ".join(str(p.at(int(i))) for i in sys.argv[4:]))


if __name__ == "__main__":
    main()
