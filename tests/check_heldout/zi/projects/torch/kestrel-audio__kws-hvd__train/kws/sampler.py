import math
import random


class DistributedBucketSampler:
    """Groups utterances of similar length into batches, then deals the batches out to ranks.

    Every rank builds the same batch list (same seed, same epoch), so taking every
    ``num_replicas``-th batch gives disjoint shards.  With ``drop_last`` the list is cut so that
    each rank runs the same number of steps.
    """

    def __init__(self, lengths, batch_size, num_replicas=1, rank=0, shuffle=True,
                 seed=0, bucket_width=20, drop_last=True):
        self.lengths = lengths
        self.batch_size = batch_size
        self.num_replicas = num_replicas
        self.rank = rank
        self.shuffle = shuffle
        self.seed = seed
        self.bucket_width = bucket_width
        self.drop_last = drop_last
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _batches(self):
        rng = random.Random(self.seed + self.epoch)
        buckets = {}
        for idx, n in enumerate(self.lengths):
            buckets.setdefault(n // self.bucket_width, []).append(idx)
        batches = []
        for key in sorted(buckets):
            ids = buckets[key]
            if self.shuffle:
                rng.shuffle(ids)
            batches += [ids[i:i + self.batch_size] for i in range(0, len(ids), self.batch_size)]
        if self.shuffle:
            rng.shuffle(batches)
        if self.drop_last:
            usable = (len(batches) // self.num_replicas) * self.num_replicas
            batches = batches[:usable]
        return batches

    def __iter__(self):
        return iter(self._batches()[self.rank::self.num_replicas])

    def __len__(self):
        n = len(self._batches())
        return n // self.num_replicas if self.drop_last else math.ceil((n - self.rank) / self.num_replicas)
