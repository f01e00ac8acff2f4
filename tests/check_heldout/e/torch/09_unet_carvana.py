"""U-Net for Carvana car masks, Horovod, TensorBoard logging and early stopping.

    srun -N 2 --ntasks-per-node=4 --gpus-per-node=4 python 09_unet_carvana.py --data /data/carvana
"""
import argparse
import glob
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
from torch.utils.tensorboard import SummaryWriter
import horovod.torch as hvd


class CarvanaDataset(Dataset):
    def __init__(self, images, mask_dir, size=(320, 480)):
        self.images, self.mask_dir, self.size = images, mask_dir, size

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        stem = os.path.splitext(os.path.basename(self.images[i]))[0]
        img = Image.open(self.images[i]).convert("RGB").resize(self.size[::-1], Image.BILINEAR)
        mask = Image.open(os.path.join(self.mask_dir, stem + "_mask.gif")).resize(self.size[::-1], Image.NEAREST)
        img = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.0).permute(2, 0, 1)
        mask = torch.from_numpy((np.asarray(mask) > 0).astype(np.float32))[None]
        return img, mask


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, ch=(32, 64, 128, 256)):
        super().__init__()
        self.downs = nn.ModuleList()
        cin = 3
        for c in ch:
            self.downs.append(block(cin, c))
            cin = c
        self.bottom = block(ch[-1], ch[-1] * 2)
        self.ups = nn.ModuleList([nn.ConvTranspose2d(c * 2, c, 2, 2) for c in reversed(ch)])
        self.dec = nn.ModuleList([block(c * 2, c) for c in reversed(ch)])
        self.head = nn.Conv2d(ch[0], 1, 1)

    def forward(self, x):
        skips = []
        for d in self.downs:
            x = d(x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.bottom(x)
        for up, dec, s in zip(self.ups, self.dec, reversed(skips)):
            x = dec(torch.cat([up(x), s], 1))
        return self.head(x)


def dice_coeff(logits, target, eps=1e-6):
    pred = (torch.sigmoid(logits) > 0.5).float()
    inter = (pred * target).sum((1, 2, 3))
    return ((2 * inter + eps) / (pred.sum((1, 2, 3)) + target.sum((1, 2, 3)) + eps)).mean()


def get_loaders(args):
    images = sorted(glob.glob(os.path.join(args.data, "train", "*.jpg")))
    rng = np.random.RandomState(0)
    rng.shuffle(images)
    n_val = int(len(images) * 0.1)
    train_ds = CarvanaDataset(images[n_val:], os.path.join(args.data, "train_masks"))
    val_ds = CarvanaDataset(images[:n_val], os.path.join(args.data, "train_masks"))
    tr_s = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    va_s = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(train_ds, batch_size=args.batch_size, sampler=tr_s, num_workers=8, pin_memory=True),
            DataLoader(val_ds, batch_size=args.batch_size, sampler=va_s, num_workers=4),
            tr_s)


def validate(model, loader):
    model.eval()
    dices = []
    with torch.no_grad():
        for img, mask in loader:
            dices.append(dice_coeff(model(img.cuda()), mask.cuda()).item())
    model.train()
    return float(np.mean(dices))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--patience", type=int, default=5)
    ap.add_argument("--logdir", default="runs/unet")
    args = ap.parse_args()

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    train_loader, val_loader, train_sampler = get_loaders(args)

    model = UNet().cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         op=hvd.Sum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    criterion = nn.BCEWithLogitsLoss()
    writer = SummaryWriter(args.logdir) if hvd.rank() == 0 else None

    best_dice, wait, step = 0.0, 0, 0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        for img, mask in train_loader:
            img, mask = img.cuda(non_blocking=True), mask.cuda(non_blocking=True)
            logits = model(img)
            loss = criterion(logits, mask) + (1 - dice_coeff(logits, mask))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            if writer is not None and step % 20 == 0:
                writer.add_scalar("train/loss", loss.item(), step)
        scheduler.step()

        val_dice = validate(model, val_loader)
        stop = False
        if hvd.rank() == 0:
            writer.add_scalar("val/dice", val_dice, epoch)
            print(f"epoch {epoch}: val dice {val_dice:.4f}")
            if val_dice > best_dice:
                best_dice, wait = val_dice, 0
                torch.save(model.state_dict(), os.path.join(args.logdir, "unet_best.pt"))
            else:
                wait += 1
                stop = wait >= args.patience
        # every rank has to leave the loop together
        if hvd.broadcast_object(stop, root_rank=0, name="early_stop"):
            break

    if writer is not None:
        writer.close()


if __name__ == "__main__":
    main()
