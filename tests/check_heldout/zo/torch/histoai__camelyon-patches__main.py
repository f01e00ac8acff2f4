# Camelyon16/PCam patch classifier (tumour vs normal), multi-GPU with Horovod.
#   horovodrun -np 4 python main.py --train data/pcam/train --val data/pcam/valid
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torchvision
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from histo.datasets import PatchShardDataset
from histo.engine import Trainer
from histo.transforms import Compose, HEDJitter, RandomDihedral, ToTensorNormalize


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def get_model(arch, num_classes=2):
    model = getattr(torchvision.models, arch)(weights=None)
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    return model


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/pcam/train")
    ap.add_argument("--val", default="data/pcam/valid")
    ap.add_argument("--arch", default="resnet18")
    ap.add_argument("--bs", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="checkpoints/pcam")
    cfg = ap.parse_args()

    hvd.init()
    # different seed per worker so the stain augmentation is not identical everywhere
    seed_everything(cfg.seed + hvd.rank())
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_tf = Compose([HEDJitter(0.05), RandomDihedral(), ToTensorNormalize()])
    train_ds = PatchShardDataset(cfg.train, train_tf)
    val_ds = PatchShardDataset(cfg.val, ToTensorNormalize())
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=cfg.bs, sampler=train_sampler, num_workers=4, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=2 * cfg.bs, sampler=val_sampler, num_workers=4)

    model = get_model(cfg.arch).to(device)
    weights = torch.from_numpy(train_ds.class_weights()).to(device)
    criterion = nn.CrossEntropyLoss(weight=weights)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr * hvd.size(), momentum=0.9,
                                weight_decay=1e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[8, 12], gamma=0.1)

    trainer = Trainer(model, optimizer, criterion, device, cfg.out)
    best = trainer.fit(train_loader, val_loader, train_sampler, cfg.epochs, scheduler)
    trainer.log(f"best val AUROC {best:.4f}")
