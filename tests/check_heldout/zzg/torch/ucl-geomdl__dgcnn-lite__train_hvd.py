"""
DGCNN (EdgeConv on dynamic kNN graphs) for point-cloud classification.

Multi-GPU with Horovod and gradient accumulation:
    horovodrun -np 4 -H localhost:4 python train_hvd.py --data data/mn40.pt --accum 2
"""
import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def knn(x, k):
    # x: (B, C, N) -> indices (B, N, k) of the k nearest points in feature space
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    sq = (x ** 2).sum(dim=1, keepdim=True)
    return (-sq - inner - sq.transpose(2, 1)).topk(k=k, dim=-1).indices


def edge_features(x, k):
    B, C, N = x.shape
    idx = (knn(x, k) + torch.arange(B, device=x.device).view(-1, 1, 1) * N).view(-1)
    pts = x.transpose(2, 1).reshape(B * N, C)
    nbr = pts[idx].view(B, N, k, C)
    ctr = pts.view(B, N, 1, C).expand(-1, -1, k, -1)
    return torch.cat([nbr - ctr, ctr], dim=3).permute(0, 3, 1, 2)   # (B, 2C, N, k)


class EdgeConv(nn.Module):
    def __init__(self, c_in, c_out, k):
        super().__init__()
        self.k = k
        self.mlp = nn.Sequential(nn.Conv2d(2 * c_in, c_out, 1, bias=False), nn.BatchNorm2d(c_out),
                                 nn.LeakyReLU(0.2))

    def forward(self, x):
        return self.mlp(edge_features(x, self.k)).max(dim=-1).values


class DGCNN(nn.Module):
    def __init__(self, k=20, emb=512, n_cls=40):
        super().__init__()
        self.ec = nn.ModuleList([EdgeConv(3, 64, k), EdgeConv(64, 64, k), EdgeConv(64, 128, k)])
        self.fuse = nn.Sequential(nn.Conv1d(256, emb, 1, bias=False), nn.BatchNorm1d(emb), nn.LeakyReLU(0.2))
        self.head = nn.Sequential(nn.Linear(2 * emb, 256), nn.BatchNorm1d(256), nn.LeakyReLU(0.2),
                                  nn.Dropout(0.5), nn.Linear(256, n_cls))

    def forward(self, pts):
        x, outs = pts.transpose(1, 2), []
        for ec in self.ec:
            x = ec(x)
            outs.append(x)
        x = self.fuse(torch.cat(outs, dim=1))
        return self.head(torch.cat([x.max(-1).values, x.mean(-1)], dim=1))


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/modelnet40_1024.pt")
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=16, help="micro-batch per GPU")
    ap.add_argument("--accum", type=int, default=2, help="micro-batches per optimizer step")
    ap.add_argument("--lr", type=float, default=0.05, help="SGD lr for one GPU")
    ap.add_argument("--warmup-epochs", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--save-every", type=int, default=10)
    ap.add_argument("--workdir", default="work_dgcnn")
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(2024)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if use_cuda else "cpu")

    blob = torch.load(args.data)
    train_ds = TensorDataset(blob["train_points"].float(), blob["train_labels"].long())
    test_ds = TensorDataset(blob["test_points"].float(), blob["test_labels"].long())
    train_sampler = DistributedSampler(train_ds, hvd.size(), hvd.rank(), shuffle=True, drop_last=True)
    test_sampler = DistributedSampler(test_ds, hvd.size(), hvd.rank(), shuffle=False)
    train_dl = DataLoader(train_ds, args.batch_size, sampler=train_sampler, drop_last=True)
    test_dl = DataLoader(test_ds, args.batch_size, sampler=test_sampler)

    model = DGCNN(k=args.k, n_cls=int(blob["train_labels"].max()) + 1).to(dev)
    base_opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    steps_per_epoch = len(train_dl) // args.accum
    warmup = args.warmup_epochs * steps_per_epoch
    total = args.epochs * steps_per_epoch

    def lr_factor(step):
        # ramp from lr to lr * world size, then cosine decay (Goyal et al.)
        if step < warmup:
            return 1.0 + (hvd.size() - 1.0) * step / warmup
        return hvd.size() * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))

    sched = torch.optim.lr_scheduler.LambdaLR(base_opt, lr_factor)
    opt = hvd.DistributedOptimizer(base_opt, named_parameters=model.named_parameters(),
                                   backward_passes_per_step=args.accum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        opt.zero_grad()
        for i, (pts, y) in enumerate(train_dl):
            if i == steps_per_epoch * args.accum:
                break                      # never leave a half-accumulated step behind
            loss = F.cross_entropy(model(pts.to(dev)), y.to(dev), label_smoothing=0.2) / args.accum
            loss.backward()
            if (i + 1) % args.accum == 0:
                opt.step()
                opt.zero_grad()
                sched.step()

        model.eval()
        correct = seen = 0
        with torch.no_grad():
            for pts, y in test_dl:
                correct += (model(pts.to(dev)).argmax(1).cpu() == y).sum().item()
                seen += y.numel()
        acc = hvd.allreduce(torch.tensor(correct / seen), name="test_acc").item()
        if hvd.rank() == 0:
            print(f"[{epoch + 1}/{args.epochs}] test acc {acc:.4f} lr {sched.get_last_lr()[0]:.4f}", flush=True)
            if (epoch + 1) % args.save_every == 0 or epoch + 1 == args.epochs:
                os.makedirs(args.workdir, exist_ok=True)
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch},
                           os.path.join(args.workdir, f"dgcnn_{epoch + 1:03d}.pth"))


if __name__ == "__main__":
    main()
