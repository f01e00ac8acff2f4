"""PSPNet on BDD100K semantic seg (19 cls) - horovod.

Can be launched two ways:
  * python train_lib.py --num-proc 4          (spawns workers with horovod.run)
  * imported by our sweep pipeline:  from train_lib import train_fn; train_fn(cfg)  under horovodrun
"""
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import horovod
import horovod.torch as hvd

N_CLASSES = 19
IGNORE = 255


# ----------------------------------------------------------------------------- sync BN
class HvdSyncBN2d(nn.BatchNorm2d):
    """BatchNorm whose batch statistics are summed over all horovod workers."""

    def forward(self, x):
        if not self.training or hvd.size() == 1:
            return super().forward(x)
        c = x.shape[1]
        n = torch.tensor([x.numel() / c], device=x.device, dtype=x.dtype)
        s = x.sum(dim=(0, 2, 3))
        ss = (x * x).sum(dim=(0, 2, 3))
        stats = hvd.allreduce(torch.cat([s, ss, n]), op=hvd.Sum)
        s, ss, n = stats[:c], stats[c:2 * c], stats[2 * c]
        mean = s / n
        var = ss / n - mean * mean
        with torch.no_grad():
            self.running_mean.mul_(1 - self.momentum).add_(self.momentum * mean)
            self.running_var.mul_(1 - self.momentum).add_(self.momentum * var * n / (n - 1))
        y = (x - mean[None, :, None, None]) / torch.sqrt(var[None, :, None, None] + self.eps)
        return y * self.weight[None, :, None, None] + self.bias[None, :, None, None]


def cbr(cin, cout, k=3, s=1, d=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, d * (k // 2), dilation=d, bias=False), HvdSyncBN2d(cout),
                         nn.ReLU(inplace=True))


class PSPNetLite(nn.Module):
    def __init__(self, n_classes=N_CLASSES, bins=(1, 2, 3, 6)):
        super().__init__()
        self.backbone = nn.Sequential(cbr(3, 32, s=2), cbr(32, 64, s=2), cbr(64, 128, s=2), cbr(128, 128, d=2))
        self.ppm = nn.ModuleList([nn.Sequential(nn.AdaptiveAvgPool2d(b), nn.Conv2d(128, 32, 1, bias=False),
                                                nn.ReLU(inplace=True)) for b in bins])
        self.cls = nn.Sequential(cbr(128 + 32 * len(bins), 64), nn.Dropout2d(0.1), nn.Conv2d(64, n_classes, 1))

    def forward(self, x):
        h, w = x.shape[2:]
        f = self.backbone(x)
        feats = [f] + [F.interpolate(p(f), f.shape[2:], mode="bilinear", align_corners=True) for p in self.ppm]
        return F.interpolate(self.cls(torch.cat(feats, 1)), (h, w), mode="bilinear", align_corners=True)


# ----------------------------------------------------------------------------- data
def load_index(cfg, split):
    if cfg["synthetic"]:
        return np.arange(cfg["synthetic_n"] if split == "train" else 4)
    lst = os.path.join(cfg["data_root"], "lists", split + ".txt")
    return np.array(open(lst).read().split())


def load_pair(cfg, item, size):
    if cfg["synthetic"]:
        rs = np.random.RandomState(int(item))
        return rs.rand(size[0], size[1], 3).astype(np.float32), rs.randint(0, N_CLASSES, size).astype(np.int64)
    from PIL import Image
    img = np.asarray(Image.open(os.path.join(cfg["data_root"], "images", item + ".jpg")), np.float32) / 255.
    lbl = np.asarray(Image.open(os.path.join(cfg["data_root"], "labels", item + "_train_id.png")), np.int64)
    return img, lbl


def crop_flip(img, lbl, crop, rng):
    h, w = lbl.shape
    scale = rng.uniform(0.5, 1.0)
    ch, cw = int(crop * scale / 0.75), int(crop * scale / 0.75)
    ch, cw = min(ch, h), min(cw, w)
    y, x = rng.randint(0, h - ch + 1), rng.randint(0, w - cw + 1)
    img, lbl = img[y:y + ch, x:x + cw], lbl[y:y + ch, x:x + cw]
    if rng.rand() < 0.5:
        img, lbl = img[:, ::-1], lbl[:, ::-1]
    img = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))[None]
    lbl = torch.from_numpy(np.ascontiguousarray(lbl))[None, None].float()
    img = F.interpolate(img, (crop, crop), mode="bilinear", align_corners=True)[0]
    lbl = F.interpolate(lbl, (crop, crop), mode="nearest")[0, 0].long()
    return img, lbl


