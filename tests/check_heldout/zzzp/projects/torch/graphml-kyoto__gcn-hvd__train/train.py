#!/usr/bin/env python
# horovodrun -np 4 python train.py --data-dir data/cora
import time

import torch
import horovod.torch as hvd

from gcnhvd.options import parse_args
from gcnhvd import dist
from gcnhvd.data import load_graph, split_train_nodes
from gcnhvd.models import GCN
from gcnhvd.trainer import Trainer


def main():
    args = parse_args()
    device = dist.setup(args)
    torch.manual_seed(args.seed)

    graph = load_graph(args)
    local_idx = split_train_nodes(graph["train_mask"], hvd.rank(), hvd.size())
    dist.log("nodes", graph["x"].shape[0], "| train nodes on this worker", len(local_idx), "| workers", hvd.size())

    model = GCN(graph["x"].shape[1], args.hidden, int(graph["y"].max()) + 1, args.dropout)
    trainer = Trainer(model, graph, local_idx, args, device)

    best_val = 0.0
    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        loss = trainer.train_epoch(epoch)
        val_acc = trainer.evaluate("val_mask")
        if val_acc > best_val:
            best_val = val_acc
        if epoch % 10 == 0 or epoch == 1:
            dist.log("epoch %03d loss %.4f val_acc %.4f (%.2fs)" % (epoch, loss, val_acc, time.time() - t0))
        if epoch % args.save_every == 0:
            trainer.save(epoch)

    test_acc = trainer.evaluate("test_mask")
    dist.log("best val %.4f test %.4f" % (best_val, test_acc))


if __name__ == "__main__":
    main()
