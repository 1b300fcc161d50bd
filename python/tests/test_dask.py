"""fairshuf.dask on a real cluster (distributed.LocalCluster, 2 worker
processes on loopback): every operation gives exactly the rows, in
exactly the order, of `fairshuf lines --csv --header=1 --seed=S` over the
same rows written as CSV, at 1, 3 and 7 partitions; Dask's own
sample(frac=1) does not (the negative control); bad input fails before
anything is computed."""
import io
import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
db = pytest.importorskip("dask.bag")
distributed = pytest.importorskip("distributed")

import fairshuf.dask as fd  # noqa: E402

N = 1500
SEED = "dask-45"
PARTS = (1, 3, 7)


@pytest.fixture(scope="module")
def client():
    tmp = tempfile.mkdtemp(prefix="fairshuf-dask-")
    with dask.config.set({"temporary-directory": tmp}):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True,
            host="127.0.0.1", dashboard_address=None, local_directory=tmp)
        c = distributed.Client(cluster)
        try:
            yield c
        finally:
            c.close()
            cluster.close()
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(45)
    return pd.DataFrame({
        "id": np.arange(N),
        "w": rng.integers(0, 6, N).astype(float) * 0.5,
        "g": rng.integers(0, 40, N),
        "s": rng.choice(["x", "y", "z, q"], N, p=[0.6, 0.3, 0.1]),
    })


@pytest.fixture(scope="module")
def lines_csv(frame):
    """The CLI over the frame as CSV: the ids in its order (or its parts')."""
    path = os.environ.get("FS_BIN", os.path.join(
        os.path.dirname(__file__), "..", "..", "build", "fairshuf"))
    data = frame.to_csv(index=False).encode()

    def run(*args, parts=0):
        base = ["--csv", "--header=1", "--seed=" + SEED]
        if not parts:
            out = subprocess.run([path, "lines", *base, *args], input=data,
                                 check=True, stdout=subprocess.PIPE).stdout
            return pd.read_csv(io.BytesIO(out))["id"].tolist()
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([path, "lines", *base, "-o", d + "/part%d", *args],
                           input=data, check=True)
            return [pd.read_csv("%s/part%d" % (d, p))["id"].tolist()
                    for p in range(1, parts + 1)]
    return run


def ids(df):
    return df["id"].tolist()


@pytest.mark.parametrize("P", PARTS)
def test_shuffle_sample_weights_groups_equal_the_cli(client, frame, lines_csv, P):
    ddf = dd.from_pandas(frame, npartitions=P)
    got = dask.compute(
        fd.shuffle(ddf, SEED),
        fd.sample(ddf, 37, SEED),
        fd.weighted_sample(ddf, 50, "w", SEED),
        fd.group_shuffle(ddf, "g", SEED),
        fd.group_shuffle(ddf, "g", SEED, shuffle_within=True))
    assert ids(got[0]) == lines_csv()
    assert ids(got[1]) == lines_csv("-n", "37")
    assert ids(got[2]) == lines_csv("--weights=w", "-n", "50")
    assert ids(got[3]) == lines_csv("--group-by=g")
    assert ids(got[4]) == lines_csv("--group-by=g", "--shuffle-within")
    # the rows themselves travel whole, index included
    assert got[0].set_index("id").sort_index().equals(frame.set_index("id"))
    assert sorted(got[0].index) == list(range(N))


@pytest.mark.parametrize("P", PARTS)
def test_split_and_stratify_equal_the_cli(client, frame, lines_csv, P):
    ddf = dd.from_pandas(frame, npartitions=P)
    plain = dask.compute(*fd.split(ddf, [8, 1, 1], SEED))
    head = dask.compute(*fd.split(ddf, [1, 1], SEED, n=301))
    strat = dask.compute(*fd.split(ddf, [7, 2, 1], SEED, stratify="s"))
    assert [ids(p) for p in plain] == lines_csv("--split=8,1,1", parts=3)
    assert [ids(p) for p in head] == lines_csv("--split=1,1", "-n", "301", parts=2)
    assert [ids(p) for p in strat] == lines_csv("--split=7,2,1", "--stratify=s", parts=3)
    assert sum(len(p) for p in strat) == N


