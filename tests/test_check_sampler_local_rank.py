"""A hand-written PK sampler in the project's module deals the batches out with the local rank (issue 39,
class 1: the work is in the project's module), from the blind set zzzi: `batches[self.rank::self.world]`
with `self.rank = hvd.local_rank()` in its `__iter__`. On two nodes ranks 0 and 4 read the same batches.
The script also splits its query set by `hvd.rank()` for evaluation, which is no training partition. With
`hvd.rank()` in the sampler it is right. Before the rule the query split passed step 3 as ok.

Written from scratch for these tests: a torch re-identification project with a `pkreid` package."""
import pytest

from crash_scripts import Source, check_project

SAMPLER = Source('''
    import random
    from collections import defaultdict

    import horovod.torch as hvd
    from torch.utils.data import Sampler


    class PKSampler(Sampler):
        """P identities x K images per batch; the batches are dealt out over the workers."""

        def __init__(self, labels, p, k, seed=0):
            self.p, self.k, self.seed, self.epoch = p, k, seed, 0
            self.by_id = defaultdict(list)
            for i, label in enumerate(labels):
                self.by_id[int(label)].append(i)
            self.world = hvd.size()
            self.rank = #RANK#

        def set_epoch(self, epoch):
            self.epoch = epoch

        def _batches(self):
            rnd = random.Random(self.seed + self.epoch)
            ids = sorted(i for i, idx in self.by_id.items() if len(idx) >= self.k)
            rnd.shuffle(ids)
            return [[j for i in ids[s:s + self.p] for j in rnd.sample(self.by_id[i], self.k)]
                    for s in range(0, len(ids) - self.p + 1, self.p)]

        def __iter__(self):
            batches = self._batches()
            n = len(batches) // self.world
            for batch in batches[self.rank::self.world][:n]:
                yield from batch

        def __len__(self):
            return len(self._batches()) // self.world * self.p * self.k
''')

TRAIN = '''
    """Vehicle re-identification: horovodrun -np 8 -H node1:4,node2:4 python train.py"""
    import argparse

    import horovod.torch as hvd
    import numpy as np
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    from pkreid.sampler import PKSampler


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--lr", type=float, default=3.5e-4)
        ap.add_argument("--epochs", type=int, default=30)
        args = ap.parse_args()
        hvd.init()
        torch.manual_seed(0)
        x, y = torch.randn(4000, 128), torch.randint(0, 250, (4000,))
        sampler = PKSampler(y.tolist(), p=16, k=4)
        loader = DataLoader(TensorDataset(x, y), batch_size=64, sampler=sampler)
        query, gallery = torch.randn(500, 128), torch.randn(2000, 128)
        mine = np.array_split(np.arange(len(query)), hvd.size())[hvd.rank()]
        model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 250))
        opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for xb, yb in loader:
                opt.zero_grad()
                nn.functional.cross_entropy(model(xb), yb).backward()
                opt.step()
            with torch.no_grad():
                q = nn.functional.normalize(model[:2](query[mine]), dim=1)
                g = nn.functional.normalize(model[:2](gallery), dim=1)
                top1 = (q @ g.t()).argmax(1)
                hits = torch.tensor([float((top1 == torch.as_tensor(mine)).sum()), float(len(mine))])
            hits = hvd.allreduce(hits, op=hvd.Sum, name="top1")
            if hvd.rank() == 0:
                print(f"epoch {epoch}: top-1 {hits[0] / hits[1]:.3f}")
                torch.save(model.state_dict(), "reid.pt")


    if __name__ == "__main__":
        main()
'''


def project(rank):
    return {"train.py": TRAIN, "pkreid/__init__.py": "", "pkreid/sampler.py": SAMPLER.replace("#RANK#", rank)}


def test_a_module_sampler_dealing_batches_by_the_local_rank_is_wrong(tmp_path):
    crash, flagged, findings = check_project(tmp_path, project("hvd.local_rank()"))
    assert crash is None and flagged == {3: "wrong"}
    assert "hvd.local_rank()" in findings[3].evidence and findings[3].file == "pkreid/sampler.py"


@pytest.mark.parametrize("rank", ["hvd.rank()"])
def test_the_same_sampler_by_the_global_rank_is_right(tmp_path, rank):
    crash, flagged, _ = check_project(tmp_path, project(rank))
    assert crash is None and flagged == {}
