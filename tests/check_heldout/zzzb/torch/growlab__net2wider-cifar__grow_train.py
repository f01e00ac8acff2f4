#!/usr/bin/env python
"""Net2WiderNet on CIFAR-10 (npz), data parallel with Horovod.

Start thin, widen every conv layer by `--widen-factor` at the epochs in `--grow-at`
(function-preserving transform, Chen et al. 2016), keep training.
"""
import argparse
import json
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class ConvNet(nn.Module):
    def __init__(self, widths=(16, 32, 64), num_classes=10):
        super().__init__()
        self.widths = list(widths)
        chans = [3] + self.widths
        self.convs = nn.ModuleList([nn.Conv2d(chans[i], chans[i + 1], 3, padding=1) for i in range(len(widths))])
        self.fc = nn.Linear(self.widths[-1], num_classes)

    def forward(self, x):
        for conv in self.convs:
            x = F.max_pool2d(F.relu(conv(x)), 2)
        return self.fc(x.mean((2, 3)))


def net2wider(layer, next_layer, new_width, noise_std=1e-2):
    """Return widened copies of `layer` and the layer that consumes its output."""
    old_width = layer.out_channels
    mapping = torch.cat([torch.arange(old_width), torch.randint(0, old_width, (new_width - old_width,))])
    counts = torch.bincount(mapping, minlength=old_width).float()

    wide = nn.Conv2d(layer.in_channels, new_width, layer.kernel_size, padding=layer.padding)
    wide.weight.data = layer.weight.data[mapping].clone()
    wide.bias.data = layer.bias.data[mapping].clone()
    wide.weight.data[old_width:] += noise_std * torch.randn_like(wide.weight.data[old_width:])

    scale = (1.0 / counts[mapping])
    if isinstance(next_layer, nn.Conv2d):
        nxt = nn.Conv2d(new_width, next_layer.out_channels, next_layer.kernel_size, padding=next_layer.padding)
        nxt.weight.data = next_layer.weight.data[:, mapping] * scale.view(1, -1, 1, 1)
    else:
        nxt = nn.Linear(new_width, next_layer.out_features)
        nxt.weight.data = next_layer.weight.data[:, mapping] * scale.view(1, -1)
    nxt.bias.data = next_layer.bias.data.clone()
    return wide, nxt


def widen_model(model, factor):
    for i in range(len(model.convs)):
        new_w = int(math.ceil(model.convs[i].out_channels * factor))
        nxt = model.convs[i + 1] if i + 1 < len(model.convs) else model.fc
        wide, nxt = net2wider(model.convs[i], nxt, new_w)
        model.convs[i] = wide
        if i + 1 < len(model.convs):
            model.convs[i + 1] = nxt
        else:
            model.fc = nxt
        model.widths[i] = new_w
    return model


def make_optimizer(model, args):
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True, weight_decay=5e-4)
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())


def load_npz(path):
    d = np.load(path)
    to_t = lambda x: torch.from_numpy(x.astype(np.float32) / 255.0).permute(0, 3, 1, 2)
    return (TensorDataset(to_t(d["x_train"]), torch.from_numpy(d["y_train"]).long().view(-1)),
            TensorDataset(to_t(d["x_test"]), torch.from_numpy(d["y_test"]).long().view(-1)))


def evaluate(model, loader):
    model.eval()
    stats = torch.zeros(3)
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            stats += torch.tensor([F.cross_entropy(out, y, reduction="sum").item(),
                                   (out.argmax(1) == y).sum().item(), y.numel()])
    stats = hvd.allreduce(stats, op=hvd.Sum, name="eval_stats")
    return stats[0].item() / stats[2].item(), stats[1].item() / stats[2].item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/cifar10.npz")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--grow-at", type=int, nargs="*", default=[10, 20])
    p.add_argument("--widen-factor", type=float, default=1.5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/net2wider")
    args = p.parse_args()

    hvd.init()
    torch.manual_seed(args.seed + hvd.rank())  # different augmentation streams per worker
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_set, test_set = load_npz(args.data)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), seed=args.seed)
    test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler)
    test_loader = DataLoader(test_set, batch_size=256, sampler=test_sampler)

    model = ConvNet().to(device)
    optimizer = make_optimizer(model, args)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    history = []
    for epoch in range(args.epochs):
        if epoch in args.grow_at:
            model = widen_model(model.cpu(), args.widen_factor).to(device)
            optimizer = make_optimizer(model, args)  # new parameters -> new optimizer
            if hvd.rank() == 0:
                print(f"epoch {epoch}: widened to {model.widths}")

        model.train()
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            if torch.rand(1).item() < 0.5:
                x = x.flip(3)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()

        val_loss, val_acc = evaluate(model, test_loader)
        history.append({"epoch": epoch, "widths": list(model.widths), "val_loss": val_loss, "val_acc": val_acc})
        if hvd.rank() == 0:
            print(f"epoch {epoch} val_loss {val_loss:.4f} val_acc {val_acc:.4f}")
            os.makedirs(args.out, exist_ok=True)
            torch.save({"widths": model.widths, "model": model.state_dict()}, os.path.join(args.out, "last.pt"))
            with open(os.path.join(args.out, "history.json"), "w") as f:
                json.dump(history, f, indent=1)


if __name__ == "__main__":
    main()
