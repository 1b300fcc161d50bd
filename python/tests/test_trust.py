"""Issue 52's findings in the Python package: each argument error is the
exception the docs name (docs/python.md, "Errors"), numpy's rules where
numpy has one."""
import numpy as np
import pytest

import fairshuf


@pytest.mark.parametrize("threads", [True, False, 2.0, "2", None])
def test_threads_of_the_wrong_type_are_type_errors(threads):
    with pytest.raises(TypeError):
        fairshuf.shuffle(np.arange(10), seed=1, threads=threads)
    with pytest.raises(TypeError):
        fairshuf.default_rng(1).permutation(10, threads=threads)


def test_threads_negative_is_a_value_error_and_numpy_ints_are_counts():
    with pytest.raises(ValueError):
        fairshuf.shuffle(np.arange(10), seed=1, threads=-1)
    a, b = np.arange(10), np.arange(10)
    fairshuf.shuffle(a, seed=1, threads=np.int64(2))
    fairshuf.shuffle(b, seed=1)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("k", [True, np.bool_(True), np.bool_(False)])
def test_a_bool_is_not_a_count(k):
    with pytest.raises(TypeError):
        fairshuf.sample(10, k, seed=1)
    with pytest.raises(TypeError):
        fairshuf.sample(k, 0, seed=1)


@pytest.mark.parametrize("dtype", ["datetime64[s]", "datetime64[ns]", "timedelta64[ms]"])
def test_writable_datetime_arrays_shuffle_like_int64(dtype):
    a = np.arange(1000).astype(dtype)
    fairshuf.shuffle(a, seed="dt")
    assert np.array_equal(a.view(np.int64), fairshuf.permutation(1000, seed="dt"))
    ro = np.arange(10).astype(dtype)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        fairshuf.shuffle(ro, seed=1)


def test_negative_seeds_are_refused_as_numpy_does():
    for seed in (-1, np.int64(-5)):
        with pytest.raises(ValueError, match="non-negative"):
            fairshuf.default_rng(seed)
        with pytest.raises(ValueError):
            np.random.SeedSequence(int(seed))  # numpy's rule, the same
    # a numpy integer seed is its value
    assert np.array_equal(fairshuf.permutation(7, seed=np.int64(5)),
                          fairshuf.permutation(7, seed=5))


def test_integers_take_numpy_exclusive_bounds():
    r = fairshuf.default_rng(1)
    u = r.integers(0, 2**64, size=1000, dtype="uint64")
    assert u.dtype == np.uint64 and int(u.max()) >= 2**63  # the full range
    i = r.integers(0, 2**63, size=1000)
    assert i.dtype == np.int64 and int(i.min()) >= 0
    # the same draws as the inclusive form of the same range
    a = fairshuf.default_rng(2).integers(0, 2**64, size=5, dtype="uint64")
    b = fairshuf.default_rng(2).integers(0, 2**64 - 1, size=5, dtype="uint64", endpoint=True)
    assert np.array_equal(a, b)


def test_sampler_state_of_another_seed_is_refused():
    torch = pytest.importorskip("torch")
    from fairshuf.torch import Sampler
    s = Sampler(100, num_replicas=1, rank=0, seed="a")
    s.set_epoch(2)
    state = s.state_dict()
    for other in (Sampler(100, num_replicas=1, rank=0, seed="b"),
                  Sampler(100, num_replicas=1, rank=0, seed=None)):
        with pytest.raises(ValueError, match="seed"):
            other.load_state_dict(state)
    # the same seed, given as an int or its decimal string, is the same order
    t = Sampler(100, num_replicas=1, rank=0, seed=7)
    t.set_epoch(1)
    Sampler(100, num_replicas=1, rank=0, seed="7").load_state_dict(t.state_dict())
    fresh = Sampler(100, num_replicas=1, rank=0, seed=None)
    with pytest.raises(ValueError, match="seed"):
        Sampler(100, num_replicas=1, rank=0, seed="a").load_state_dict(fresh.state_dict())
    assert torch is not None
