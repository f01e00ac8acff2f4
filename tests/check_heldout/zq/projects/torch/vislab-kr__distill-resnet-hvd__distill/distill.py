#!/usr/bin/env python
"""Knowledge distillation (wide CNN teacher -> small student) with Horovod.

    horovodrun -np 8 -H host1:4,host2:4 python distill.py \
        --data data/cifar_small.npz --teacher-ckpt ckpt/teacher_wrn.pt
"""
import argparse
import logging
import os

import torch
import horovod.torch as hvd

from kd.data import build_loaders
from kd.engine import DistillTrainer
from kd.losses import DistillationLoss
from kd.models import build_student, build_teacher

log = logging.getLogger("distill")


def parse_args():
    p = argparse.ArgumentParser(description="teacher-student distillation")
    p.add_argument("--data", required=True, help="npz with x_train/y_train/x_val/y_val")
    p.add_argument("--teacher-ckpt", required=True)
    p.add_argument("--out-dir", default="runs/kd")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=128, help="per worker")
    p.add_argument("--lr", type=float, default=0.05, help="single-worker lr")
    p.add_argument("--alpha", type=float, default=0.7, help="weight of the soft loss")
    p.add_argument("--temperature", type=float, default=4.0)
    p.add_argument("--workers", type=int, default=2)
    return p.parse_args()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, seen = 0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        correct += (model(images).argmax(dim=1) == labels).sum().item()
        seen += labels.numel()
    return correct / max(seen, 1)


def main():
    args = parse_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(name)s | %(message)s")

    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.set_num_threads(2)

    train_loader, val_loader, train_sampler = build_loaders(args.data, args.batch_size, args.workers)

    teacher = build_teacher().to(device)
    teacher.load_state_dict(torch.load(args.teacher_ckpt, map_location="cpu"))
    student = build_student().to(device)

    optimizer = torch.optim.SGD(student.parameters(), lr=args.lr * hvd.size(),
                                momentum=0.9, weight_decay=5e-4, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=student.named_parameters())
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    criterion = DistillationLoss(alpha=args.alpha, temperature=args.temperature)
    trainer = DistillTrainer(teacher, student, optimizer, criterion, device)
    trainer.sync_models()

    best_acc = 0.0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        kd_loss = trainer.train_epoch(train_loader)
        scheduler.step()

        val_acc = evaluate(student, val_loader, device)
        if hvd.rank() == 0:
            log.info("epoch %3d | kd loss %.4f | val acc %.4f | lr %.4f",
                     epoch, kd_loss, val_acc, scheduler.get_last_lr()[0])
            if val_acc > best_acc:
                best_acc = val_acc
                trainer.save(os.path.join(args.out_dir, "student_best.pt"), epoch, val_acc)

    if hvd.rank() == 0:
        trainer.save(os.path.join(args.out_dir, "student_last.pt"), args.epochs - 1, best_acc)
        log.info("done, best val acc %.4f", best_acc)


if __name__ == "__main__":
    main()
