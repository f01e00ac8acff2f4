"""CGCNN formation-energy training with Horovod (PNNL cluster, Slurm + mpirun).

usage: mpirun -np 16 python main.py --data /qfs/projects/matsci/mp_graphs_2023.npz
"""
import argparse
import time

import numpy as np
import torch
from torch.utils.data import DataLoader
import horovod.torch as hvd

from cgnn.data import CrystalGraphs, num_graphs, split_indices
from cgnn.graph import collate_graphs
from cgnn.model import CGCNN
from cgnn.trainer import Trainer
from cgnn.utils import save_checkpoint


def get_args():
    p = argparse.ArgumentParser(description="CGCNN / Horovod")
    p.add_argument("--data", required=True)
    p.add_argument("--out", default="checkpoints")
    p.add_argument("--epochs", type=int, default=300)
    p.add_argument("--batch-size", type=int, default=128, help="graphs per rank")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--val-frac", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=4)
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed + hvd.rank())   # decorrelate per-rank randomness
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")

    train_idx, val_idx = split_indices(num_graphs(args.data), args.val_frac, hvd.rank(), hvd.size())
    train_set = CrystalGraphs(args.data, train_idx)
    val_set = CrystalGraphs(args.data, val_idx)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True,
                              collate_fn=collate_graphs, num_workers=args.workers)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, collate_fn=collate_graphs,
                            num_workers=args.workers)
    normalizer = (float(train_set.target.mean()), float(train_set.target.std()))
    normalizer = hvd.broadcast_object(normalizer, root_rank=0, name="normalizer")

    model = CGCNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9, weight_decay=1e-5)
    trainer = Trainer(model, optimizer, device, normalizer)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(trainer.optimizer, milestones=[100, 200], gamma=0.1)

    best_mae = float("inf")
    for epoch in range(args.epochs):
        t0 = time.time()
        train_loss = trainer.train_epoch(train_loader)
        val_mae = trainer.validate(val_loader)
        scheduler.step()
        is_best = val_mae < best_mae
        best_mae = min(val_mae, best_mae)
        if hvd.rank() == 0:
            print(f"[{epoch:03d}] train_loss={train_loss:.4f} val_mae={val_mae:.4f} eV/atom "
                  f"best={best_mae:.4f} ({time.time() - t0:.0f}s)", flush=True)
        save_checkpoint({"epoch": epoch + 1, "state_dict": trainer.model.state_dict(),
                         "optimizer": trainer.optimizer.state_dict(), "best_mae": best_mae,
                         "normalizer": normalizer}, args.out, is_best)


if __name__ == "__main__":
    main()
