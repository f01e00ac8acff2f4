"""SimCLR pre-training of a ResNet-18 on CIFAR-10 with Horovod (negatives gathered from all workers).

horovodrun -np 8 python 08_simclr_pretrain.py --epochs 500 --batch 256
"""
import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd


def get_config():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.environ.get("DATA", "./data"))
    ap.add_argument("--epochs", type=int, default=500)
    ap.add_argument("--batch", type=int, default=256, help="per worker")
    ap.add_argument("--base-lr", type=float, default=0.3, help="lr for a global batch of 256")
    ap.add_argument("--temperature", type=float, default=0.5)
    ap.add_argument("--warmup-epochs", type=int, default=10)
    ap.add_argument("--ckpt", default="simclr_r18.pt")
    return ap.parse_args()


class TwoViews:
    def __init__(self):
        self.t = T.Compose([
            T.RandomResizedCrop(32, scale=(0.2, 1.0)), T.RandomHorizontalFlip(),
            T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8), T.RandomGrayscale(0.2),
            T.ToTensor(), T.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261))])

    def __call__(self, img):
        return self.t(img), self.t(img)


class SimCLR(nn.Module):
    def __init__(self, dim=128):
        super().__init__()
        r = torchvision.models.resnet18(num_classes=10)
        r.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        r.maxpool = nn.Identity()
        feat = r.fc.in_features
        r.fc = nn.Identity()
        self.encoder = r
        self.proj = nn.Sequential(nn.Linear(feat, 512), nn.ReLU(inplace=True), nn.Linear(512, dim))

    def forward(self, x):
        return F.normalize(self.proj(self.encoder(x)), dim=1)


def nt_xent(z1, z2, tau):
    """NT-Xent with negatives from every worker; hvd.allgather is differentiable."""
    local_n = z1.size(0)
    all1 = hvd.allgather(z1, name="z1")
    all2 = hvd.allgather(z2, name="z2")
    reps = torch.cat([all1, all2])                      # 2N x d
    local = torch.cat([z1, z2])                         # 2n x d
    logits = local @ reps.t() / tau
    N = all1.size(0)
    off = hvd.rank() * local_n
    idx = torch.arange(local_n, device=z1.device) + off
    self_mask = torch.cat([idx, idx + N])
    logits[torch.arange(2 * local_n), self_mask] = float("-inf")
    targets = torch.cat([idx + N, idx])
    return F.cross_entropy(logits, targets)


def main():
    cfg = get_config()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda", hvd.local_rank())

    ds = torchvision.datasets.CIFAR10(cfg.data, train=True, transform=TwoViews(), download=False)
    sampler = torch.utils.data.distributed.DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), drop_last=True)
    loader = torch.utils.data.DataLoader(ds, batch_size=cfg.batch, sampler=sampler, num_workers=8,
                                         pin_memory=True, drop_last=True, persistent_workers=True)

    model = SimCLR().to(dev)
    global_batch = cfg.batch * hvd.size()
    peak_lr = cfg.base_lr * global_batch / 256
    opt = torch.optim.SGD(model.parameters(), lr=peak_lr, momentum=0.9, weight_decay=1e-6)

    start = 0
    if os.path.exists(cfg.ckpt):          # shared filesystem: every worker reads the same file
        ck = torch.load(cfg.ckpt, map_location=dev)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        start = ck["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), compression=hvd.Compression.fp16)
    steps = len(loader)
    warm, total = cfg.warmup_epochs * steps, cfg.epochs * steps

    def lr_factor(it):
        if it < warm:
            return (it + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * (it - warm) / (total - warm)))

    offset = start * steps  # resume: continue the schedule where the checkpoint left it
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda it: lr_factor(it + offset))
    scaler = torch.cuda.amp.GradScaler()

    for epoch in range(start, cfg.epochs):
        sampler.set_epoch(epoch)
        model.train()
        loss_sum = torch.zeros((), device=dev)
        for (x1, x2), _ in loader:
            x1, x2 = x1.to(dev, non_blocking=True), x2.to(dev, non_blocking=True)
            with torch.cuda.amp.autocast():
                loss = nt_xent(model(x1), model(x2), cfg.temperature)
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            opt.synchronize()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            with opt.skip_synchronize():
                scaler.step(opt)
            scaler.update()
            sched.step()
            loss_sum += loss.detach()
        epoch_loss = hvd.allreduce(loss_sum / steps, name="epoch_loss").item()
        if hvd.rank() == 0:
            print(f"epoch {epoch} nt-xent {epoch_loss:.4f} lr {sched.get_last_lr()[0]:.4f}", flush=True)
            if epoch % 10 == 9 or epoch == cfg.epochs - 1:
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}, cfg.ckpt)


if __name__ == "__main__":
    main()
