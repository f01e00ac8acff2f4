"""CUB-200 fine-tuning of a ResNet-50 (weights from a local .pth) with Horovod + AMP.

Phase 1 (--warmup-epochs): backbone groups run at lr 0, only the new fc learns.
Phase 2: layer-wise lr decay, deeper layers get larger lr.
"""
import argparse
import math
import os
import random

import torch
import torch.nn as nn
import torchvision.transforms as T
from torchvision.datasets import ImageFolder
from torchvision.models import resnet50
import horovod.torch as hvd

LAYERS = ["conv1", "layer1", "layer2", "layer3", "layer4", "fc"]


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--root", default="/scratch/cub200")
    p.add_argument("--weights", default="/scratch/models/resnet50-11ad3fa6.pth")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--warmup-epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=24)
    p.add_argument("--base-lr", type=float, default=0.01)
    p.add_argument("--layer-decay", type=float, default=0.5)
    p.add_argument("--clip", type=float, default=5.0)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--ckpt-dir", default="ckpt")
    p.add_argument("--resume", action="store_true")
    return p.parse_args()


class EpochShard(torch.utils.data.Sampler):
    """Same permutation on every worker (seeded by epoch), each worker takes every size()-th index."""

    def __init__(self, n, epoch, seed=0):
        idx = list(range(n))
        random.Random(seed + epoch).shuffle(idx)
        per_worker = n // hvd.size()
        self.idx = idx[hvd.rank():per_worker * hvd.size():hvd.size()]

    def __iter__(self):
        return iter(self.idx)

    def __len__(self):
        return len(self.idx)


def layer_lrs(args, epoch):
    top = args.base_lr * hvd.size()
    lrs = {}
    for depth, name in enumerate(reversed(LAYERS)):
        lrs[name] = top * (args.layer_decay ** depth)
        if epoch < args.warmup_epochs and name != "fc":
            lrs[name] = 0.0
    if epoch >= args.warmup_epochs:
        progress = (epoch - args.warmup_epochs) / max(1, args.epochs - args.warmup_epochs)
        lrs = {k: v * 0.5 * (1 + math.cos(math.pi * progress)) for k, v in lrs.items()}
    return lrs


def group_params(model):
    groups = {name: [] for name in LAYERS}
    for n, p in model.named_parameters():
        key = n.split(".")[0]
        groups[key if key in groups else "conv1"].append(p)
    return [{"params": ps, "name": name, "lr": 0.0} for name, ps in groups.items()]


def validate(model, loader, device):
    model.eval()
    hit = n = 0
    with torch.no_grad():
        for x, y in loader:
            hit += (model(x.to(device)).argmax(1).cpu() == y).sum().item()
            n += y.numel()
    return hit / n


def main():
    args = get_args()
    hvd.init()
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda", hvd.local_rank()) if cuda else torch.device("cpu")

    norm = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    train_set = ImageFolder(os.path.join(args.root, "train"),
                            T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), norm]))
    val_set = ImageFolder(os.path.join(args.root, "val"),
                          T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), norm]))
    val_loader = torch.utils.data.DataLoader(val_set, batch_size=64, num_workers=4)

    model = resnet50(weights=None)
    model.load_state_dict(torch.load(args.weights, map_location="cpu"))
    model.fc = nn.Linear(model.fc.in_features, len(train_set.classes))
    model.to(device)

    optimizer = torch.optim.SGD(group_params(model), lr=0.0, momentum=0.9, weight_decay=1e-4, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and cuda)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    start_epoch, best = 0, 0.0
    last_path = os.path.join(args.ckpt_dir, "last.pth")
    if args.resume and hvd.rank() == 0 and os.path.exists(last_path):
        state = torch.load(last_path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scaler.load_state_dict(state["scaler"])
        start_epoch, best = state["epoch"] + 1, state["best"]
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch, best, scaler_state = hvd.broadcast_object((start_epoch, best, scaler.state_dict()),
                                                           root_rank=0, name="resume")
    scaler.load_state_dict(scaler_state)

    for epoch in range(start_epoch, args.epochs):
        lrs = layer_lrs(args, epoch)
        for g in optimizer.param_groups:
            g["lr"] = lrs[g["name"]]
        loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size,
                                             sampler=EpochShard(len(train_set), epoch),
                                             num_workers=4, drop_last=True)
        model.train()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            with torch.autocast(device_type="cuda", enabled=args.amp and cuda):
                loss = criterion(model(x), y)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()

        # rank 0 scores the whole val split and shares the number
        acc = validate(model, val_loader, device) if hvd.rank() == 0 else None
        acc = hvd.broadcast_object(acc, root_rank=0, name=f"val_acc_{epoch}")
        if hvd.rank() == 0:
            print(f"epoch {epoch}: lr(fc)={lrs['fc']:.5f} val_acc={acc:.4f} last_loss={loss.item():.4f}")
            os.makedirs(args.ckpt_dir, exist_ok=True)
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "scaler": scaler.state_dict(), "epoch": epoch, "best": max(best, acc)}
            torch.save(state, last_path)
            if acc > best:
                torch.save(model.state_dict(), os.path.join(args.ckpt_dir, "best_model.pth"))
        best = max(best, acc)


if __name__ == "__main__":
    main()
