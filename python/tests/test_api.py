"""Issue 26 / issue 30 H4: the numpy-like generator, Python sequence rules,
range-checked integers, the batch call from numpy, and the sampler as a
DistributedSampler drop-in.  Each test fails on the code before the fix
(stated per test)."""
import warnings

import numpy as np
import pytest

import fairshuf
from fairshuf import KeyedPermutation


# ---- H4: integers never wrap modulo 2**64 (before: sample(2**64+10, 3)
# returned values below 10; lines(f, f, head=2**64) emptied f) ----------

@pytest.mark.parametrize("call", [
    lambda: fairshuf.sample(2**64 + 10, 3, seed=1),
    lambda: fairshuf.sample(10, 2**64 + 1, seed=1),
    lambda: KeyedPermutation(2**64, "s"),
    lambda: KeyedPermutation(10, "s", epoch=2**64),
    lambda: fairshuf.default_rng(1).integers(0, 2**63 + 1),
    lambda: fairshuf.default_rng(1).integers(0, 2**63, endpoint=True),
    lambda: fairshuf.default_rng(1).integers(0, 2**64 + 1, dtype="uint64"),
    lambda: fairshuf.default_rng(1).integers(0, 2**64, dtype="uint64", endpoint=True),
    lambda: fairshuf.default_rng(1).integers(-2**63 - 1, 0),
])
def test_integers_above_range_are_overflow_errors(call):
    with pytest.raises(OverflowError):
        call()


@pytest.mark.parametrize("call", [
    lambda: fairshuf.sample(-1, 0),
    lambda: KeyedPermutation(-1, "s"),
    lambda: KeyedPermutation(5, "s", epoch=-1),
    lambda: fairshuf.permutation(-3),
])
def test_negative_integers_are_value_errors(call):
    with pytest.raises(ValueError):
        call()


def test_non_integers_are_type_errors():
    with pytest.raises(TypeError):
        fairshuf.sample(10.5, 2)
    with pytest.raises(TypeError):
        KeyedPermutation("10", "s")


@pytest.mark.parametrize("kw", [dict(head=2**64), dict(head=-1), dict(memory=2**64),
                                dict(memory=0), dict(head=2.0)])
def test_lines_onto_itself_never_loses_the_input(tmp_path, kw):
    f = tmp_path / "f"
    f.write_bytes(b"".join(b"%d\n" % i for i in range(100)))
    before = f.read_bytes()
    with pytest.raises((OverflowError, ValueError, TypeError)):
        fairshuf.lines(f, f, seed="s", **kw)
    assert f.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]  # no temp file left


def test_lines_onto_itself_shuffles_in_full(tmp_path):
    f = tmp_path / "f"
    lines = [b"%d\n" % i for i in range(1000)]
    f.write_bytes(b"".join(lines))
    assert fairshuf.lines(f, f, seed="s", head=2**64 - 1) == 1000
    assert sorted(f.read_bytes().splitlines(True)) == sorted(lines)


# ---- Sequence rules (before: kp[2.7] returned kp[2]; kp.inverse(-1)
# returned the position of item n - 1) ---------------------------------

def test_keyed_sequence_rules():
    kp = KeyedPermutation(10, "s")
    with pytest.raises(TypeError):
        kp[2.7]
    with pytest.raises(TypeError):
        kp.inverse(2.0)
    with pytest.raises(IndexError):
        kp.inverse(-1)
    with pytest.raises(IndexError):
        kp.inverse(10)
    assert kp[-1] == kp[9] and kp[np.int64(3)] == kp[3]
    with pytest.raises(IndexError):
        kp[np.array([0, 10])]
    with pytest.raises(IndexError):
        kp.inverse(np.array([-1]))
    with pytest.raises(TypeError):
        kp[np.array([1.5])]


