#!/usr/bin/env python
"""Keyword spotting on Speech Commands (log-mel + small CNN), Horovod data parallel.

Launch:  horovodrun -np 8 -H node1:4,node2:4 python 01_speech_kws.py --data /scratch/speech_commands
"""
import os

# pin this process to one GPU before torch initialises CUDA
_local = os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", os.environ.get("HOROVOD_LOCAL_RANK", "0"))
os.environ["CUDA_VISIBLE_DEVICES"] = _local

import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchaudio
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

LABELS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"]


class KWSData(torchaudio.datasets.SPEECHCOMMANDS):
    def __init__(self, root, subset):
        super().__init__(root, download=False, subset=subset)
        self._walker = [w for w in self._walker if os.path.basename(os.path.dirname(w)) in LABELS]
        self.mel = torchaudio.transforms.MelSpectrogram(sample_rate=16000, n_fft=480, hop_length=160, n_mels=40)

    def __getitem__(self, i):
        wav, sr, label, *_ = super().__getitem__(i)
        wav = F.pad(wav, (0, 16000 - wav.shape[-1]))[:, :16000]
        feats = torch.log(self.mel(wav) + 1e-6)
        return feats, LABELS.index(label)


class KWSNet(nn.Module):
    def __init__(self, n_classes=len(LABELS)):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(128, n_classes)

    def forward(self, x):
        return self.fc(self.body(x).flatten(1))


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/scratch/speech_commands")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--base-lr", type=float, default=0.01)
    p.add_argument("--out", default="kws_ckpt.pt")
    p.add_argument("--fp16-allreduce", action="store_true")
    return p.parse_args()


def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros(1, device=device)
    total = torch.zeros(1, device=device)
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum()
            total += y.numel()
    correct = hvd.allreduce(correct, op=hvd.Sum, name="val_correct")
    total = hvd.allreduce(total, op=hvd.Sum, name="val_total")
    return (correct / total).item()


def main():
    args = parse()
    hvd.init()
    device = torch.device("cuda:0")  # the only device this process can see
    torch.manual_seed(1234)

    train_set = KWSData(args.data, "training")
    val_set = KWSData(args.data, "validation")
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, num_workers=4, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=256, sampler=val_sampler, num_workers=2)

    model = KWSNet().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=args.base_lr * hvd.size(), momentum=0.9, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), compression=compression)

    best = 0.0
    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        run_loss, nb = 0.0, 0
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            run_loss += loss.item()
            nb += 1
        sched.step()
        train_loss = hvd.allreduce(torch.tensor(run_loss / max(nb, 1)), name="train_loss").item()
        acc = evaluate(model, val_loader, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d}  loss {train_loss:.4f}  val_acc {acc:.4f}  {time.time() - t0:.1f}s", flush=True)
            if acc > best:
                best = acc
                torch.save({"epoch": epoch, "model": model.state_dict(), "acc": acc}, args.out)


if __name__ == "__main__":
    main()
