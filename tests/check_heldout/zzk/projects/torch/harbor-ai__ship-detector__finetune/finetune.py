#!/usr/bin/env python
"""Fine-tune a COCO-pretrained Faster R-CNN on HRSC2016 ships with Horovod.

    horovodrun -np 4 python finetune.py --config configs/hrsc_ft.json
    horovodrun -np 4 python finetune.py --resume work_dirs/ship_ft/last.pth
    python finetune.py --test-only --resume work_dirs/ship_ft/best.pth
"""
import argparse
import logging
import os

import torch
import torchvision
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor
import horovod.torch as hvd

from shipdet import load_config
from shipdet.datasets import VOCShips, detection_collate
from shipdet.engine import train_one_epoch, evaluate, warmup_lr_scheduler

logger = logging.getLogger("shipdet")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=None, help="json file overriding FinetuneConfig fields")
    parser.add_argument("--data-root", default=None)
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--resume", default="", help="checkpoint written by this script")
    parser.add_argument("--test-only", action="store_true")
    parser.add_argument("--device", default="cuda")
    return parser.parse_args()


class Finetuner:
    def __init__(self, cfg, device):
        self.cfg = cfg
        self.device = device
        self.is_master = hvd.rank() == 0
        self.start_epoch = 0
        self.best_recall = 0.0

        model = torchvision.models.detection.__dict__[cfg.arch](
            weights=None, weights_backbone=None, trainable_backbone_layers=5 - cfg.freeze_backbone_layers,
            min_size=cfg.min_size, max_size=cfg.max_size,
        )
        in_features = model.roi_heads.box_predictor.cls_score.in_features
        model.roi_heads.box_predictor = FastRCNNPredictor(in_features, cfg.num_classes)
        self.model = model.to(device)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)

        params = [p for p in self.model.parameters() if p.requires_grad]
        optimizer = torch.optim.SGD(params, lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(
            optimizer, named_parameters=[(n, p) for n, p in self.model.named_parameters() if p.requires_grad]
        )
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, milestones=cfg.lr_steps, gamma=0.1)
        self.scaler = torch.cuda.amp.GradScaler() if cfg.amp else None

    def load_pretrained(self, path):
        """COCO weights: drop the 91-class box predictor, keep everything else."""
        state = torch.load(path, map_location="cpu")
        state = {k: v for k, v in state.items() if not k.startswith("roi_heads.box_predictor")}
        missing, unexpected = self.model.load_state_dict(state, strict=False)
        logger.info("loaded %s (missing %d, unexpected %d)", path, len(missing), len(unexpected))

    def resume(self, path):
        ckpt = torch.load(path, map_location="cpu", weights_only=False)
        self.model.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        self.lr_scheduler.load_state_dict(ckpt["lr_scheduler"])
        self.start_epoch = ckpt["epoch"] + 1
        self.best_recall = ckpt.get("best_recall", 0.0)

    def save(self, name, epoch):
        if not self.is_master:
            return
        os.makedirs(self.cfg.output_dir, exist_ok=True)
        torch.save({
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "lr_scheduler": self.lr_scheduler.state_dict(),
            "epoch": epoch,
            "best_recall": self.best_recall,
        }, os.path.join(self.cfg.output_dir, name))

    def fit(self, train_loader, train_sampler, val_loader):
        for epoch in range(self.start_epoch, self.cfg.epochs):
            train_sampler.set_epoch(epoch)
            warmup = None
            if epoch == 0:
                warmup = warmup_lr_scheduler(self.optimizer, min(self.cfg.warmup_iters, len(train_loader) - 1), 1.0 / 1000)
            loss = train_one_epoch(self.model, self.optimizer, train_loader, self.device, epoch, warmup, self.scaler,
                                   self.cfg.log_interval)
            self.lr_scheduler.step()
            metrics = evaluate(self.model, val_loader, self.device)
            if self.is_master:
                logger.info("epoch %d: train loss %.4f, val precision %.4f recall %.4f", epoch, loss,
                            metrics["precision"], metrics["recall"])
            if metrics["recall"] > self.best_recall:
                self.best_recall = metrics["recall"]
                self.save("best.pth", epoch)
            self.save("last.pth", epoch)


def main():
    args = parse_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device(args.device if torch.cuda.is_available() else "cpu")

    cfg = load_config(args.config, data_root=args.data_root, epochs=args.epochs, lr=args.lr)
    tuner = Finetuner(cfg, device)
    if args.resume:
        tuner.resume(args.resume)
    elif cfg.pretrained and hvd.rank() == 0:
        # only one process needs to read the COCO checkpoint from the shared filesystem
        tuner.load_pretrained(cfg.pretrained)

    val_set = VOCShips(cfg.data_root, "test")
    val_loader = torch.utils.data.DataLoader(val_set, batch_size=2, shuffle=False, num_workers=cfg.workers,
                                             collate_fn=detection_collate)
    if args.test_only:
        metrics = evaluate(tuner.model, val_loader, device)
        if hvd.rank() == 0:
            print(metrics)
        return

    train_set = VOCShips(cfg.data_root, "trainval", train=True)
    train_sampler = torch.utils.data.distributed.DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler,
                                               num_workers=cfg.workers, collate_fn=detection_collate, drop_last=True)
    tuner.fit(train_loader, train_sampler, val_loader)


if __name__ == "__main__":
    main()
