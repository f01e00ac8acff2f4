"""Train a SchNet-style model on QM9 (one target) with Horovod.

Example (2 nodes x 4 GPUs):
    horovodrun -np 8 -H node1:4,node2:4 python train_qm9.py -c configs/qm9_u0.yaml
"""
import argparse
import logging

import torch
from torch.utils.data import DataLoader
import horovod.torch as hvd

from qm9kit import load_config
from qm9kit.dataset import QM9Shards
from qm9kit.engine import Trainer
from qm9kit.model import SchNetLite


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="configs/qm9_u0.yaml")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--data-dir", dest="data_dir")
    return ap.parse_args()


def main():
    args = parse()
    hvd.init()
    cfg = load_config(args.config, epochs=args.epochs, lr=args.lr, data_dir=args.data_dir)

    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR)
    log = logging.getLogger("qm9")

    train_set = QM9Shards(cfg.data_dir, "train", cfg.target)
    val_set = QM9Shards(cfg.data_dir, "val", cfg.target)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True,
                              num_workers=cfg.num_workers, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=2 * cfg.batch_size, num_workers=cfg.num_workers)

    model = SchNetLite(cfg.hidden, cfg.n_interactions, cfg.cutoff).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr * hvd.size(), weight_decay=cfg.weight_decay)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   compression=hvd.Compression.fp16)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.7, patience=10)
    trainer = Trainer(model, opt, sched, device, cfg.out_dir)

    best = float("inf")
    for epoch in range(cfg.epochs):
        train_mae = trainer.train_epoch(train_loader)
        if epoch % cfg.val_every:
            continue
        val_mae = trainer.evaluate(val_loader)
        sched.step(val_mae)
        log.info("epoch %d  train MAE %.4f  val MAE %.4f", epoch, train_mae, val_mae)
        if val_mae < best:
            best = val_mae
            trainer.save(epoch, best=True)
        trainer.save(epoch)


if __name__ == "__main__":
    main()
