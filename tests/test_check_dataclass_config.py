"""A configuration object whose constructor computes from Horovod: a dataclass's `__post_init__` (run by the
generated __init__, never called by name) or a class's `__init__` setting `self.batch_per_gpu = global_batch
// hvd.size()`, made through a classmethod (`return cls(**vars(args))`). Made before hvd.init(), the query
raises (Horovod 0.28.1: ValueError "Horovod has not been initialized"); made after, the per-rank batch it
computes fixes the global batch, so the LR is right unscaled; computed without the division, the LR is
missing its scaling.

Written from scratch for these tests, as a small repository: `train.py` and an `expkit` package with the
config and the data loader."""
import textwrap

from crash_scripts import check_project
from hvdkit.check import MISSING, OK, WRONG

CONFIG_DATACLASS = '''
    import argparse
    from dataclasses import dataclass, field

    import horovod.torch as hvd


    @dataclass
    class RunConfig:
        data_root: str = "data/spectra"
        epochs: int = 30
        global_batch: int = 512
        lr: float = 3e-4
        batch_per_gpu: int = field(init=False, default=0)

        def __post_init__(self):
            self.batch_per_gpu = {per_gpu}

        @classmethod
        def from_cli(cls, argv=None):
            p = argparse.ArgumentParser()
            p.add_argument("--data-root", default=cls.data_root)
            p.add_argument("--epochs", type=int, default=cls.epochs)
            p.add_argument("--global-batch", type=int, default=cls.global_batch)
            p.add_argument("--lr", type=float, default=cls.lr)
            return cls(**vars(p.parse_args(argv)))
'''

CONFIG_CLASS = '''
    import argparse

    import horovod.torch as hvd


    class RunConfig:
        def __init__(self, data_root="data/spectra", epochs=30, global_batch=512, lr=3e-4):
            self.data_root, self.epochs, self.global_batch, self.lr = data_root, epochs, global_batch, lr
            self.batch_per_gpu = {per_gpu}

        @classmethod
        def from_cli(cls, argv=None):
            p = argparse.ArgumentParser()
            p.add_argument("--epochs", type=int, default=30)
            p.add_argument("--lr", type=float, default=3e-4)
            return cls(**vars(p.parse_args(argv)))
'''

DATA = '''
    import torch
    from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


    def spectra_loader(root, batch, rank, world):
        ds = TensorDataset(torch.randn(8192, 64), torch.randint(0, 5, (8192,)))
        sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True)
        return DataLoader(ds, batch_size=batch, sampler=sampler, drop_last=True), sampler
'''

TRAIN = '''
    """Spectral classifier.  horovodrun -np 8 python train.py --epochs 30"""
    import torch
    import torch.nn as nn
    import horovod.torch as hvd

    from expkit.config import RunConfig
    from expkit.data import spectra_loader


    def main():
        {first}
        {second}
        torch.set_num_threads(1)
        loader, sampler = spectra_loader(cfg.data_root, cfg.batch_per_gpu, hvd.rank(), hvd.size())
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 5))
        # the global batch is fixed: the LR tuned for it is kept
        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        loss_fn = nn.CrossEntropyLoss()
        for epoch in range(cfg.epochs):
            sampler.set_epoch(epoch)
            total = torch.zeros(2)
            for x, y in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                total += torch.tensor([loss.item() * len(y), len(y)])
            total = hvd.allreduce(total, op=hvd.Sum)
            if hvd.rank() == 0:
                print(f"epoch {epoch} loss {total[0] / total[1]:.4f}")
                torch.save(model.state_dict(), "spectra.pt")


    if __name__ == "__main__":
        main()
'''

DIVIDED = "max(1, self.global_batch // hvd.size())"
MADE, INIT = "cfg = RunConfig.from_cli()", "hvd.init()"


def check(tmp_path, config=CONFIG_DATACLASS, per_gpu=DIVIDED, first=INIT, second=MADE):
    files = {"train.py": TRAIN.replace("{first}", first).replace("{second}", second),
             "setup.py": "", "expkit/__init__.py": "",
             "expkit/config.py": config.replace("{per_gpu}", per_gpu), "expkit/data.py": DATA}
    return check_project(tmp_path, {k: textwrap.dedent(v).lstrip("\n") for k, v in files.items()})


def test_a_dataclass_made_before_init_queries_horovod_in_its_post_init(tmp_path):
    crash, flagged, findings = check(tmp_path, first=MADE, second=INIT)
    assert crash and crash["file"] == "expkit/config.py" and "has not been initialized" in crash["error"], crash
    assert flagged.get(1) == WRONG, findings[1]


def test_made_after_init_its_per_gpu_batch_fixes_the_global_batch(tmp_path):
    crash, flagged, findings = check(tmp_path)
    assert crash is None and not flagged, (crash, flagged)
    assert findings[4].verdict == OK and "global batch is fixed" in findings[4].evidence, findings[4]


def test_a_per_gpu_batch_that_is_the_global_one_leaves_the_lr_unscaled(tmp_path):
    _, flagged, findings = check(tmp_path, per_gpu="self.global_batch")
    assert flagged == {4: MISSING}, findings[4]


def test_a_plain_class_whose_init_divides_the_batch_fixes_it_too(tmp_path):
    crash, flagged, findings = check(tmp_path, config=CONFIG_CLASS)
    assert crash is None and not flagged, (crash, flagged, findings[4])


def test_a_plain_class_made_before_init_crashes_in_its_init(tmp_path):
    crash, _, _ = check(tmp_path, config=CONFIG_CLASS, first=MADE, second=INIT)
    assert crash and crash["file"] == "expkit/config.py", crash
