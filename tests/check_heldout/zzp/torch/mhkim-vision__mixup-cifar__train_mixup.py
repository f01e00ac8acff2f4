# CIFAR-100 WideResNet with mixup / cutmix, AMP and EMA, Horovod data parallel.
# usage: horovodrun -np 4 python train_mixup.py --arch wrn28_10 --epochs 200
import argparse
import copy
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd

parser = argparse.ArgumentParser(description="mixup-cifar")
parser.add_argument("--data", default="./data")
parser.add_argument("--arch", default="resnet50")
parser.add_argument("--epochs", type=int, default=200)
parser.add_argument("--batch-size", type=int, default=128, help="batch size per GPU")
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--wd", type=float, default=5e-4)
parser.add_argument("--t0", type=int, default=10, help="epochs of the first cosine cycle")
parser.add_argument("--t-mult", type=int, default=2)
parser.add_argument("--alpha", type=float, default=1.0, help="mixup/cutmix beta parameter")
parser.add_argument("--cutmix-prob", type=float, default=0.5)
parser.add_argument("--ema-momentum", type=float, default=0.999)
parser.add_argument("--amp", action="store_true")
parser.add_argument("--gpu", type=int, default=0)
parser.add_argument("--save-dir", default="./experiments")
parser.add_argument("--resume", default="")
args = parser.parse_args()

hvd.init()
torch.manual_seed(42)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(args.gpu)
    torch.backends.cudnn.benchmark = True
device = torch.device("cuda" if use_cuda else "cpu")

exp_name = time.strftime("%m%d_%H%M") + f"_{args.arch}_a{args.alpha}"
exp_dir = os.path.join(args.save_dir, exp_name)
if hvd.rank() == 0:
    os.makedirs(exp_dir, exist_ok=True)


class ModelEMA:
    def __init__(self, model, decay):
        self.ema = copy.deepcopy(model)
        self.ema.eval()
        self.decay = decay

    @torch.no_grad()
    def update(self, model):
        for e, m in zip(self.ema.state_dict().values(), model.state_dict().values()):
            if e.dtype.is_floating_point:
                e.mul_(self.decay).add_(m, alpha=1.0 - self.decay)


def rand_bbox(h, w, lam):
    cut = np.sqrt(1.0 - lam)
    ch, cw = int(h * cut), int(w * cut)
    cy, cx = np.random.randint(h), np.random.randint(w)
    y1, y2 = np.clip(cy - ch // 2, 0, h), np.clip(cy + ch // 2, 0, h)
    x1, x2 = np.clip(cx - cw // 2, 0, w), np.clip(cx + cw // 2, 0, w)
    return y1, y2, x1, x2


def mix_batch(x, y):
    lam = np.random.beta(args.alpha, args.alpha)
    perm = torch.randperm(x.size(0), device=x.device)
    if np.random.rand() < args.cutmix_prob:
        y1, y2, x1, x2 = rand_bbox(x.size(2), x.size(3), lam)
        x[:, :, y1:y2, x1:x2] = x[perm, :, y1:y2, x1:x2]
        lam = 1 - ((y2 - y1) * (x2 - x1) / (x.size(2) * x.size(3)))
    else:
        x = lam * x + (1 - lam) * x[perm]
    return x, y, y[perm], lam


def metric_average(val, name):
    return hvd.allreduce(torch.tensor(val), name=name).item()


normalize = T.Normalize((0.5071, 0.4865, 0.4409), (0.2673, 0.2564, 0.2762))
train_set = torchvision.datasets.CIFAR100(args.data, train=True, download=False, transform=T.Compose(
    [T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), normalize]))
test_set = torchvision.datasets.CIFAR100(args.data, train=False, download=False,
                                         transform=T.Compose([T.ToTensor(), normalize]))
train_sampler = torch.utils.data.distributed.DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
test_sampler = torch.utils.data.distributed.DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                                               shuffle=False)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                                           num_workers=4, drop_last=True)
test_loader = torch.utils.data.DataLoader(test_set, batch_size=256, sampler=test_sampler, num_workers=4)

model = getattr(torchvision.models, args.arch)(num_classes=100).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=args.wd, nesterov=True)
scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=args.t0, T_mult=args.t_mult)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=hvd.Compression.fp16 if args.amp else hvd.Compression.none)
scaler = torch.cuda.amp.GradScaler(enabled=args.amp and use_cuda)

start_epoch, best_acc = 0, 0.0
if args.resume and hvd.rank() == 0:
    ckpt = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch, best_acc = ckpt["epoch"] + 1, ckpt["best_acc"]
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
start_epoch, best_acc = hvd.broadcast_object((start_epoch, best_acc), root_rank=0, name="resume")
ema = ModelEMA(model, args.ema_decay)


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    iters = len(train_loader)
    for i, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        x, ya, yb, lam = mix_batch(x, y)
        with torch.autocast(device.type, enabled=args.amp):
            out = model(x)
            loss = lam * F.cross_entropy(out, ya) + (1 - lam) * F.cross_entropy(out, yb)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        scheduler.step(epoch + i / iters)
        ema.update(model)
        if i % 50 == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} [{i}/{iters}] loss {loss.item():.4f} lr {optimizer.param_groups[0]['lr']:.5f}")


@torch.no_grad()
def test(net):
    net.eval()
    correct = 0
    for x, y in test_loader:
        x, y = x.to(device), y.to(device)
        correct += (net(x).argmax(dim=1) == y).sum().item()
    acc = correct / len(test_loader.dataset)
    return metric_average(acc, "test_acc")


for epoch in range(start_epoch, args.epochs):
    train(epoch)
    acc = test(model)
    ema_acc = test(ema.ema)
    if hvd.rank() == 0:
        print(f"epoch {epoch}: test acc {acc:.4f}  ema acc {ema_acc:.4f}")
        if ema_acc > best_acc:
            best_acc = ema_acc
            torch.save(ema.ema.state_dict(), os.path.join(exp_dir, "best_ema.pth"))
        torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "best_acc": best_acc}, os.path.join(exp_dir, "last.pth"))
