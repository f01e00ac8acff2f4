#!/usr/bin/env python
"""Train a message passing network on QM9-style molecule graphs with Horovod.

    horovodrun -np 4 python train.py --data-root data/qm9 --target 7 --epochs 200
"""
import argparse
import os
import time

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, Subset

from mpnn import dist
from mpnn.data import MoleculeGraphs, collate_graphs, make_synthetic
from mpnn.model import MPNN
from mpnn.utils import get_logger, load_checkpoint, save_checkpoint


def parse_args():
    p = argparse.ArgumentParser(description="MPNN on QM9")
    p.add_argument("--data-root", default=None, help="folder with train.npz / val.npz")
    p.add_argument("--synthetic", type=int, default=2000, help="fake molecules when --data-root is unset")
    p.add_argument("--target", type=int, default=7)
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=32, help="molecules per rank and step")
    p.add_argument("--base-lr", type=float, default=5e-4, help="learning rate of one worker")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--mp-steps", type=int, default=3)
    p.add_argument("--out", default="runs/mpnn")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--seed", type=int, default=1234)
    return p.parse_args()


def run_epoch(model, loader, optimizer=None):
    training = optimizer is not None
    model.train(training)
    abs_err, count = torch.zeros(1), torch.zeros(1)
    for g in loader:
        g = g.to(dist.device())
        with torch.set_grad_enabled(training):
            pred = model(g)
            loss = torch.nn.functional.mse_loss(pred, g.y)
        if training:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        abs_err += (pred.detach() - g.y).abs().sum().cpu()
        count += g.y.numel()
    return dist.global_mean(abs_err, count)


def main():
    args = parse_args()
    dist.setup()
    log = get_logger("mpnn", rank=hvd.rank())
    torch.manual_seed(args.seed)

    if args.data_root:
        train_set = MoleculeGraphs(args.data_root, "train", target=args.target)
        val_set = MoleculeGraphs(args.data_root, "val", target=args.target)
    else:
        train_set, val_set = make_synthetic(args.synthetic, seed=args.seed)

    train_loader = DataLoader(Subset(train_set, dist.partition(len(train_set), seed=args.seed)),
                              batch_size=args.batch_size, shuffle=True, drop_last=True,
                              collate_fn=collate_graphs, num_workers=2)
    val_loader = DataLoader(Subset(val_set, dist.partition(len(val_set), seed=args.seed)),
                            batch_size=args.batch_size, collate_fn=collate_graphs)

    model = MPNN(MoleculeGraphs.num_node_features, MoleculeGraphs.num_edge_features,
                 args.hidden, args.mp_steps).to(dist.device())
    optimizer = torch.optim.Adam(model.parameters(), lr=args.base_lr * hvd.size())

    ckpt_path = os.path.join(args.out, "last.pt")
    start_epoch, best = 0, float("inf")
    if args.resume and hvd.rank() == 0 and os.path.exists(ckpt_path):
        start_epoch, best = load_checkpoint(ckpt_path, model, optimizer)
    start_epoch, best = hvd.broadcast_object((start_epoch, best), root_rank=0, name="resume")

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    log.info("%d ranks, %d train graphs per rank", hvd.size(), len(train_loader.dataset))
    for epoch in range(start_epoch, args.epochs):
        t0 = time.time()
        train_mae = run_epoch(model, train_loader, optimizer)
        val_mae = run_epoch(model, val_loader)
        best = min(best, val_mae)
        log.info("epoch %3d  train MAE %.4f  val MAE %.4f  best %.4f  (%.1fs)",
                 epoch, train_mae, val_mae, best, time.time() - t0)
        save_checkpoint(ckpt_path, model, optimizer, epoch, best)


if __name__ == "__main__":
    main()
