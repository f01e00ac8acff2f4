import random
from collections import defaultdict

from torch.utils.data import Sampler


class DistributedPKSampler(Sampler):
    """P identities x K instances per batch, batches dealt out to the ranks.

    Every rank builds the same batch list (same seed, same epoch) and keeps
    every `num_replicas`-th batch, so the ranks see disjoint batches and run
    the same number of steps.
    """

    def __init__(self, items, num_instances, batch_size, num_replicas, rank, seed=0):
        self.k = num_instances
        self.p = batch_size // num_instances
        self.num_replicas = num_replicas
        self.rank = rank
        self.seed = seed
        self.epoch = 0
        self.index_by_pid = defaultdict(list)
        for i, (_, pid, _) in enumerate(items):
            self.index_by_pid[pid].append(i)
        self.pids = sorted(self.index_by_pid)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _all_batches(self):
        rng = random.Random(self.seed + self.epoch)
        chunks = []
        for pid in self.pids:
            idxs = list(self.index_by_pid[pid])
            if len(idxs) < self.k:
                idxs = idxs + rng.choices(idxs, k=self.k - len(idxs))
            rng.shuffle(idxs)
            chunks.append(idxs[:self.k])
        rng.shuffle(chunks)
        batches = []
        for i in range(0, len(chunks) - self.p + 1, self.p):
            batches.append([j for c in chunks[i:i + self.p] for j in c])
        return batches

    def __iter__(self):
        batches = self._all_batches()
        per_rank = len(batches) // self.num_replicas
        mine = batches[self.rank::self.num_replicas][:per_rank]
        for b in mine:
            for idx in b:
                yield idx

    def __len__(self):
        return (len(self.pids) // self.p // self.num_replicas) * self.p * self.k
