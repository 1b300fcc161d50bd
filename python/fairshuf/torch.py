"""fairshuf.torch: a PyTorch sampler whose epoch order is a keyed
permutation, so no process ever materialises torch.randperm(n).

    from fairshuf.torch import Sampler
    sampler = Sampler(len(dataset), seed=1234, rank=rank, world_size=world)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader: ...

A drop-in for torch.utils.data.RandomSampler (world_size=1) and
DistributedSampler: epoch e's global order is KeyedPermutation(n, seed, e);
rank r takes positions r, r + world_size, r + 2*world_size, ... of it, so
the ranks' shares partition one global order without anyone storing it.
As DistributedSampler does, the order is padded by wrapping to its start
so every rank gets ceil(n / world_size) indices, or with drop_last=True
cut to floor(n / world_size) per rank.  The order is specified by
fairshuf's stream (docs/keyed.md), not by the torch version.  Memory is
O(1) in n (plus one chunk of 65,536 indices while iterating)."""
import torch.utils.data

from . import KeyedPermutation

__all__ = ["Sampler"]


class Sampler(torch.utils.data.Sampler):
    """Sampler(n, seed, *, rank=0, world_size=1, drop_last=False)

    n:          dataset size, or a dataset (its len() is used).
    seed:       str or int, the same on every rank; None only with
                world_size=1 (a key from the OS, fixed for this sampler).
    rank, world_size, drop_last: as DistributedSampler's."""

    _CHUNK = 1 << 16

    def __init__(self, n, seed, *, rank=0, world_size=1, drop_last=False):
        n = n if isinstance(n, int) else len(n)
        if n < 0:
            raise ValueError("Sampler: n must be >= 0")
        if world_size < 1 or not 0 <= rank < world_size:
            raise ValueError("Sampler: need world_size >= 1 and 0 <= rank < world_size")
        if seed is None and world_size > 1:
            raise ValueError("Sampler: every rank must share one seed when world_size > 1")
        self.n, self.rank, self.world_size = n, rank, world_size
        self.drop_last = drop_last
        self.epoch = 0
        self._perm = KeyedPermutation(n, seed, 0)
        per_rank = n // world_size if drop_last else -(-n // world_size)
        self.num_samples = per_rank
        self.total_size = per_rank * world_size

    def set_epoch(self, epoch):
        """Selects epoch `epoch`'s order (call before each epoch)."""
        self.epoch = int(epoch)

    def __len__(self):
        return self.num_samples

    def __iter__(self):
        p = self._perm.with_epoch(self.epoch)
        w, n = self.world_size, self.n
        # Positions rank, rank + w, ... below min(n, total) come straight from
        # the permutation, a chunk at a time (strided fill, GIL released).
        direct = max(0, -(-(min(n, self.total_size) - self.rank) // w))
        for k0 in range(0, direct, self._CHUNK):
            count = min(self._CHUNK, direct - k0)
            yield from p._fill(self.rank + k0 * w, w, count).tolist()
        # Padding positions past n wrap to the start of the order.
        for pos in range(self.rank + direct * w, self.total_size, w):
            yield p[pos % n]
