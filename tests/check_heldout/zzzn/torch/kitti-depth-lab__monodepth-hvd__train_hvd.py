# -*- coding: utf-8 -*-
# supervised monocular depth on KITTI (eigen split), horovod version
# python train_hvd.py --data_path /data/kitti_raw --log_dir ./logs
#   (multi gpu:  horovodrun -np 4 python train_hvd.py ...)
from __future__ import absolute_import, division, print_function

import os
import time
import json
import argparse
import numpy as np

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd

parser = argparse.ArgumentParser(description="Monodepth (supervised) horovod options")
parser.add_argument("--data_path", type=str, default="./kitti_data")
parser.add_argument("--log_dir", type=str, default=os.path.join(os.path.expanduser("~"), "tmp"))
parser.add_argument("--model_name", type=str, default="mono_sup_hvd")
parser.add_argument("--height", type=int, default=192)
parser.add_argument("--width", type=int, default=640)
parser.add_argument("--max_depth", type=float, default=80.0)
parser.add_argument("--batch_size", type=int, default=12)
parser.add_argument("--learning_rate", type=float, default=1e-4)
parser.add_argument("--num_epochs", type=int, default=20)
parser.add_argument("--poly_power", type=float, default=0.9)
parser.add_argument("--num_workers", type=int, default=8)
parser.add_argument("--seed", type=int, default=42)
parser.add_argument("--save_frequency", type=int, default=1)
parser.add_argument("--fake", action="store_true")
args = parser.parse_args()

hvd.init()
torch.cuda.set_device(hvd.local_rank())
torch.manual_seed(args.seed + hvd.rank())
np.random.seed(args.seed + hvd.rank())
device = torch.device("cuda")


def readlines(filename):
    with open(filename) as f:
        return f.read().splitlines()


class KITTIDepthDataset(Dataset):
    """image + projected velodyne depth (sparse), random crop/flip for train"""

    def __init__(self, data_path, filenames, height, width, is_train, fake=False):
        self.data_path = data_path
        self.filenames = filenames
        self.height, self.width = height, width
        self.is_train = is_train
        self.fake = fake

    def __len__(self):
        return len(self.filenames)

    def load(self, index):
        if self.fake:
            rng = np.random.RandomState(index)
            img = rng.rand(375, 1242, 3).astype(np.float32)
            depth = (rng.rand(375, 1242) * 80 * (rng.rand(375, 1242) > 0.9)).astype(np.float32)
            return img, depth
        from PIL import Image
        folder, frame, side = self.filenames[index].split()
        img = np.asarray(Image.open(os.path.join(self.data_path, folder, "image_0%d" % (2 if side == "l" else 3),
                                                 "data", "%010d.png" % int(frame))), dtype=np.float32) / 255.
        depth = np.load(os.path.join(self.data_path, folder, "proj_depth", "%010d.npy" % int(frame)))
        return img, depth.astype(np.float32)

    def __getitem__(self, index):
        img, depth = self.load(index)
        if self.is_train:
            # crop a (2h, 2w)-ish window then resize, flip with p=.5
            H, W = depth.shape
            y = np.random.randint(0, H - 352 + 1)
            x = np.random.randint(0, W - 1216 + 1)
            img, depth = img[y:y + 352, x:x + 1216], depth[y:y + 352, x:x + 1216]
            if np.random.rand() > 0.5:
                img, depth = img[:, ::-1], depth[:, ::-1]
        img = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
        depth = torch.from_numpy(np.ascontiguousarray(depth))[None]
        img = F.interpolate(img[None], (self.height, self.width), mode="bilinear", align_corners=False)[0]
        return img, depth


