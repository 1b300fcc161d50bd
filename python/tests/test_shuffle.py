"""fairshuf.shuffle / permutation / sample: uniformity with a negative
control, rows moving whole, every dtype, seeded equality with the CLI,
and errors that never leave a partial result."""
import itertools

import numpy as np
import pytest

import fairshuf

# 240,000 shuffles of 4 elements: each of the 24 orders is expected 10,000
# times (sd 97.9).  Acceptance bands fixed in advance: every count within
# 6 sd, and chi-square (23 df) below 70.55, its 1e-6 upper quantile (GSL's
# gsl_cdf_chisq_Qinv(1e-6, 23)).  Seeds are fixed, so the test never flakes.
TRIALS = 240_000
EXPECTED = TRIALS / 24
CELL_BAND = 6 * (TRIALS * (1 / 24) * (23 / 24)) ** 0.5
CHI2_LIMIT = 70.54955713688595
ORDERS = {p: i for i, p in enumerate(itertools.permutations(range(4)))}


def uniform_enough(rows):
    codes = rows[:, 0] * 64 + rows[:, 1] * 16 + rows[:, 2] * 4 + rows[:, 3]
    table = {sum(v * 4 ** (3 - k) for k, v in enumerate(p)): i for p, i in ORDERS.items()}
    counts = np.zeros(24)
    values, freq = np.unique(codes, return_counts=True)
    for v, f in zip(values, freq):
        counts[table[int(v)]] = f
    chi2 = float(((counts - EXPECTED) ** 2 / EXPECTED).sum())
    worst = float(np.abs(counts - EXPECTED).max())
    return chi2 < CHI2_LIMIT and worst < CELL_BAND, chi2


def test_shuffle_is_uniform_over_all_24_orders():
    rows = np.empty((TRIALS, 4), dtype=np.int64)
    base = np.arange(4, dtype=np.int64)
    for t in range(TRIALS):
        a = base.copy()
        fairshuf.shuffle(a, seed="py-uniform/%d" % t)
        rows[t] = a
    ok, chi2 = uniform_enough(rows)
    assert ok, "chi2 = %.1f" % chi2


def test_negative_control_naive_swap_fails_the_same_test():
    # Swap every position with ANY position (post 000's mistake), driven by
    # uniform draws: 4^4 = 256 equally likely paths cannot cover 24 orders
    # evenly, and the test above must see it.
    draws = np.random.Generator(np.random.PCG64(2026)).integers(0, 4, size=(TRIALS, 4))
    rows = np.tile(np.arange(4), (TRIALS, 1))
    idx = np.arange(TRIALS)
    for i in range(4):
        j = draws[:, i]
        a, b = rows[idx, i].copy(), rows[idx, j].copy()
        rows[idx, i], rows[idx, j] = b, a
    ok, chi2 = uniform_enough(rows)
    assert not ok and chi2 > 1000


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000, 100_000])
@pytest.mark.parametrize("seed", ["demo", "py/seed", 42])
def test_seeded_permutation_equals_fairshuf_perm(cli, n, seed):
    expected = np.array(cli("perm", str(n), "--seed=%s" % seed).split(), dtype=np.int64)
    assert np.array_equal(fairshuf.permutation(n, seed=seed), expected)


def test_seeded_equality_on_the_bucket_path(cli):
    # 3e6 int64 = 24 MB, past the 16 MiB switch: the large-array path.
    n = 3_000_000
    # parsed by numpy's text reader (a list of 3e6 bytes objects cost ~1.5 s)
    expected = np.fromstring(cli("perm", str(n), "--seed=big").decode(), dtype=np.int64, sep=" ")
    assert len(expected) == n
    got = fairshuf.permutation(n, seed="big")
    assert np.array_equal(got, expected)
    for threads in (0, 2, 3):  # the thread count never changes the output
        assert np.array_equal(fairshuf.permutation(n, seed="big", threads=threads), expected)


@pytest.mark.parametrize("rng", fairshuf.generators())
def test_every_generator_matches_the_cli(cli, rng):
    expected = np.array(cli("perm", "50", "--seed=7", "--rng=%s" % rng).split(), dtype=np.int64)
    assert np.array_equal(fairshuf.permutation(50, seed=7, rng=rng), expected)


def test_rows_of_a_2d_array_move_whole():
    a = np.arange(3000, dtype=np.int32).reshape(3, 1000).T.copy()  # row i = (i, i+1000, i+2000)
    fairshuf.shuffle(a, seed="rows")
    assert np.array_equal(a[:, 1], a[:, 0] + 1000)
    assert np.array_equal(a[:, 2], a[:, 0] + 2000)
    assert np.array_equal(a[:, 0], fairshuf.permutation(1000, seed="rows"))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                   np.uint32, np.int64, np.uint64, np.float16,
                                   np.float32, np.float64, np.complex128, np.bool_])
