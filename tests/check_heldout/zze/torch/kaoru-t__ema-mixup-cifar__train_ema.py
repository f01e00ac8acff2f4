# CIFAR-100 ResNet-18 with mixup, label smoothing and a weight EMA, multi-GPU via horovod.
# usage: horovodrun -np 4 python train_ema.py --data ./data --epochs 200 --resume
import argparse
import copy
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--data', default='./data')
parser.add_argument('--epochs', type=int, default=200)
parser.add_argument('--batch-size', type=int, default=128)
parser.add_argument('--lr', type=float, default=0.1)
parser.add_argument('--wd', type=float, default=5e-4)
parser.add_argument('--mixup-alpha', type=float, default=0.2)
parser.add_argument('--smoothing', type=float, default=0.1)
parser.add_argument('--ema-decay', type=float, default=0.999)
parser.add_argument('--clip', type=float, default=5.0)
parser.add_argument('--ckpt', default='ckpt/ema_r18.pth')
parser.add_argument('--resume', action='store_true')
args = parser.parse_args()

hvd.init()
torch.manual_seed(42)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = 'cuda' if torch.cuda.is_available() else 'cpu'


class ModelEma:
    """Keeps an exponential moving average of a model's weights (rank 0 evaluates it)."""

    def __init__(self, model, decay):
        self.module = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        msd = model.state_dict()
        for k, v in self.module.state_dict().items():
            if v.dtype.is_floating_point:
                v.mul_(self.decay).add_(msd[k].detach(), alpha=1 - self.decay)
            else:
                v.copy_(msd[k])


def mixup(x, y, alpha):
    lam = torch.distributions.Beta(alpha, alpha).sample().item() if alpha > 0 else 1.0
    idx = torch.randperm(x.size(0), device=x.device)
    return lam * x + (1 - lam) * x[idx], y, y[idx], lam


norm = T.Normalize((0.507, 0.487, 0.441), (0.267, 0.256, 0.276))
train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), norm])
test_tf = T.Compose([T.ToTensor(), norm])

# rank 0 downloads first, the others wait
if hvd.rank() != 0:
    hvd.barrier()
train_set = torchvision.datasets.CIFAR100(args.data, train=True, download=hvd.rank() == 0, transform=train_tf)
test_set = torchvision.datasets.CIFAR100(args.data, train=False, download=False, transform=test_tf)
if hvd.rank() == 0:
    hvd.barrier()

train_sampler = torch.utils.data.distributed.DistributedSampler(
    train_set, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                                           num_workers=4, drop_last=True)
test_loader = torch.utils.data.DataLoader(test_set, batch_size=256, shuffle=False, num_workers=4)

model = torchvision.models.resnet18(num_classes=100)
model.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
model.maxpool = nn.Identity()
model = model.to(device)

optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=args.wd, nesterov=True)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
ema = ModelEma(model, args.ema_decay)

start_epoch = 0
if args.resume and hvd.rank() == 0 and os.path.isfile(args.ckpt):
    ckpt = torch.load(args.ckpt, map_location=device)
    model.load_state_dict(ckpt['model'])
    ema.module.load_state_dict(ckpt['ema'])
    optimizer.load_state_dict(ckpt['optimizer'])
    scheduler.load_state_dict(ckpt['scheduler'])
    start_epoch = ckpt['epoch'] + 1
    print(f'=> resumed from epoch {ckpt["epoch"]}')
start_epoch = hvd.broadcast_object(start_epoch, root_rank=0)
for _ in range(start_epoch if hvd.rank() != 0 else 0):
    scheduler.step()


def evaluate(net):
    net.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in test_loader:
            x, y = x.to(device), y.to(device)
            correct += (net(x).argmax(1) == y).sum().item()
            total += y.size(0)
    return 100.0 * correct / total


for epoch in range(start_epoch, args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    t0, seen, loss_sum = time.time(), 0, 0.0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        x, ya, yb, lam = mixup(x, y, args.mixup_alpha)
        out = model(x)
        loss = lam * F.cross_entropy(out, ya, label_smoothing=args.smoothing) + \
            (1 - lam) * F.cross_entropy(out, yb, label_smoothing=args.smoothing)
        optimizer.zero_grad()
        loss.backward()
        optimizer.synchronize()
        nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        with optimizer.skip_synchronize():
            optimizer.step()
        ema.update(model)
        loss_sum += loss.item() * x.size(0)
        seen += x.size(0)
    scheduler.step()

    if hvd.rank() == 0:
        acc, ema_acc = evaluate(model), evaluate(ema.module)
        print(f'epoch {epoch:3d} | loss {loss_sum / seen:.4f} | acc {acc:.2f} | ema acc {ema_acc:.2f} '
              f'| lr {scheduler.get_last_lr()[0]:.4f} | {time.time() - t0:.0f}s', flush=True)
        os.makedirs(os.path.dirname(args.ckpt) or '.', exist_ok=True)
        torch.save({'epoch': epoch, 'model': model.state_dict(), 'ema': ema.module.state_dict(),
                    'optimizer': optimizer.state_dict(), 'scheduler': scheduler.state_dict()}, args.ckpt)
