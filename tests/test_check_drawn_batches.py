"""Batches drawn at random by a generator object (issue 39, class 4: judge by what the code computes):

- step 4: a batch iterator drawing `rng.choice(len(lines), self.batch)` in its `__iter__` (or a sampler's
  `rng.integers(0, len(points), self.batch)` called at every step), made with a global batch divided by
  hvd.size(), keeps the global batch fixed: the unscaled LR is the sequential run's; made with a per-rank
  batch, the LR must grow with the ranks (flagged);
- step 3: an index permuted by `rng = np.random.default_rng(seed + hvd.rank())` before `[rank::size]` is a
  different permutation on each rank: the parts overlap (flagged); permuted by a generator seeded alike on
  every rank, the slices partition it, whatever global seed torch was given.
"""
from crash_scripts import Source, check

LINES = Source('''
    """Recognise text lines: horovodrun -np 2 python train.py"""
    import argparse

    import numpy as np
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd


    class RandomBatches:
        """Endless batches of this rank's lines, drawn with replacement."""

        def __init__(self, x, y, batch, seed):
            self.x, self.y, self.batch = x, y, batch
            self.rng = np.random.default_rng(seed)

        def __iter__(self):
            while True:
                idx = self.rng.choice(len(self.x), self.batch)
                yield torch.from_numpy(self.x[idx]), torch.from_numpy(self.y[idx])


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--data", default="data/lines.npz")
        parser.add_argument("--global-batch", type=int, default=256)
        parser.add_argument("--batch", type=int, default=32)
        parser.add_argument("--lr", type=float, default=0.05)
        parser.add_argument("--steps", type=int, default=1000)
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        blob = np.load(args.data)
        x, y = blob["x"].astype("float32"), blob["y"]
        mine = np.arange(len(x))[hvd.rank()::hvd.size()]
        batches = iter(RandomBatches(x[mine], y[mine], #BATCH#, seed=hvd.rank()))
        model = torch.nn.Linear(x.shape[1], int(y.max()) + 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        total = torch.zeros(2)
        for step in range(args.steps):
            xb, yb = next(batches)
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += torch.stack([loss.detach(), torch.ones(())])
        total = hvd.allreduce(total, op=hvd.Sum, name="loss")
        if hvd.rank() == 0:
            print((total[0] / total[1]).item())
            torch.save(model.state_dict(), "lines.pt")


    if __name__ == "__main__":
        main()
''')


def test_batches_drawn_from_a_global_batch_divided_by_the_ranks_keep_the_lr(tmp_path):
    crash, flagged = check(tmp_path, LINES.replace("#BATCH#", "args.global_batch // hvd.size()"))
    assert crash is None and flagged == {}


def test_batches_drawn_at_a_per_rank_size_need_the_lr_scaled(tmp_path):
    crash, flagged = check(tmp_path, LINES.replace("#BATCH#", "args.batch"))
    assert crash is None and flagged == {4: "missing"}


CURRICULUM = Source('''
    """Train on an easy-first pool: horovodrun -np 2 python curriculum.py"""
    import argparse

    import numpy as np
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd


    def rank_indices(pool, epoch, seed):
        rng = np.random.default_rng(#SEED#)
        pool = rng.permutation(pool)
        n = len(pool) // hvd.size() * hvd.size()
        return pool[:n][hvd.rank()::hvd.size()]


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--data", default="data/pool.npz")
        parser.add_argument("--epochs", type=int, default=4)
        parser.add_argument("--seed", type=int, default=3)
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        torch.manual_seed(args.seed)
        blob = np.load(args.data)
        x, y = torch.from_numpy(blob["x"]).float(), torch.from_numpy(blob["y"])
        model = torch.nn.Linear(x.shape[1], 10)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(args.epochs):
            idx = rank_indices(np.arange(len(x)), epoch, args.seed)
            total = torch.zeros(2)
            for s in range(0, len(idx), 32):
                b = idx[s:s + 32]
                loss = F.cross_entropy(model(x[b]), y[b])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += torch.stack([loss.detach(), torch.ones(())])
            total = hvd.allreduce(total, op=hvd.Sum, name="loss")
            if hvd.rank() == 0:
                print(epoch, (total[0] / total[1]).item())
                torch.save(model.state_dict(), "curriculum.pt")


    if __name__ == "__main__":
        main()
''')


def test_a_permutation_by_a_generator_seeded_with_the_rank_before_the_slice_overlaps(tmp_path):
    crash, flagged = check(tmp_path, CURRICULUM.replace("#SEED#", "seed + hvd.rank() + 1000 * epoch"))
    assert crash is None and flagged == {3: "wrong"}


def test_a_permutation_by_a_generator_seeded_alike_before_the_slice_partitions(tmp_path):
    crash, flagged = check(tmp_path, CURRICULUM.replace("#SEED#", "seed + 1000 * epoch"))
    assert crash is None and flagged == {}


POINTS = Source('''
    """Fit a signed distance field: horovodrun -np 2 python train_sdf.py"""
    import argparse

    import numpy as np
    import torch
    import horovod.torch as hvd


    class PointSampler:
        def __init__(self, points, batch, seed):
            self.points, self.batch = points, batch
            self.rng = np.random.default_rng(seed)

        def sample(self):
            idx = self.rng.integers(0, len(self.points), self.batch)
            return torch.from_numpy(self.points[idx])


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--scan", default="data/scan.npz")
        parser.add_argument("--global-points", type=int, default=8192)
        parser.add_argument("--points", type=int, default=1024)
        parser.add_argument("--lr", type=float, default=5e-3)
        parser.add_argument("--iters", type=int, default=2000)
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        points = np.load(args.scan)["points"].astype("float32")
        mine = np.random.default_rng(0).permutation(len(points))[hvd.rank()::hvd.size()]
        sampler = PointSampler(points[mine], #BATCH#, seed=1000 + hvd.rank())
        model = torch.nn.Sequential(torch.nn.Linear(3, 64), torch.nn.Softplus(), torch.nn.Linear(64, 1))
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for it in range(args.iters):
            p = sampler.sample()
            loss = model(p).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if it % 500 == 0:
                mean = hvd.allreduce(loss.detach(), name="loss")
                if hvd.rank() == 0:
                    print(it, mean.item())
                    torch.save(model.state_dict(), "sdf.pt")


    if __name__ == "__main__":
        main()
''')


def test_points_drawn_each_step_from_a_global_batch_divided_by_the_ranks_keep_the_lr(tmp_path):
    crash, flagged = check(tmp_path, POINTS.replace("#BATCH#", "args.global_points // hvd.size()"))
    assert crash is None and flagged == {}


def test_points_drawn_each_step_at_a_per_rank_size_need_the_lr_scaled(tmp_path):
    crash, flagged = check(tmp_path, POINTS.replace("#BATCH#", "args.points"))
    assert crash is None and flagged == {4: "missing"}
