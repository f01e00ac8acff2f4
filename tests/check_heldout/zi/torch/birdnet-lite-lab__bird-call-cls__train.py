# Bird call classifier: learnable PCEN front end + EfficientNet-ish CNN on 5 s crops.
# Multi-GPU with horovod:  horovodrun -np 4 python train.py --data /scratch/xc_clips
import argparse
import glob
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler

SR = 32000
CROP = 5 * SR

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/clips", help="folder of <species>/<id>.npy waveforms")
parser.add_argument("--epochs", type=int, default=25)
parser.add_argument("--bs", type=int, default=48)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--frontend-lr", type=float, default=1e-2)
parser.add_argument("--val-every", type=int, default=1)
parser.add_argument("--save-dir", default="weights")
args = parser.parse_args()


class Clips(Dataset):
    def __init__(self, files, classes, train):
        self.files, self.train = files, train
        self.cls = {c: i for i, c in enumerate(classes)}

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        wav = np.load(self.files[i]).astype(np.float32)
        if len(wav) < CROP:
            wav = np.pad(wav, (0, CROP - len(wav)))
        start = random.randint(0, len(wav) - CROP) if self.train else 0
        return torch.from_numpy(wav[start:start + CROP]), self.cls[os.path.basename(os.path.dirname(self.files[i]))]


class PCENFrontend(nn.Module):
    """STFT -> mel -> per-channel energy normalisation with learnable alpha/delta/r."""

    def __init__(self, n_mels=64, n_fft=1024, hop=320):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))
        self.register_buffer("fb", torch.rand(n_mels, n_fft // 2 + 1) / n_fft)
        self.log_alpha = nn.Parameter(torch.full((n_mels, 1), np.log(0.98)))
        self.log_delta = nn.Parameter(torch.full((n_mels, 1), np.log(2.0)))
        self.log_r = nn.Parameter(torch.full((n_mels, 1), np.log(0.5)))

    def forward(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True).abs() ** 2
        mel = self.fb @ spec
        smooth = F.avg_pool1d(mel, 9, 1, 4, count_include_pad=False)
        alpha, delta, r = self.log_alpha.exp(), self.log_delta.exp(), self.log_r.exp()
        return (mel / (1e-6 + smooth) ** alpha + delta) ** r - delta ** r


def conv_bn(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.SiLU())


class BirdNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.frontend = PCENFrontend()
        self.body = nn.Sequential(conv_bn(1, 32, 2), conv_bn(32, 64, 2), conv_bn(64, 128, 2),
                                  conv_bn(128, 256, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Sequential(nn.Dropout(0.3), nn.Linear(256, n_classes))

    def forward(self, wav):
        return self.head(self.body(self.frontend(wav).unsqueeze(1)))


hvd.init()
torch.manual_seed(2024)
random.seed(2024 + hvd.rank())
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = "cuda" if torch.cuda.is_available() else "cpu"

classes = sorted(os.listdir(args.data))
files = sorted(glob.glob(os.path.join(args.data, "*", "*.npy")))
random.Random(0).shuffle(files)
n_val = len(files) // 10
train_ds = Clips(files[n_val:], classes, train=True)
val_ds = Clips(files[:n_val], classes, train=False)
train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_ds, batch_size=args.bs, sampler=train_sampler, num_workers=4, drop_last=True)
val_loader = DataLoader(val_ds, batch_size=args.bs, sampler=val_sampler, num_workers=2)

model = BirdNet(len(classes)).to(device)
backbone_params = list(model.body.parameters()) + list(model.head.parameters())
optimizer = torch.optim.Adam(backbone_params, lr=args.lr * hvd.size())
frontend_opt = torch.optim.SGD(model.frontend.parameters(), lr=args.frontend_lr * hvd.size(), momentum=0.9)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)


def validate():
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for wav, y in val_loader:
            pred = model(wav.to(device)).argmax(1).cpu()
            correct += (pred == y).sum().item()
            total += len(y)
    acc = hvd.allreduce(torch.tensor(correct / total), name="val_acc")
    return acc.item()


best = 0.0
for epoch in range(args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    for i, (wav, y) in enumerate(train_loader):
        wav, y = wav.to(device), y.to(device)
        loss = F.cross_entropy(model(wav), y, label_smoothing=0.1)
        optimizer.zero_grad()
        frontend_opt.zero_grad()
        loss.backward()
        optimizer.step()
        frontend_opt.step()
        if i % 100 == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} it {i}/{len(train_loader)} loss {loss.item():.4f}")
    scheduler.step()

    if (epoch + 1) % args.val_every == 0:
        acc = validate()
        if hvd.rank() == 0:
            print(f"epoch {epoch} val_acc {acc:.4f}")
            if acc > best:
                best = acc
                os.makedirs(args.save_dir, exist_ok=True)
                torch.save(model.state_dict(), os.path.join(args.save_dir, "birdnet_best.pt"))
