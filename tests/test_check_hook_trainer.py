"""Hook-based trainers run their hooks by name (`getattr(h, name)(self)` in `call_hook("after_epoch")`) or by
a loop over a callbacks list (`for cb in self.callbacks: cb.on_epoch_end(self)`). Each hook object made
runs its method of that name, with the trainer as its argument. So a checkpoint hook that returns unless
`trainer.is_master` (set from `hvd.rank() == 0`) writes on rank 0 only (ok). The same hook on a trainer whose
`is_master` is always True writes on every rank (flagged).

Written from scratch for these tests: a small PyTorch project with a trainer package, as research groups
write them."""
import textwrap

import pytest

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

TRAINER = '''
    import torch.nn.functional as F


    class Trainer:
        def __init__(self, model, optimizer, loader, hooks=(), is_master=True):
            self.model, self.optimizer, self.loader = model, optimizer, loader
            self.hooks = sorted(hooks, key=lambda h: h.priority)
            self.is_master = is_master
            self.epoch = 0

        def call_hook(self, name):
            {dispatch}

        def run(self, epochs):
            for epoch in range(epochs):
                self.epoch = epoch
                for x, y in self.loader:
                    self.optimizer.zero_grad()
                    F.cross_entropy(self.model(x), y).backward()
                    self.optimizer.step()
                self.call_hook("{hook}")
'''

HOOKS = '''
    import os

    import torch


    class Hook:
        priority = 50

        def {hook}(self, trainer):
            pass


    class CheckpointHook(Hook):
        priority = 90

        def __init__(self, work_dir):
            self.work_dir = work_dir

        def {hook}(self, trainer):
            if not trainer.is_master:
                return
            os.makedirs(self.work_dir, exist_ok=True)
            torch.save(trainer.model.state_dict(), os.path.join(self.work_dir, "latest.pth"))
'''

TRAIN = '''
    """Image classifier.  horovodrun -np 4 python train.py"""
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    import horovod.torch as hvd

    from labkit.hooks import CheckpointHook
    from labkit.trainer import Trainer

    hvd.init()
    torch.set_num_threads(1)
    data = TensorDataset(torch.randn(2048, 16), torch.randint(0, 4, (2048,)))
    sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    model = torch.nn.Linear(16, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.05 * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    {hooks_line}
    trainer = Trainer(model, opt, loader, hooks=hooks, is_master={master})
    trainer.run(10)
'''

BY_NAME = "for h in self.hooks:\n                getattr(h, name)(self)"
BY_LOOP = "for h in self.hooks:\n                if name == \"{hook}\":\n                    h.{hook}(self)"


def step7(tmp_path, dispatch, master, hook="after_epoch", hooks_line='hooks = [CheckpointHook("work")]'):
    pkg = tmp_path / "labkit"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "trainer.py").write_text(textwrap.dedent(TRAINER.replace("{dispatch}", dispatch).replace("{hook}", hook)))
    (pkg / "hooks.py").write_text(textwrap.dedent(HOOKS.replace("{hook}", hook)))
    train = TRAIN.replace("{master}", master).replace("{hooks_line}", hooks_line)
    (tmp_path / "train.py").write_text(textwrap.dedent(train).lstrip("\n"))
    findings, _, _ = analyze(str(tmp_path / "train.py"), root=str(tmp_path))
    return findings[7]


@pytest.mark.parametrize("dispatch", [BY_NAME, BY_LOOP], ids=["getattr", "loop"])
@pytest.mark.parametrize("hook", ["after_epoch", "on_epoch_end"])
def test_a_hook_saving_on_the_master_trainer_writes_on_rank_0(tmp_path, dispatch, hook):
    # an on_* hook that no code calls by name is also walked where it is made, its `trainer` unbound there:
    # the walk that hands it the trainer says who writes
    f = step7(tmp_path, dispatch, "hvd.rank() == 0", hook)
    assert f.verdict == OK and "rank 0" in f.evidence, f


@pytest.mark.parametrize("dispatch", [BY_NAME, BY_LOOP], ids=["getattr", "loop"])
def test_a_hook_on_a_trainer_that_is_always_master_writes_on_every_rank(tmp_path, dispatch):
    f = step7(tmp_path, dispatch, "True")
    assert f.verdict in FLAGGED, f


def test_a_hook_added_on_rank_0_only_writes_on_rank_0(tmp_path):
    # the trainer's loop over its hooks cannot see that the list holds the checkpoint hook on rank 0 only;
    # the hook walked where it is added, under the rank test, can
    line = 'hooks = []\n    if hvd.rank() == 0:\n        hooks.append(CheckpointHook("work"))'
    f = step7(tmp_path, BY_NAME, "True", hook="on_epoch_end", hooks_line=line)
    assert f.verdict == OK, f
