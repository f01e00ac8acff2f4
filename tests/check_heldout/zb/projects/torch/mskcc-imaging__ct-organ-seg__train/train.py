"""Abdominal CT organ segmentation - distributed training entry point.

Launched by the cluster wrapper (see scripts/submit_ct.sbatch in the wiki):
    horovodrun -np 8 -H gpu01:4,gpu02:4 python train.py --config configs/ct_organs.yaml
"""
import argparse
import logging
import os

import torch
import horovod.torch as hvd

from segkit import dist
from segkit.config import SegConfig
from segkit.data import make_loaders
from segkit.engine import Trainer
from segkit.model import UNet2D

log = logging.getLogger("ct-seg")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/ct_organs.yaml")
    p.add_argument("--run-name", default=os.environ.get("SLURM_JOB_ID", "local"))
    p.add_argument("--epochs", type=int, default=None, help="override cfg.epochs")
    return p.parse_args()


def main():
    args = parse_args()
    cfg = SegConfig.from_yaml(args.config)
    if args.epochs is not None:
        cfg.epochs = args.epochs

    device = dist.setup()
    logging.basicConfig(level=logging.INFO if dist.is_main() else logging.WARNING,
                        format="%(asctime)s [%(name)s] %(message)s")
    torch.manual_seed(cfg.seed)

    train_loader, val_loader, train_sampler = make_loaders(cfg)
    log.info("train patches: %d, val patches: %d", len(train_loader.dataset), len(val_loader.dataset))

    model = UNet2D(in_ch=1, n_classes=cfg.n_classes, width=cfg.width).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    out_dir = os.path.join(cfg.output_root, args.run_name)
    trainer = Trainer(model, optimizer, device, cfg, out_dir)
    for epoch in range(cfg.epochs):
        train_sampler.set_epoch(epoch)
        loss = trainer.train_epoch(train_loader, epoch)
        dice = trainer.evaluate(val_loader)
        if dist.is_main():
            log.info("epoch %d  train_loss %.4f  val_dice %.4f", epoch, loss, dice)
            trainer.save(epoch, dice)


if __name__ == "__main__":
    main()
