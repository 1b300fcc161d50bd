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
    A random-access permutation of range(n), any n < 2**64, O(1) memory.
fairshuf.torch.Sampler
    A PyTorch sampler whose epoch order needs no index array.

Errors are exceptions, never a partial result: ValueError for bad
arguments (read-only or non-contiguous arrays, unknown generators, empty
seeds), OSError when the OS refuses randomness or I/O fails, MemoryError.
"""
import os
import tempfile

from . import _core
from ._core import _version

__all__ = ["shuffle", "permutation", "sample", "lines", "KeyedPermutation",
           "generators", "__version__", "STREAM_VERSION"]

__version__ = _version()


def _seed_str(seed):
    """Seeds are strings as on the command line; an int is its decimal
    form, so seed=42 is --seed=42.  None means keyed from the OS."""
    if seed is None:
        return None
    if isinstance(seed, bool):
        raise TypeError("seed must be a str or an int, not bool")
    if isinstance(seed, int):
        if seed < 0:
            raise ValueError("invalid seed: %d: negative" % seed)
        return str(seed)
    if isinstance(seed, (bytes, bytearray)):
        return bytes(seed).decode("utf-8")
    if isinstance(seed, str):
        if "\0" in seed:
            raise ValueError("invalid seed: contains a NUL character")
        return seed
    raise TypeError("seed must be a str or an int, not %s" % type(seed).__name__)


def _threads(threads):
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
        raise ValueError("threads must be an int >= 0 (0 = one per CPU)")
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
        if x < 0:
            raise ValueError("permutation: n must be >= 0")
        out = np.arange(int(x), dtype=np.int64)
    else:
        out = np.array(x, copy=True, order="C")
        if out.ndim == 0:
            raise ValueError("permutation: x must be an int or an array with at least one axis")
    shuffle(out, seed=seed, rng=rng, threads=threads)
    return out


def sample(n, k, *, seed=None, rng="chacha20"):
    """Return k distinct integers of range(n) (a numpy uint64 array) in
    uniformly random order: every ordered k-tuple is equally likely.
    O(k) memory whatever n (Floyd's algorithm), n < 2**64."""
    import numpy as np

    if n < 0 or k < 0:
        raise ValueError("sample: n and k must be >= 0")
    out = np.empty(int(k), dtype=np.uint64)
    _core._sample(int(n), int(k), out, _seed_str(seed), rng)
    return out


def lines(src, dst, *, seed=None, memory=None, head=None, tmpdir=None,
          threads=1):
    """Shuffle the lines of file ``src`` into file ``dst`` (paths), like
    ``fairshuf lines --seed=S src -o dst``, out of core for files larger
    than memory.

    memory: budget in bytes (None: half the available memory); beyond it
            the library spills to temporary files in tmpdir.
    head:   write only the first ``head`` lines of the order.
    Returns the number of lines written.  ``dst`` is replaced atomically:
    the output goes to a temporary file beside it, renamed over ``dst``
    only on success, so on any error ``dst`` (even when it is ``src``) is
    untouched and the temporary file is removed."""
    src = os.fspath(src)
    dst = os.fspath(dst)
    if memory is not None and memory <= 0:
        raise ValueError("lines: memory must be > 0")
    if head is not None and head < 0:
        raise ValueError("lines: head must be >= 0")
    directory = os.path.dirname(os.path.abspath(dst))
    fd_in = os.open(src, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        fd_out, tmp = tempfile.mkstemp(prefix=".fairshuf-", dir=directory)
        try:
            _total, written = _core._lines(
                fd_in, fd_out, _seed_str(seed), int(memory or 0),
                (1 << 64) - 1 if head is None else int(head),
                None if tmpdir is None else os.fspath(tmpdir), _threads(threads))
            os.fsync(fd_out)
            try:
                mode = os.stat(dst).st_mode & 0o7777
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.fchmod(fd_out, mode)
            os.close(fd_out)
            fd_out = -1
            os.replace(tmp, dst)
            tmp = None
            return written
        finally:
            if fd_out >= 0:
                os.close(fd_out)
            if tmp is not None:
                os.unlink(tmp)
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

    Supports len(p) (n < 2**63; use p.n beyond), p[i] with negative i,
    slicing (a numpy uint64 array), iteration (ints, in chunks), and
    ``i in p`` semantics are those of range(n) (every item appears)."""

    __slots__ = ("n", "seed", "epoch", "_p")
    _CHUNK = 1 << 16

    def __init__(self, n, seed=None, epoch=0):
        n = int(n)
        if not 0 <= n < 1 << 64:
            raise ValueError("KeyedPermutation: n must be in [0, 2**64)")
        if not 0 <= int(epoch) < 1 << 64:
            raise ValueError("KeyedPermutation: epoch must be in [0, 2**64)")
        self.n = n
        self.seed = os.urandom(32).hex() if seed is None else _seed_str(seed)
        self.epoch = int(epoch)
        self._p = _core._Keyed(n, self.seed, self.epoch) if n else None

    def with_epoch(self, epoch):
        """The same seed's permutation for another epoch."""
        return KeyedPermutation(self.n, self.seed, epoch)

    def __len__(self):
        return self.n

    def __repr__(self):
        return "KeyedPermutation(n=%d, epoch=%d)" % (self.n, self.epoch)

    def _index(self, i, what):
        i = int(i)
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError("KeyedPermutation %s out of range" % what)
        return i

    def __getitem__(self, i):
        if isinstance(i, slice):
            start, stop, step = i.indices(self.n)
            count = max(0, (stop - start + (step - (1 if step > 0 else -1))) // step)
            return self._fill(start, step, count)
        return self._p.at(self._index(i, "index"))

    def inverse(self, j):
        """The position of item j (so p[p.inverse(j)] == j)."""
        return self._p.inverse(self._index(j, "item"))

    def _fill(self, start, step, count):
        import numpy as np

        out = np.empty(count, dtype=np.uint64)
        if count:
            self._p.fill(start, step, out)
        return out

    def __iter__(self):
        for start in range(0, self.n, self._CHUNK):
            yield from self._fill(start, 1, min(self._CHUNK, self.n - start)).tolist()


def generators():
    """Names of the generators ``rng=`` accepts, default first."""
    return list(_core._generators())


STREAM_VERSION = _core._stream_version()
