"""Siamese network with contrastive loss; pair verification accuracy on held-out classes.

Mixed precision (torch.cuda.amp) + Horovod. Resumes from --ckpt if it exists.
"""
import argparse

import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from siamese import checkpoint
from siamese.loss import ContrastiveLoss, verification_hits
from siamese.model import SiameseNet
from siamese.pairs import PairDataset

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/omniglot28.npz")
ap.add_argument("--train-pairs", type=int, default=200_000)
ap.add_argument("--test-pairs", type=int, default=10_000)
ap.add_argument("--batch-size", type=int, default=128, help="per GPU")
ap.add_argument("--base-lr", type=float, default=0.01, help="for one GPU; multiplied by hvd.size()")
ap.add_argument("--epochs", type=int, default=20)
ap.add_argument("--warmup-epochs", type=int, default=2)
ap.add_argument("--margin", type=float, default=1.0)
ap.add_argument("--ckpt", default="ckpt/siamese.pt")
ap.add_argument("--no-amp", action="store_true")


def run(args):
    hvd.init()
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if cuda else "cpu")
    use_amp = cuda and not args.no_amp

    blob = np.load(args.data)
    train_ds = PairDataset(blob["x_train"], blob["y_train"], args.train_pairs, seed=0)
    test_ds = PairDataset(blob["x_test"], blob["y_test"], args.test_pairs, seed=1)
    train_sampler = DistributedSampler(train_ds, hvd.size(), hvd.rank(), shuffle=True, seed=42)
    test_sampler = DistributedSampler(test_ds, hvd.size(), hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, args.batch_size, sampler=train_sampler, num_workers=2, drop_last=True)
    test_loader = DataLoader(test_ds, 512, sampler=test_sampler)

    model = SiameseNet(in_ch=blob["x_train"].shape[1]).to(device)
    criterion = ContrastiveLoss(args.margin)
    opt = torch.optim.SGD(model.parameters(), lr=args.base_lr * hvd.size(), momentum=0.9, weight_decay=5e-4)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), compression=hvd.Compression.fp16)
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
    warm = len(train_loader) * args.warmup_epochs
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, warm)))

    start_epoch = checkpoint.restore(args.ckpt, model, opt, scaler)
    sched.last_epoch = start_epoch * len(train_loader) - 1
    sched.step()

    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for a, b, same in train_loader:
            a, b, same = a.to(device), b.to(device), same.to(device)
            with torch.autocast(device_type=device.type, enabled=use_amp):
                loss = criterion(*model(a, b), same)
            opt.zero_grad()
            scaler.scale(loss).backward()
            opt.synchronize()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            with opt.skip_synchronize():
                scaler.step(opt)
            scaler.update()
            sched.step()

        model.eval()
        hits, seen = torch.zeros(()), torch.zeros(())
        with torch.no_grad():
            for a, b, same in test_loader:
                ea, eb = model(a.to(device), b.to(device))
                hits += verification_hits(ea, eb, same.to(device), args.margin / 2).cpu()
                seen += same.numel()
        hits = hvd.allreduce(hits, op=hvd.Sum, name="hits")
        seen = hvd.allreduce(seen, op=hvd.Sum, name="seen")
        if hvd.rank() == 0:
            print(f"epoch {epoch}: loss {loss.item():.4f} verification acc {(hits / seen).item():.4f}")
        checkpoint.save(args.ckpt, model, opt, scaler, epoch)


if __name__ == "__main__":
    run(ap.parse_args())
