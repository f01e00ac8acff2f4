"""Crowd counting with a density-map regressor (CSRNet-style, VGG front end).

Horovod port used for the ShanghaiTech-B / JHU runs on the Izar nodes. The gradients are SUMMED
over workers (op=hvd.Sum) instead of averaged, so the per-sample lr of the single-GPU recipe
(1e-7 on a density sum loss) carries over unchanged with more workers.
"""
import argparse
import glob
import os

import numpy as np
import torch
import torch.nn as nn

import horovod.torch as hvd


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--root", default="/work/cvlab/crowd/shtech_b_npz")
    p.add_argument("--epochs", type=int, default=300)
    p.add_argument("--bs", type=int, default=4, help="images per worker")
    p.add_argument("--lr", type=float, default=1e-7)
    p.add_argument("--seed", type=int, default=2021)
    p.add_argument("--save", default="ckpt_crowd")
    p.add_argument("--eval-every", type=int, default=5)
    return p.parse_args()


class DensityNet(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256]
        layers, c = [], 3
        for v in cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(2))
            else:
                layers += [nn.Conv2d(c, v, 3, padding=1), nn.ReLU(inplace=True)]
                c = v
        self.frontend = nn.Sequential(*layers)
        self.backend = nn.Sequential(nn.Conv2d(c, 128, 3, padding=2, dilation=2), nn.ReLU(inplace=True),
                                     nn.Conv2d(128, 64, 3, padding=2, dilation=2), nn.ReLU(inplace=True),
                                     nn.Conv2d(64, 1, 1))

    def forward(self, x):
        return self.backend(self.frontend(x))


def load(files):
    imgs, dens = [], []
    for f in files:
        d = np.load(f)
        imgs.append(d["image"].astype(np.float32) / 255.0)
        dens.append(d["density"].astype(np.float32))  # already at 1/4 resolution
    return torch.from_numpy(np.stack(imgs)), torch.from_numpy(np.stack(dens))[:, None]


def main():
    args = get_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(args.seed)

    train_files = sorted(glob.glob(os.path.join(args.root, "train", "*.npz")))
    val_files = sorted(glob.glob(os.path.join(args.root, "test", "*.npz")))
    # same permutation on every worker (same seed), then equal-sized disjoint slices
    perm = np.random.RandomState(args.seed).permutation(len(train_files))
    per_worker = len(perm) // hvd.size()
    mine = perm[hvd.rank() * per_worker:(hvd.rank() + 1) * per_worker]
    x_train, y_train = load([train_files[i] for i in mine])

    model = DensityNet().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.95, weight_decay=5e-4)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Sum)
    crit = nn.MSELoss(reduction="sum")

    if hvd.rank() == 0:
        x_val, y_val = load(val_files)  # only rank 0 evaluates, on the whole test split
        os.makedirs(args.save, exist_ok=True)
    best_mae = float("inf")
    rng = np.random.RandomState(args.seed + 1000 * hvd.rank())
    for epoch in range(args.epochs):
        model.train()
        order = rng.permutation(len(x_train))
        for i in range(0, len(order) - args.bs + 1, args.bs):
            idx = order[i:i + args.bs]
            x, y = x_train[idx].to(dev), y_train[idx].to(dev)
            opt.zero_grad()
            loss = crit(model(x), y)
            loss.backward()
            opt.step()

        if hvd.rank() == 0 and (epoch + 1) % args.eval_every == 0:
            model.eval()
            err = []
            with torch.no_grad():
                for i in range(len(x_val)):
                    pred = model(x_val[i:i + 1].to(dev)).sum().item()
                    err.append(pred - y_val[i].sum().item())
            err = np.array(err)
            mae, mse = np.abs(err).mean(), np.sqrt((err ** 2).mean())
            print(f"epoch {epoch + 1}: MAE {mae:.2f} MSE {mse:.2f} (loss {loss.item():.1f})", flush=True)
            torch.save(model.state_dict(), os.path.join(args.save, "last.pth"))
            if mae < best_mae:
                best_mae = mae
                torch.save(model.state_dict(), os.path.join(args.save, "best.pth"))


if __name__ == "__main__":
    main()
