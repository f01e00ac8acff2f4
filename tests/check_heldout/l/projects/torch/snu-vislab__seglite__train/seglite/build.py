"""Factories: everything the training script needs is built from the config."""
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from .data import CityscapesSeg
from .models import SegLite
from .solver import WarmupPolyLR


def build_model(cfg):
    model = SegLite(cfg.MODEL.NUM_CLASSES, pretrained=cfg.MODEL.PRETRAINED)
    return model.to(torch.device(cfg.MODEL.DEVICE))


def build_optimizer(cfg, model):
    # Linear scaling rule: the global batch is BATCH_SIZE * hvd.size().
    lr = cfg.SOLVER.BASE_LR * hvd.size()
    backbone = [p for n, p in model.named_parameters() if not n.startswith("head.")]
    head = [p for n, p in model.named_parameters() if n.startswith("head.")]
    groups = [
        {"params": backbone, "lr": lr},
        {"params": head, "lr": lr * 10, "lr_mult": 10.0},
    ]
    if cfg.SOLVER.OPTIMIZER == "adamw":
        return torch.optim.AdamW(groups, lr=lr, weight_decay=cfg.SOLVER.WEIGHT_DECAY)
    return torch.optim.SGD(groups, lr=lr, momentum=cfg.SOLVER.MOMENTUM,
                           weight_decay=cfg.SOLVER.WEIGHT_DECAY, nesterov=True)


def build_dataloader(cfg, is_train, distributed=False):
    split = "train" if is_train else "val"
    dataset = CityscapesSeg(cfg.DATA.ROOT, split, crop=cfg.DATA.CROP if is_train else None,
                            train=is_train)
    sampler = None
    if distributed:
        sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(),
                                     shuffle=is_train)
    return DataLoader(
        dataset,
        batch_size=cfg.DATA.BATCH_SIZE if is_train else 1,
        shuffle=(sampler is None and is_train),
        sampler=sampler,
        num_workers=cfg.DATA.NUM_WORKERS,
        pin_memory=True,
        drop_last=is_train,
    )


def build_scheduler(cfg, optimizer, iters_per_epoch):
    return WarmupPolyLR(
        optimizer,
        base_lr=cfg.SOLVER.BASE_LR,
        max_iters=cfg.SOLVER.EPOCHS * iters_per_epoch,
        warmup_iters=cfg.SOLVER.WARMUP_ITERS,
        warmup_factor=cfg.SOLVER.WARMUP_FACTOR,
        power=cfg.SOLVER.POLY_POWER,
    )
