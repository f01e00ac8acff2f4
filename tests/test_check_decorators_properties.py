"""A project decorator that runs its function on rank 0 only, and an LR computed by a config property.

- `@on_rank0` wraps `save_checkpoint` so that its wrapper calls it under `if hvd.rank() == 0:`: the walk
  enters the function under that condition, so rank 0 alone writes (step 7). A decorator that only times
  the call leaves every rank writing.
- `cfg.peak_lr` is a property returning `self.base_lr * self.global_batch / 256`, itself a property of
  `self.world_size`, which the script sets to hvd.size(): the LR grows with the ranks (step 4). Without
  the world size in the global batch, it does not.

Written from scratch for these tests: a benchmark-style image classifier with its config and run helpers in
package modules."""
from hvdkit.check import FLAGGED, OK, UNKNOWN

from crash_scripts import check_project

ENTRY = '''
    """Reference-style run.  horovodrun -np 8 python run.py --config cfg.json"""
    import argparse
    import os

    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd

    from bench.config import RunConfig
    from bench.runtime import setup, {decorator}


    @{decorator}
    def save_checkpoint(path, model, epoch):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        torch.save({"model": model.state_dict(), "epoch": epoch}, path)


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--config", default=None)
        ap.add_argument("--ckpt", default="out/last.pt")
        args = ap.parse_args()
        rank, world = setup()
        cfg = RunConfig.from_json(args.config) if args.config else RunConfig()
        cfg.world_size = world
        torch.manual_seed(cfg.seed)
        x = torch.randn(4096, 3 * 8 * 8)
        y = (x[:, 0] > 0).long()
        x, y = x[rank::world], y[rank::world]
        model = torch.nn.Sequential(torch.nn.Linear(192, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
        opt = torch.optim.SGD(model.parameters(), lr=cfg.peak_lr, momentum=0.9)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        for epoch in range(cfg.epochs):
            for i in range(0, len(x) - cfg.local_batch + 1, cfg.local_batch):
                opt.zero_grad()
                F.cross_entropy(model(x[i:i + cfg.local_batch]), y[i:i + cfg.local_batch]).backward()
                opt.step()
            save_checkpoint(args.ckpt, model, epoch)


    if __name__ == "__main__":
        main()
'''

CONFIG = '''
    import json
    from dataclasses import dataclass


    @dataclass
    class RunConfig:
        local_batch: int = 64
        world_size: int = 1
        base_lr: float = 0.1
        epochs: int = 3
        seed: int = 0

        @property
        def global_batch(self):
            return {global_batch}

        @property
        def peak_lr(self):
            return self.base_lr * self.global_batch / 256

        @classmethod
        def from_json(cls, path):
            with open(path) as fh:
                return cls(**json.load(fh))
'''

RUNTIME = '''
    import functools
    import time

    import torch
    import horovod.torch as hvd


    def setup():
        hvd.init()
        torch.set_num_threads(1)
        return hvd.rank(), hvd.size()


    def on_rank0(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if hvd.rank() == 0:
                return fn(*args, **kwargs)
            return None
        return wrapper


    def timed(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            t0 = time.time()
            out = fn(*args, **kwargs)
            print(f"{fn.__name__}: {time.time() - t0:.2f}s")
            return out
        return wrapper
'''

WITH_WORLD = "self.local_batch * self.world_size"


def findings(tmp_path, decorator="on_rank0", global_batch=WITH_WORLD):
    files = {"run.py": ENTRY.replace("{decorator}", decorator), "bench/__init__.py": "",
             "bench/config.py": CONFIG.replace("{global_batch}", global_batch), "bench/runtime.py": RUNTIME}
    return check_project(tmp_path, files, script="run.py")[2]


def test_a_save_decorated_to_run_on_rank_0_is_rank_0s(tmp_path):
    got = findings(tmp_path)
    assert got[7].verdict == OK and "rank 0 writes" in got[7].evidence, got[7]


def test_a_save_decorated_only_to_be_timed_runs_on_every_rank(tmp_path):
    assert findings(tmp_path, decorator="timed")[7].verdict in FLAGGED


def test_an_lr_from_a_property_of_the_world_size_is_scaled(tmp_path):
    got = findings(tmp_path)
    assert got[4].verdict == OK and "scaled by hvd.size()" in got[4].evidence, got[4]


def test_an_lr_from_a_property_of_the_local_batch_is_not(tmp_path):
    assert findings(tmp_path, global_batch="self.local_batch")[4].verdict in FLAGGED


def test_with_the_modules_absent_both_are_cannot_tell(tmp_path):
    """The entry script alone (its package's modules not there): the decorator may run the save on rank 0
    only, and the config's class may scale the LR; neither is flagged."""
    files = {"run.py": ENTRY.replace("{decorator}", "on_rank0"), "bench/__init__.py": ""}
    got = check_project(tmp_path, files, script="run.py")[2]
    assert got[7].verdict == UNKNOWN and "on_rank0" in got[7].evidence, got[7]
    assert got[4].verdict == UNKNOWN and "RunConfig" in got[4].evidence, got[4]


def test_an_absent_config_never_told_the_size_leaves_the_lr_unscaled(tmp_path):
    """Without `cfg.world_size = world`, nothing hands the absent config the number of ranks: its LR is what
    the script sees, unscaled (the corpus's labels read such a config's LR as given)."""
    entry = ENTRY.replace("{decorator}", "on_rank0").replace("        cfg.world_size = world\n", "")
    files = {"run.py": entry, "bench/__init__.py": ""}
    assert check_project(tmp_path, files, script="run.py")[2][4].verdict in FLAGGED
