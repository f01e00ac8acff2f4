"""Train a K-member deep ensemble data-parallel.

The training function is started on N local processes by horovod.run, e.g.
    python train_ensemble.py --np 4 --data data/covtype.npz
"""
import argparse
import os

import horovod
import horovod.torch as hvd
import torch

from ens.data import RankBatches, load
from ens.loop import evaluate, make_optimizers, sync_all, train_epoch
from ens.members import Ensemble


def train(cfg):
    hvd.init()
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
    torch.manual_seed(cfg["seed"] + 1000 * hvd.rank())  # dropout noise may differ per rank

    x_tr, y_tr, x_te, y_te = load(cfg["data"])
    batches = RankBatches(x_tr, y_tr, cfg["global_batch"], hvd.rank(), hvd.size(), seed=cfg["seed"])

    ens = Ensemble(cfg["members"], x_tr.shape[1], int(y_tr.max()) + 1)
    # lr was tuned for the global batch of 1024, which does not change with the number of ranks
    opts = make_optimizers(ens, lr=cfg["lr"], wd=cfg["wd"])
    sync_all(ens, opts)

    for epoch in range(cfg["epochs"]):
        loss = train_epoch(ens, opts, batches)
        if hvd.rank() == 0:
            # full test set, evaluated by rank 0 only
            m = evaluate(ens, x_te, y_te)
            print(f"epoch {epoch:3d} train {loss:.4f} test nll {m['nll']:.4f} acc {m['acc']:.4f}")
            torch.save(ens.state_dict(), cfg["out"])
    return hvd.rank()


def cli():
    ap = argparse.ArgumentParser()
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--data", default="data/covtype.npz")
    ap.add_argument("--members", type=int, default=5)
    ap.add_argument("--global-batch", dest="global_batch", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--wd", type=float, default=1e-4)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="ensemble.pt")
    return vars(ap.parse_args())


if __name__ == "__main__":
    cfg = cli()
    horovod.run(train, args=(cfg,), num_proc=cfg["np"], use_gloo=True)
