import random
from torch.utils.data import Sampler


class PKSampler(Sampler):
    """Class-balanced batches: P classes x K instances per batch (batch-hard mining needs positives).

    `num_replicas`/`rank` follow DistributedSampler's signature so the sampler can be dropped in.
    """

    def __init__(self, labels, p=16, k=4, num_replicas=1, rank=0, seed=0):
        self.p, self.k = p, k
        self.num_replicas, self.rank = num_replicas, rank
        self.seed, self.epoch = seed, 0
        self.index = {}
        for i, y in enumerate(labels):
            self.index.setdefault(int(y), []).append(i)
        self.n_batches = len(labels) // (p * k)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _batches(self):
        rng = random.Random(self.seed + self.epoch)
        classes = [c for c, v in self.index.items() if len(v) >= self.k]
        for _ in range(self.n_batches):
            batch = []
            for c in rng.sample(classes, self.p):
                batch.extend(rng.sample(self.index[c], self.k))
            yield batch

    def __iter__(self):
        for i, batch in enumerate(self._batches()):
            if i >= len(self):
                break
            yield batch

    def __len__(self):
        return self.n_batches // self.num_replicas
