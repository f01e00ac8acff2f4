"""Train PSMNet-lite on KITTI-2015-style stereo pairs with Horovod.

    horovodrun -np 8 python train.py --data /datasets/kitti15_npz --epochs 300
"""
import argparse
import os
import time

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import horovod.torch as hvd

from psmlite import dist
from psmlite.data import StereoPairs, list_frames, partition
from psmlite.metrics import epe_and_d1
from psmlite.model import PSMNetLite


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/kitti15_npz")
    p.add_argument("--maxdisp", type=int, default=64)
    p.add_argument("--global-batch", type=int, default=32, help="summed over all workers")
    p.add_argument("--lr", type=float, default=1e-3, help="lr for the global batch")
    p.add_argument("--epochs", type=int, default=300)
    p.add_argument("--save-every", type=int, default=20)
    p.add_argument("--savedir", default="checkpoints")
    p.add_argument("--resume", default="")
    return p.parse_args()


def smooth_l1_disp(pred, gt, max_disp):
    mask = (gt > 0) & (gt < max_disp)
    return F.smooth_l1_loss(pred[mask], gt[mask])


def evaluate(model, loader, device, max_disp):
    model.eval()
    epe_sum = d1_sum = n_pix = 0.0
    with torch.no_grad():
        for left, right, disp in loader:
            left, right, disp = left.to(device), right.to(device), disp.to(device)
            e, d, n = epe_and_d1(model(left, right), disp, max_disp)
            epe_sum, d1_sum, n_pix = epe_sum + e, d1_sum + d, n_pix + n
    epe_sum = dist.all_sum(epe_sum, "val.epe")
    d1_sum = dist.all_sum(d1_sum, "val.d1")
    n_pix = dist.all_sum(n_pix, "val.npix")
    return epe_sum / max(n_pix, 1), d1_sum / max(n_pix, 1)


def main():
    args = get_args()
    device = dist.setup()
    world, rank = hvd.size(), hvd.rank()

    train_files = partition(list_frames(args.data, "training"), rank, world)
    val_files = partition(list_frames(args.data, "validation"), rank, world)
    per_worker = max(1, args.global_batch // world)
    train_loader = DataLoader(StereoPairs(os.path.join(args.data, "training"), train_files),
                              batch_size=per_worker, shuffle=True, num_workers=4, drop_last=True)
    val_loader = DataLoader(StereoPairs(os.path.join(args.data, "validation"), val_files),
                            batch_size=per_worker, shuffle=False, num_workers=2)

    model = PSMNetLite(args.maxdisp).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.999))
    start_epoch = 0
    if args.resume and dist.is_root():
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch = ckpt["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    dist.sync_model_and_optimizer(model, optimizer)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    for epoch in range(start_epoch, args.epochs):
        for g in optimizer.param_groups:
            g["lr"] = args.lr if epoch < 200 else args.lr * 0.1
        model.train()
        t0 = time.time()
        for left, right, disp in train_loader:
            left, right, disp = left.to(device), right.to(device), disp.to(device)
            optimizer.zero_grad()
            loss = smooth_l1_disp(model(left, right), disp, args.maxdisp)
            loss.backward()
            optimizer.step()
        epe, d1 = evaluate(model, val_loader, device, args.maxdisp)
        if dist.is_root():
            print(f"epoch {epoch:03d}  loss {loss.item():.3f}  EPE {epe:.3f}  D1 {100 * d1:.2f}%  "
                  f"({time.time() - t0:.0f}s)", flush=True)
            if (epoch + 1) % args.save_every == 0 or epoch + 1 == args.epochs:
                os.makedirs(args.savedir, exist_ok=True)
                torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
                           os.path.join(args.savedir, f"psmlite_{epoch:03d}.tar"))


if __name__ == "__main__":
    main()
