"""fairshuf: fair, fast and verifiable shuffling for Python.

A thin layer over the C library libfairshuf (the same code as the
``fairshuf`` command).  Every shuffle is exactly uniform over all orders
(up to the generator), the default generator is ChaCha20 keyed from the
operating system, and with ``seed=`` the output is specified byte for byte
(docs/stream.md): ``fairshuf.permutation(n, seed="s")`` equals
``fairshuf perm n --seed=s`` on every platform and every version that
keeps the stream version (``fairshuf.STREAM_VERSION``).

Functions
---------
shuffle(a, *, seed=None, rng="chacha20", threads=1)
    Shuffle a writable C-contiguous buffer in place along axis 0.
permutation(x, *, seed=None, rng="chacha20", threads=1)
    A shuffled copy of an array, or a random permutation of range(n).
sample(n, k, *, seed=None, rng="chacha20")
    k distinct integers of range(n) in random order.
lines(src, dst, *, seed=None, memory=None, head=None, tmpdir=None)
    Shuffle the lines of a file of any size (out of core), like
    ``fairshuf lines``; dst is replaced atomically.
KeyedPermutation(n, seed, epoch=0)
    A random-access permutation of range(n), any n < 2**64, O(1) memory;
    ``p[array]`` maps a numpy array of positions at once.
default_rng(seed=None) -> Generator
    numpy-style generator object whose stream advances between calls:
    shuffle, permutation, choice (weighted without replacement too),
    integers, random.
fairshuf.torch.Sampler
    A PyTorch sampler whose epoch order needs no index array.

Errors are exceptions, never a partial result: ValueError for bad
arguments (read-only or non-contiguous arrays, unknown generators, empty
seeds, negative sizes), TypeError for a non-integer where an integer is
needed, OverflowError for an integer above 2**64 - 1 (nothing is reduced
modulo 2**64), OSError when the OS refuses randomness or I/O fails,
MemoryError.
"""
import operator
import os

from . import _core
from ._core import _version

__all__ = ["shuffle", "permutation", "sample", "lines", "KeyedPermutation",
           "Generator", "default_rng", "generators", "__version__",
           "STREAM_VERSION", "lines_keys", "lines_weighted_keys",
           "lines_argsort"]

_U64_MAX = (1 << 64) - 1


