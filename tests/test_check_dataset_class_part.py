"""Step 8: a data set class of the project that keeps this rank's files makes a part wherever it is built.

`ShardedH5(root, "val")` runs the same `__init__` as `ShardedH5(root, "train")`, which keeps
`files[hvd.rank()::hvd.size()]`: the validation loader reads this rank's files only, so rank 0's validation
error is a part's and must be averaged. The same class given `keep_all=True` for validation reads every file:
rank 0's error is the job's. Written from scratch for these tests: a molecular-property project whose data
set and training engine live in package modules."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Formation energy regression.  horovodrun -np 8 python train.py --epochs 20"""
    import argparse

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader

    from molprop.data import ShardedH5
    from molprop.engine import Engine


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--root", default="data/h5")
        ap.add_argument("--epochs", type=int, default=20)
        ap.add_argument("--lr", type=float, default=5e-4)
        args = ap.parse_args()
        hvd.init()
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        train = DataLoader(ShardedH5(args.root, "train"), batch_size=64, shuffle=True, drop_last=True)
        val = DataLoader({val}, batch_size=256)
        model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.SiLU(), torch.nn.Linear(64, 1))
        opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        engine = Engine(model, opt)
        for epoch in range(args.epochs):
            engine.train_epoch(train)
            mae = engine.validate(val)
            if hvd.rank() == 0:
                print(f"epoch {epoch} val MAE {mae:.4f} eV")
                torch.save(model.state_dict(), "molprop.pt")


    if __name__ == "__main__":
        main()
'''

DATA = '''
    import glob
    import os

    import numpy as np
    import torch
    import horovod.torch as hvd
    from torch.utils.data import Dataset


    class ShardedH5(Dataset):
        def __init__(self, root, split, keep_all=False):
            files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
            if not keep_all:
                files = files[hvd.rank()::hvd.size()]
            blobs = [np.load(name) for name in files]
            self.x = torch.from_numpy(np.concatenate([b["x"] for b in blobs]).astype(np.float32))
            self.y = torch.from_numpy(np.concatenate([b["y"] for b in blobs]).astype(np.float32))

        def __len__(self):
            return len(self.y)

        def __getitem__(self, i):
            return self.x[i], self.y[i]
'''

ENGINE = '''
    import torch
    import horovod.torch as hvd


    class Engine:
        def __init__(self, model, opt):
            self.model, self.opt = model, opt
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(opt, root_rank=0)

        def train_epoch(self, loader):
            self.model.train()
            for x, y in loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x).squeeze(-1), y).backward()
                self.opt.step()

        @torch.no_grad()
        def validate(self, loader):
            self.model.eval()
            err, n = 0.0, 0
            for x, y in loader:
                err += (self.model(x).squeeze(-1) - y).abs().sum().item()
                n += len(y)
            {reduce}
            return err / n
'''

SUM_BOTH = ('err = hvd.allreduce(torch.tensor(err), op=hvd.Sum).item()\n'
            '            n = hvd.allreduce(torch.tensor(n), op=hvd.Sum).item()')


def step8(tmp_path, val, reduce=None):
    files = {"train.py": ENTRY.replace("{val}", val), "molprop/__init__.py": "", "molprop/data.py": DATA,
             "molprop/engine.py": ENGINE.replace("{reduce}", reduce or "pass")}
    return check_project(tmp_path, files)[2][8]


def test_validation_on_this_ranks_files_never_averaged_is_flagged(tmp_path):
    f = step8(tmp_path, 'ShardedH5(args.root, "val")')
    assert f.verdict in FLAGGED, f


def test_validation_on_this_ranks_files_summed_over_ranks_is_ok(tmp_path):
    f = step8(tmp_path, 'ShardedH5(args.root, "val")', SUM_BOTH)
    assert f.verdict == OK, f


def test_validation_on_every_file_is_the_jobs(tmp_path):
    f = step8(tmp_path, 'ShardedH5(args.root, "val", keep_all=True)')
    assert f.verdict == OK and "whole evaluation data" in f.evidence, f
