"""Fine-tune a magnitude-pruned ResNet with distillation from its dense parent.

usage: horovodrun -np 4 python finetune.py --config configs/r18_to_sparse80.json
"""
import argparse
import json
import os

import torch
import torch.nn as nn
import torchvision
import horovod.torch as hvd

from kd import dist_utils
from kd.data import cifar100
from kd.losses import DistillLoss
from kd.optim import build_optimizer, cosine_with_warmup


def build_model(num_classes=100):
    m = torchvision.models.resnet18(num_classes=num_classes)
    m.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    m.maxpool = nn.Identity()
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/r18_to_sparse80.json")
    ap.add_argument("--epochs", type=int)
    cli = ap.parse_args()
    with open(cli.config) as f:
        cfg = json.load(f)
    if cli.epochs:
        cfg["epochs"] = cli.epochs

    device = dist_utils.setup()
    cfg["lr"] = cfg["lr"] * hvd.size()
    train_loader, test_loader, sampler = cifar100(cfg["data_root"], cfg["batch_size"])

    teacher = build_model().to(device).eval()
    teacher.load_state_dict(torch.load(cfg["teacher"], map_location=device))
    for p in teacher.parameters():
        p.requires_grad_(False)

    student = build_model().to(device)
    optimizer = build_optimizer(student, cfg)
    scheduler = cosine_with_warmup(optimizer, cfg["warmup_steps"], cfg["epochs"] * len(train_loader))
    dist_utils.sync(student, optimizer)

    # only rank 0 reads the pruned checkpoint (shared FS is slow)
    if hvd.rank() == 0:
        student.load_state_dict(torch.load(cfg["student"], map_location=device)["model"])
    masks = {n: (p != 0).float() for n, p in student.named_parameters() if p.dim() == 4}

    criterion = DistillLoss(cfg["temperature"], cfg["alpha"])
    os.makedirs(cfg["out_dir"], exist_ok=True)
    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        student.train()
        running = 0.0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            with torch.no_grad():
                t_logits = teacher(x)
            loss = criterion(student(x), t_logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            with torch.no_grad():
                for n, p in student.named_parameters():
                    if n in masks:
                        p.mul_(masks[n])
            running += loss.item()
        train_loss = dist_utils.mean(running / len(train_loader), "train_loss")

        student.eval()
        correct = 0
        with torch.no_grad():
            for x, y in test_loader:
                correct += (student(x.to(device)).argmax(1) == y.to(device)).sum().item()
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} kd-loss {train_loss:.4f} top1 {correct / len(test_loader.dataset):.4f}")
            torch.save({"model": student.state_dict(), "masks": masks, "epoch": epoch},
                       os.path.join(cfg["out_dir"], "student_kd.pth"))


if __name__ == "__main__":
    main()
