"""Curriculum training (easy -> hard) with a pacing function, Horovod edition.

Difficulty scores come from `score_difficulty.py` (loss of a small probe network),
stored next to the data as `<data>.scores.npy`.

    horovodrun -np 4 python train.py --data data/svhn.npz --pacing root --epochs 40
"""
import argparse
import logging
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s", level=logging.INFO)
log = logging.getLogger("curriculum")

PACING = {
    "linear": lambda t, T, s0: min(1.0, s0 + (1 - s0) * t / T),
    "root": lambda t, T, s0: min(1.0, math.sqrt(s0 ** 2 + (1 - s0 ** 2) * t / T)),
    "step": lambda t, T, s0: min(1.0, s0 * 2 ** int(4 * t / T)),
}


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/svhn.npz")
    ap.add_argument("--pacing", choices=sorted(PACING), default="root")
    ap.add_argument("--start-frac", type=float, default=0.2)
    ap.add_argument("--ramp-epochs", type=int, default=20)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=128, help="per worker")
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--wd", type=float, default=5e-4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--save", default="ckpt/curriculum.pt")
    return ap.parse_args()


class SmallCNN(nn.Module):
    def __init__(self, in_ch=3, n_classes=10):
        super().__init__()
        self.c1 = nn.Conv2d(in_ch, 32, 3, padding=1)
        self.c2 = nn.Conv2d(32, 64, 3, padding=1)
        self.c3 = nn.Conv2d(64, 128, 3, padding=1)
        self.fc = nn.Linear(128, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.adaptive_avg_pool2d(F.relu(self.c3(x)), 1).flatten(1)
        return self.fc(x)


def curriculum_pool(order, epoch, args):
    frac = PACING[args.pacing](epoch, args.ramp_epochs, args.start_frac)
    return order[: max(1, int(frac * len(order)))]


def worker_indices(pool, epoch, args):
    # shuffle the unlocked part of the curriculum, then deal it out round-robin
    rng = np.random.default_rng(args.seed + hvd.rank() + 1000 * epoch)
    pool = rng.permutation(pool)
    n = len(pool) // hvd.size() * hvd.size()
    return pool[:n][hvd.rank()::hvd.size()]


def batches(x, y, idx, bs):
    for i in range(0, len(idx), bs):
        j = idx[i:i + bs]
        yield torch.from_numpy(x[j]).float().div_(255), torch.from_numpy(y[j]).long()


def evaluate(model, x, y, device):
    model.eval()
    idx = np.arange(hvd.rank(), len(y), hvd.size())
    correct = torch.zeros(2)
    with torch.no_grad():
        for xb, yb in batches(x, y, idx, 512):
            pred = model(xb.to(device)).argmax(1).cpu()
            correct += torch.tensor([(pred == yb).sum().item(), len(yb)], dtype=torch.float)
    correct = hvd.allreduce(correct, op=hvd.Sum, name="val_counts")
    return (correct[0] / correct[1]).item()


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(args.seed)
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    if hvd.rank() != 0:
        log.setLevel(logging.WARNING)

    d = np.load(args.data)
    x_tr, y_tr, x_te, y_te = d["x_train"], d["y_train"], d["x_test"], d["y_test"]
    scores = np.load(args.data.replace(".npz", ".scores.npy"))
    order = np.argsort(scores, kind="stable")  # easiest first

    model = SmallCNN(in_ch=x_tr.shape[1], n_classes=int(y_tr.max()) + 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9,
                                weight_decay=args.wd, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    start_epoch = 0
    if os.path.exists(args.save):
        state = torch.load(args.save, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optim"])
        scheduler.load_state_dict(state["sched"])
        start_epoch = state["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(start_epoch, args.epochs):
        model.train()
        pool = curriculum_pool(order, epoch, args)
        idx = worker_indices(pool, epoch, args)
        t0 = time.time()
        for xb, yb in batches(x_tr, y_tr, idx, args.batch_size):
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
        scheduler.step()
        acc = evaluate(model, x_te, y_te, device)
        log.info("epoch %d pool=%d/%d loss %.3f test_acc %.4f (%.0fs)",
                 epoch, len(pool), len(order), loss.item(), acc, time.time() - t0)
        if hvd.rank() == 0:
            os.makedirs(os.path.dirname(args.save) or ".", exist_ok=True)
            torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(),
                        "sched": scheduler.state_dict(), "epoch": epoch}, args.save)


if __name__ == "__main__":
    main()
