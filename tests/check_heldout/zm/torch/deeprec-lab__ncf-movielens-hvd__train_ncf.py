"""Neural Collaborative Filtering (NeuMF) on MovieLens with Horovod + AMP.

Leave-one-out evaluation: HR@10 / NDCG@10 against 99 sampled negatives per user.
"""
import argparse
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

from ncf import checkpoint
from ncf.data import RatingsData, TrainPairs
from ncf.evaluate import hit_ndcg
from ncf.model import NeuMF


def build_parser():
    p = argparse.ArgumentParser("ncf")
    p.add_argument("--ratings", default="data/ml-1m/ratings.csv")
    p.add_argument("--factors", type=int, default=32)
    p.add_argument("--layers", type=int, nargs="+", default=[128, 64, 32])
    p.add_argument("--negatives", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=8192)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--warmup-steps", type=int, default=500)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--ckpt-dir", default="ckpt")
    p.add_argument("--seed", type=int, default=0)
    return p


def train(args):
    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")

    data = RatingsData(args.ratings, seed=args.seed)
    pairs = TrainPairs(data, args.negatives)
    loader = pairs.loader(args.batch_size, rank=hvd.rank(), world=hvd.size())

    model = NeuMF(data.num_users, data.num_items, args.factors, args.layers).to(device)
    base = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size(), betas=(0.25, 0.98))
    optimizer = hvd.DistributedOptimizer(base, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if args.amp else hvd.Compression.none)
    sched = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / args.warmup_steps))
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and use_cuda)

    start_epoch = checkpoint.restore(args.ckpt_dir, model, optimizer)
    criterion = nn.BCEWithLogitsLoss()

    my_users = data.eval_users[hvd.rank()::hvd.size()]
    for epoch in range(start_epoch, args.epochs):
        model.train()
        pairs.resample(epoch)
        tic = time.time()
        for users, items, labels in loader:
            users, items, labels = users.to(device), items.to(device), labels.to(device)
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, enabled=args.amp and use_cuda):
                loss = criterion(model(users, items), labels)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            sched.step()

        hr, ndcg = hit_ndcg(model, data, my_users, device, k=10)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: HR@10 {hr:.4f} NDCG@10 {ndcg:.4f} train {time.time() - tic:.1f}s")
            checkpoint.save(args.ckpt_dir, epoch, model, optimizer)


if __name__ == "__main__":
    train(build_parser().parse_args())
