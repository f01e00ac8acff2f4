"""An architecture-search project (issue 39, classes 1 and 4): its `engine` module returns
`hvd.rank(), hvd.local_rank(), hvd.size()` as one tuple, and the entry unpacks it. Each name is its own element
of the tuple: a sampler handed `rank=local_rank` picks its part by the local rank (wrong on 2+ nodes), one
handed `rank=rank` by the global rank. And the architecture parameters step with a plain Adam after the code
sets their gradients to hand-averaged ones (`a.grad = hvd.allreduce(g)` over `torch.autograd.grad`): the job's
gradients, no wrapper needed; without the allreduce each rank steps with its own.

Before these rules the whole returned tuple counted for every name (the local-rank sampler passed as a
partition), and the plain Adam was flagged whatever its gradients were.

Written from scratch for these tests: a torch project with `engine` and `search` packages."""
import pytest

from crash_scripts import Source, check_project

ENV = '''
    import horovod.torch as hvd
    import torch


    def setup(seed):
        hvd.init()
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        torch.manual_seed(seed)
        return hvd.rank(), hvd.local_rank(), hvd.size()
'''

ARCH = Source('''
    import horovod.torch as hvd
    import torch


    class AlphaStep:
        def __init__(self, net, lr=3e-3):
            self.net = net
            self.opt = torch.optim.Adam(net.alphas(), lr=lr * hvd.size(), betas=(0.5, 0.999))

        def step(self, x, y):
            alphas = self.net.alphas()
            loss = torch.nn.functional.cross_entropy(self.net(x), y)
            grads = torch.autograd.grad(loss, alphas)
            for a, g in zip(alphas, grads):
                a.grad = #GRAD#
            self.opt.step()
            self.opt.zero_grad(set_to_none=True)
            return loss.item()
''')

NET = '''
    import torch
    from torch import nn


    class MixedNet(nn.Module):
        def __init__(self, n_ops=3):
            super().__init__()
            self.ops = nn.ModuleList([nn.Linear(16, 16) for _ in range(n_ops)])
            self.alpha = nn.Parameter(1e-3 * torch.randn(n_ops))
            self.head = nn.Linear(16, 4)

        def alphas(self):
            return [self.alpha]

        def weights(self):
            return [(n, p) for n, p in self.named_parameters() if n != "alpha"]

        def forward(self, x):
            w = torch.softmax(self.alpha, 0)
            return self.head(sum(wi * op(x) for wi, op in zip(w, self.ops)))
'''

MAIN = Source('''
    """Search a mixed cell: horovodrun -np 4 python search.py"""
    import argparse

    import horovod.torch as hvd
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from engine.env import setup
    from search.alpha import AlphaStep
    from search.net import MixedNet


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--lr", type=float, default=0.025)
        ap.add_argument("--epochs", type=int, default=4)
        args = ap.parse_args()
        rank, local_rank, world = setup(seed=0)
        torch.set_num_threads(1)
        x, y = torch.randn(2048, 16), torch.randint(0, 4, (2048,))
        w_set, a_set = TensorDataset(x[:1024], y[:1024]), TensorDataset(x[1024:], y[1024:])
        w_sampler = DistributedSampler(w_set, num_replicas=world, rank=#RANK#)
        a_sampler = DistributedSampler(a_set, num_replicas=world, rank=#ARANK#)
        w_loader = DataLoader(w_set, batch_size=64, sampler=w_sampler)
        a_loader = DataLoader(a_set, batch_size=64, sampler=a_sampler)
        net = MixedNet()
        opt = torch.optim.SGD([p for _, p in net.weights()], lr=args.lr * world, momentum=0.9)
        opt = hvd.DistributedOptimizer(opt, named_parameters=net.weights())
        arch = AlphaStep(net)
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(args.epochs):
            w_sampler.set_epoch(epoch)
            a_sampler.set_epoch(epoch)
            total = torch.zeros(2)
            for (xb, yb), (xa, ya) in zip(w_loader, a_loader):
                opt.zero_grad()
                F.cross_entropy(net(xb), yb).backward()
                opt.step()
                total += torch.tensor([arch.step(xa, ya), 1.0])
            total = hvd.allreduce(total, op=hvd.Sum, name="arch_loss")
            if rank == 0:
                print(f"epoch {epoch} arch loss {total[0] / total[1]:.4f}")
                torch.save(net.state_dict(), "supernet.pt")


    if __name__ == "__main__":
        main()
''')


def project(rank="rank", grad='hvd.allreduce(g, name="alpha")'):
    return {"search.py": MAIN.replace("#RANK#", rank).replace("#ARANK#", rank), "engine/__init__.py": "",
            "engine/env.py": ENV, "search/__init__.py": "", "search/alpha.py": ARCH.replace("#GRAD#", grad),
            "search/net.py": NET}


def test_the_global_rank_unpacked_from_a_helpers_tuple_partitions_and_averaged_alphas_pass(tmp_path):
    crash, flagged, _ = check_project(tmp_path, project(), script="search.py")
    assert crash is None and flagged == {}


def test_the_local_rank_unpacked_from_a_helpers_tuple_is_a_local_rank_partition(tmp_path):
    crash, flagged, findings = check_project(tmp_path, project(rank="local_rank"), script="search.py")
    assert crash is None and flagged == {3: "wrong"}
    assert "local_rank" in findings[3].evidence


@pytest.mark.parametrize("grad", ["g", "g / 1.0"])
def test_alphas_stepped_with_their_own_gradients_are_not_averaged(tmp_path, grad):
    crash, flagged, findings = check_project(tmp_path, project(grad=grad), script="search.py")
    assert crash is None and flagged == {5: "wrong"}
    assert findings[5].file == "search/alpha.py"
