#!/usr/bin/env python
# horovodrun -np 4 python train.py --data-dir /data/binarized_mnist
import os

import torch
import horovod.torch as hvd

from vaeanneal import options, dist, data, checkpoint
from vaeanneal.models import MLPVAE
from vaeanneal.trainer import Trainer


def main():
    args = options.parse_args()
    device = dist.setup(args.seed)
    os.makedirs(args.out_dir, exist_ok=True)

    train_loader, valid_loader, train_sampler = data.make_loaders(args, hvd.rank(), hvd.size())

    model = MLPVAE(args.z_dim, args.hidden).to(device)
    lr = args.lr if args.no_scale_lr else args.lr * hvd.size()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    start_epoch, step = checkpoint.load(args.resume, model, optimizer)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)

    trainer = Trainer(model, optimizer, args, device)
    trainer.step = step
    dist.log("workers: %d  lr: %g  anneal: %s" % (hvd.size(), lr, args.anneal))
    trainer.fit(train_loader, valid_loader, train_sampler, start_epoch)


if __name__ == "__main__":
    main()
