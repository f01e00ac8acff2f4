#!/usr/bin/env python
# ViT-Tiny on CIFAR-100 with torch.cuda.amp and Horovod.
# Goyal et al. style warmup: the LR ramps from base_lr to base_lr * world size over the
# first epochs, then follows a cosine decay.
import math
import os
import logging

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd

CFG = dict(
    data_dir=os.environ.get("DATA_DIR", "./data"),
    out_dir="runs/vit_tiny_c100",
    img=32, patch=4, dim=192, depth=9, heads=3, mlp=384,
    batch_size=128, epochs=100, warmup_epochs=5,
    base_lr=5e-4, weight_decay=0.05, clip=1.0, label_smoothing=0.1,
)

hvd.init()
local_rank = hvd.local_rank()
torch.cuda.set_device(local_rank)
logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                    format="%(asctime)s %(message)s")
log = logging.getLogger("vit")


class PatchEmbed(nn.Module):
    def __init__(self, img, patch, dim):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)
        self.n = (img // patch) ** 2

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class ViT(nn.Module):
    def __init__(self, c, num_classes=100):
        super().__init__()
        self.embed = PatchEmbed(c["img"], c["patch"], c["dim"])
        self.cls = nn.Parameter(torch.zeros(1, 1, c["dim"]))
        self.pos = nn.Parameter(torch.randn(1, self.embed.n + 1, c["dim"]) * 0.02)
        layer = nn.TransformerEncoderLayer(c["dim"], c["heads"], c["mlp"], dropout=0.0,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, c["depth"])
        self.norm = nn.LayerNorm(c["dim"])
        self.head = nn.Linear(c["dim"], num_classes)

    def forward(self, x):
        x = self.embed(x)
        x = torch.cat([self.cls.expand(x.size(0), -1, -1), x], dim=1) + self.pos
        x = self.norm(self.encoder(x))
        return self.head(x[:, 0])


class AverageMeter:
    """Running (sum, count) that can be reduced over all workers."""

    def __init__(self, name):
        self.name = name
        self.sum = torch.zeros(1)
        self.count = torch.zeros(1)

    def update(self, val, n=1):
        self.sum += float(val) * n
        self.count += n

    def synced_avg(self):
        s = hvd.allreduce(self.sum, op=hvd.Sum, name=self.name + "_sum")
        c = hvd.allreduce(self.count, op=hvd.Sum, name=self.name + "_cnt")
        return (s / c).item()


mean, std = (0.507, 0.487, 0.441), (0.267, 0.256, 0.276)
train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(),
                      T.ToTensor(), T.Normalize(mean, std)])
test_tf = T.Compose([T.ToTensor(), T.Normalize(mean, std)])

# only local rank 0 downloads, the others wait at the barrier
if hvd.local_rank() == 0:
    torchvision.datasets.CIFAR100(CFG["data_dir"], train=True, download=True)
hvd.barrier()
train_ds = torchvision.datasets.CIFAR100(CFG["data_dir"], train=True, transform=train_tf)
test_ds = torchvision.datasets.CIFAR100(CFG["data_dir"], train=False, transform=test_tf)

train_sampler = torch.utils.data.distributed.DistributedSampler(
    train_ds, num_replicas=hvd.size(), rank=hvd.rank())
test_sampler = torch.utils.data.distributed.DistributedSampler(
    test_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = torch.utils.data.DataLoader(train_ds, batch_size=CFG["batch_size"],
                                           sampler=train_sampler, num_workers=6,
                                           pin_memory=True, drop_last=True)
test_loader = torch.utils.data.DataLoader(test_ds, batch_size=256, sampler=test_sampler,
                                          num_workers=4)

model = ViT(CFG).cuda()
decay, no_decay = [], []
for n_, p_ in model.named_parameters():
    (no_decay if p_.ndim <= 1 or n_ in ("cls", "pos") else decay).append(p_)
optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": CFG["weight_decay"]},
                               {"params": no_decay, "weight_decay": 0.0}], lr=CFG["base_lr"])

steps_per_epoch = len(train_loader)
warm = CFG["warmup_epochs"] * steps_per_epoch
total = CFG["epochs"] * steps_per_epoch


def lr_factor(step):
    # ramp 1 -> hvd.size() during warmup, cosine from hvd.size() down afterwards
    if step < warm:
        return 1.0 + (hvd.size() - 1.0) * step / warm
    progress = (step - warm) / max(1, total - warm)
    return hvd.size() * 0.5 * (1.0 + math.cos(math.pi * progress))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
scaler = torch.cuda.amp.GradScaler()
criterion = nn.CrossEntropyLoss(label_smoothing=CFG["label_smoothing"])

if hvd.rank() == 0:
    os.makedirs(CFG["out_dir"], exist_ok=True)
log.info("params: %.2fM, world size %d", sum(p.numel() for p in model.parameters()) / 1e6, hvd.size())

for epoch in range(CFG["epochs"]):
    train_sampler.set_epoch(epoch)
    model.train()
    loss_m, acc_m = AverageMeter("train_loss"), AverageMeter("train_acc")
    for images, targets in train_loader:
        images = images.cuda(non_blocking=True)
        targets = targets.cuda(non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with torch.cuda.amp.autocast():
            logits = model(images)
            loss = criterion(logits, targets)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), CFG["clip"])
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        loss_m.update(loss.item(), images.size(0))
        acc_m.update((logits.argmax(1) == targets).float().mean().item(), images.size(0))

    model.eval()
    val_loss, val_acc = AverageMeter("val_loss"), AverageMeter("val_acc")
    with torch.no_grad(), torch.cuda.amp.autocast():
        for images, targets in test_loader:
            images, targets = images.cuda(), targets.cuda()
            logits = model(images)
            val_loss.update(criterion(logits, targets).item(), images.size(0))
            val_acc.update((logits.argmax(1) == targets).float().mean().item(), images.size(0))

    tl, ta = loss_m.synced_avg(), acc_m.synced_avg()
    vl, va = val_loss.synced_avg(), val_acc.synced_avg()
    log.info("epoch %3d lr %.2e | train %.4f / %.3f | val %.4f / %.3f", epoch,
             optimizer.param_groups[0]["lr"], tl, ta, vl, va)

    if hvd.rank() == 0 and (epoch % 10 == 9 or epoch == CFG["epochs"] - 1):
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scaler": scaler.state_dict(), "epoch": epoch},
                   os.path.join(CFG["out_dir"], f"vit_ep{epoch:03d}.pt"))