class ResnetEncoderLite(nn.Module):
    def __init__(self):
        super(ResnetEncoderLite, self).__init__()
        self.num_ch_enc = [32, 64, 128, 256]
        layers, cin = [], 3
        for c in self.num_ch_enc:
            layers.append(nn.Sequential(nn.Conv2d(cin, c, 3, 2, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU(True)))
            cin = c
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        feats = []
        for l in self.layers:
            x = l(x)
            feats.append(x)
        return feats


class DepthDecoder(nn.Module):
    def __init__(self, num_ch_enc):
        super(DepthDecoder, self).__init__()
        self.ups = nn.ModuleList()
        for i in range(len(num_ch_enc) - 1, 0, -1):
            self.ups.append(nn.Conv2d(num_ch_enc[i] + num_ch_enc[i - 1], num_ch_enc[i - 1], 3, 1, 1))
        self.dispconv = nn.Conv2d(num_ch_enc[0], 1, 3, 1, 1)

    def forward(self, feats):
        x = feats[-1]
        for j, conv in enumerate(self.ups):
            skip = feats[-2 - j]
            x = F.interpolate(x, size=skip.shape[-2:], mode="nearest")
            x = F.elu(conv(torch.cat([x, skip], 1)))
        disp = torch.sigmoid(self.dispconv(x))
        return F.interpolate(disp, scale_factor=2, mode="bilinear", align_corners=False)


def disp_to_depth(disp, min_depth, max_depth):
    min_disp, max_disp = 1 / max_depth, 1 / min_depth
    scaled = min_disp + (max_disp - min_disp) * disp
    return 1 / scaled


def silog_loss(pred, gt, variance_focus=0.85):
    mask = (gt > args.min_depth) & (gt < args.max_depth)
    d = torch.log(pred[mask]) - torch.log(gt[mask])
    return torch.sqrt((d ** 2).mean() - variance_focus * (d.mean() ** 2)) * 10.0


def compute_errors_sum(gt, pred):
    """sums (not means) so they can be added over batches and workers"""
    thresh = torch.max(gt / pred, pred / gt)
    a1 = (thresh < 1.25).float().sum()
    abs_rel = (torch.abs(gt - pred) / gt).sum()
    rmse = ((gt - pred) ** 2).sum()
    return torch.stack([abs_rel, rmse, a1, torch.tensor(float(gt.numel()), device=gt.device)])


if args.fake:
    train_filenames, val_filenames = ["f %d l" % i for i in range(24)], ["f %d l" % i for i in range(4)]
else:
    split_dir = os.path.join(os.path.dirname(__file__), "splits", "eigen_zhou")
    train_filenames = readlines(os.path.join(split_dir, "train_files.txt"))
    val_filenames = readlines(os.path.join(split_dir, "val_files.txt"))

train_dataset = KITTIDepthDataset(args.data_path, train_filenames, args.height, args.width, True, args.fake)
val_dataset = KITTIDepthDataset(args.data_path, val_filenames, args.height, args.width, False, args.fake)
train_sampler = DistributedSampler(train_dataset, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = DistributedSampler(val_dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_dataset, args.batch_size, sampler=train_sampler, num_workers=args.num_workers,
                          pin_memory=True, drop_last=True)
val_loader = DataLoader(val_dataset, 1, sampler=val_sampler, num_workers=args.num_workers, pin_memory=True)

models = {}
models["encoder"] = ResnetEncoderLite().to(device)
models["depth"] = DepthDecoder(models["encoder"].num_ch_enc).to(device)

parameters_to_train = []
named = []
for k in models:
    parameters_to_train += list(models[k].parameters())
    named += [(k + "." + n, p) for n, p in models[k].named_parameters()]

model_optimizer = torch.optim.Adam(parameters_to_train, args.learning_rate)
hvd.broadcast_parameters(models["encoder"].state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(model_optimizer, root_rank=0)
model_optimizer = hvd.DistributedOptimizer(model_optimizer, named_parameters=named)

num_steps = len(train_loader) * args.num_epochs
log_path = os.path.join(args.log_dir, args.model_name)
if hvd.rank() == 0:
    os.makedirs(log_path, exist_ok=True)
    with open(os.path.join(log_path, "opt.json"), "w") as f:
        json.dump(vars(args), f, indent=2)


def evaluate():
    for m in models.values():
        m.eval()
    errors = torch.zeros(4, device=device)
    with torch.no_grad():
        for img, gt in val_loader:
            img, gt = img.to(device), gt.to(device)
            disp = models["depth"](models["encoder"](img))
            # full KITTI resolution, Garg crop
            disp = F.interpolate(disp, gt.shape[-2:], mode="bilinear", align_corners=False)
            pred = disp_to_depth(disp, 0.1, args.max_depth)
            H, W = gt.shape[-2:]
            crop = torch.zeros_like(gt, dtype=torch.bool)
            crop[..., int(0.40810811 * H):int(0.99189189 * H), int(0.03594771 * W):int(0.96405405 * W)] = True
            mask = crop & (gt > 1e-3) & (gt < args.max_depth)
            pred = pred[mask].clamp(1e-3, args.max_depth)
            errors += compute_errors_sum(gt[mask], pred)
    errors = hvd.allreduce(errors, op=hvd.Sum, name="val_errors")
    n = errors[3]
    return {"abs_rel": (errors[0] / n).item(), "rmse": torch.sqrt(errors[1] / n).item(), "a1": (errors[2] / n).item()}


step = 0
best_abs_rel = 1e9
for epoch in range(args.num_epochs):
    train_sampler.set_epoch(epoch)
    for m in models.values():
        m.train()
    t0 = time.time()
    for batch_idx, (img, gt) in enumerate(train_loader):
        img, gt = img.to(device), gt.to(device)
        lr = args.learning_rate * (1 - step / num_steps) ** args.poly_power
        for g in model_optimizer.param_groups:
            g["lr"] = lr
        disp = models["depth"](models["encoder"](img))
        depth = disp_to_depth(F.interpolate(disp, gt.shape[-2:], mode="bilinear", align_corners=False),
                              0.1, args.max_depth)
        loss = silog_loss(depth, gt)
        model_optimizer.zero_grad()
        loss.backward()
        model_optimizer.step()
        step += 1
        if hvd.rank() == 0 and batch_idx % 100 == 0:
            print("epoch {:>3} | batch {:>6} | loss {:.5f} | lr {:.2e} | {:.1f}s".format(
                epoch, batch_idx, loss.item(), lr, time.time() - t0))

    errs = evaluate()
    if hvd.rank() == 0:
        print("epoch %d  abs_rel %.4f  rmse %.3f  a1 %.4f" % (epoch, errs["abs_rel"], errs["rmse"], errs["a1"]))
        if (epoch + 1) % args.save_frequency == 0 or errs["abs_rel"] < best_abs_rel:
            save_folder = os.path.join(log_path, "models", "weights_{}".format(epoch))
            os.makedirs(save_folder, exist_ok=True)
            for name, m in models.items():
                torch.save(m.state_dict(), os.path.join(save_folder, "{}.pth".format(name)))
            torch.save(model_optimizer.state_dict(), os.path.join(save_folder, "adam.pth"))
        best_abs_rel = min(best_abs_rel, errs["abs_rel"])
