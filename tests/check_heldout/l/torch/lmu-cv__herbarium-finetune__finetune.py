"""Two-stage fine-tuning of an ImageNet ResNet-50 on herbarium sheets.

Stage 1 trains the new classifier head on a frozen backbone, stage 2 unfreezes
everything with a smaller learning rate (LP-FT, Kumar et al. 2022).

    horovodrun -np 4 python finetune.py --data /dss/herbarium2022 --lp-epochs 5 --ft-epochs 30
"""
import argparse
import json
import os
import time

import torch
import torch.nn as nn
import torchvision
from torchvision import transforms
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", required=True, help="ImageFolder root with train/ and val/")
    ap.add_argument("--out", default="checkpoints/herbarium")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--lp-epochs", type=int, default=5)
    ap.add_argument("--lp-lr", type=float, default=0.01)
    ap.add_argument("--ft-epochs", type=int, default=30)
    ap.add_argument("--ft-lr", type=float, default=0.001)
    ap.add_argument("--label-smoothing", type=float, default=0.1)
    return ap.parse_args()


def make_loaders(root, batch_size, workers):
    norm = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    train_tf = transforms.Compose([transforms.RandomResizedCrop(320, scale=(0.35, 1.0)),
                                   transforms.RandomHorizontalFlip(), transforms.ColorJitter(0.2, 0.2, 0.2),
                                   transforms.ToTensor(), norm])
    val_tf = transforms.Compose([transforms.Resize(366), transforms.CenterCrop(320),
                                 transforms.ToTensor(), norm])
    train_set = torchvision.datasets.ImageFolder(os.path.join(root, "train"), train_tf)
    val_set = torchvision.datasets.ImageFolder(os.path.join(root, "val"), val_tf)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler,
                              num_workers=workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=2 * batch_size, sampler=val_sampler,
                            num_workers=workers, pin_memory=True)
    return train_loader, val_loader, train_sampler, len(train_set.classes)


def train_epoch(model, loader, optimizers, criterion):
    model.train()
    seen, loss_sum = 0, 0.0
    for images, labels in loader:
        images, labels = images.cuda(non_blocking=True), labels.cuda(non_blocking=True)
        loss = criterion(model(images), labels)
        for opt in optimizers:
            opt.zero_grad(set_to_none=True)
        loss.backward()
        for opt in optimizers:
            opt.step()
        loss_sum += loss.item() * labels.size(0)
        seen += labels.size(0)
    return loss_sum / max(seen, 1)


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = 0
    for images, labels in loader:
        logits = model(images.cuda(non_blocking=True))
        correct += (logits.argmax(1).cpu() == labels).sum().item()
    # Horovod: combine the counts of all workers
    correct = hvd.allreduce(torch.tensor(float(correct)), name="val_correct").item()
    return correct / len(loader.dataset)


def save(model, path):
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save(model.state_dict(), path)


def main():
    args = parse_args()
    hvd.init()
    torch.backends.cudnn.benchmark = True

    train_loader, val_loader, train_sampler, num_classes = make_loaders(
        args.data, args.batch_size, args.workers)

    model = torchvision.models.resnet50(weights="IMAGENET1K_V2")
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    model.cuda()
    criterion = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)

    history = []
    # ---- stage 1: linear probe -------------------------------------------------------
    for name, p in model.named_parameters():
        p.requires_grad = name.startswith("fc.")
    head_opt = torch.optim.SGD(model.fc.parameters(), lr=args.lp_lr * hvd.size(), momentum=0.9)
    head_opt = hvd.DistributedOptimizer(head_opt, named_parameters=model.fc.named_parameters(prefix="fc"))
    for epoch in range(args.lp_epochs):
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        loss = train_epoch(model, train_loader, [head_opt], criterion)
        acc = evaluate(model, val_loader)
        history.append({"stage": "lp", "epoch": epoch, "loss": loss, "val_acc": acc})
        if hvd.rank() == 0:
            print(f"[LP {epoch}] loss {loss:.3f} val acc {100 * acc:.2f}% ({time.time() - t0:.0f}s)")
    save(model, os.path.join(args.out, "lp.pt"))

    # ---- stage 2: full fine-tuning ---------------------------------------------------
    # the head keeps its optimizer (and momentum); the backbone gets its own, smaller lr
    for p in model.parameters():
        p.requires_grad = True
    backbone = [p for n, p in model.named_parameters() if not n.startswith("fc.")]
    backbone_opt = torch.optim.SGD(backbone, lr=args.ft_lr * hvd.size(), momentum=0.9,
                                   weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(backbone_opt, T_max=args.ft_epochs)
    best = 0.0
    for epoch in range(args.ft_epochs):
        train_sampler.set_epoch(args.lp_epochs + epoch)
        t0 = time.time()
        loss = train_epoch(model, train_loader, [head_opt, backbone_opt], criterion)
        scheduler.step()
        acc = evaluate(model, val_loader)
        history.append({"stage": "ft", "epoch": epoch, "loss": loss, "val_acc": acc})
        if hvd.rank() == 0:
            print(f"[FT {epoch}] loss {loss:.3f} val acc {100 * acc:.2f}% ({time.time() - t0:.0f}s)")
        if acc > best:
            best = acc
            save(model, os.path.join(args.out, "best.pt"))

    if hvd.rank() == 0:
        with open(os.path.join(args.out, "history.json"), "w") as f:
            json.dump(history, f, indent=1)
        print(f"best val acc {100 * best:.2f}%")


if __name__ == "__main__":
    main()
