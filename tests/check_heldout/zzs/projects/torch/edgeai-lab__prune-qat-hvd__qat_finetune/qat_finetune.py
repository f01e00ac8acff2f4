"""Stage 2 of the compression pipeline: recover accuracy of a pruned TinyNet, then quantization-aware training.

    horovodrun -np 8 -H node1:4,node2:4 python qat_finetune.py --pruned ckpt/tinynet_sparse70.pt
"""
import argparse
import copy
import os
from dataclasses import dataclass

import torch
import torch.ao.quantization as tq
import torch.nn.functional as F
import horovod.torch as hvd

from qatkit.data import loaders
from qatkit.model import TinyNet
from qatkit.optim import optimizer_for
from qatkit.pruning import masks_from_weights, reapply


@dataclass
class Config:
    data: str = "data/cifar10"
    pruned: str = "ckpt/tinynet_sparse70.pt"
    out: str = "ckpt/tinynet_sparse70_int8.pt"
    batch_size: int = 128
    finetune_epochs: int = 10
    qat_epochs: int = 5
    lr: float = 0.01
    qat_lr: float = 0.001
    freeze_bn_epoch: int = 3


def parse() -> Config:
    cfg = Config()
    ap = argparse.ArgumentParser()
    for k, v in vars(cfg).items():
        ap.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    return Config(**vars(ap.parse_args()))


def run_epoch(model, loader, opt, masks, device):
    model.train()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        reapply(model, masks)


@torch.no_grad()
def accuracy(model, loader, device):
    model.eval()
    hit = sum((model(x.to(device)).argmax(1) == y.to(device)).sum().item() for x, y in loader)
    return hit / len(loader.dataset)


def main():
    cfg = parse()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader, val_loader, sampler = loaders(cfg.data, cfg.batch_size)

    model = TinyNet()
    model.load_state_dict(torch.load(cfg.pruned, map_location="cpu")["model"])
    model.to(device)
    masks = masks_from_weights(model)

    # --- phase 1: sparse fine-tuning in fp32
    opt = optimizer_for(model, cfg.lr * hvd.size(), wrap=True)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    for epoch in range(cfg.finetune_epochs):
        sampler.set_epoch(epoch)
        run_epoch(model, train_loader, opt, masks, device)
        if hvd.rank() == 0:
            print(f"[ft] epoch {epoch} val acc {accuracy(model, val_loader, device):.4f}")

    # --- phase 2: QAT on the fused copy, masks still enforced
    qmodel = copy.deepcopy(model).cpu().train().fuse()
    qmodel.qconfig = tq.get_default_qat_qconfig("fbgemm")
    tq.prepare_qat(qmodel, inplace=True)
    qmodel.to(device)
    masks = masks_from_weights(qmodel)
    opt = optimizer_for(qmodel, cfg.qat_lr * hvd.size())
    for epoch in range(cfg.qat_epochs):
        sampler.set_epoch(cfg.finetune_epochs + epoch)
        if epoch >= cfg.freeze_bn_epoch:
            qmodel.apply(torch.ao.nn.intrinsic.qat.freeze_bn_stats)
        run_epoch(qmodel, train_loader, opt, masks, device)
        if hvd.rank() == 0:
            print(f"[qat] epoch {epoch} val acc {accuracy(qmodel, val_loader, device):.4f}")

    if hvd.rank() == 0:
        int8 = tq.convert(copy.deepcopy(qmodel).cpu().eval())
        os.makedirs(os.path.dirname(cfg.out) or ".", exist_ok=True)
        torch.save({"model": int8.state_dict(), "masks": {k: v.cpu() for k, v in masks.items()}}, cfg.out)
        print("saved", cfg.out)


if __name__ == "__main__":
    main()