def _is_bool(value):
    """True and numpy's bool_ are truth values, not counts (numpy still
    lets np.bool_ pass operator.index, with a DeprecationWarning)."""
    return isinstance(value, bool) or (
        type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool"))


def _u64(value, what, lo=0, hi=_U64_MAX):
    """An integer argument checked, never wrapped: TypeError for a
    non-integer (2.7, "3", True), ValueError below lo, OverflowError above
    hi (2**64 - 1 unless said)."""
    if _is_bool(value):
        raise TypeError("%s must be an integer, not bool" % what)
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("%s must be an integer, not %s"
                        % (what, type(value).__name__)) from None
    if v < lo:
        raise ValueError("%s must be >= %d, got %d" % (what, lo, v))
    if v > hi:
        raise OverflowError("%s must be <= %d, got %d" % (what, hi, v))
    return v

__version__ = _version()


def _seed_str(seed):
    """Seeds are strings as on the command line; an int is its decimal
    form, so seed=42 is --seed=42.  None means keyed from the OS."""
    if seed is None:
        return None
    if _is_bool(seed):
        raise TypeError("seed must be a str or an int, not bool")
    if not isinstance(seed, (str, bytes, bytearray)) and hasattr(seed, "__index__"):
        seed = operator.index(seed)  # numpy integers too
    if isinstance(seed, int):
        if seed < 0:  # numpy's SeedSequence rule: entropy is non-negative
            raise ValueError("invalid seed: %d: expected a non-negative integer "
                             "(as numpy's SeedSequence)" % seed)
        return str(seed)
    if isinstance(seed, (bytes, bytearray)):
        return bytes(seed).decode("utf-8")
    if isinstance(seed, str):
        if "\0" in seed:
            raise ValueError("invalid seed: contains a NUL character")
        return seed
    raise TypeError("seed must be a str or an int, not %s" % type(seed).__name__)


def _threads(threads):
    """TypeError for a non-integer (True, 2.0), ValueError below 0."""
    if _is_bool(threads):
        raise TypeError("threads must be an int >= 0 (0 = one per CPU), not bool")
    try:
        threads = operator.index(threads)
    except TypeError:
        raise TypeError("threads must be an int >= 0 (0 = one per CPU), not %s"
                        % type(threads).__name__) from None
    if threads < 0:
        raise ValueError("threads must be an int >= 0 (0 = one per CPU)")
    if threads > 4096:
        raise OverflowError("threads must be <= 4096")
    return threads


def shuffle(a, *, seed=None, rng="chacha20", threads=1):
    """Shuffle ``a`` in place along its first axis; return None.

    ``a`` is any writable C-contiguous buffer: a numpy array of any dtype
    (structured too) and shape -- rows of a 2-D array move whole --, a
    ``bytearray`` (bytes are the elements) or a ``memoryview``.  Every
    order of the rows is exactly equally likely.  The GIL is released
    while shuffling.

    seed:    None (default: ChaCha20 keyed from the OS, unpredictable), or a
             str/int: the order is then reproducible on every platform and
             equals ``fairshuf perm`` for the same seed and length.
    rng:     generator name (``fairshuf.generators()``); default chacha20.
    threads: threads for large arrays (0 = one per CPU); never changes the
             output.

    Raises ValueError for a read-only, non-contiguous or 0-d array, an
    unknown generator or an empty seed; OSError if the OS refuses
    randomness.  On error ``a`` is left as the library left it: the
    library fails before moving anything except when the generator itself
    fails mid-shuffle, which only a broken OS can cause.

    >>> import numpy as np, fairshuf
    >>> a = np.arange(10)
    >>> fairshuf.shuffle(a, seed="demo")
    """
    _core._shuffle(a, _seed_str(seed), rng, _threads(threads))


def permutation(x, *, seed=None, rng="chacha20", threads=1):
    """Return a shuffled copy: of ``x`` if it is an array (rows move whole),
    or of ``numpy.arange(x, dtype=numpy.int64)`` if ``x`` is an int.

    With the same seed, ``permutation(n, seed=s)`` is exactly the output of
    ``fairshuf perm n --seed=s``.  Other arguments as for shuffle()."""
    import numpy as np

    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        out = np.arange(_u64(x, "permutation: n", hi=(1 << 63) - 1), dtype=np.int64)
    else:
        out = np.array(x, copy=True, order="C")
        if out.ndim == 0:
            raise ValueError("permutation: x must be an int or an array with at least one axis")
    shuffle(out, seed=seed, rng=rng, threads=threads)
    return out


def sample(n, k, *, seed=None, rng="chacha20"):
    """Return k distinct integers of range(n) in uniformly random order:
    every ordered k-tuple is equally likely.  O(k) memory whatever n
    (Floyd's algorithm).  The array is int64 like numpy's for n <= 2**63,
    uint64 above (values that int64 cannot hold).  n, k: integers in
    [0, 2**64); larger is OverflowError, never reduced modulo 2**64."""
    import numpy as np

    n = _u64(n, "sample: n")
    k = _u64(k, "sample: k", hi=(1 << 63) - 1)
    if k > n:
        raise ValueError("sample: k = %d is larger than n = %d" % (k, n))
    out = np.empty(k, dtype=np.uint64)
    _core._sample(n, k, out, _seed_str(seed), rng)
    return out.view(np.int64) if n <= 1 << 63 else out


def lines(src, dst, *, seed=None, memory=None, head=None, tmpdir=None,
          threads=1):
    """Shuffle the lines of file ``src`` into file ``dst`` (paths), like
    ``fairshuf lines --seed=S src -o dst``, out of core for files larger
    than memory.

    memory: budget in bytes (None: half the available memory); beyond it
            the library spills to temporary files in tmpdir.
    head:   write only the first ``head`` lines of the order.
    Returns the number of lines written.

    ``dst`` follows ``fairshuf lines -o``'s rules: a regular file is
    replaced only on success -- the output goes to a new file beside it,
    renamed over it at the end, so on any error ``dst`` (even when it is
    ``src``) is untouched and the new file is removed; a symbolic link
    keeps pointing at the (replaced) file it names; a device, FIFO or
    other non-regular file is written in place, never replaced -- the
    library's output helper, the same code as ``lines -o``.  Integer
    arguments are range-checked before anything is opened (OverflowError
    above 2**64 - 1, ValueError below the minimum)."""
    src = os.fspath(src)
    dst = os.fspath(dst)
    if memory is not None:
        memory = _u64(memory, "lines: memory", lo=1)
    head = _U64_MAX if head is None else _u64(head, "lines: head")
    threads = _threads(threads)
    seed = _seed_str(seed)
    tmpdir = None if tmpdir is None else os.fspath(tmpdir)
    fd_in = os.open(src, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        # dst is opened by the library's output helper (lib/outfile.h,
        # shared with `lines -o`) only after all input has been read.
        _total, written = _core._lines(fd_in, dst, seed, memory or 0, head,
                                       tmpdir, threads)
        return written
    finally:
        os.close(fd_in)


class KeyedPermutation:
    """A random-access permutation of range(n), for any n < 2**64, in O(1)
    memory: ``p[i]`` is the item at position i, ``p.inverse(j)`` the
    position of item j, each in expected O(1) time (libfairshuf's keyed
    Feistel permutation, include/fairshuf/keyed.h; docs/keyed.md).

    p = KeyedPermutation(n, seed, epoch=0)
        seed: str or int (reproducible: ``fairshuf perm n --lazy
        --seed=S`` prints the same order for epoch 0), or None for a key
        from the OS.  epoch: which of the seed's independent orders
        (one per training epoch or playlist cycle).

    It is a pseudo-random permutation: indistinguishable from a uniform
    one to anyone without the key, not an exact draw from all n! orders
    (there are 2**256 keys).  Use shuffle() when n fits in memory and an
    exact draw matters.

    Sequence rules: len(p) (n < 2**63; use p.n beyond); p[i] for an
    integer i (negative counts from the end; a float or other non-integer
    is TypeError, out of range IndexError); p[a:b:c] and p[array] (an
    integer numpy array of positions, mapped at once through the library's
    batch call: libfairshuf tabulates the round functions, tens of
    millions of positions per second) return int64 arrays like numpy
    (uint64 when n > 2**63); p.inverse(j) and p.inverse(array) take
    items in [0, n) only (a negative item is IndexError, not "from the
    end"); iteration yields ints, a chunk at a time."""

    __slots__ = ("n", "seed", "epoch", "_p")
    _CHUNK = 1 << 16

    def __init__(self, n, seed=None, epoch=0):
        n = _u64(n, "KeyedPermutation: n")
        epoch = _u64(epoch, "KeyedPermutation: epoch")
        self.n = n
        self.seed = os.urandom(32).hex() if seed is None else _seed_str(seed)
        self.epoch = epoch
        self._p = _core._Keyed(n, self.seed, self.epoch) if n else None

    def with_epoch(self, epoch):
        """The same seed's permutation for another epoch."""
        return KeyedPermutation(self.n, self.seed, epoch)

    def __len__(self):
        return self.n

    def __repr__(self):
        return "KeyedPermutation(n=%d, epoch=%d)" % (self.n, self.epoch)

    def _dtype(self):
        import numpy as np

        return np.int64 if self.n <= 1 << 63 else np.uint64

    def _map(self, x, inverse):
        import numpy as np

        a = np.asarray(x)
        if a.dtype == bool or a.dtype.kind not in "iu":
            raise TypeError("KeyedPermutation: an array of positions must be "
                            "of integers, not %s" % a.dtype)
        if a.dtype.kind == "i" and a.size and a.min() < 0:
            if inverse or self.n >= 1 << 63:
                raise IndexError("KeyedPermutation: %s out of range"
                                 % ("item" if inverse else "index"))
            a = np.where(a < 0, a + self.n, a)  # from the end, as p[-1]
        # int64 / uint64 arrays are passed as they are (a negative left is
        # >= 2**63 as uint64: the library call reports it out of range)
        src = np.ascontiguousarray(a).view(np.uint64) if a.dtype.itemsize == 8 \
            else np.ascontiguousarray(a, dtype=np.uint64)
        out = np.empty(src.shape, dtype=np.uint64)
        if src.size:
            if self._p is None:
                raise IndexError("KeyedPermutation: index out of range (n = 0)")
            self._p.map(src, out, inverse)
        return out.view(np.int64) if self.n <= 1 << 63 else out

    def _index(self, i, what):
        i = _index_int(i, what)
        if i < 0 and what == "index":
            i += self.n
        if not 0 <= i < self.n:
            if what == "index":
                raise IndexError("KeyedPermutation index out of range")
            raise IndexError("KeyedPermutation: item %d is not in range(%d)" % (i, self.n))
        return i

    def __getitem__(self, i):
        if isinstance(i, slice):
            start, stop, step = i.indices(self.n)
            count = max(0, (stop - start + (step - (1 if step > 0 else -1))) // step)
            return self._fill(start, step, count)
        if not isinstance(i, (int, bool)) and hasattr(i, "__len__") or \
                getattr(i, "ndim", 0) > 0:
            return self._map(i, False)
        return self._p.at(self._index(i, "index"))

    def inverse(self, j):
        """The position of item j (so p[p.inverse(j)] == j); j an integer
        in [0, n) or an integer array of items."""
        if hasattr(j, "__len__") or getattr(j, "ndim", 0) > 0:
            return self._map(j, True)
        return self._p.inverse(self._index(j, "item"))

    def _fill(self, start, step, count):
        import numpy as np

        out = np.empty(count, dtype=np.uint64)
        if count:
            self._p.fill(start, step, out)
        return out.view(np.int64) if self.n <= 1 << 63 else out

    def __iter__(self):
        for start in range(0, self.n, self._CHUNK):
            yield from self._fill(start, 1, min(self._CHUNK, self.n - start)).tolist()


def _index_int(i, what):
    if isinstance(i, bool):
        raise TypeError("KeyedPermutation %s must be an integer, not bool" % what)
    try:
        return operator.index(i)
    except TypeError:
        raise TypeError("KeyedPermutation %s must be an integer, not %s"
                        % (what, type(i).__name__)) from None


class Generator:
    """A numpy-style generator: one fairshuf generator whose stream
    advances from call to call, so two calls give two different results
    and a seeded generator repeats the same sequence of results.  Made by
    ``default_rng(seed)``.

    With a seed, the first ``shuffle``/``permutation`` of a fresh
    generator equals ``fairshuf.shuffle(..., seed=seed)`` (and ``fairshuf
    perm N --seed=S``); the calls after it continue the same ChaCha20
    stream (docs/stream.md).  Results are int64 arrays like numpy's.
    Every call is exact: shuffles are uniform over all orders, integers
    unbiased (Lemire), ``choice(..., replace=False)`` uniform over ordered
    samples (Floyd) or, with ``p``, successive weighted draws without
    replacement (Efraimidis-Spirakis, the library's fs_weighted_sample).
    Thread-safe: calls on one generator are serialised."""

    __slots__ = ("_rng", "seed", "name")

    def __init__(self, seed=None, *, rng="chacha20"):
        self.seed = _seed_str(seed)
        self.name = rng
        self._rng = _core._Rng(rng, self.seed)

    def __repr__(self):
        return "Generator(%s)" % self.name

    def shuffle(self, x, axis=0, *, threads=1):
        """Shuffle x in place along axis 0 (any writable C-contiguous
        buffer, as fairshuf.shuffle); return None."""
        if axis != 0:
            raise ValueError("shuffle: only axis=0 is supported")
        self._rng.shuffle(x, _threads(threads))

    def permutation(self, x, axis=0, *, threads=1):
        """A shuffled copy of x, or of arange(x, dtype=int64) for an int."""
        import numpy as np

        if axis != 0:
            raise ValueError("permutation: only axis=0 is supported")
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
            out = np.arange(_u64(x, "permutation: n", hi=(1 << 63) - 1), dtype=np.int64)
        else:
            out = np.array(x, copy=True, order="C")
            if out.ndim == 0:
                raise ValueError("permutation: x must be an int or an array "
                                 "with at least one axis")
        self._rng.shuffle(out, _threads(threads))
        return out

    def integers(self, low, high=None, size=None, dtype="int64", endpoint=False):
        """Uniform integers in [low, high) ([low, high] with endpoint=True;
        with high None, [0, low)), exactly unbiased (Lemire); an int64
        array of shape ``size`` (uint64 with dtype="uint64"), or a numpy
        scalar when size is None.  Bounds outside the dtype's range are
        OverflowError/ValueError, never wrapped."""
        import numpy as np

        dt = np.dtype(dtype)
        if dt not in (np.dtype(np.int64), np.dtype(np.uint64)):
            raise TypeError("integers: dtype must be int64 or uint64")
        if high is None:
            low, high = 0, low
        info = np.iinfo(dt)
        low = _int_in(low, "integers: low", info)
        # high is exclusive unless endpoint: 2**64 is a uint64 bound, as in numpy
        high = _int_in(high, "integers: high", info, 0 if endpoint else 1) + \
            (1 if endpoint else 0)
        span = high - low
        if span <= 0:
            raise ValueError("integers: low >= high")
        raw = np.empty(() if size is None else size, dtype=np.uint64)
        self._rng.below(span & _U64_MAX, raw)  # 0: the full 2**64 range
        np.add(raw, np.uint64(low & _U64_MAX), out=raw)  # modulo 2**64: exact
        out = raw.view(dt)
        return out[()] if size is None else out

    def random(self, size=None):
        """Uniform floats in [0, 1) with 53 random bits each."""
        import numpy as np

        out = np.empty(() if size is None else size, dtype=np.float64)
        self._rng.doubles(out)
        return float(out) if size is None else out

    def choice(self, a, size=None, replace=True, p=None, shuffle=True):
        """Samples from range(a) (a an int) or from the rows of array a,
        as numpy.random.Generator.choice: with replacement (uniform, or
        by probabilities p), or without replacement (replace=False):
        uniform over ordered samples, or with p successive weighted draws
        without replacement (Efraimidis-Spirakis; entries with p = 0 are
        never drawn).  Returns int64 indices / elements of a; a scalar
        when size is None.  shuffle=False is accepted for signature
        compatibility: the sample is always in draw order."""
        import numpy as np

        if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
            n = _u64(a, "choice: a", hi=(1 << 63) - 1)
            pool = None
        else:
            pool = np.asarray(a)
            if pool.ndim == 0:
                raise ValueError("choice: a must be an int or at least 1-d")
            n = pool.shape[0]
        shape = () if size is None else (size if isinstance(size, tuple) else (size,))
        k = 1
        for d in shape:
            k *= _u64(d, "choice: size")
        if p is not None:
            w = np.ascontiguousarray(p, dtype=np.float64)
            if w.ndim != 1 or w.shape[0] != n:
                raise ValueError("choice: p must be 1-d with one entry per element of a")
            if not np.all(np.isfinite(w)) or np.any(w < 0):
                raise ValueError("choice: probabilities must be finite and non-negative")
            if abs(w.sum() - 1.0) > 1e-8:
                raise ValueError("choice: probabilities do not sum to 1")
        if n == 0 and k > 0:
            raise ValueError("choice: a cannot be empty unless no samples are taken")
        idx = np.empty(k, dtype=np.uint64)
        if replace:
            if p is None:
                if k:
                    self._rng.below(n, idx)
            else:
                cdf = np.cumsum(w)
                cdf /= cdf[-1]
                u = np.empty(k, dtype=np.float64)
                self._rng.doubles(u)
                idx = np.minimum(np.searchsorted(cdf, u, side="right"), n - 1).astype(np.uint64)
        else:
            if k > n:
                raise ValueError("choice: cannot take a larger sample than the "
                                 "population when replace=False")
            if p is None:
                self._rng.sample(n, k, idx)
            else:
                nz = np.flatnonzero(w > 0)
                if k > nz.size:
                    raise ValueError("choice: fewer non-zero entries in p than size")
                sub = np.empty(k, dtype=np.uint64)
                self._rng.weighted(np.ascontiguousarray(w[nz]), k, sub)
                idx = nz[sub.astype(np.int64)].astype(np.uint64)
        idx = idx.view(np.int64).reshape(shape)
        if pool is not None:
            return pool[idx] if size is not None else pool[int(idx)]
        return idx if size is not None else idx[()]


def _int_in(v, what, info, past=0):
    """A bound that must fit the dtype (up to its max + past): OverflowError
    on either side."""
    v = _u64(v, what, lo=-(1 << 64), hi=1 << 64)
    if not int(info.min) <= v <= int(info.max) + past:
        raise OverflowError("%s = %d is out of bounds for %s" % (what, v, info.dtype))
    return v


def default_rng(seed=None, *, rng="chacha20"):
    """A Generator (numpy's ``default_rng`` by name): seed None keys it from
    the OS; a str or int seed makes the whole sequence of calls
    reproducible on every platform (docs/stream.md).  A Generator passed
    in is returned as is."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed, rng=rng)


def generators():
    """Names of the generators ``rng=`` accepts, default first."""
    return list(_core._generators())


STREAM_VERSION = _core._stream_version()



def __getattr__(name):
    """Row keys for other engines (fairshuf.rowkeys, docs/rowkey.md), loaded
    on first use: they need numpy, which `import fairshuf` does not."""
    if name in ("lines_keys", "lines_weighted_keys", "lines_argsort"):
        from . import rowkeys
        return getattr(rowkeys, name)
    raise AttributeError("module 'fairshuf' has no attribute %r" % name)
