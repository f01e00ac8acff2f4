"""A project's batch sampler takes DistributedSampler's `num_replicas` and `rank` so that it can be dropped in
(issue 39, class 4: evidence from the code, not from the call's keywords). Handed the rank, it partitions the
data only if its code uses it: one that keeps `self.rank` and slices its batches by it gives each rank its
own; one that keeps it and never reads it back (its batches drawn alike on every rank, only their count
divided) gives every rank the same batches: wrong, naming the call.

Written from scratch for these tests: a torch metric-learning project with the sampler in its package."""
from crash_scripts import Source, check_project

SAMPLER = Source('''
    import random

    from torch.utils.data import Sampler


    class ClassBalancedSampler(Sampler):
        """P classes x K samples per batch; the signature follows DistributedSampler's."""

        def __init__(self, labels, p=8, k=4, num_replicas=1, rank=0, seed=0):
            self.p, self.k, self.seed, self.epoch = p, k, seed, 0
            self.num_replicas, self.rank = num_replicas, rank
            self.by_class = {}
            for i, y in enumerate(labels):
                self.by_class.setdefault(int(y), []).append(i)
            self.n_batches = len(labels) // (p * k)

        def set_epoch(self, epoch):
            self.epoch = epoch

        def __iter__(self):
            rng = random.Random(self.seed + self.epoch)
            classes = [c for c, v in self.by_class.items() if len(v) >= self.k]
            batches = []
            for _ in range(self.n_batches):
                batch = []
                for c in rng.sample(classes, self.p):
                    batch.extend(rng.sample(self.by_class[c], self.k))
                batches.append(batch)
            #PICK
            return iter(mine)

        def __len__(self):
            return self.n_batches // self.num_replicas
''')

TRAIN = '''
    """Triplet training: horovodrun -np 2 python train.py"""
    import argparse

    import numpy as np
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset

    from metric.sampling import ClassBalancedSampler


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--data", default="data/embeddings.npz")
        parser.add_argument("--epochs", type=int, default=3)
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        blob = np.load(args.data)
        data = TensorDataset(torch.from_numpy(blob["x"]).float(), torch.from_numpy(blob["y"]))
        sampler = ClassBalancedSampler(data.tensors[1].tolist(), num_replicas=hvd.size(), rank=hvd.rank(), seed=0)
        loader = DataLoader(data, batch_sampler=sampler)
        model = torch.nn.Linear(data.tensors[0].shape[1], 16)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            total = torch.zeros(2)
            for x, y in loader:
                emb = F.normalize(model(x))
                dist = torch.cdist(emb, emb)
                same = y[:, None] == y[None]
                loss = F.relu(dist[same].mean() - dist[~same].mean() + 0.2)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += torch.stack([loss.detach(), torch.ones(())])
            total = hvd.allreduce(total, op=hvd.Sum, name="loss")
            if hvd.rank() == 0:
                print(epoch, (total[0] / total[1]).item())
                torch.save(model.state_dict(), "triplet.pt")


    if __name__ == "__main__":
        main()
'''


def project(pick):
    return {"train.py": TRAIN, "metric/__init__.py": "", "metric/sampling.py": SAMPLER.replace("#PICK", pick)}


def test_a_sampler_that_slices_its_batches_by_the_rank_it_keeps_partitions(tmp_path):
    crash, flagged, _ = check_project(tmp_path, project("mine = batches[self.rank::self.num_replicas]"))
    assert crash is None and flagged == {}


def test_a_sampler_that_keeps_the_rank_and_never_reads_it_gives_every_rank_the_same_batches(tmp_path):
    crash, flagged, findings = check_project(tmp_path, project("mine = batches[:len(self)]"))
    assert crash is None and flagged == {3: "wrong"}
    assert "`ClassBalancedSampler` the rank" in findings[3].evidence and findings[3].line == 24


SPLIT = '''
    import random

    from torch.utils.data import Sampler


    class _Distributed(Sampler):
        def __init__(self, labels, num_replicas=1, rank=0, seed=0):
            self.labels, self.num_replicas, self.rank, self.seed, self.epoch = labels, num_replicas, rank, seed, 0

        def set_epoch(self, epoch):
            self.epoch = epoch


    class ClassBalancedSampler(_Distributed):
        """The rank kept by the base class's __init__, read by this class."""
        p, k = 8, 4

        def __iter__(self):
            order = list(range(len(self.labels)))
            random.Random(self.seed + self.epoch).shuffle(order)
            mine = order[self.rank::self.num_replicas]
            return iter([mine[i:i + self.p * self.k] for i in range(0, len(mine), self.p * self.k)])

        def __len__(self):
            return len(self.labels) // (self.p * self.k * self.num_replicas)
'''


def test_a_rank_kept_by_a_base_class_and_read_by_the_sampler_partitions(tmp_path):
    files = {"train.py": TRAIN, "metric/__init__.py": "", "metric/sampling.py": SPLIT}
    crash, flagged, _ = check_project(tmp_path, files)
    assert crash is None and flagged == {}
