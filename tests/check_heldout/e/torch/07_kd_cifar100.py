"""Knowledge distillation on CIFAR-100: frozen ResNet-50 teacher -> ResNet-18 student.

The teacher checkpoint sits on the shared file system and every worker reads the same file;
only the student is trained (and broadcast). Resumable: --resume path/to/kd_last.pt
"""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, models, transforms
import horovod.torch as hvd


class AverageMeter:
    """Running mean that can be averaged across Horovod workers."""

    def __init__(self, name):
        self.name = name
        self.total = torch.tensor(0.0)
        self.count = torch.tensor(0.0)

    def update(self, value, n=1):
        self.total += float(value) * n
        self.count += n

    def sync(self):
        self.total = hvd.allreduce(self.total, op=hvd.Sum, name=self.name + ".t")
        self.count = hvd.allreduce(self.count, op=hvd.Sum, name=self.name + ".c")

    @property
    def avg(self):
        return (self.total / self.count.clamp(min=1)).item()


def kd_loss(s_logits, t_logits, target, T, alpha):
    soft = F.kl_div(F.log_softmax(s_logits / T, 1), F.softmax(t_logits / T, 1),
                    reduction="batchmean") * T * T
    return alpha * soft + (1 - alpha) * F.cross_entropy(s_logits, target)


def cifar_resnet(arch, classes=100):
    m = getattr(models, arch)(num_classes=classes)
    m.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    m.maxpool = nn.Identity()
    return m


def lr_at(epoch, args):
    return args.lr * hvd.size() * (0.2 ** sum(epoch >= m for m in (60, 120, 160)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="./data")
    ap.add_argument("--teacher", default="checkpoints/resnet50_cifar100.pt")
    ap.add_argument("--resume", default="")
    ap.add_argument("--save", default="checkpoints/kd_last.pt")
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--bs", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--T", type=float, default=4.0)
    ap.add_argument("--alpha", type=float, default=0.9)
    args = ap.parse_args()

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    norm = transforms.Normalize((0.507, 0.487, 0.441), (0.267, 0.256, 0.276))
    train_ds = datasets.CIFAR100(args.data, train=True, transform=transforms.Compose([
        transforms.RandomCrop(32, 4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
    val_ds = datasets.CIFAR100(args.data, train=False,
                               transform=transforms.Compose([transforms.ToTensor(), norm]))
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, args.bs, sampler=train_sampler, num_workers=4, pin_memory=True)
    val_loader = DataLoader(val_ds, 200, sampler=val_sampler, num_workers=4)

    teacher = cifar_resnet("resnet50").cuda()
    teacher.load_state_dict(torch.load(args.teacher, map_location="cuda"))
    teacher.eval()
    for p in teacher.parameters():
        p.requires_grad_(False)

    student = cifar_resnet("resnet18").cuda()
    optimizer = torch.optim.SGD(student.parameters(), lr=lr_at(0, args), momentum=0.9,
                                weight_decay=5e-4, nesterov=True)

    start_epoch, best = 0, 0.0
    if args.resume and hvd.rank() == 0:
        state = torch.load(args.resume, map_location="cpu")
        student.load_state_dict(state["student"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch, best = state["epoch"] + 1, state["best"]
    # rank 0 may have loaded a checkpoint: everything flows from rank 0 afterwards
    start_epoch, best = hvd.broadcast_object((start_epoch, best), root_rank=0, name="resume_info")
    hvd.broadcast_parameters(student.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=student.named_parameters())

    for epoch in range(start_epoch, args.epochs):
        for g in optimizer.param_groups:
            g["lr"] = lr_at(epoch, args)
        student.train()
        train_sampler.set_epoch(epoch)
        loss_m = AverageMeter("train_loss")
        for x, y in train_loader:
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            with torch.no_grad():
                t_logits = teacher(x)
            loss = kd_loss(student(x), t_logits, y, args.T, args.alpha)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_m.update(loss.item(), x.size(0))

        student.eval()
        acc_m = AverageMeter("val_acc")
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.cuda(), y.cuda()
                acc_m.update((student(x).argmax(1) == y).float().mean().item(), x.size(0))
        loss_m.sync()
        acc_m.sync()

        if hvd.rank() == 0:
            print(f"epoch {epoch} lr {lr_at(epoch, args):.4f} kd_loss {loss_m.avg:.4f} "
                  f"val@1 {100 * acc_m.avg:.2f} (best {100 * max(best, acc_m.avg):.2f})")
            best = max(best, acc_m.avg)
            os.makedirs(os.path.dirname(args.save) or ".", exist_ok=True)
            torch.save({"student": student.state_dict(), "optimizer": optimizer.state_dict(),
                        "epoch": epoch, "best": best}, args.save)


if __name__ == "__main__":
    main()
