"""KeyedPermutation: a bijection with random access, equal to the CLI's
--lazy listing, O(1) memory for any n < 2**64; and the torch Sampler."""
import numpy as np
import pytest

import fairshuf
from fairshuf import KeyedPermutation


@pytest.mark.parametrize("n", [1, 2, 3, 5, 16, 17, 1000, 4097])
def test_bijection_and_inverse(n):
    p = KeyedPermutation(n, "k")
    items = list(p)
    assert sorted(items) == list(range(n))
    assert [p.inverse(j) for j in items] == list(range(n))
    assert np.array_equal(p[:], np.array(items, dtype=np.uint64))


def test_equals_the_cli_lazy_listing(cli):
    expected = [int(x) for x in cli("perm", "1000", "--lazy", "--seed=k").split()]
    assert list(KeyedPermutation(1000, "k")) == expected
    assert KeyedPermutation(2**64 - 1, "S")[12345] == int(
        cli("perm", str(2**64 - 1), "--at=12345", "--seed=S"))


def test_huge_n_random_access():
    p = KeyedPermutation(2**64 - 1, 7)
    assert p.n == 2**64 - 1
    for i in (0, 1, 12345, 2**63, 2**64 - 2, -1):
        j = p[i]
        assert 0 <= j < 2**64 - 1
        assert p.inverse(j) == (i if i >= 0 else p.n + i)
    sl = p[2**64 - 10:]
    assert len(sl) == 9 and sl.dtype == np.uint64
    with pytest.raises(IndexError):
        p[2**64 - 1]
    with pytest.raises(OverflowError):
        len(p)  # beyond sys.maxsize: p.n holds the size


def test_slicing_matches_indexing():
    p = KeyedPermutation(500, "s")
    full = [p[i] for i in range(500)]
    for sl in (slice(10, 20), slice(None, None, 7), slice(499, 0, -3), slice(5, 5), slice(-4, None)):
        assert p[sl].tolist() == full[sl]


def test_epochs_differ_and_are_reproducible():
    a, b = KeyedPermutation(100, "e", 0), KeyedPermutation(100, "e", 1)
    assert list(a) != list(b)
    assert list(b) == list(KeyedPermutation(100, "e", 1)) == list(a.with_epoch(1))
    assert list(KeyedPermutation(100, None)) != list(KeyedPermutation(100, None))
    assert list(KeyedPermutation(0, "e")) == []


def test_bad_arguments():
    with pytest.raises(ValueError):
        KeyedPermutation(-1, "s")
    with pytest.raises(OverflowError):
        KeyedPermutation(2**64, "s")
    with pytest.raises(ValueError):
        KeyedPermutation(10, "")
    with pytest.raises(IndexError):
        KeyedPermutation(10, "s")[10]
    with pytest.raises(IndexError):
        KeyedPermutation(10, "s").inverse(10)


import torch  # noqa: E402  (python3-torch is installed by the test set-up)
from fairshuf.torch import Sampler  # noqa: E402


@pytest.mark.parametrize("n", [1, 10, 97, 1000])
@pytest.mark.parametrize("world", [1, 2, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sampler_shares_partition_one_epoch_order(n, world, drop_last):
    shares = []
    for rank in range(world):
        s = Sampler(n, seed="epochs", rank=rank, num_replicas=world, drop_last=drop_last)
        s.set_epoch(3)
        share = list(s)
        assert len(share) == len(s)
        shares.append(share)
    order = list(KeyedPermutation(n, "epochs", 3))
    total = sum(len(x) for x in shares)
    # Interleaving the ranks' shares gives the global order (padded or cut).
    merged = [shares[p % world][p // world] for p in range(total)]
    assert merged == [order[p % n] for p in range(total)]
    if drop_last:
        assert total == n // world * world
    else:
        assert total == -(-n // world) * world and set(merged) == set(range(n))


def test_sampler_epochs_differ():
    s = Sampler(1000, seed=1, rank=1, world_size=2)
    first = list(s)
    s.set_epoch(1)
    second = list(s)
    assert first != second and len(first) == len(second) == 500
    s.set_epoch(0)
    assert list(s) == first


def test_sampler_rejects_bad_arguments():
    with pytest.raises(ValueError):
        Sampler(10, seed=None, world_size=2)
    with pytest.raises(ValueError):
        Sampler(10, seed=1, rank=2, world_size=2)


def test_a_dataloader_visits_every_index_once_per_epoch():
    data = torch.utils.data.TensorDataset(torch.arange(103))
    sampler = Sampler(data, seed="loader")
    loader = torch.utils.data.DataLoader(data, batch_size=10, sampler=sampler)
    orders = []
    for epoch in range(3):
        sampler.set_epoch(epoch)
        seen = torch.cat([batch[0] for batch in loader]).tolist()
        assert sorted(seen) == list(range(103))
        orders.append(seen)
    assert orders[0] != orders[1] != orders[2]
