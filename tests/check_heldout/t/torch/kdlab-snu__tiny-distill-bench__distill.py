"""Knowledge distillation benchmark: ResNet-ish teacher -> small student on CIFAR-100 (npz).

Teacher weights come from train_teacher.py (single node). Student trained with Horovod:
    horovodrun -np 8 -H n1:4,n2:4 python distill.py --teacher ckpt/teacher_r56.pt --T 4 --alpha 0.9
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/cifar100.npz")
p.add_argument("--teacher", default="ckpt/teacher_r56.pt")
p.add_argument("--epochs", type=int, default=240)
p.add_argument("--bs", type=int, default=64)
p.add_argument("--lr", type=float, default=0.05)
p.add_argument("--T", type=float, default=4.0)
p.add_argument("--alpha", type=float, default=0.9)
p.add_argument("--width", type=int, default=64)
p.add_argument("--out", default="ckpt")
args = p.parse_args()

hvd.init()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)


def make_net(width, depth, num_classes=100):
    layers, c = [], 3
    for i in range(depth):
        layers += [nn.Conv2d(c, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True)]
        if i % 2 == 1:
            layers.append(nn.MaxPool2d(2))
        c = width
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, num_classes)]
    return nn.Sequential(*layers)


def kd_loss(s_logits, t_logits, y, T, alpha):
    soft = F.kl_div(F.log_softmax(s_logits / T, 1), F.softmax(t_logits / T, 1), reduction="batchmean") * T * T
    return alpha * soft + (1 - alpha) * F.cross_entropy(s_logits, y)


d = np.load(args.data)
to_t = lambda a: torch.from_numpy(a).permute(0, 3, 1, 2).float().div(255.)
train_ds = TensorDataset(to_t(d["x_train"]), torch.from_numpy(d["y_train"].reshape(-1)).long())
test_ds = TensorDataset(to_t(d["x_test"]), torch.from_numpy(d["y_test"].reshape(-1)).long())
train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
test_sampler = DistributedSampler(test_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_ds, batch_size=args.bs, sampler=train_sampler, num_workers=2, drop_last=True)
test_loader = DataLoader(test_ds, batch_size=256, sampler=test_sampler)

teacher = make_net(2 * args.width, 8).to(device)
teacher.load_state_dict(torch.load(args.teacher, map_location="cpu"))   # same file on every node
teacher.eval()
for q in teacher.parameters():
    q.requires_grad_(False)

student = make_net(args.width, 4).to(device)
opt = torch.optim.SGD(student.parameters(), lr=args.lr * hvd.size(), momentum=0.9, weight_decay=5e-4)
opt = hvd.DistributedOptimizer(opt, named_parameters=student.named_parameters())
hvd.broadcast_parameters(student.parameters(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[150, 180, 210], gamma=0.1)


def evaluate(net):
    net.eval()
    correct, n = torch.zeros(1), torch.zeros(1)
    with torch.no_grad():
        for x, y in test_loader:
            correct += (net(x.to(device)).argmax(1).cpu() == y).sum()
            n += len(y)
    net.train()
    return (hvd.allreduce(correct, op=hvd.Sum) / hvd.allreduce(n, op=hvd.Sum)).item()


best = 0.0
for epoch in range(args.epochs):
    train_sampler.set_epoch(epoch)
    student.train()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        with torch.no_grad():
            t_logits = teacher(x)
        loss = kd_loss(student(x), t_logits, y, args.T, args.alpha)
        opt.zero_grad()
        loss.backward()
        opt.step()
    sched.step()
    acc = evaluate(student)
    if hvd.rank() == 0:
        print(f"epoch {epoch:3d} lr {sched.get_last_lr()[0]:.4f} student top1 {acc:.4f}", flush=True)
        if acc > best:
            best = acc
            os.makedirs(args.out, exist_ok=True)
            torch.save(student.state_dict(), os.path.join(args.out, f"student_w{args.width}_T{args.T:g}.pt"))
