"""fairshuf on Dask: the shuffle, sample, split, weighted sample and grouped
shuffle of ``fairshuf lines --csv --header=1 --seed=S``, computed where the
rows lie.

Contract: for a dask DataFrame ``ddf`` whose rows, written as CSV in
partition order (``ddf.compute().to_csv(f, index=False)``), are a file F,

    shuffle(ddf, seed=S).compute()          rows in the order of
                                            fairshuf lines --csv --header=1 --seed=S F
    sample(ddf, n=K, seed=S)                ... -n K
    split(ddf, [W1, ..., Wk], seed=S)       the parts of --split=W1,...,Wk
    split(..., stratify=COL)                ... --stratify=COL
    weighted_sample(ddf, n=K, weights=COL)  ... --weights=COL -n K
    group_shuffle(ddf, by=COL)              ... --group-by=COL [--shuffle-within]

whatever the number of partitions and workers.  A Bag of lines (str)
gets the order of ``fairshuf lines --seed=S`` over those lines.

How (docs/beyond.md, "Dask"): record i (the global row number, from
the partitions' lengths) has the key fs_lines_key(K, i, 0), computed in its
own partition (fairshuf.lines_keys); keys are uniform on [0, 2^64), so the
output partitions are fixed slices of the key space, partition d of P
holding the keys k with floor(k P / 2^64) = d (as fairshuf-mpi's ranks):
no sampling pass for divisions.  Dask's shuffle (``rearrange_by_column``,
tasks) moves each row to its slice, and each output partition sorts its
rows by key (ties by levels 1, 2, ...).  ``-n`` and ``--split`` cut the
order by global rank, from per-slice counts that each input partition
computes beside its keys (a small reduction, no data to one worker).

Before returning, each call computes one small pass over the input (the
partitions' lengths, and for stratify/weights/group-by the values' counts,
the weights' check or the groups' first appearances) unless ``lengths=``
gives the lengths; bad input (a column that does not exist, weights that
are not numbers >= 0, lengths that do not match the partitions) is an error
then, before anything is returned.  The result is lazy: compute it (the
parts of split together, ``dask.compute(*parts)``, so the shuffle runs
once).
"""
import secrets

import numpy as np
import pandas as pd

from . import rowkeys

KEY = "_fairshuf_key"      # the row's level-0 key (uint64: a dtype of its own,
                           # so pandas does not consolidate it with int64 columns)
ROW = "_fairshuf_row"      # its global record number
PART = "_partitions"       # its output partition (a slice of the key space;
                           # the name dask's shuffle takes as partition numbers)
CODE = "_fairshuf_code"    # stratify: the number of its value
RANK = "_fairshuf_grank"   # group-by: the place of its group
WKEY = "_fairshuf_wkey"    # weights: its Efraimidis-Spirakis key
_OURS = (KEY, ROW, PART, CODE, RANK, WKEY)
_LINE = "line"

__all__ = ["shuffle", "sample", "split", "weighted_sample", "group_shuffle"]


# ---- arguments ----------------------------------------------------------

def _dd():
    import dask.dataframe as dd
    return dd


def _is_bag(x):
    import dask.bag as db
    return isinstance(x, db.Bag)


def _key(seed):
    """K: from the seed as --seed=S, or (None) 64 hex digits from the OS."""
    return rowkeys.seed_key(secrets.token_hex(32) if seed is None else seed)


def _frame(ddf, what):
    dd = _dd()
    if _is_bag(ddf):
        return _bag_frame(ddf), True
    if not isinstance(ddf, dd.DataFrame):
        raise TypeError("%s: expected a dask DataFrame or Bag, not %s"
                        % (what, type(ddf).__name__))
    clash = [c for c in ddf.columns if c in _OURS]
    if clash:
        raise ValueError("%s: column %r is a name fairshuf.dask uses"
                         % (what, clash[0]))
    return ddf, False


