"""12-lead ECG superclass classifier, data-parallel with Horovod.

    horovodrun -np 4 -H localhost:4 python train_hvd.py --data /scratch/ptbxl --amp
"""
import argparse
import math
import os

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from ecg import utils
from ecg.dataset import ECGRecords
from ecg.model import ResNet1d

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/ptbxl")
parser.add_argument("--out", default="runs/resnet1d")
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--batch-size", type=int, default=64, help="per worker")
parser.add_argument("--base-lr", type=float, default=1e-3)
parser.add_argument("--warmup-epochs", type=float, default=2)
parser.add_argument("--clip-grad", type=float, default=1.0)
parser.add_argument("--val-every", type=int, default=2)
parser.add_argument("--amp", action="store_true", default=False)
parser.add_argument("--fp16-allreduce", action="store_true", default=False)
parser.add_argument("--no-cuda", action="store_true", default=False)
parser.add_argument("--workers", type=int, default=4)


def main():
    args = parser.parse_args()
    use_cuda = torch.cuda.is_available() and not args.no_cuda

    hvd.init()
    torch.manual_seed(1234)
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    else:
        torch.set_num_threads(1)
    device = torch.device("cuda" if use_cuda else "cpu")

    train_set = ECGRecords(args.data, folds=range(1, 9), train=True)
    dev_split = ECGRecords(args.data, folds=[9])
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    dev_sampler = DistributedSampler(dev_split, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.workers, drop_last=True)
    dev_loader = DataLoader(dev_split, batch_size=2 * args.batch_size, sampler=dev_sampler,
                            num_workers=args.workers)

    net = ResNet1d().to(device)
    peak_lr = args.base_lr * hvd.size()
    adam = torch.optim.Adam(net.parameters(), lr=peak_lr)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    adam = hvd.DistributedOptimizer(adam, named_parameters=net.named_parameters(), compression=compression)

    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(adam, root_rank=0)

    warmup_iters = int(args.warmup_epochs * len(train_loader))
    total_iters = args.epochs * len(train_loader)
    sched = torch.optim.lr_scheduler.LambdaLR(
        adam, lambda it: min(1.0, (it + 1) / max(1, warmup_iters)) *
        0.5 * (1 + math.cos(math.pi * min(it, total_iters) / total_iters)))
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    best_auc = 0.0
    for epoch in range(args.epochs):
        net.train()
        train_sampler.set_epoch(epoch)
        running, seen = 0.0, 0
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            adam.zero_grad()
            if args.amp:
                with torch.autocast(device_type=device.type, dtype=torch.float16):
                    loss = F.binary_cross_entropy_with_logits(net(x), y)
                scaler.scale(loss).backward()
                scaler.unscale_(adam)
                torch.nn.utils.clip_grad_norm_(net.parameters(), args.clip_grad)
                scaler.step(adam)
                scaler.update()
            else:
                loss = F.binary_cross_entropy_with_logits(net(x), y)
                loss.backward()
                adam.synchronize()
                torch.nn.utils.clip_grad_norm_(net.parameters(), args.clip_grad)
                with adam.skip_synchronize():
                    adam.step()
            sched.step()
            running += loss.item() * x.size(0)
            seen += x.size(0)

        train_loss = utils.metric_average(running / seen, "train_loss")
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d}  train bce {train_loss:.4f}  lr {sched.get_last_lr()[0]:.2e}")

        if (epoch + 1) % args.val_every == 0 or epoch + 1 == args.epochs:
            net.eval()
            scores, targets, dev_loss, n = [], [], 0.0, 0
            with torch.no_grad():
                for x, y in dev_loader:
                    logits = net(x.to(device))
                    dev_loss += F.binary_cross_entropy_with_logits(logits, y.to(device), reduction="sum").item()
                    n += y.numel()
                    scores.append(torch.sigmoid(logits).cpu().numpy())
                    targets.append(y.numpy())
            dev_loss = utils.metric_average(dev_loss / n, "dev_loss")
            all_scores = utils.gather_concat(np.concatenate(scores), "dev_scores")
            all_targets = utils.gather_concat(np.concatenate(targets), "dev_targets")
            auc = utils.macro_auroc(all_scores, all_targets)
            if hvd.rank() == 0:
                print(f"           dev bce {dev_loss:.4f}  macro AUROC {auc:.4f}")
                if auc > best_auc:
                    best_auc = auc
                    utils.save_weights(net, adam, epoch, os.path.join(args.out, "best"))
        if hvd.rank() == 0 and (epoch + 1) % 10 == 0:
            utils.save_weights(net, adam, epoch, args.out)


if __name__ == "__main__":
    main()
