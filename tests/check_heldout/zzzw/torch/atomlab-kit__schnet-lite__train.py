#!/usr/bin/env python
# SchNet-lite: energies + forces from one network, data parallel with horovod.
# usage: horovodrun -np 4 python train.py --train-file data/md17_aspirin_train.npz ...
import os
import json

import torch
import horovod.torch as hvd

from schnetlite.options import get_parser
from schnetlite import dist_utils
from schnetlite.data import build_loaders
from schnetlite.model import SchNet
from schnetlite.trainer import Trainer


def main():
    args = get_parser().parse_args()
    device = dist_utils.setup(args)
    torch.manual_seed(args.seed)

    train_loader, val_loader, train_sampler = build_loaders(args)

    model = SchNet(n_interactions=args.n_interactions, hidden=args.hidden,
                   n_rbf=args.n_rbf, cutoff=args.cutoff).to(device)

    # linear scaling rule: global batch = batch_size * world
    lr = args.lr * hvd.size() if args.scale_lr else args.lr
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, amsgrad=True)

    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    trainer = Trainer(model, optimizer, args, device)
    dist_utils.log(f"world={hvd.size()} lr={lr:g} train batches/rank={len(train_loader)}")

    best = float("inf")
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        trainer.train_epoch(train_loader, epoch)
        metrics = trainer.evaluate(val_loader)
        dist_utils.log(f"epoch {epoch}: " + json.dumps(metrics))

        if metrics["force_mae"] < best:
            best = metrics["force_mae"]
            trainer.save(os.path.join(args.out_dir, "best.pt"), epoch)
        if (epoch + 1) % args.save_every == 0:
            trainer.save(os.path.join(args.out_dir, f"epoch_{epoch + 1}.pt"), epoch)


if __name__ == "__main__":
    main()
