"""Enhancer activity regression (log2 STARR-seq signal) from one-hot DNA; chr8/chr9 held out.

    horovodrun -np 8 python main.py --table /shared/starrseq/hepg2_windows.tsv.gz
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from enhancer.dataset import EnhancerSet, read_table, stage_to_local
from enhancer.logutil import get_logger
from enhancer.model import ConvBiLSTM, pearson

VAL_CHROMS = ("chr8", "chr9")


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--table", default="/shared/starrseq/hepg2_windows.tsv.gz")
    p.add_argument("--length", type=int, default=230)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--head-lr", type=float, default=3e-3)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--ckpt-dir", default="checkpoints")
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    log = get_logger()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    seqs, act, chrom = read_table(stage_to_local(args.table))
    is_val = np.isin(chrom, VAL_CHROMS)
    train_set = EnhancerSet([s for s, v in zip(seqs, is_val) if not v], act[~is_val], args.length, rc_augment=True)
    val_set = EnhancerSet([s for s, v in zip(seqs, is_val) if v], act[is_val], args.length)
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch, sampler=sampler, num_workers=2)
    val_loader = DataLoader(val_set, batch_size=512, sampler=val_sampler)
    log.info("train %d windows, val %d windows (%s)", len(train_set), len(val_set), ",".join(VAL_CHROMS))

    model = ConvBiLSTM().to(device)
    # discriminative learning rates: backbone slower than the freshly initialised head
    backbone_opt = torch.optim.Adam(model.backbone.parameters(), lr=args.lr * hvd.size())
    backbone_opt = hvd.DistributedOptimizer(backbone_opt, named_parameters=model.backbone.named_parameters(prefix="backbone"))
    head_opt = torch.optim.Adam(model.head.parameters(), lr=args.head_lr * hvd.size())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(backbone_opt, root_rank=0)

    loss_fn = nn.MSELoss()
    best = -1.0
    for epoch in range(args.epochs):
        model.train()
        sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            backbone_opt.zero_grad()
            head_opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            backbone_opt.step()
            head_opt.step()

        model.eval()
        preds, ys = [], []
        with torch.no_grad():
            for x, y in val_loader:
                preds.append(model(x.to(device)).cpu())
                ys.append(y)
        preds = hvd.allgather(torch.cat(preds), name="val_pred")
        ys = hvd.allgather(torch.cat(ys), name="val_y")
        r = pearson(preds, ys)
        log.info("epoch %d  train_loss %.4f  val_pearson %.4f", epoch, loss.item(), r)
        if hvd.rank() == 0 and r > best:
            best = r
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(args.ckpt_dir, "conv_bilstm_best.pt"))


if __name__ == "__main__":
    main()
