"""Callbacks kept as plain functions in a list and called by a loop over it (`for cb in self.callbacks:
cb(self, epoch)`): each function named in such a list may run there. A checkpoint callback that saves on
rank 0 is the job's checkpoint (ok); the same callback never put in the list leaves no checkpoint (flagged).

Written from scratch for these tests: a PyTorch trainer taking `callbacks=[...]` functions."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

SCRIPT = '''
    """Trajectory model.  horovodrun -np 4 python train.py"""
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    import horovod.torch as hvd


    class LoopTrainer:
        def __init__(self, model, opt, callbacks=()):
            self.model, self.opt = model, opt
            self.callbacks = list(callbacks)

        def fit(self, loader, sampler, epochs):
            for epoch in range(epochs):
                sampler.set_epoch(epoch)
                for x, y in loader:
                    self.opt.zero_grad()
                    F.mse_loss(self.model(x), y).backward()
                    self.opt.step()
                for cb in self.callbacks:
                    cb(self, epoch)


    def print_epoch(trainer, epoch):
        print("finished epoch", epoch)


    def keep_weights(trainer, epoch):
        if hvd.rank() == 0:
            torch.save(trainer.model.state_dict(), f"traj-{epoch}.pt")


    hvd.init()
    torch.set_num_threads(1)
    data = TensorDataset(torch.randn(2048, 12), torch.randn(2048, 2))
    sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
    model = torch.nn.Linear(12, 2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    LoopTrainer(model, opt, callbacks=[{callbacks}]).fit(DataLoader(data, batch_size=32, sampler=sampler), sampler, 5)
'''


def step7(tmp_path, callbacks):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{callbacks}", callbacks)).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    return findings[7]


def test_a_checkpoint_function_in_the_callbacks_list_runs(tmp_path):
    f = step7(tmp_path, "print_epoch, keep_weights")
    assert f.verdict == OK and "rank 0" in f.evidence, f


def test_without_it_no_checkpoint_is_written(tmp_path):
    f = step7(tmp_path, "print_epoch")
    assert f.verdict in FLAGGED, f
