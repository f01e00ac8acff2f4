"""Step 7: a callback of a hand-written Trainer saves the best model under `if trainer.is_chief:`, where
`trainer` is the hook's argument, handed by the Trainer's `getattr(cb, hook)(self, ...)`. The pass follows
that call by name (the callback's method of that name runs, given the trainer), so `trainer.is_chief` is the
trainer's `hvd.rank() == 0`: rank 0 writes. (The callback is also walked where it is made, its `trainer`
unbound there: that walk alone would say "cannot tell", never "every rank writes".) Without any guard,
every rank writes.

Written from scratch for these tests: `train.py` with a `thesislib` package (trainer and callbacks)."""
import textwrap

from crash_scripts import check_project
from hvdkit.check import OK, WRONG

TRAINER = '''
    import torch
    import horovod.torch as hvd


    class Trainer:
        def __init__(self, model, lr, callbacks=()):
            self.model = model
            self.callbacks = list(callbacks)
            self.is_chief = hvd.rank() == 0
            opt = torch.optim.SGD(model.parameters(), lr=lr * hvd.size(), momentum=0.9)
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.opt, root_rank=0)

        def _hook(self, name, **kw):
            for cb in self.callbacks:
                getattr(cb, name)(self, **kw)

        def fit(self, loader, epochs):
            for epoch in range(epochs):
                loader.sampler.set_epoch(epoch)
                total = torch.zeros(2)
                for x, y in loader:
                    self.opt.zero_grad()
                    loss = torch.nn.functional.cross_entropy(self.model(x), y)
                    loss.backward()
                    self.opt.step()
                    total += torch.tensor([loss.item() * len(y), len(y)])
                total = hvd.allreduce(total, op=hvd.Sum)
                self._hook("on_epoch_end", epoch=epoch, logs={"loss": float(total[0] / total[1])})
'''

CALLBACKS = '''
    import math

    import torch


    class BestCheckpoint:
        def __init__(self, path):
            self.path, self.best = path, math.inf

        def on_epoch_end(self, trainer, epoch, logs):
            if logs["loss"] >= self.best:
                return
            self.best = logs["loss"]
            {guard}
                torch.save(trainer.model.state_dict(), self.path)
'''

TRAIN = '''
    """Thesis chapter 3.  horovodrun -np 4 python train.py"""
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    import horovod.torch as hvd

    from thesislib.callbacks import BestCheckpoint
    from thesislib.trainer import Trainer


    def main():
        hvd.init()
        torch.set_num_threads(1)
        ds = TensorDataset(torch.randn(4096, 20), torch.randint(0, 3, (4096,)))
        loader = DataLoader(ds, batch_size=64, sampler=DistributedSampler(ds, hvd.size(), hvd.rank()))
        model = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(), torch.nn.Linear(64, 3))
        Trainer(model, 0.01, callbacks=[BestCheckpoint("best.pt")]).fit(loader, 10)


    if __name__ == "__main__":
        main()
'''


def step7(tmp_path, guard):
    files = {"train.py": TRAIN, "setup.py": "", "thesislib/__init__.py": "", "thesislib/trainer.py": TRAINER,
             "thesislib/callbacks.py": CALLBACKS.replace("{guard}", guard)}
    _, _, findings = check_project(tmp_path, {k: textwrap.dedent(v).lstrip("\n") for k, v in files.items()})
    return findings[7]


def test_a_save_under_the_trainers_rank_flag_is_rank_0s(tmp_path):
    f = step7(tmp_path, "if trainer.is_chief:")
    assert f.verdict == OK and "rank 0" in f.evidence, f


def test_a_save_under_no_guard_is_written_by_every_rank(tmp_path):
    f = step7(tmp_path, "if True:")
    assert f.verdict == WRONG, f
