"""Train a small DLRM on Criteo-style parquet shards with Horovod.

    horovodrun -np 8 python train.py --data /data/criteo_small --epochs 4
"""
import argparse
import logging
import os

import torch
import horovod.torch as hvd

from dlrm.data import make_loader
from dlrm.metrics import evaluate
from dlrm.model import DLRM
from dlrm.utils import AverageMeter, save_checkpoint, setup_logging

log = logging.getLogger("dlrm")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/criteo_small")
    p.add_argument("--out", default="runs/dlrm")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=2048)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--emb-dim", type=int, default=16)
    p.add_argument("--bottom-mlp", default="64,32,16")
    p.add_argument("--top-mlp", default="128,64,1")
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--log-every", type=int, default=200)
    return p.parse_args()


def main():
    args = parse_args()
    hvd.init()
    setup_logging(hvd.rank())
    torch.manual_seed(1234)

    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")

    train_loader, train_sampler, cardinalities = make_loader(
        os.path.join(args.data, "train.parquet"), args.batch_size, train=True)
    val_loader, _, _ = make_loader(
        os.path.join(args.data, "val.parquet"), args.batch_size, train=False)

    model = DLRM(
        num_dense=13,
        cardinalities=cardinalities,
        emb_dim=args.emb_dim,
        bottom=[int(x) for x in args.bottom_mlp.split(",")],
        top=[int(x) for x in args.top_mlp.split(",")],
    ).to(device)

    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(
        optimizer, named_parameters=model.named_parameters(), compression=compression)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    criterion = torch.nn.BCEWithLogitsLoss()
    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        meter = AverageMeter()
        for step, (dense, sparse, label) in enumerate(train_loader):
            dense, sparse, label = dense.to(device), sparse.to(device), label.to(device)
            optimizer.zero_grad()
            loss = criterion(model(dense, sparse).squeeze(1), label)
            loss.backward()
            optimizer.step()
            meter.update(loss.item(), label.size(0))
            if step % args.log_every == 0 and hvd.rank() == 0:
                log.info("epoch %d step %d loss %.4f", epoch, step, meter.avg)

        val_loss, val_auc = evaluate(model, val_loader, device)
        if hvd.rank() == 0:
            log.info("epoch %d val_loss %.4f val_auc %.4f", epoch, val_loss, val_auc)

        save_checkpoint(
            {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
            os.path.join(args.out, "last.pt"),
        )


if __name__ == "__main__":
    main()
