"""fairshuf.lines_keys and friends: the keys of `fairshuf lines --seed`'s
records, as numpy arrays (docs/rowkey.md)."""
import numpy as np
import pytest

import fairshuf
from fairshuf import rowkeys


def test_level0_is_the_seeded_stream(cli):
    words = cli("rng", "--seed=rows", "--format=u64", "--count=1000").split()
    want = np.array([int(w) for w in words], dtype=np.uint64)
    assert (fairshuf.lines_keys("rows", 0, 1000) == want).all()
    assert (fairshuf.lines_keys("rows", 333, 500) == want[333:833]).all()
    assert (fairshuf.lines_keys(7, 0, 3) == fairshuf.lines_keys("7", 0, 3)).all()


def test_the_keyed_order_is_the_cli_order(cli):
    text = b"".join(b"%d\n" % i for i in range(3000))
    out = cli("lines", "--seed=ord", stdin=text).split()
    order = fairshuf.lines_argsort("ord", np.arange(3000))
    assert [int(x) for x in out] == order.tolist()


def test_levels_and_segments_are_distinct_words():
    a = fairshuf.lines_keys("s", 2**35 - 2, 4)
    b = fairshuf.lines_keys("s", 2**35 - 2, 4, level=1)
    assert len(set(a.tolist()) | set(b.tolist())) == 8
    # a range across the 2**35 boundary equals its pieces
    assert (a[2:] == fairshuf.lines_keys("s", 2**35, 2)).all()
    assert (fairshuf.lines_keys("s", 2**64 - 3, 3)[-1]
            == fairshuf.lines_keys("s", 2**64 - 1, 1)[0])


def test_ties_go_by_the_next_levels_not_by_position():
    rows = np.array([5, 900, 17, 2**40, 3])
    zero = np.zeros(len(rows), dtype=np.uint64)
    level1 = np.array([fairshuf.lines_keys("t", int(r), 1, level=1)[0] for r in rows])
    got = fairshuf.lines_argsort("t", rows, zero)
    assert got.tolist() == np.argsort(level1).tolist()
    assert got.tolist() != list(range(5))  # not input order
    # int64 keys (the top bit flipped) sort as the uint64 ones
    keys = fairshuf.lines_keys("t", 0, 50)
    assert (fairshuf.lines_argsort("t", np.arange(50), rowkeys.to_signed(keys))
            == np.argsort(keys)).all()


def test_weighted_keys_and_errors():
    k = fairshuf.lines_weighted_keys("w", 10, [1.0, 0.0, 2.5])
    assert np.isinf(k[1]) and np.isfinite(k[[0, 2]]).all()
    for bad in ([-1.0], [float("nan")], [float("inf")]):
        with pytest.raises(ValueError, match="record 10 .*not a number >= 0"):
            fairshuf.lines_weighted_keys("w", 10, bad)
    with pytest.raises(OverflowError):
        fairshuf.lines_keys("s", 2**64 - 1, 2)
    with pytest.raises(ValueError, match="seed"):
        fairshuf.lines_keys(None, 0, 1)
    with pytest.raises(ValueError, match="empty"):
        fairshuf.lines_keys("", 0, 1)


def test_split_sizes_are_the_librarys():
    assert rowkeys.split_sizes(10, [8, 1, 1]) == [8, 1, 1]
    assert rowkeys.split_sizes(7, [1, 1, 1]) == [3, 2, 2]
    with pytest.raises(ValueError):
        rowkeys.split_sizes(7, [0, 0])


def test_ties_past_64_levels_go_by_record_number():
    K = rowkeys.seed_key("t")
    assert rowkeys._break_ties(K, [9, 3, 5], level=64).tolist() == [1, 2, 0]
    k63 = [int(fairshuf.lines_keys("t", r, 1, level=63)[0]) for r in (9, 3, 5)]
    assert rowkeys._break_ties(K, [9, 3, 5], level=63).tolist() == np.argsort(k63).tolist()
    with pytest.raises(ValueError, match="appears twice"):
        rowkeys._break_ties(K, [4, 4])
