"""Grid search over architecture x learning rate for the slice segmentation task.

horovodrun -np 4 python search.py --data /scratch/liver_slices --archs unet_small fcn --lrs 1e-4 3e-4 1e-3
"""
import argparse
import itertools
import json
import logging
import os

import torch
import horovod.torch as hvd

from hpo.registry import create
from hpo.data import make_loader
from hpo.trainer import Trainer


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--archs", nargs="+", default=["unet_small"])
    ap.add_argument("--lrs", nargs="+", type=float, default=[1e-4, 3e-4, 1e-3])
    ap.add_argument("--batch-size", type=int, default=8, help="per GPU")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--patience", type=int, default=5)
    ap.add_argument("--out", default="search_out")
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(message)s")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader, train_sampler = make_loader(args.data, "train", args.batch_size, shuffle=True)
    val_loader, _ = make_loader(args.data, "val", args.batch_size, shuffle=False)

    results = []
    for arch, lr in itertools.product(args.archs, args.lrs):
        run_dir = os.path.join(args.out, f"{arch}_lr{lr:g}")
        os.makedirs(run_dir, exist_ok=True)
        torch.manual_seed(0)
        model = create(arch).to(device)
        optimizer = torch.optim.Adam(model.parameters(), lr=lr * hvd.size())
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)

        trainer = Trainer(model, optimizer, train_loader, train_sampler, val_loader, device, run_dir)
        best = trainer.fit(args.epochs, args.patience)
        results.append({"arch": arch, "lr": lr, "best_dice": best})
        if hvd.rank() == 0:
            with open(os.path.join(run_dir, "result.json"), "w") as f:
                json.dump(results[-1], f)

    if hvd.rank() == 0:
        results.sort(key=lambda r: -r["best_dice"])
        with open(os.path.join(args.out, "leaderboard.json"), "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
