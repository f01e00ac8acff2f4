# Binary segmentation (cell nuclei) with a small UNet.
# Horovod port of train_unet.py -- 2 nodes x 4 V100
import os
import glob
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
from torch.utils.tensorboard import SummaryWriter
import horovod.torch as hvd

cfg = dict(
    data_root="/gpfs/projects/seg/nuclei_npz",
    epochs=60,
    batch_size=8,
    lr=1e-3,
    weight_decay=1e-5,
    base_ch=32,
    log_dir="tb/unet",
    ckpt="checkpoints/unet_last.pt",
    val_every=2,
)


class NpzSeg(Dataset):
    def __init__(self, files, train):
        self.files, self.train = files, train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        img, mask = d["image"].astype(np.float32) / 255.0, d["mask"].astype(np.float32)
        if self.train and np.random.rand() < 0.5:
            img, mask = img[:, ::-1].copy(), mask[::-1].copy()
        return torch.from_numpy(img)[None], torch.from_numpy(mask)[None]


def block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                         nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, c=32):
        super().__init__()
        self.d1, self.d2, self.d3 = block(1, c), block(c, 2 * c), block(2 * c, 4 * c)
        self.bott = block(4 * c, 8 * c)
        self.u3, self.c3 = nn.ConvTranspose2d(8 * c, 4 * c, 2, 2), block(8 * c, 4 * c)
        self.u2, self.c2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, 2), block(4 * c, 2 * c)
        self.u1, self.c1 = nn.ConvTranspose2d(2 * c, c, 2, 2), block(2 * c, c)
        self.head = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        x1 = self.d1(x)
        x2 = self.d2(F.max_pool2d(x1, 2))
        x3 = self.d3(F.max_pool2d(x2, 2))
        b = self.bott(F.max_pool2d(x3, 2))
        y = self.c3(torch.cat([self.u3(b), x3], 1))
        y = self.c2(torch.cat([self.u2(y), x2], 1))
        y = self.c1(torch.cat([self.u1(y), x1], 1))
        return self.head(y)


def dice(logits, target, eps=1.0):
    p = torch.sigmoid(logits)
    inter = (p * target).sum((1, 2, 3))
    return ((2 * inter + eps) / (p.sum((1, 2, 3)) + target.sum((1, 2, 3)) + eps)).mean()


hvd.init()
torch.cuda.set_device(hvd.rank())
device = torch.device("cuda")
rank0 = hvd.rank() == 0

files = sorted(glob.glob(os.path.join(cfg["data_root"], "*.npz")))
split = int(0.9 * len(files))
train_ds, val_ds = NpzSeg(files[:split], True), NpzSeg(files[split:], False)
train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_ds, cfg["batch_size"], sampler=train_sampler, num_workers=4, pin_memory=True)
val_loader = DataLoader(val_ds, cfg["batch_size"], sampler=val_sampler, num_workers=2)

model = UNet(cfg["base_ch"]).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"] * hvd.size(), weight_decay=cfg["weight_decay"])

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

start_epoch = 0
if rank0 and os.path.isfile(cfg["ckpt"]):
    ck = torch.load(cfg["ckpt"], map_location=device)
    model.load_state_dict(ck["model"])
    optimizer.load_state_dict(ck["optimizer"])
    start_epoch = ck["epoch"] + 1
    print(f"resumed from epoch {ck['epoch']}")
start_epoch = hvd.broadcast_object(start_epoch, root_rank=0)

optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"], last_epoch=start_epoch - 1)
writer = SummaryWriter(cfg["log_dir"]) if rank0 else None

for epoch in range(start_epoch, cfg["epochs"]):
    model.train()
    train_sampler.set_epoch(epoch)
    running = torch.zeros(2, device=device)
    for img, mask in train_loader:
        img, mask = img.to(device), mask.to(device)
        logits = model(img)
        loss = F.binary_cross_entropy_with_logits(logits, mask) + (1 - dice(logits, mask))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += torch.stack([loss.detach(), torch.ones((), device=device)])
    running = hvd.allreduce(running, op=hvd.Sum, name="train_running")
    scheduler.step()

    if epoch % cfg["val_every"] == 0:
        model.eval()
        dsum = torch.zeros(2, device=device)
        with torch.no_grad():
            for img, mask in val_loader:
                logits = model(img.to(device))
                dsum += torch.stack([dice(logits, mask.to(device)) * img.size(0),
                                     torch.tensor(float(img.size(0)), device=device)])
        dsum = hvd.allreduce(dsum, op=hvd.Sum, name="val_dice")
        val_dice = (dsum[0] / dsum[1]).item()
        if rank0:
            writer.add_scalar("val/dice", val_dice, epoch)

    if rank0:
        train_loss = (running[0] / running[1]).item()
        writer.add_scalar("train/loss", train_loss, epoch)
        writer.add_scalar("lr", scheduler.get_last_lr()[0], epoch)
        print(f"epoch {epoch} loss {train_loss:.4f}")
        os.makedirs(os.path.dirname(cfg["ckpt"]), exist_ok=True)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, cfg["ckpt"])

if rank0:
    writer.close()
