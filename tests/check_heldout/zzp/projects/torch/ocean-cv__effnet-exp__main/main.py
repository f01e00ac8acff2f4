"""EfficientNet-B0 on Food-101 with SGDR, EMA and Horovod.

horovodrun -np 8 -H node1:4,node2:4 python main.py --global-batch 512 --exp-name b0_sgdr
"""
import argparse
import copy
import json
import os
import time

import torch
import torch.nn.functional as F
import torchvision
from torchvision import transforms as T
import horovod.torch as hvd

from effexp import checkpoint
from effexp.launch import launch
from effexp.schedule import sgdr
from effexp.sharding import epoch_shard, strided_shard


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/scratch/food-101")
    p.add_argument("--global-batch", type=int, default=512)
    p.add_argument("--lr", type=float, default=0.4, help="lr for the global batch")
    p.add_argument("--epochs", type=int, default=45)
    p.add_argument("--ema", type=float, default=0.9999)
    p.add_argument("--seed", type=int, default=17)
    p.add_argument("--exp-name", default="default")
    p.add_argument("--root", default="experiments")
    p.add_argument("--resume", action="store_true")
    return p.parse_args()


def run(args, ctx):
    rank, world = ctx["rank"], ctx["world"]
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    exp_dir = os.path.join(args.root, args.exp_name)
    if rank == 0:
        os.makedirs(exp_dir, exist_ok=True)
        with open(os.path.join(exp_dir, f"args_{time.strftime('%Y%m%d_%H%M%S')}.json"), "w") as f:
            json.dump(vars(args), f, indent=1)

    norm = T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
    train_set = torchvision.datasets.ImageFolder(os.path.join(args.data, "train"), T.Compose(
        [T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), norm]))
    val_set = torchvision.datasets.ImageFolder(os.path.join(args.data, "test"), T.Compose(
        [T.Resize(256), T.CenterCrop(224), T.ToTensor(), norm]))
    local_batch = args.global_batch // world
    val_loader = torch.utils.data.DataLoader(strided_shard(val_set, rank, world), batch_size=128, num_workers=4)

    model = torchvision.models.efficientnet_b0(num_classes=len(train_set.classes)).to(device)
    ema = copy.deepcopy(model).eval()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=4e-5)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    ckpt_path = os.path.join(exp_dir, "last.pt")
    meta = checkpoint.restore(ckpt_path if args.resume else None, model, optimizer, ema)

    best_acc = meta["best_acc"]
    for epoch in range(meta["epoch"], args.epochs):
        lr = sgdr(epoch, args.lr)
        for group in optimizer.param_groups:
            group["lr"] = lr
        loader = torch.utils.data.DataLoader(epoch_shard(train_set, epoch, args.seed, rank, world),
                                             batch_size=local_batch, shuffle=False, num_workers=4, drop_last=True)
        model.train()
        for step, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                for pe, pm in zip(ema.state_dict().values(), model.state_dict().values()):
                    if pe.dtype.is_floating_point:
                        pe.mul_(args.ema).add_(pm, alpha=1 - args.ema)

        ema.eval()
        hits = torch.zeros(2)
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                hits[0] += (ema(x).argmax(1) == y).sum().item()
                hits[1] += y.numel()
        hits = hvd.allreduce(hits, op=hvd.Sum, name="val_hits")
        acc = (hits[0] / hits[1]).item()

        is_best = acc > best_acc
        best_acc = max(acc, best_acc)
        checkpoint.save(ckpt_path, epoch=epoch, model=model.state_dict(), optimizer=optimizer.state_dict(),
                        ema=ema.state_dict(), best_acc=best_acc)
        if is_best:
            checkpoint.save(os.path.join(exp_dir, "best_ema.pt"), epoch=epoch, model=ema.state_dict(), acc=acc)
        if rank == 0:
            print(f"epoch {epoch:3d} lr {lr:.4f} loss {loss.item():.3f} ema-top1 {acc:.4f} best {best_acc:.4f}",
                  flush=True)


if __name__ == "__main__":
    launch(run, get_args())