def test_keyed_arrays_through_the_batch_call():
    n = 100003
    kp = KeyedPermutation(n, "batch", 4)
    pos = np.arange(n, dtype=np.int64)
    items = kp[pos]
    assert items.dtype == np.int64
    assert np.array_equal(np.sort(items), pos)
    assert np.array_equal(kp.inverse(items), pos)
    assert np.array_equal(kp[:], items) and np.array_equal(kp[::-7], items[::-7])
    sample = [0, 1, 77, n - 1]
    assert [kp[i] for i in sample] == items[sample].tolist()
    assert kp[np.array(sample, dtype=np.uint32)].tolist() == items[sample].tolist()
    assert kp[np.array([-1])].tolist() == [kp[n - 1]]
    big = KeyedPermutation(2**64 - 1, "big")
    assert big[np.array([0, 2**64 - 2], dtype=np.uint64)].dtype == np.uint64


def test_keyed_list_equals_cli(cli):
    out = cli("perm", "1000", "--lazy", "--seed=list", "--count=2").split(b"\n")
    for epoch in range(2):
        kp = KeyedPermutation(1000, "list", epoch)
        assert " ".join(map(str, kp[np.arange(1000)].tolist())).encode() == out[epoch]


# ---- default_rng: a stream that advances (before: no generator object;
# every call with one seed repeated one order) -------------------------

def test_generator_stream_advances_and_repeats_by_seed():
    a, b = fairshuf.default_rng(7), fairshuf.default_rng(7)
    first = a.permutation(50)
    assert np.array_equal(first, fairshuf.permutation(50, seed=7))
    second = a.permutation(50)
    assert not np.array_equal(first, second)
    assert np.array_equal(b.permutation(50), first) and np.array_equal(b.permutation(50), second)
    assert fairshuf.default_rng(a) is a
    x = np.arange(20)
    a.shuffle(x)
    assert sorted(x.tolist()) == list(range(20))


def test_generator_results_are_int64_like_numpy():
    r = fairshuf.default_rng(1)
    assert r.permutation(5).dtype == np.int64
    assert r.integers(0, 10, size=4).dtype == np.int64
    assert r.choice(10, 3, replace=False).dtype == np.int64
    assert r.choice(10, 3, p=[0.1] * 10).dtype == np.int64
    assert r.choice(10, 3, replace=False, p=[0.1] * 10).dtype == np.int64
    assert fairshuf.sample(10, 3, seed=1).dtype == np.int64
    assert isinstance(r.integers(5), np.int64)
    v = r.integers(-5, 5, size=1000)
    assert v.min() >= -5 and v.max() < 5 and len(set(v.tolist())) == 10
    u = r.integers(0, 2**64 - 1, size=3, dtype="uint64", endpoint=True)
    assert u.dtype == np.uint64
    f = r.random(100)
    assert f.dtype == np.float64 and f.min() >= 0 and f.max() < 1


def test_choice_without_replacement():
    r = fairshuf.default_rng("choice")
    s = r.choice(100, 100, replace=False)
    assert sorted(s.tolist()) == list(range(100))
    with pytest.raises(ValueError):
        r.choice(5, 6, replace=False)
    p = np.array([0.5, 0.0, 0.25, 0.25])
    for _ in range(50):
        s = r.choice(4, 3, replace=False, p=p)
        assert 1 not in s.tolist() and len(set(s.tolist())) == 3
    with pytest.raises(ValueError):
        r.choice(4, 4, replace=False, p=p)  # only 3 non-zero entries
    with pytest.raises(ValueError):
        r.choice(4, 2, p=[0.5, 0.5, 0.5, 0.5])
    assert r.choice(["a", "b"], 5).tolist() in [[c1, c2, c3, c4, c5] for c1 in "ab"
                                                for c2 in "ab" for c3 in "ab"
                                                for c4 in "ab" for c5 in "ab"]


def test_weighted_first_draw_frequencies():
    """The first element of a weighted sample without replacement is a
    weighted draw: p = (.5, .3, .2) over 30,000 draws, chi-square (2 df)
    below 30 (p ~ 3e-7); the control (uniform choice) lands far above."""
    r = fairshuf.default_rng("weights")
    p = np.array([0.5, 0.3, 0.2])
    trials = 30000

    def chi2(counts):
        e = p * trials
        return float(((counts - e) ** 2 / e).sum())

    first = np.bincount([r.choice(3, 2, replace=False, p=p)[0] for _ in range(trials)],
                        minlength=3)
    assert chi2(first) < 30
    control = np.bincount(r.choice(3, trials), minlength=3)
    assert chi2(control) > 1000


