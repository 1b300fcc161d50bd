"""fairshuf.torch: a PyTorch sampler whose epoch order is a keyed
permutation, so no process ever materialises torch.randperm(n).

    from fairshuf.torch import Sampler
    sampler = Sampler(dataset, num_replicas=world, rank=rank, seed=1234)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader: ...

A drop-in for torch.utils.data.DistributedSampler by keyword (dataset,
num_replicas, rank, shuffle, seed=0, drop_last, set_epoch), and for
RandomSampler with seed=None.  Epoch e's global order is
KeyedPermutation(n, seed, e) -- the same for any number of replicas and
DataLoader workers (the sampler runs in the main process); rank r takes
positions r, r + num_replicas, r + 2*num_replicas, ... of it, so the
ranks' shares partition one global order without anyone storing it.  As
DistributedSampler does, the order is padded by wrapping to its start so
every rank gets ceil(n / num_replicas) indices, or with drop_last=True cut
to floor(n / num_replicas) per rank.  The order is specified by fairshuf's
stream (docs/keyed.md), not by the torch version.  Memory is O(1) in n
(plus one chunk of 65,536 indices while iterating)."""
import warnings

import torch.utils.data

from . import KeyedPermutation, _seed_str, _u64

__all__ = ["Sampler"]


def _dist_default(what):
    """num_replicas / rank from torch.distributed when it is initialised."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_world_size() if what == "world" else dist.get_rank()
    return 1 if what == "world" else 0


class Sampler(torch.utils.data.Sampler):
    """Sampler(dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
    drop_last=False)

    dataset:      a dataset (its len() is used) or the size n as an int.
    num_replicas: processes taking part (default: torch.distributed's
                  world size when it is initialised, else 1);
                  ``world_size=`` is accepted as another name for it.
    rank:         this process (default: torch.distributed's rank, else 0).
    shuffle:      False walks positions 0, 1, 2, ... (no permutation).
    seed:         str or int, the same on every rank (default 0, as
                  DistributedSampler).  None: a key from the OS, and then
                  every epoch is a new order even without set_epoch (as
                  RandomSampler); only with num_replicas == 1.
    drop_last:    as DistributedSampler's.

    set_epoch(e) selects epoch e's order; a second epoch that starts
    without it repeats the first epoch's order (as DistributedSampler
    does), and the sampler warns once when that happens.

    state_dict() / load_state_dict(d): the epoch and how far into it the
    global order has been handed out, so a run resumes mid-epoch exactly
    where it stopped -- with any number of replicas, as the global order
    does not depend on it.  The count is of indices this sampler yielded
    (a DataLoader prefetches a few batches ahead of training)."""

    _CHUNK = 1 << 16

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True,
                 seed=0, drop_last=False, *, world_size=None):
        if world_size is not None:
            if num_replicas is not None and num_replicas != world_size:
                raise ValueError("Sampler: num_replicas and world_size differ")
            num_replicas = world_size
        n = dataset if isinstance(dataset, int) else len(dataset)
        n = _u64(n, "Sampler: dataset size")
        if num_replicas is None:
            num_replicas = _dist_default("world")
        if rank is None:
            rank = _dist_default("rank")
        num_replicas = _u64(num_replicas, "Sampler: num_replicas", lo=1)
        rank = _u64(rank, "Sampler: rank")
        if rank >= num_replicas:
            raise ValueError("Invalid rank %d, rank should be in the interval "
                             "[0, %d]" % (rank, num_replicas - 1))
        if seed is None and num_replicas > 1:
            raise ValueError("Sampler: every rank must share one seed when "
                             "num_replicas > 1")
        self.dataset = dataset
        self.n, self.rank, self.num_replicas = n, rank, num_replicas
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.seed = seed
        self._fresh = seed is None  # new order every epoch (RandomSampler)
        self.epoch = 0
        self._perm = KeyedPermutation(n, None if seed is None else _seed_str(seed), 0)
        per_rank = n // num_replicas if drop_last else -(-n // num_replicas)
        self.num_samples = per_rank
        self.total_size = per_rank * num_replicas
        self._start = 0        # global positions already handed out (resume)
        self._yielded = 0      # indices this rank yielded in the epoch
        self._iterated = None  # the epoch last iterated
        self._epoch_set = False
        self._warned = False

    @property
    def world_size(self):
        return self.num_replicas

    def set_epoch(self, epoch):
        """Selects epoch `epoch`'s order (call before each epoch)."""
        self.epoch = _u64(epoch, "Sampler: epoch")
        self._epoch_set = True

    def __len__(self):
        return self.num_samples - self._start // self.num_replicas

    def state_dict(self):
        """The epoch and the global position reached in it."""
        return {"epoch": self.epoch, "position": self._start + self._yielded * self.num_replicas,
                "n": self.n, "seed": None if self._fresh else self.seed,
                "key": self._perm.seed if self._fresh else None}

    def load_state_dict(self, state):
        """Resumes at state_dict()'s epoch and position: the next
        iteration continues that epoch's global order where it stopped."""
        if state.get("n") != self.n:
            raise ValueError("Sampler: the state is for a dataset of %r items, not %d"
                             % (state.get("n"), self.n))
        mine = None if self._fresh else _seed_str(self.seed)
        theirs = state.get("seed")
        theirs = None if theirs is None else _seed_str(theirs)
        if theirs != mine:
            raise ValueError("Sampler: the state is for seed %r, not %r: its "
                             "order is another one" % (state.get("seed"),
                                                       None if self._fresh else self.seed))
        if self._fresh and state.get("key"):
            self._perm = KeyedPermutation(self.n, state["key"], 0)
        self.epoch = _u64(state["epoch"], "Sampler: epoch")
        position = _u64(state["position"], "Sampler: position", hi=self.total_size)
        if position % self.num_replicas:
            raise ValueError("Sampler: position %d is not a multiple of "
                             "num_replicas = %d" % (position, self.num_replicas))
        self._start = position
        self._epoch_set = True

    def __iter__(self):
        if self._iterated is not None and not self._epoch_set:
            if self._fresh:
                self.epoch += 1  # RandomSampler: a new order every epoch
            elif not self._warned:
                self._warned = True
                warnings.warn("fairshuf.torch.Sampler: a new epoch started without "
                              "set_epoch(): it repeats the previous epoch's order "
                              "(call sampler.set_epoch(epoch) before each epoch)",
                              RuntimeWarning, stacklevel=2)
        self._iterated, self._epoch_set = self.epoch, False
        start, self._start, self._yielded = self._start, 0, 0
        p = self._perm.with_epoch(self.epoch)
        w, n = self.num_replicas, self.n
        first = start + self.rank  # this rank's first global position
        # Positions first, first + w, ... below min(n, total) come straight
        # from the permutation, a chunk at a time (batch call, GIL released).
        end = min(n, self.total_size)
        direct = max(0, -(-(end - first) // w))
        for k0 in range(0, direct, self._CHUNK):
            count = min(self._CHUNK, direct - k0)
            pos = first + k0 * w
            chunk = (p._fill(pos, w, count) if self.shuffle
                     else range(pos, pos + count * w, w))
            for i in (chunk.tolist() if self.shuffle else chunk):
                self._yielded += 1
                yield i
        # Padding positions past n wrap to the start of the order.
        for pos in range(first + direct * w, self.total_size, w):
            self._yielded += 1
            yield p[pos % n] if self.shuffle else pos % n