def _bag_frame(bag):
    meta = pd.DataFrame({_LINE: pd.Series([], dtype=object)})
    return bag.map_partitions(_bag_part).to_dataframe(meta=meta)


def _bag_part(items):
    out = []
    for s in items:
        if not isinstance(s, (str, bytes)):
            raise TypeError("a Bag of lines holds str or bytes, not %s"
                            % type(s).__name__)
        if ("\n" if isinstance(s, str) else b"\n") in s:
            raise ValueError("a Bag of lines: an item holds a newline: %r"
                             % (s[:60],))
        out.append((s,))
    return out


def _column(ddf, col, what):
    if col not in ddf.columns:
        raise ValueError("%s: unknown column %r (the columns: %s)"
                         % (what, col, ", ".join(map(str, ddf.columns))))
    return col


def _count(n, what):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError("%s: n must be an integer >= 0, got %r" % (what, n))
    return int(n)


def _nparts(npartitions, ddf, what):
    if npartitions is None:
        return ddf.npartitions
    if (isinstance(npartitions, bool) or not isinstance(npartitions, int)
            or npartitions < 1):
        raise ValueError("%s: npartitions must be an integer >= 1" % what)
    return npartitions


# ---- the one pass over the input -----------------------------------------

def _stats_part(df, weights=None, values=None, first_seen=None):
    out = {"n": len(df)}
    if weights is not None:
        w = pd.to_numeric(df[weights], errors="coerce").to_numpy(np.float64)
        bad = np.flatnonzero(~(np.isfinite(w) & (w >= 0)))
        out["bad"] = (int(bad[0]), df[weights].iloc[bad[0]]) if len(bad) else None
    if values is not None:
        out["counts"] = df[values].value_counts(dropna=False, sort=False)
    if first_seen is not None:
        out["unique"] = pd.unique(df[first_seen])
    return out


def _layout(ddf, lengths, what, **stats):
    """The partitions' lengths (given, or counted in one pass with whatever
    else `stats` asks for) and their first records' numbers."""
    import dask
    if lengths is not None:
        try:
            lengths = [int(x) for x in lengths]
        except (TypeError, ValueError):
            raise ValueError("%s: lengths must be a list of integers" % what) from None
        if len(lengths) != ddf.npartitions or min(lengths, default=0) < 0:
            raise ValueError("%s: unknown partition layout: %d lengths for %d "
                             "partitions (lengths= gives each partition's "
                             "number of rows)" % (what, len(lengths), ddf.npartitions))
    if lengths is None or stats:
        parts = ddf.to_delayed()
        got = dask.compute(*[dask.delayed(_stats_part)(p, **stats) for p in parts])
        if lengths is not None and [g["n"] for g in got] != lengths:
            raise ValueError("%s: unknown partition layout: lengths= %s, the "
                             "partitions hold %s" % (what, lengths, [g["n"] for g in got]))
        lengths = [g["n"] for g in got]
    else:
        got = None
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    return offsets, got


# ---- the keys, computed where the rows are -------------------------------

