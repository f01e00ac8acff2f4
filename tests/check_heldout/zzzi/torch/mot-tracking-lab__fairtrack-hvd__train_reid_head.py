# Train the appearance-embedding head of our tracker on MOT17 crops.
# Crops are pre-extracted by tools/extract_crops.py into one .npz
# (uint8 images N x 3 x 128 x 64, int64 track ids N); the val file holds
# held-out frames of the same tracks.
#
#   horovodrun -np 4 python train_reid_head.py --crops data/mot17_crops.npz
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

parser = argparse.ArgumentParser(description='FairTrack re-ID head')
parser.add_argument('--crops', type=str, default='data/mot17_crops.npz')
parser.add_argument('--val-crops', type=str, default='data/mot17_val_crops.npz')
parser.add_argument('--backbone', type=str, default='weights/dla34_imagenet.pth')
parser.add_argument('--emb-dim', type=int, default=128)
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--lr', type=float, default=1e-4)
parser.add_argument('--epochs', type=int, default=30)
parser.add_argument('--lr-step', type=int, default=20)
parser.add_argument('--warmup', type=int, default=2)
parser.add_argument('--amp', action='store_true')
parser.add_argument('--save-dir', type=str, default='exp/reid_head')
args = parser.parse_args()

hvd.init()
torch.manual_seed(42 + hvd.rank())   # different augmentation / dropout per worker
cuda = torch.cuda.is_available()
if cuda:
    torch.cuda.set_device(hvd.local_rank())
dev = 'cuda' if cuda else 'cpu'


def load_crops(path):
    z = np.load(path)
    x = torch.from_numpy(z['images']).float().div_(255.)
    y = torch.from_numpy(z['track_ids']).long()
    return TensorDataset(x, y)


class EmbedNet(nn.Module):
    def __init__(self, n_tracks, emb_dim):
        super().__init__()
        r = torchvision.models.resnet18(weights=None)
        if os.path.exists(args.backbone):
            r.load_state_dict(torch.load(args.backbone, map_location='cpu'), strict=False)
        self.backbone = nn.Sequential(*list(r.children())[:-1])
        self.emb = nn.Sequential(nn.Linear(512, emb_dim), nn.BatchNorm1d(emb_dim))
        self.id_head = nn.Linear(emb_dim, n_tracks)
        self.s = np.sqrt(2) * np.log(n_tracks - 1)   # JDE embedding scale

    def forward(self, x):
        e = F.normalize(self.emb(self.backbone(x).flatten(1)), dim=1)
        return e, self.id_head(self.s * e)


train_set = load_crops(args.crops)
val_set = load_crops(args.val_crops)
n_tracks = int(train_set.tensors[1].max()) + 1
train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, drop_last=True)
val_loader = DataLoader(val_set, batch_size=256, sampler=val_sampler)

model = EmbedNet(n_tracks, args.emb_dim).to(dev)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
# backbone is the same ImageNet file everywhere; keep the workers in sync anyway
hvd.broadcast_parameters(model.backbone.state_dict(), root_rank=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
scaler = torch.cuda.amp.GradScaler(enabled=args.amp and cuda)


def adjust_lr(epoch, it, n_iter):
    if epoch < args.warmup:
        f = (epoch * n_iter + it + 1) / (args.warmup * n_iter)
    else:
        f = 0.1 if epoch >= args.lr_step else 1.0
    for g in optimizer.param_groups:
        g['lr'] = args.lr * hvd.size() * f


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    for it, (x, y) in enumerate(train_loader):
        adjust_lr(epoch, it, len(train_loader))
        x, y = x.to(dev), y.to(dev)
        with torch.autocast(dev, enabled=args.amp and cuda):
            _, logits = model(x)
            loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        optimizer.synchronize()
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        if it % 20 == 0 and hvd.rank() == 0:
            print(f'[{epoch}][{it}/{len(train_loader)}] id-loss {loss.item():.4f}')


@torch.no_grad()
def validate():
    model.eval()
    stats = torch.zeros(3)
    for x, y in val_loader:
        _, logits = model(x.to(dev))
        stats[0] += F.cross_entropy(logits, y.to(dev), reduction='sum').item()
        stats[1] += (logits.argmax(1).cpu() == y).sum().item()
        stats[2] += y.numel()
    stats = hvd.allreduce(stats, op=hvd.Sum, name='val_stats')
    return stats[0] / stats[2], stats[1] / stats[2]


os.makedirs(args.save_dir, exist_ok=True)
for epoch in range(args.epochs):
    t0 = time.time()
    train(epoch)
    vloss, vacc = validate()
    if hvd.rank() == 0:
        print(f'epoch {epoch}: val loss {vloss:.4f} id-acc {vacc:.4f} ({time.time() - t0:.0f}s)')
    torch.save({'epoch': epoch, 'model': model.state_dict()},
               os.path.join(args.save_dir, 'reid_head_last.pth'))
