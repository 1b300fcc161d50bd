"""Row keys: the keys `fairshuf lines --seed=S` gives its records, as numpy
arrays, for engines that shuffle rows where they lie (fairshuf.dask, or a
Spark or Ray job calling this).  docs/rowkey.md is the specification.

Record i (0-based, header excluded) has the key ``lines_keys(S, i, 1)[0]``;
the keyed order writes records in increasing key, equal keys ordered by
the level-1 keys of the same records, then level 2, and so on
(``lines_argsort`` does exactly that).  ``--weights`` records get
``lines_weighted_keys``; ``--group-by`` orders groups by the keys under
``groups_seed_key``.
"""
import numpy as np

from . import _core

_U64_MAX = (1 << 64) - 1
_LEVELS = 64  # as the library's tie rule: 64 levels, then the index


def seed_key(seed):
    """The 32-byte ChaCha20 key K of a seed (str or int, as --seed=S):
    64 hex digits are the key, anything else is hashed with SHA-256."""
    from . import _seed_str
    s = _seed_str(seed)
    if s is None:
        raise ValueError("a row key needs a seed (None would key from the OS)")
    return _core._seed_key(s)


def groups_seed_key(K):
    """Kg, the key of the order of groups (--group-by) for the key K."""
    return _core._groups_key(bytes(K))


def _key_of(seed_or_key):
    if isinstance(seed_or_key, (bytes, bytearray)) and len(seed_or_key) == 32:
        return bytes(seed_or_key)
    return seed_key(seed_or_key)


def _range(first, count):
    from . import _u64
    first = _u64(first, "first")
    count = _u64(count, "count")
    if count > 0 and first + count - 1 > _U64_MAX:
        raise OverflowError("first + count - 1 must be <= 2**64 - 1")
    return first, count


def lines_keys(seed, first, count, *, level=0, key=None):
    """The keys of records first, first+1, ..., first+count-1 under --seed=seed
    (numpy uint64): record i's key is the little-endian 64-bit word at byte
    8*(i mod 2**35) of the ChaCha20 keystream with key K, nonce
    (i >> 35, level, 0).  Level 0 is the i-th word of the seeded chacha20
    stream (`fairshuf rng --seed=S --format=u64`); levels 1, 2, ... break
    ties.  key=K (32 bytes from seed_key) skips hashing the seed.
    O(count), the library's ChaCha20 (no GIL held)."""
    K = bytes(key) if key is not None else seed_key(seed)
    first, count = _range(first, count)
    if not 0 <= level < 2**32:
        raise ValueError("level must be in [0, 2**32)")
    out = np.empty(count, dtype=np.uint64)
    _core._lines_keys(K, first, level, out)
    return out


def lines_weighted_keys(seed, first, weights, *, key=None):
    """The --weights keys of records first, first+1, ...: for weight w > 0,
    log(-log U) - log w with U = ((key >> 11) + 0.5) 2**-53 and key the
    record's level-0 key (the library's fs_weighted_key, so the platform's
    log rounds as the CLI's does).  Smaller is drawn first; ties by
    record number.  Weight 0 gives +inf (never drawn)."""
    K = bytes(key) if key is not None else seed_key(seed)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    bad = np.flatnonzero(~(np.isfinite(w) & (w >= 0)))
    if len(bad):
        raise ValueError("weight of record %d is %r: not a number >= 0"
                         % (first + int(bad[0]), float(w[bad[0]])))
    first, _ = _range(first, len(w))
    out = np.empty(len(w), dtype=np.float64)
    _core._lines_keys(K, first, 0, out, w)
    return out


def split_sizes(n, weights):
    """The sizes of `--split=W1,...,Wk` over n records: part i gets
    floor(n Wi / W), the rest one each to the largest remainders (ties:
    the lower part).  The library's fs_lines_split_sizes."""
    return list(_core._split_sizes(n, tuple(int(w) for w in weights)))


def to_signed(keys):
    """uint64 keys as int64 that sort the same way (the top bit flipped):
    for engines whose integers are signed (Spark's LongType, pandas)."""
    return (np.asarray(keys, dtype=np.uint64) ^ np.uint64(1 << 63)).view(np.int64)


def lines_argsort(seed, rows, keys=None, *, key=None):
    """The permutation that puts records `rows` (global record numbers,
    any order) in the keyed order: increasing level-0 key, equal keys by
    level 1, 2, ... (then by record number after 64 levels, as the
    library).  keys: their level-0 keys if already computed (uint64, or
    int64 from to_signed); without them each record's key is computed on
    its own (about a microsecond each: pass keys for many rows).
    O(n log n); ties cost one key per tied record and level."""
    K = bytes(key) if key is not None else _key_of(seed)
    rows = np.asarray(rows, dtype=np.uint64)
    if keys is None:
        keys = np.fromiter((_one(K, int(r), 0) for r in rows), np.uint64,
                           len(rows))
    keys = np.asarray(keys)
    if keys.dtype == np.int64:
        keys = keys.view(np.uint64) ^ np.uint64(1 << 63)
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    tied = np.flatnonzero(sk[1:] == sk[:-1])
    if len(tied) == 0:
        return order
    # runs of equal keys: [start, end) in sorted positions
    starts = tied[np.r_[True, tied[1:] != tied[:-1] + 1]]
    for s in starts:
        e = s + 1
        while e < len(sk) and sk[e] == sk[s]:
            e += 1
        idx = order[s:e]
        order[s:e] = idx[_break_ties(K, rows[idx])]
    return order


def _one(K, i, level):
    out = np.empty(1, dtype=np.uint64)
    _core._lines_keys(K, i, level, out)
    return out[0]


def _break_ties(K, rows, level=1):
    """Order of records with equal keys below `level`: by their keys at
    levels level, level+1, ... (each computed only for records still
    tied), then by record number after 64 levels (the library's rule)."""
    rows = [int(r) for r in rows]
    if len(set(rows)) != len(rows):
        raise ValueError("lines_argsort: a record number appears twice")
    if level >= _LEVELS:
        return np.argsort(np.array(rows, dtype=np.uint64), kind="stable")
    keys = [int(_one(K, r, level)) for r in rows]
    order = sorted(range(len(rows)), key=lambda j: keys[j])
    out, s = [], 0
    while s < len(order):
        e = s + 1
        while e < len(order) and keys[order[e]] == keys[order[s]]:
            e += 1
        run = order[s:e]
        if len(run) > 1:
            sub = _break_ties(K, [rows[j] for j in run], level + 1)
            run = [run[j] for j in sub]
        out.extend(run)
        s = e
    return np.array(out, dtype=np.int64)
