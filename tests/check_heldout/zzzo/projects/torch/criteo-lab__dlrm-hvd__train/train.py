#!/usr/bin/env python
# DLRM-style CTR model on Criteo 1TB day partitions, data parallel with horovod.
#   horovodrun -np 8 python train.py --data-dir /mnt/criteo/parquet --days 0-22
import os
import sys

import torch
import horovod.torch as hvd

from dlrm_hvd import options
from dlrm_hvd.data import day_files, N_CAT
from dlrm_hvd.dist_utils import setup, log, is_master
from dlrm_hvd.model import DLRM
from dlrm_hvd.trainer import Trainer
from dlrm_hvd import checkpoint


def main():
    args = options.get_parser().parse_args()
    device = setup(use_cuda=not args.no_cuda)
    torch.manual_seed(args.seed)

    if args.synthetic:
        train_files = ["synthetic-%d" % i for i in range(2 * hvd.size())]
        val_files = ["synthetic-val-%d" % i for i in range(hvd.size())]
    else:
        train_files = day_files(args.data_dir, options.parse_days(args.days))
        val_files = day_files(args.data_dir, [args.val_day])
    log("world %d, %d train parts, %d val parts" % (hvd.size(), len(train_files), len(val_files)))

    model = DLRM(args.num_hash_buckets, args.emb_dim, N_CAT, args.bottom_mlp, args.top_mlp).to(device)

    # embeddings: adagrad, mlp: adam. lr grows with the global batch
    opt_sparse = torch.optim.Adagrad([model.emb.weight], lr=args.sparse_lr * hvd.size())
    opt_dense = torch.optim.Adam([p for _, p in model.dense_parameters()], lr=args.dense_lr * hvd.size())
    opt_sparse = hvd.DistributedOptimizer(opt_sparse, named_parameters=model.sparse_parameters())
    opt_dense = hvd.DistributedOptimizer(opt_dense, named_parameters=model.dense_parameters())

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt_sparse, root_rank=0)
    hvd.broadcast_optimizer_state(opt_dense, root_rank=0)

    trainer = Trainer(model, opt_sparse, opt_dense, device, args)
    for epoch in range(args.epochs):
        trainer.train_epoch(train_files, epoch)
        res = trainer.evaluate(val_files)
        log("epoch %d val auc %.5f logloss %.5f (%d rows)" % (epoch, res["auc"], res["logloss"], res["rows"]))

    if is_master():
        checkpoint.save_sharded(model, opt_dense, trainer.step, os.path.join(args.ckpt_dir, "final"), args.num_shards)
    return 0


if __name__ == "__main__":
    sys.exit(main())
