#!/usr/bin/env python
# Pool-based active learning with horovod.
#   horovodrun -np 4 python train.py --data data/pool.npz --strategy entropy --rounds 10
import os
import sys
import csv
import time

import numpy as np
import torch

from alearn.options import get_parser
from alearn import dist, data, ckpt
from alearn.trainer import Trainer


def main():
    args = get_parser().parse_args()
    device = dist.setup(use_cuda=not args.no_cuda)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    train_ds, test_ds = data.load_pool(args.data)
    n_in = train_ds.tensors[0].shape[1]
    n_cls = int(train_ds.tensors[1].max()) + 1

    # same seed on all workers -> same initial labeled set everywhere
    perm = np.random.RandomState(args.seed).permutation(len(train_ds))
    labeled = perm[:args.init_labeled].tolist()
    pool = perm[args.init_labeled:].tolist()

    trainer = Trainer(args, device, n_in, n_cls)
    test_loader = data.test_loader(test_ds, args.batch_size)
    table = []
    for rnd in range(args.rounds + 1):
        t0 = time.time()
        trainer.build()
        trainer.fit(train_ds, labeled, rnd)
        test_acc = trainer.evaluate(test_loader)
        table.append({"round": rnd, "n_labeled": len(labeled), "test_acc": round(test_acc, 4),
                      "secs": round(time.time() - t0, 1)})
        if dist.is_master():
            print("[round %d] labeled=%d pool=%d test_acc=%.4f" % (rnd, len(labeled), len(pool), test_acc))
        ckpt.save(trainer.model, trainer.opt, rnd, args.out)
        ckpt.save_indices(labeled, pool, rnd, args.out)
        if rnd == args.rounds or len(pool) == 0:
            break
        picked = trainer.query(train_ds, pool, args.query_size)
        picked_set = set(picked)
        labeled = labeled + picked
        pool = [i for i in pool if i not in picked_set]

    if dist.is_master():
        with open(os.path.join(args.out, "rounds.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(table[0].keys()))
            w.writeheader()
            w.writerows(table)
        print("done.")


if __name__ == "__main__":
    main()