def my_shard(index, epoch, seed):
    """every worker draws the same permutation and keeps every size()-th element from rank()"""
    perm = np.random.RandomState(seed + epoch).permutation(len(index))
    per_rank = len(index) // hvd.size()
    return index[perm[hvd.rank()::hvd.size()][:per_rank]]


def fast_hist(pred, lbl, n=N_CLASSES):
    k = (lbl >= 0) & (lbl < n)
    return torch.bincount(n * lbl[k] + pred[k], minlength=n * n).reshape(n, n)


# ----------------------------------------------------------------------------- training
def train_fn(cfg):
    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    aug_rng = np.random.RandomState(cfg["seed"] * 1000 + hvd.rank())

    train_index, val_index = load_index(cfg, "train"), load_index(cfg, "val")

    model = PSPNetLite().to(device)
    # gradients are SUMMED over workers (op=hvd.Sum): the step already grows with the
    # number of workers, so cfg["lr"] stays the single-GPU value
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9, weight_decay=1e-4)
    hvd.broadcast_parameters(model.state_dict(), 0)
    hvd.broadcast_optimizer_state(optimizer, 0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Sum)

    iters_per_epoch = (len(train_index) // hvd.size()) // cfg["batch_size"]
    max_iter = cfg["epochs"] * iters_per_epoch
    it, best = 0, 0.0
    for epoch in range(cfg["epochs"]):
        model.train()
        shard = my_shard(train_index, epoch, cfg["seed"])
        for b in range(iters_per_epoch):
            pairs = [crop_flip(*load_pair(cfg, item, cfg["load_size"]), cfg["crop"], aug_rng)
                     for item in shard[b * cfg["batch_size"]:(b + 1) * cfg["batch_size"]]]
            img = torch.stack([p[0] for p in pairs]).to(device)
            lbl = torch.stack([p[1] for p in pairs]).to(device)
            lr = cfg["lr"] * (1 - float(it) / max_iter) ** 0.9
            for g in optimizer.param_groups:
                g["lr"] = lr
            loss = F.cross_entropy(model(img), lbl, ignore_index=IGNORE)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            it += 1
            if it % 20 == 0 and hvd.rank() == 0:
                print("it %d/%d loss %.3f lr %.5f" % (it, max_iter, loss.item(), lr), flush=True)

        # ---- val: each worker takes a strided slice, confusion matrices are gathered
        model.eval()
        hist = torch.zeros(N_CLASSES, N_CLASSES, dtype=torch.long)
        with torch.no_grad():
            for item in val_index[hvd.rank()::hvd.size()]:
                img, lbl = load_pair(cfg, item, cfg["load_size"])
                x = torch.from_numpy(img.transpose(2, 0, 1).copy())[None].to(device)
                pred = model(x).argmax(1)[0].cpu()
                hist += fast_hist(pred.flatten(), torch.from_numpy(lbl).flatten())
        hist = hvd.allgather(hist[None], name="val_hist").sum(0)
        iou = hist.diag().double() / (hist.sum(0) + hist.sum(1) - hist.diag()).clamp(min=1).double()
        miou = iou.mean().item()
        if hvd.rank() == 0:
            print("epoch %d mIoU %.4f" % (epoch, miou), flush=True)
            if miou > best:
                best = miou
                os.makedirs(cfg["out_dir"], exist_ok=True)
                torch.save({"model": model.state_dict(), "epoch": epoch, "miou": miou},
                           os.path.join(cfg["out_dir"], "pspnet_best.pth"))
    return best


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--num-proc", type=int, default=4)
    p.add_argument("--data-root", default="/datasets/bdd100k/seg")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--crop", type=int, default=713)
    p.add_argument("--out-dir", default="checkpoints/pspnet_bdd")
    p.add_argument("--synthetic", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    return p.parse_args()


if __name__ == "__main__":
    a = parse_args()
    cfg = dict(data_root=a.data_root, epochs=a.epochs, batch_size=a.batch_size, lr=a.lr, crop=a.crop,
               out_dir=a.out_dir, synthetic=a.synthetic, synthetic_n=64, seed=a.seed, load_size=(720, 1280))
    best = horovod.run(train_fn, args=(cfg,), num_proc=a.num_proc)
    print("best mIoU per worker:", best)
