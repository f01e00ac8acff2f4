#!/usr/bin/env python
# MNIST CNN for our PBS cluster.
#   qsub -l select=2:ncpus=32:ngpus=4:mpiprocs=4 -l walltime=02:00:00 run_pbs.sh
# run_pbs.sh:  mpirun -np 8 --hostfile $PBS_NODEFILE python train_pbs.py --epochs 30
# If the walltime is nearly used up, we save and exit with code 99 so run_pbs.sh re-submits.
import argparse
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torchvision import transforms
import horovod.torch as hvd

from cluster import PBSJob
from trainer.optim import build_optimizer
from trainer.loop import Trainer

RESUBMIT_EXIT = 99


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)
        self.drop = nn.Dropout(0.25)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.drop(torch.flatten(x, 1))
        x = self.drop(F.relu(self.fc1(x)))
        return F.log_softmax(self.fc2(x), dim=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-root", default=os.path.expanduser("~/datasets"))
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--ckpt", default="mnist_ckpt.pt")
    parser.add_argument("--margin", type=int, default=600, help="seconds of walltime to keep for saving")
    args = parser.parse_args()

    job = PBSJob()
    hvd.init()
    if hvd.rank() == 0:
        print(f"PBS job {job.job_id} on {len(job.hosts())} host(s), {hvd.size()} ranks", flush=True)

    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")

    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_set = torchvision.datasets.MNIST(args.data_root, train=True, download=False, transform=tf)
    test_set = torchvision.datasets.MNIST(args.data_root, train=False, download=False, transform=tf)
    train_sampler = torch.utils.data.distributed.DistributedSampler(train_set, hvd.size(), hvd.rank())
    test_sampler = torch.utils.data.distributed.DistributedSampler(test_set, hvd.size(), hvd.rank(), shuffle=False)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=1000, sampler=test_sampler)

    model = Net().to(device)
    optimizer = build_optimizer(model, lr=args.lr * hvd.size())

    start_epoch = 0
    if os.path.exists(args.ckpt):
        state = torch.load(args.ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        start_epoch = state["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    trainer = Trainer(model, optimizer, device)
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        trainer.train_epoch(train_loader, epoch)
        loss, acc = trainer.evaluate(test_loader)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: test loss {loss:.4f} acc {100 * acc:.2f}%", flush=True)
            torch.save({"model": model.state_dict(), "epoch": epoch}, args.ckpt)
        if job.near_end(args.margin):
            if hvd.rank() == 0:
                print(f"{job.seconds_left():.0f}s of walltime left, stopping for resubmission", flush=True)
            sys.exit(RESUBMIT_EXIT)


if __name__ == "__main__":
    main()