def test_every_dtype_is_permuted_in_the_seeded_order(dtype):
    n = 200
    order = fairshuf.permutation(n, seed="dtypes")
    values = (np.arange(n) % 2).astype(dtype) if dtype is np.bool_ else np.arange(n).astype(dtype)
    a = values.copy()
    fairshuf.shuffle(a, seed="dtypes")
    assert np.array_equal(a, values[order])


def test_structured_and_3d_arrays():
    rec = np.zeros(300, dtype=[("id", "<i4"), ("x", "<f8"), ("tag", "S3")])
    rec["id"] = np.arange(300)
    rec["x"] = np.arange(300) * 0.5
    rec["tag"] = [b"%03d" % (i % 1000) for i in range(300)]
    fairshuf.shuffle(rec, seed="rec")
    assert np.array_equal(rec["x"], rec["id"] * 0.5)
    assert sorted(rec["id"]) == list(range(300))
    assert np.array_equal(rec["id"], fairshuf.permutation(300, seed="rec"))
    cube = np.arange(40 * 3 * 5).reshape(40, 3, 5)
    ref = cube.copy()
    fairshuf.shuffle(cube, seed="cube")
    assert np.array_equal(cube, ref[fairshuf.permutation(40, seed="cube")])


def test_bytearray_and_memoryview():
    b = bytearray(range(100))
    fairshuf.shuffle(b, seed="b")
    assert list(b) == list(fairshuf.permutation(100, seed="b"))
    m = memoryview(bytearray(range(100)))
    fairshuf.shuffle(m, seed="b")
    assert bytes(m) == bytes(b)


def test_unseeded_shuffles_differ_and_are_permutations():
    a, b = np.arange(1000), np.arange(1000)
    fairshuf.shuffle(a)
    fairshuf.shuffle(b)
    assert not np.array_equal(a, b)
    assert np.array_equal(np.sort(a), np.arange(1000))


def test_unseeded_after_fork_child_and_parent_differ():
    """Unseeded calls use the library's per-thread generator; a forked
    child (a DataLoader worker) must not replay the parent's stream."""
    import os
    fairshuf.shuffle(np.arange(10))  # the parent's generator is in use
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        a = np.arange(1000)
        fairshuf.shuffle(a)
        os.write(w, a.astype("<u2").tobytes())
        os._exit(0)
    os.close(w)
    a = np.arange(1000)
    fairshuf.shuffle(a)
    got = b""
    while len(got) < 2000:
        chunk = os.read(r, 2000 - len(got))
        assert chunk, "child wrote nothing"
        got += chunk
    os.close(r)
    os.waitpid(pid, 0)
    child = np.frombuffer(got, dtype="<u2").astype(np.int64)
    assert np.array_equal(np.sort(child), np.arange(1000))
    assert not np.array_equal(child, a)


def test_permutation_of_an_array_leaves_the_input_alone():
    x = np.arange(20) * 3
    y = fairshuf.permutation(x, seed=1)
    assert np.array_equal(x, np.arange(20) * 3)
    assert np.array_equal(y, x[fairshuf.permutation(20, seed=1)])


def test_read_only_array_is_refused_and_untouched():
    a = np.arange(10)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        fairshuf.shuffle(a, seed=1)
    assert np.array_equal(a, np.arange(10))
    with pytest.raises(ValueError, match="read-only"):
        fairshuf.shuffle(b"abc")


def test_non_contiguous_and_bad_arguments():
    a = np.arange(20)
    with pytest.raises(ValueError, match="contiguous"):
        fairshuf.shuffle(a[::2])
    assert np.array_equal(a, np.arange(20))
    with pytest.raises(ValueError, match="0-d"):
        fairshuf.shuffle(np.array(5))
    with pytest.raises(TypeError):
        fairshuf.shuffle([1, 2, 3])
    with pytest.raises(ValueError, match="unknown generator"):
        fairshuf.shuffle(np.arange(5), rng="nope")
    with pytest.raises(ValueError, match="seed"):
        fairshuf.shuffle(np.arange(5), seed="")
    with pytest.raises(ValueError):
        fairshuf.shuffle(np.arange(5), seed=-1)
    with pytest.raises(ValueError):
        fairshuf.shuffle(np.arange(5), threads=-1)


def test_sample():
    s = fairshuf.sample(10**12, 1000, seed="s")
    assert s.dtype == np.int64 and len(set(s.tolist())) == 1000 and s.max() < 10**12  # numpy-like
    assert np.array_equal(s, fairshuf.sample(10**12, 1000, seed="s"))
    full = fairshuf.sample(50, 50, seed="s")
    assert sorted(full.tolist()) == list(range(50))
    assert len(fairshuf.sample(5, 0)) == 0
    with pytest.raises(ValueError, match="larger"):
        fairshuf.sample(3, 4)
