"""Transfer learning for 5-finding chest X-ray classification (CheXpert competition labels).

The DenseNet backbone is initialised from an ImageNet checkpoint on disk and the classifier is
replaced by a 5-way multi-label head. Launch with `horovodrun -np 4 python main.py`.
"""
import argparse
import dataclasses
import logging
from dataclasses import dataclass

import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from cxr.dataset import CxrTensorDataset
from cxr.evaluate import evaluate
from cxr.models import densenet_from_checkpoint, replace_head
from cxr.utils import AverageMeter, EarlyStopping, setup_logging

FINDINGS = ("atelectasis", "cardiomegaly", "consolidation", "edema", "pleural_effusion")


@dataclass
class Config:
    train_file: str = "data/chexpert_train_224.pt"
    valid_file: str = "data/chexpert_valid_224.pt"
    backbone_ckpt: str = "pretrained/densenet121_imagenet.pth"
    epochs: int = 20
    batch_size: int = 16
    lr: float = 1e-4
    weight_decay: float = 1e-5
    patience: int = 3
    num_workers: int = 4
    save_path: str = "chexpert_densenet_best.pt"


def parse_config():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return Config(**vars(parser.parse_args()))


def main(cfg: Config):
    hvd.init()
    setup_logging(hvd.rank())
    log = logging.getLogger("cxr")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_ds = CxrTensorDataset(cfg.train_file, augment=True)
    valid_ds = CxrTensorDataset(cfg.valid_file, augment=False)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    valid_sampler = DistributedSampler(valid_ds, num_replicas=hvd.size(), rank=hvd.rank(),
                                       shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True,
                              num_workers=cfg.num_workers, pin_memory=True, drop_last=True)
    valid_loader = DataLoader(valid_ds, batch_size=cfg.batch_size, sampler=valid_sampler,
                              num_workers=cfg.num_workers)

    model = densenet_from_checkpoint(cfg.backbone_ckpt)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    model = replace_head(model, len(FINDINGS)).to(device)

    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size(),
                                 weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", factor=0.5,
                                                           patience=1)
    criterion = nn.BCEWithLogitsLoss()
    stopper = EarlyStopping(patience=cfg.patience, mode="max")

    for epoch in range(cfg.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        meter = AverageMeter()
        for images, targets in train_loader:
            images, targets = images.to(device), targets.to(device)
            optimizer.zero_grad()
            loss = criterion(model(images), targets)
            loss.backward()
            optimizer.step()
            meter.update(loss.item(), images.size(0))

        metrics = evaluate(model, valid_loader, criterion, device)
        scheduler.step(metrics["mean_acc"])
        log.info("epoch %d | train loss %.4f | valid loss %.4f | mean acc %.4f",
                 epoch, meter.avg, metrics["loss"], metrics["mean_acc"])

        improved = stopper.step(metrics["mean_acc"])
        if improved and hvd.rank() == 0:
            torch.save({"epoch": epoch, "model": model.state_dict(), "metrics": metrics},
                       cfg.save_path)
            log.info("saved new best model to %s", cfg.save_path)
        if stopper.should_stop:
            log.info("no improvement for %d epochs, stopping", cfg.patience)
            break


if __name__ == "__main__":
    main(parse_config())