# ---- the sampler as a DistributedSampler drop-in ----------------------

torch = pytest.importorskip("torch")
from fairshuf.torch import Sampler  # noqa: E402


def test_sampler_takes_distributed_sampler_keywords():
    kw = dict(num_replicas=3, rank=1, shuffle=True, seed=0, drop_last=False)
    ours = Sampler(range(100), **kw)
    theirs = torch.utils.data.DistributedSampler(range(100), **kw)
    assert len(ours) == len(theirs) and ours.total_size == theirs.total_size
    ours.set_epoch(2)
    assert len(list(ours)) == len(ours)
    unshuffled = Sampler(range(10), num_replicas=3, rank=1, shuffle=False)
    assert list(unshuffled) == list(torch.utils.data.DistributedSampler(
        range(10), num_replicas=3, rank=1, shuffle=False))
    assert Sampler(range(10)).seed == 0


def test_sampler_reads_torch_distributed(monkeypatch):
    import torch.distributed as dist
    monkeypatch.setattr(dist, "is_initialized", lambda: True)
    monkeypatch.setattr(dist, "get_world_size", lambda: 4)
    monkeypatch.setattr(dist, "get_rank", lambda: 3)
    s = Sampler(range(10), seed=1)
    assert (s.num_replicas, s.rank) == (4, 3)


@pytest.mark.parametrize("world", [1, 2, 5])
def test_global_order_is_the_same_for_any_replicas(world):
    n = 1000
    shares = [list(Sampler(n, num_replicas=world, rank=r, seed="g", drop_last=True))
              for r in range(world)]
    merged = [shares[p % world][p // world] for p in range(n // world * world)]
    assert merged == list(KeyedPermutation(n, "g", 0))[:len(merged)]


@pytest.mark.parametrize("workers", [0, 2])
def test_global_order_is_the_same_for_any_workers(workers):
    """DataLoader workers fetch what the sampler yields: the batches come
    back in the keyed epoch order whatever the number of workers."""
    data = torch.utils.data.TensorDataset(torch.arange(200))
    s = Sampler(data, num_replicas=1, rank=0, seed="w")
    s.set_epoch(1)
    loader = torch.utils.data.DataLoader(data, batch_size=16, sampler=s,
                                         num_workers=workers)
    seen = torch.cat([b[0] for b in loader]).tolist()
    assert seen == list(KeyedPermutation(200, "w", 1))


def test_sampler_resumes_mid_epoch():
    s = Sampler(1000, num_replicas=2, rank=0, seed="resume")
    s.set_epoch(3)
    it = iter(s)
    head = [next(it) for _ in range(123)]
    state = s.state_dict()
    t = Sampler(1000, num_replicas=2, rank=0, seed="resume")
    t.load_state_dict(state)
    assert len(t) == 500 - 123
    rest = list(t)
    s2 = Sampler(1000, num_replicas=2, rank=0, seed="resume")
    s2.set_epoch(3)
    assert head + rest == list(s2)
    # a replica count change resumes the same global order
    one = Sampler(1000, num_replicas=1, rank=0, seed="resume")
    one.load_state_dict(state)
    assert list(one) == list(KeyedPermutation(1000, "resume", 3))[246:]


def test_sampler_warns_once_without_set_epoch():
    s = Sampler(100, seed=1)
    list(s)
    with pytest.warns(RuntimeWarning, match="set_epoch"):
        list(s)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(s)  # once only
        s.set_epoch(1)
        list(s)


def test_sampler_seed_none_reshuffles_every_epoch():
    """Before: seed=None drew one OS key and repeated its order forever."""
    s = Sampler(1000, seed=None)
    orders = [list(s) for _ in range(3)]
    assert orders[0] != orders[1] != orders[2]
    assert all(sorted(o) == list(range(1000)) for o in orders)
