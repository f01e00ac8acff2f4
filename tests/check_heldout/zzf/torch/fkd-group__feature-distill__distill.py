# FitNets-style hint distillation: WRN-40-2 teacher -> WRN-16-2 student on CIFAR-100.
# Usage: horovodrun -np 4 -H localhost:4 python distill.py --teacher-path save/wrn40_2.pth
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def conv_bn(i, o, s=1):
    return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class WRN(nn.Module):
    def __init__(self, depth, widen, num_classes=100):
        super().__init__()
        n = (depth - 4) // 6
        w = [16, 16 * widen, 32 * widen, 64 * widen]
        layers = [conv_bn(3, w[0])]
        for g in range(3):
            layers += [conv_bn(w[g] if k == 0 else w[g + 1], w[g + 1], 2 if (k == 0 and g > 0) else 1) for k in range(n)]
        self.body = nn.Sequential(*layers)
        self.hint_layer = len(layers) - n - 1
        self.fc = nn.Linear(w[3], num_classes)

    def forward(self, x):
        feats = None
        for i, layer in enumerate(self.body):
            x = layer(x)
            if i == self.hint_layer:
                feats = x
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1)), feats


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


parser = argparse.ArgumentParser("hint distillation")
parser.add_argument("--data", default="./data")
parser.add_argument("--teacher-path", default="save/models/wrn_40_2.pth")
parser.add_argument("--epochs", type=int, default=240)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--temperature", type=float, default=4.0)
parser.add_argument("--beta", type=float, default=100.0, help="hint loss weight")
parser.add_argument("--save-freq", type=int, default=40)
parser.add_argument("--save-dir", default="save/student")
args = parser.parse_args()

hvd.init()
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.backends.cudnn.benchmark = True

norm = transforms.Normalize((0.5071, 0.4865, 0.4409), (0.2673, 0.2564, 0.2762))
train_set = datasets.CIFAR100(args.data, train=True, transform=transforms.Compose(
    [transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
val_set = datasets.CIFAR100(args.data, train=False, transform=transforms.Compose([transforms.ToTensor(), norm]))
train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, num_workers=4, drop_last=True)
val_loader = DataLoader(val_set, batch_size=128, sampler=val_sampler, num_workers=4)

teacher = WRN(40, 2)
teacher.load_state_dict(torch.load(args.teacher_path, map_location="cpu")["model"])
teacher = teacher.to(device).eval()
student = WRN(16, 2).to(device)
with torch.no_grad():
    _, f_s = student(torch.zeros(1, 3, 32, 32, device=device))
    _, f_t = teacher(torch.zeros(1, 3, 32, 32, device=device))
regressor = nn.Conv2d(f_s.shape[1], f_t.shape[1], 1).to(device)

named = list(student.named_parameters()) + [("regressor." + n, p) for n, p in regressor.named_parameters()]
optimizer = torch.optim.SGD([p for _, p in named], lr=args.lr * hvd.size(), momentum=0.9, weight_decay=5e-4)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=named)
hvd.broadcast_parameters(student.state_dict(), root_rank=0)
hvd.broadcast_parameters(regressor.state_dict(), root_rank=0)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[150, 180, 210], gamma=0.1)


def distill_loss(s_logits, t_logits, f_s, f_t, y):
    T = args.kd_temperature
    kd = F.kl_div(F.log_softmax(s_logits / T, 1), F.softmax(t_logits / T, 1), reduction="batchmean") * T * T
    hint = F.mse_loss(regressor(f_s), f_t)
    return F.cross_entropy(s_logits, y) + kd + args.beta * hint


def train(epoch):
    student.train()
    train_sampler.set_epoch(epoch)
    losses, t0 = AverageMeter(), time.time()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        with torch.no_grad():
            t_logits, f_t = teacher(x)
        s_logits, f_s = student(x)
        loss = distill_loss(s_logits, t_logits, f_s, f_t, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss.item(), x.size(0))
    return losses.avg, time.time() - t0


def validate():
    student.eval()
    top1 = AverageMeter()
    with torch.no_grad():
        for x, y in val_loader:
            logits, _ = student(x.to(device))
            top1.update((logits.argmax(1).cpu() == y).float().mean().item() * 100, x.size(0))
    return top1.avg


best = 0.0
for epoch in range(1, args.epochs + 1):
    loss, secs = train(epoch)
    scheduler.step()
    acc = validate()
    if hvd.rank() == 0:
        print(f"epoch {epoch} loss {loss:.3f} val@1 {acc:.2f} ({secs:.0f}s)")
        os.makedirs(args.save_dir, exist_ok=True)
        state = {"epoch": epoch, "model": student.state_dict(), "acc": acc}
        if acc > best:
            best = acc
            torch.save(state, os.path.join(args.save_dir, "wrn_16_2_best.pth"))
        if epoch % args.save_freq == 0:
            torch.save(state, os.path.join(args.save_dir, f"ckpt_epoch_{epoch}.pth"))
