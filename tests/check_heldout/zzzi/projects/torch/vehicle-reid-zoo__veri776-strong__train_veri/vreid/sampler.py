import copy
import random
from collections import defaultdict

import horovod.torch as hvd
from torch.utils.data import Sampler


class RandomIdentitySampler(Sampler):
    def __init__(self, items, batch_size, num_instances, seed=0):
        self.k = num_instances
        self.p = batch_size // num_instances
        self.seed = seed
        self.epoch = 0
        self.pool = defaultdict(list)
        for idx, (_, vid, _) in enumerate(items):
            self.pool[vid].append(idx)
        self.ids = sorted(self.pool)
        # rank layout used to deal out the batches
        self.world = hvd.size()
        self.rank = hvd.local_rank()
        self._len = None

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _batches(self):
        rnd = random.Random(self.seed + self.epoch)
        groups = defaultdict(list)
        for vid in self.ids:
            idxs = copy.deepcopy(self.pool[vid])
            if len(idxs) < self.k:
                idxs = [rnd.choice(idxs) for _ in range(self.k)]
            rnd.shuffle(idxs)
            for s in range(0, len(idxs) - self.k + 1, self.k):
                groups[vid].append(idxs[s:s + self.k])
        avail, out = list(self.ids), []
        while len(avail) >= self.p:
            chosen = rnd.sample(avail, self.p)
            batch = []
            for vid in chosen:
                batch.extend(groups[vid].pop(0))
                if not groups[vid]:
                    avail.remove(vid)
            out.append(batch)
        return out

    def __iter__(self):
        batches = self._batches()
        n = len(batches) // self.world
        for b in batches[self.rank::self.world][:n]:
            yield from b

    def __len__(self):
        if self._len is None:
            self._len = len(self._batches()) // self.world * self.p * self.k
        return self._len
