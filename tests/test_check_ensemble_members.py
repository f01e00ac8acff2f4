"""A deep ensemble trains each member with its own optimizer, `for i, m in enumerate(ensemble.members)`: a
member is a sub-module of the ensemble, so `hvd.broadcast_parameters(ensemble.state_dict())` covers it
(blind set zf, ens-lab). A member that no broadcast covers (only the first one's state sent) is wrong.

Written from scratch for these tests: an ensemble project, `train.py` and `ens/`."""
from crash_scripts import Source, check_project
from hvdkit.check import OK, WRONG

TRAIN = Source('''
    """Deep ensemble.  horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd

    from ens.loop import make_optimizers, train_epoch
    from ens.members import Ensemble


    def main():
        hvd.init()
        torch.set_num_threads(1)
        data = torch.utils.data.TensorDataset(torch.randn(4096, 20), torch.randint(0, 3, (4096,)))
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(data, batch_size=64, sampler=sampler)
        ens = Ensemble(5)
        opts = make_optimizers(ens, lr=1e-3 * hvd.size())
        hvd.broadcast_parameters(SENT, root_rank=0)
        for opt in opts:
            hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(10):
            sampler.set_epoch(epoch)
            loss = train_epoch(ens, opts, loader)
            mean = hvd.allreduce(loss)
            if hvd.rank() == 0:
                print(epoch, mean.item())
                torch.save(ens.state_dict(), "ensemble.pt")


    if __name__ == "__main__":
        main()
''')

LOOP = '''
    import torch
    import horovod.torch as hvd


    def make_optimizers(ensemble, lr):
        opts = []
        for i, m in enumerate(ensemble.members):
            opt = torch.optim.Adam(m.parameters(), lr=lr)
            named = [(f"member{i}.{n}", p) for n, p in m.named_parameters()]
            opts.append(hvd.DistributedOptimizer(opt, named_parameters=named))
        return opts


    def train_epoch(ensemble, opts, loader):
        total = torch.zeros(())
        for x, y in loader:
            for m, opt in zip(ensemble.members, opts):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(m(x), y)
                loss.backward()
                opt.step()
                total += loss.detach()
        return total / len(loader)
'''

MEMBERS = '''
    import torch


    class Ensemble(torch.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.members = torch.nn.ModuleList(
                torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
                for _ in range(n))
'''


def check(tmp_path, sent):
    files = {"train.py": TRAIN.replace("SENT", sent), "ens/__init__.py": "", "ens/loop.py": LOOP,
             "ens/members.py": MEMBERS}
    return check_project(tmp_path, files)[2][6]


def test_broadcasting_the_ensemble_covers_every_member(tmp_path):
    assert check(tmp_path, "ens.state_dict()").verdict == OK


def test_broadcasting_one_member_leaves_the_others(tmp_path):
    assert check(tmp_path, "ens.members[0].state_dict()").verdict == WRONG
