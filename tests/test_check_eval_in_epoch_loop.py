"""Step 8: rank 0 alone runs the model once per epoch on the whole held-out array, under `torch.no_grad()`,
inside the epoch loop that also holds the batch loop of the training's steps. That call is an evaluation of
the whole data (its metric is the job's), not a per-batch model call; evaluated on each rank's own part of
the held-out array and printed unaveraged, the metric is missing its average.

Written from scratch for these tests: a flat surrogate-model script with hand-made batches."""
import textwrap

from hvdkit.check import MISSING, OK
from hvdkit.check.static import analyze

SCRIPT = '''
    """Implosion surrogate.  mpirun -n 8 python train.py --epochs 200"""
    import argparse

    import numpy as np
    import torch
    import torch.nn as nn
    import horovod.torch as hvd


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--epochs", type=int, default=200)
        ap.add_argument("--batch", type=int, default=128)
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        rank, size = hvd.rank(), hvd.size()
        X = np.load("sims.npz")["x"]
        Y = np.load("sims.npz")["y"]
        order = np.random.default_rng(7).permutation(len(X))
        val_idx, train_idx = order[:2000], order[2000:]
        mine = train_idx[rank::size]
        {val}
        model = nn.Sequential(nn.Linear(5, 256), nn.ReLU(), nn.Linear(256, 15))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3 * size)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        loss_fn = nn.MSELoss()
        for epoch in range(args.epochs):
            model.train()
            for s in range(0, len(mine), args.batch):
                idx = mine[s:s + args.batch]
                x, y = torch.from_numpy(X[idx]).float(), torch.from_numpy(Y[idx]).float()
                opt.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()
            {guard}
                model.eval()
                with torch.no_grad():
                    val = loss_fn(model(Xval), Yval).item()
                print(f"epoch {epoch} val_mse {val:.5f}")
        if rank == 0:
            torch.save(model.state_dict(), "surrogate.pt")


    if __name__ == "__main__":
        main()
'''

WHOLE = "Xval, Yval = torch.from_numpy(X[val_idx]).float(), torch.from_numpy(Y[val_idx]).float()"
OWN = "Xval, Yval = torch.from_numpy(X[val_idx[rank::size]]).float(), torch.from_numpy(Y[val_idx[rank::size]]).float()"


def step8(tmp_path, val, guard):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{val}", val).replace("{guard}", guard)).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    return findings[8]


def test_rank_0_evaluating_the_whole_array_each_epoch_reports_the_jobs_metric(tmp_path):
    f = step8(tmp_path, WHOLE, "if rank == 0:")
    assert f.verdict == OK and "whole evaluation data" in f.evidence, f


def test_each_rank_evaluating_its_own_part_unaveraged_is_missing_the_average(tmp_path):
    f = step8(tmp_path, OWN, "if True:")
    assert f.verdict == MISSING, f