def _bounds(P):
    """Slice d of P: keys k with floor(k P / 2^64) = d, i.e. k >= ceil(d 2^64 / P)."""
    return np.array([-(-(d << 64) // P) for d in range(1, P)], dtype=np.uint64)


def _keys_part(df, K, offsets, P, mode, extra, partition_info=None):
    i = partition_info["number"] if partition_info else 0
    first, want = int(offsets[i]), int(offsets[i + 1] - offsets[i])
    if len(df) != want:
        raise ValueError("partition %d has %d rows, its layout says %d (the "
                         "input changed since its lengths were counted)"
                         % (i, len(df), want))
    df = df.copy(deep=False)
    df[ROW] = np.arange(first, first + want, dtype=_row_dtype(offsets))
    if mode == "weights":
        df[WKEY] = rowkeys.lines_weighted_keys(
            None, first, pd.to_numeric(df[extra]).to_numpy(np.float64), key=K)
        return df
    keys = rowkeys.lines_keys(None, first, want, key=K)
    df[KEY] = keys
    if mode == "group":
        by, index, rank, G = extra
        r = rank[index.get_indexer(df[by])]
        df[RANK] = r
        df[PART] = ((r * P) // max(G, 1)).astype(_part_dtype(P))
        return df
    df[PART] = np.searchsorted(_bounds(P), keys, side="right").astype(_part_dtype(P))
    if mode == "stratify":
        col, index = extra
        df[CODE] = index.get_indexer(df[col]).astype(np.int64)
    return df


def _sorted(df, K, within=True, keep=True, ignore_index=False):
    out = _order(df, K, within, keep)
    if ignore_index:
        out.index = pd.RangeIndex(len(out))
    return out


def _order(df, K, within, keep):
    """The partition in the keyed order: by group rank (group-by), then by
    key with ties by levels 1, 2, ... (or by record number).  keep=False:
    without fairshuf's columns (one copy of the user's columns only)."""
    cols = (np.arange(df.shape[1]) if keep else
            np.flatnonzero(~df.columns.isin(_OURS)))
    if len(df) == 0:
        return df.iloc[:, cols]
    rows = df[ROW].to_numpy()
    if RANK in df.columns and not within:
        return _take(df, np.lexsort((rows, df[RANK].to_numpy())), cols)
    keys = df[KEY].to_numpy()
    if RANK in df.columns:
        prim = df[RANK].to_numpy()
        order = np.lexsort((keys, prim))
        p = prim[order]
    else:
        order = np.argsort(keys, kind="stable")
        p = None
    k = keys[order]
    same = k[1:] == k[:-1]
    if p is not None:
        same &= p[1:] == p[:-1]
    tied = np.flatnonzero(same)
    for s in tied[np.r_[True, tied[1:] != tied[:-1] + 1]] if len(tied) else []:
        e = s + 1
        while e < len(k) and k[e] == k[s] and (p is None or p[e] == p[s]):
            e += 1
        idx = order[s:e]
        order[s:e] = idx[rowkeys._break_ties(K, rows[idx])]
    return _take(df, order, cols)


def _take(df, order, cols):
    """df.iloc[order, cols] without its intermediate copy of every column
    (a slice's columns are gathered once, straight into the result)."""
    names = df.columns[cols]
    if not names.is_unique or isinstance(names, pd.MultiIndex):
        return df.iloc[order, cols]
    out = pd.DataFrame({j: df.iloc[:, c].array.take(order) for j, c in enumerate(cols)},
                       index=df.index.take(order), copy=False)
    out.columns = names
    return out


def _row_dtype(offsets):
    """Row numbers in 4 bytes while they fit (the rows move with them)."""
    return np.uint32 if offsets[-1] <= 2**32 else np.int64


def _part_dtype(P):
    return np.int16 if P < 2**15 else np.int32


def _keyed(ddf, K, offsets, P, mode="plain", extra=None):
    meta = ddf._meta.copy()
    meta[ROW] = np.array([], dtype=_row_dtype(offsets))
    if mode == "weights":
        meta[WKEY] = np.array([], dtype=np.float64)
    else:
        meta[KEY] = np.array([], dtype=np.uint64)
        if mode == "group":
            meta[RANK] = np.array([], dtype=np.int64)
        meta[PART] = np.array([], dtype=_part_dtype(P))
        if mode == "stratify":
            meta[CODE] = np.array([], dtype=np.int64)
    return ddf.map_partitions(_keys_part, K, offsets, P, mode, extra, meta=meta)


def _head_keys(df, k):
    """The rows of the partition that can be among the first k of the
    whole order: those whose key is at most its k-th smallest (ties kept)."""
    if len(df) <= k:
        return df
    if k == 0:
        return df.iloc[:0]
    keys = df[KEY].to_numpy()
    kth = np.partition(keys, k - 1)[k - 1]
    return df[keys <= kth]


def _counts(df, P, V):
    """Rows per (slice, value): P x V counts (V = 1 without stratify)."""
    code = df[CODE].to_numpy() if CODE in df.columns else 0
    flat = df[PART].to_numpy().astype(np.int64) * V + code
    return np.bincount(flat, minlength=P * V).reshape(P, V)


def _sum(arrays):
    return np.sum(arrays, axis=0)


def _slice_counts(keyed, P, V):
    """A Delayed P x V array: rows per slice and value over all partitions
    (each partition counts its own; a tree sum of small arrays)."""
    import dask
    level = [dask.delayed(_counts)(p, P, V)
             for p in keyed.to_delayed(optimize_graph=False)]
    while len(level) > 1:
        level = [dask.delayed(_sum)(level[j:j + 16]) for j in range(0, len(level), 16)]
    return level[0]


def _shuffled(keyed, K, P, shuffle_method, within=True, keep=True,
              ignore_index=False):
    """Each row moved to its slice (Dask's task shuffle on PART), each
    slice sorted; keep=False drops fairshuf's columns there; ignore_index
    drops the rows' index in the move (numbered 0, 1, ... per partition)."""
    from dask.dataframe.shuffle import rearrange_by_column
    moved = rearrange_by_column(keyed, PART, npartitions=P,
                                shuffle=shuffle_method or "tasks",
                                ignore_index=ignore_index)
    meta = keyed._meta if keep else _drop(keyed._meta)
    if ignore_index:
        meta = meta.reset_index(drop=True)
    return moved.map_partitions(_sorted, K, within, keep, ignore_index, meta=meta)


def _cut(df, counts, lo, hi, strat=None, part=None, ignore_index=False,
         partition_info=None):
    """The sorted partition's rows whose global rank is in [lo, hi), and
    with stratify those that go to part `part`."""
    j = partition_info["number"] if partition_info else 0
    before = int(counts[:j].sum())
    rank = before + np.arange(len(df))
    keep = (rank >= lo) & (rank < hi)
    if strat is not None:
        cum = strat  # V x k cumulative part sizes per value
        code = df[CODE].to_numpy()
        seen = counts[:j, :].sum(axis=0)[code] if len(df) else code
        within = pd.Series(code).groupby(code).cumcount().to_numpy()
        jv = seen + within
        q = (jv[:, None] >= cum[code]).sum(axis=1)
        keep &= q == part
    out = _drop(df[keep])
    if ignore_index:
        out.index = pd.RangeIndex(len(out))
    return out


def _drop(df):
    return df.drop(columns=[c for c in _OURS if c in df.columns])


def _finish(out, was_bag):
    return out[_LINE].to_bag() if was_bag else out


def _meta_out(ddf, ignore_index=False):
    return ddf._meta.reset_index(drop=True) if ignore_index else ddf._meta


# ---- the operations -------------------------------------------------------

def shuffle(ddf, seed=None, *, npartitions=None, lengths=None, shuffle_method=None,
            ignore_index=False):
    """The rows in the order of ``fairshuf lines --csv --header=1 --seed=S``
    (a Bag: of ``fairshuf lines --seed=S``).  npartitions: of the result
    (default: as the input); lengths: the partitions' row counts if known
    (else one pass counts them); ignore_index: drop the rows' index (as
    Dask's set_index route does; 8 bytes a row less to move)."""
    return sample(ddf, None, seed, npartitions=npartitions, lengths=lengths,
                  shuffle_method=shuffle_method, ignore_index=ignore_index)


def sample(ddf, n, seed=None, *, npartitions=None, lengths=None,
           shuffle_method=None, ignore_index=False):
    """The first n rows of shuffle(): ``fairshuf lines ... -n n``.  Each
    input partition keeps only the rows that can be among the first n of
    the whole order before the shuffle."""
    what = "sample" if n is not None else "shuffle"
    ddf, bag = _frame(ddf, what)
    n = None if n is None else _count(n, what)
    K = _key(seed)
    P = _nparts(npartitions, ddf, what)
    offsets, _ = _layout(ddf, lengths, what)
    keyed = _keyed(ddf, K, offsets, P)
    total = int(offsets[-1])
    if n is not None and n < total:
        keyed = keyed.map_partitions(_head_keys, n, meta=keyed._meta)
    if n is None or n >= total:
        out = _shuffled(keyed, K, P, shuffle_method, keep=False,
                        ignore_index=ignore_index)
    else:
        counts = _slice_counts(keyed, P, 1)
        out = _shuffled(keyed, K, P, shuffle_method, ignore_index=ignore_index)
        out = out.map_partitions(_cut, counts, 0, n, None, None, ignore_index,
                                 meta=_meta_out(ddf, ignore_index))
    return _finish(out, bag)


def split(ddf, weights, seed=None, *, stratify=None, n=None, npartitions=None,
          lengths=None, shuffle_method=None, ignore_index=False):
    """The parts of ``fairshuf lines --csv --header=1 --seed=S
    --split=W1,...,Wk [-n n] [--stratify=COL]``: a list of k lazy
    DataFrames (compute them together).  Without stratify, the shuffled
    order (its first n rows) cut into consecutive runs of the
    fs_lines_split_sizes; with it, the j-th row of value v in that order
    goes to the part where j falls when v's count in the whole input is
    cut so."""
    what = "split"
    w = list(weights) if not isinstance(weights, (str, bytes)) else None
    if (w is None or not 2 <= len(w) <= 64
            or any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 0
                   for x in w) or sum(w) == 0):
        raise ValueError("split: weights must be 2 to 64 integers >= 0, not all 0 "
                         "(as [80, 10, 10]), got %r" % (weights,))
    w = [int(x) for x in w]
    ddf, bag = _frame(ddf, what)
    if stratify is not None:
        if bag:
            raise TypeError("split: stratify needs a DataFrame, not a Bag")
        _column(ddf, stratify, "split: stratify")
    n = None if n is None else _count(n, what)
    K = _key(seed)
    P = _nparts(npartitions, ddf, what)
    offsets, got = _layout(ddf, lengths, what,
                           **({"values": stratify} if stratify is not None else {}))
    total = int(offsets[-1])
    m = total if n is None else min(n, total)
    if stratify is None:
        keyed = _keyed(ddf, K, offsets, P)
        V, cum = 1, None
    else:
        counts = pd.concat([g["counts"] for g in got]).groupby(level=0, dropna=False,
                                                              sort=False).sum()
        index = counts.index
        keyed = _keyed(ddf, K, offsets, P, "stratify", (stratify, index))
        V = len(index)
        cum = np.array([np.cumsum(rowkeys.split_sizes(int(c), w)) for c in counts.to_numpy()],
                       dtype=np.int64).reshape(V, len(w))
    if m < total:
        keyed = keyed.map_partitions(_head_keys, m, meta=keyed._meta)
    out = _shuffled(keyed, K, P, shuffle_method, ignore_index=ignore_index)
    slice_counts = _slice_counts(keyed, P, max(V, 1))
    parts = []
    if stratify is None:
        sizes = rowkeys.split_sizes(m, w)
        lo = 0
        for s in sizes:
            parts.append(out.map_partitions(_cut, slice_counts, lo, lo + s, None,
                                            None, ignore_index,
                                            meta=_meta_out(ddf, ignore_index)))
            lo += s
    else:
        for q in range(len(w)):
            parts.append(out.map_partitions(_cut, slice_counts, 0, m, cum, q,
                                            ignore_index,
                                            meta=_meta_out(ddf, ignore_index)))
    return [_finish(p, bag) for p in parts]


def _wtop(df, k):
    """The k rows of smallest (weights key, row) among df; weight 0 never."""
    df = df[np.isfinite(df[WKEY].to_numpy())]
    if len(df) > k:
        order = np.lexsort((df[ROW].to_numpy(), df[WKEY].to_numpy()))[:k]
        df = df.iloc[np.sort(order)]
    return df


def _wmerge(frames, k):
    return _wtop(pd.concat(frames), k)


def _wfinal(frames, k):
    df = _wmerge(frames, k)
    df = df.iloc[np.lexsort((df[ROW].to_numpy(), df[WKEY].to_numpy()))]
    return _drop(df)


def weighted_sample(ddf, n, weights, seed=None, *, lengths=None):
    """``fairshuf lines --csv --header=1 --seed=S --weights=COL -n n``: n
    successive weighted draws without replacement (Efraimidis-Spirakis
    keys from the records' own keys; weight 0 never drawn), in draw order.
    Each partition keeps its n best, a tree of merges keeps the n best of
    those: the result is one partition of at most n rows."""
    import dask
    what = "weighted_sample"
    ddf, bag = _frame(ddf, what)
    if bag:
        raise TypeError("weighted_sample needs a DataFrame with a weights column")
    _column(ddf, weights, what + ": weights")
    dtype = ddf._meta[weights].dtype
    if not (pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)):
        raise TypeError("weighted_sample: weights column %r holds %s, not numbers"
                        % (weights, dtype))
    n = _count(n, what)
    K = _key(seed)
    offsets, got = _layout(ddf, lengths, what, weights=weights)
    for i, g in enumerate(got):
        if g["bad"] is not None:
            row, value = g["bad"]
            raise ValueError("weighted_sample: weights column %r, row %d: %r is not "
                             "a number >= 0" % (weights, int(offsets[i]) + row, value))
    keyed = _keyed(ddf, K, offsets, 1, "weights", weights)
    level = [dask.delayed(_wtop)(p, n) for p in keyed.to_delayed(optimize_graph=False)]
    while len(level) > 8:
        level = [dask.delayed(_wmerge)(level[j:j + 8], n) for j in range(0, len(level), 8)]
    final = dask.delayed(_wfinal)(level, n)
    return _dd().from_delayed([final], meta=_meta_out(ddf), verify_meta=False)


def group_shuffle(ddf, by, seed=None, *, shuffle_within=False, npartitions=None,
                  lengths=None, shuffle_method=None, ignore_index=False):
    """``fairshuf lines --csv --header=1 --seed=S --group-by=COL
    [--shuffle-within]``: rows with equal values of `by` together, groups
    (numbered by first appearance) in the keyed order under the groups'
    key, inside a group input order or (shuffle_within) the rows' own keyed
    order.  Output partition d holds the groups of places [dG/P, (d+1)G/P)."""
    what = "group_shuffle"
    ddf, bag = _frame(ddf, what)
    if bag:
        raise TypeError("group_shuffle needs a DataFrame with a group column")
    _column(ddf, by, what + ": by")
    K = _key(seed)
    P = _nparts(npartitions, ddf, what)
    offsets, got = _layout(ddf, lengths, what, first_seen=by)
    seen = pd.Index(pd.concat([pd.Series(g["unique"]) for g in got]).unique())
    G = len(seen)
    Kg = rowkeys.groups_seed_key(K)
    gorder = rowkeys.lines_argsort(None, np.arange(G), rowkeys.lines_keys(None, 0, G, key=Kg),
                                   key=Kg)
    rank = np.empty(G, dtype=np.int64)
    rank[gorder] = np.arange(G)
    keyed = _keyed(ddf, K, offsets, P, "group", (by, seen, rank, G))
    return _shuffled(keyed, K, P, shuffle_method, within=bool(shuffle_within),
                     keep=False, ignore_index=ignore_index)