def test_more_output_partitions_and_known_lengths(client, frame, lines_csv):
    ddf = dd.from_pandas(frame, npartitions=3)
    lengths = ddf.map_partitions(len).compute().tolist()
    out = fd.shuffle(ddf, SEED, npartitions=5, lengths=lengths)
    assert out.npartitions == 5
    assert ids(out.compute()) == lines_csv()
    # ignore_index: the same rows in the same order, the index dropped in the move
    plain = fd.shuffle(ddf, SEED, ignore_index=True)
    first, *_ = dask.compute(plain.get_partition(0))
    assert ids(plain.compute()) == lines_csv()
    assert first.index.tolist() == list(range(len(first)))
    parts = dask.compute(*fd.split(ddf, [1, 1], SEED, ignore_index=True))
    assert [ids(p) for p in parts] == lines_csv("--split=1,1", parts=2)


def test_bag_of_lines_equals_fairshuf_lines(client, cli):
    lines = ["line %d" % i for i in range(700)]
    want = cli("lines", "--seed=" + SEED,
               stdin="".join(s + "\n" for s in lines).encode()).decode().splitlines()
    for P in PARTS:
        bag = db.from_sequence(lines, npartitions=P)
        whole, head = dask.compute(fd.shuffle(bag, SEED), fd.sample(bag, 9, SEED))
        assert list(whole) == want and list(head) == want[:9]


def test_negative_control_dask_sample_frac_1_differs(client, frame, lines_csv):
    """Dask's sample(frac=1) shuffles within partitions only: its order is
    not the CLI's, and it changes with the number of partitions."""
    want = lines_csv()
    got = [ids(dd.from_pandas(frame, npartitions=P)
               .sample(frac=1, random_state=45).compute()) for P in (3, 7)]
    assert got[0] != want and got[1] != want and got[0] != got[1]
    # each of its partitions keeps its own rows: position 0 is always from
    # the first partition (a shuffle this test would catch)
    assert got[1][0] < N / 7 + 1


def test_bad_input_fails_before_computing(client, frame):
    ddf = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError, match=r"unknown column 'nope' \(the columns: id, w, g, s\)"):
        fd.group_shuffle(ddf, "nope", SEED)
    with pytest.raises(ValueError, match="unknown column 'nope'"):
        fd.split(ddf, [1, 1], SEED, stratify="nope")
    with pytest.raises(TypeError, match="weights column 's' holds object, not numbers"):
        fd.weighted_sample(ddf, 5, "s", SEED)
    neg = frame.assign(w=frame["w"].where(frame["id"] != 1234, -2.0))
    with pytest.raises(ValueError, match=r"row 1234: -2.0 is not a number >= 0"):
        fd.weighted_sample(dd.from_pandas(neg, npartitions=3), 5, "w", SEED)
    with pytest.raises(ValueError, match="unknown partition layout: 2 lengths for 3"):
        fd.shuffle(ddf, SEED, lengths=[750, 750])
    with pytest.raises(ValueError, match="weights must be 2 to 64 integers"):
        fd.split(ddf, [1], SEED)
    with pytest.raises(ValueError, match="n must be an integer >= 0"):
        fd.sample(ddf, -1, SEED)
    with pytest.raises(TypeError, match="expected a dask DataFrame or Bag"):
        fd.shuffle(frame, SEED)
    with pytest.raises(ValueError, match="a name fairshuf.dask uses"):
        fd.shuffle(ddf.assign(_partitions=1), SEED)
    with pytest.raises(ValueError, match="an item holds a newline"):
        fd.shuffle(db.from_sequence(["a", "b\nc"], npartitions=1), SEED)


def test_lengths_that_lie_fail_the_whole_compute(client, frame):
    """lengths= that add up but do not match: found where the keys are
    made, and the compute fails whole (no partial result)."""
    ddf = dd.from_pandas(frame, npartitions=3)
    right = ddf.map_partitions(len).compute().tolist()
    wrong = [right[0] + 1, right[1] - 1, right[2]]
    out = fd.shuffle(ddf, SEED, lengths=wrong)
    with pytest.raises(ValueError, match="partition 0 has 500 rows, its layout says 501"):
        out.compute()


def test_equal_keys_in_a_partition_go_by_the_next_levels():
    """Ties of level-0 keys (about n^2 / 2^65: none in the rows above) are
    ordered by the records' level-1 keys, as `fairshuf lines` does."""
    import fairshuf
    K = fairshuf.rowkeys.seed_key(SEED)
    rows = np.array([11, 4, 2**36, 7, 900])
    df = pd.DataFrame({fd.ROW: rows, fd.KEY: np.zeros(5, dtype=np.int64)})
    level1 = [int(fairshuf.lines_keys(SEED, int(r), 1, level=1)[0]) for r in rows]
    got = fd._sorted(df, K)[fd.ROW].tolist()
    assert got == [int(r) for _, r in sorted(zip(level1, rows))]
    assert got != sorted(rows.tolist()) and got != rows.tolist()
