# 4x accelerated knee MRI reconstruction, U-Net baseline.
# cluster (Horovod):   horovodrun -np 4 python train.py --data /cluster/project0/fastmri/knee_npy
import argparse
import os

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd

from mrirecon.data import KneeSlices
from mrirecon.distributed import (average_scalar, get_local_rank, get_rank, get_world_size, init_distributed,
                                  is_main_process)
from mrirecon.metrics import psnr
from mrirecon.unet import ReconUNet

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/cluster/project0/fastmri/knee_npy")
parser.add_argument("--accel", type=int, default=4)
parser.add_argument("--chans", type=int, default=32)
parser.add_argument("--batch-size", type=int, default=4)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--num-workers", type=int, default=4)
parser.add_argument("--exp-dir", default="experiments/unet_4x")


def main():
    args = parser.parse_args()
    init_distributed()
    if torch.cuda.is_available():
        torch.cuda.set_device(get_local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)

    train_ds = KneeSlices(args.data, "train", accel=args.accel)
    val_ds = KneeSlices(args.data, "val", accel=args.accel, fixed_mask=True)
    train_sampler = DistributedSampler(train_ds, num_replicas=get_world_size(), rank=get_rank(), shuffle=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=get_world_size(), rank=get_rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.num_workers, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler, num_workers=args.num_workers)

    model = ReconUNet(chans=args.chans).to(device)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=args.lr * get_world_size())
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=40, gamma=0.1)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    if is_main_process():
        os.makedirs(args.exp_dir, exist_ok=True)
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        running = 0.0
        for it, (zf, target) in enumerate(train_loader):
            zf, target = zf.to(device), target.to(device)
            loss = F.l1_loss(model(zf), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
        scheduler.step()

        model.eval()
        psnr_sum, n = 0.0, 0
        with torch.no_grad():
            for zf, target in val_loader:
                psnr_sum += psnr(model(zf.to(device)), target.to(device))
                n += zf.shape[0]
        total = average_scalar(psnr_sum, "psnr_sum") * get_world_size()
        count = average_scalar(n, "psnr_n") * get_world_size()
        train_loss = average_scalar(running / max(len(train_loader), 1), "train_l1")
        if is_main_process():
            print(f"epoch {epoch:3d}  train L1 {train_loss:.5f}  val PSNR {total / count:.2f} dB", flush=True)
            torch.save({"epoch": epoch, "model": model.state_dict(), "args": vars(args)},
                       os.path.join(args.exp_dir, "model.pt"))


if __name__ == "__main__":
    main()
