# Semantic segmentation (UNet-ish) on a folder of image/mask pngs, mixed precision, horovod
# original single-GPU version by me, horovod added for the cluster runs
import os
import glob
import logging

import numpy as np
from PIL import Image
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from torch.utils.tensorboard import SummaryWriter
import horovod.torch as hvd

CFG = {
    "data_root": "/project/seg/cityscapes_small",
    "num_classes": 19,
    "epochs": 80,
    "batch_size": 8,
    "lr": 1e-3,
    "weight_decay": 1e-4,
    "amp": True,
    "clip": 1.0,
    "ckpt_dir": "checkpoints/unet",
    "log_dir": "runs/unet",
}

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("seg")


class SegFolder(Dataset):
    def __init__(self, root, split):
        self.imgs = sorted(glob.glob(os.path.join(root, split, "images", "*.png")))
        self.masks = [p.replace("/images/", "/masks/") for p in self.imgs]

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, i):
        img = np.asarray(Image.open(self.imgs[i]).convert("RGB"), dtype=np.float32) / 255.0
        mask = np.asarray(Image.open(self.masks[i]), dtype=np.int64)
        return torch.from_numpy(img).permute(2, 0, 1), torch.from_numpy(mask)


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, n_classes, w=32):
        super().__init__()
        self.e1, self.e2, self.e3 = block(3, w), block(w, 2 * w), block(2 * w, 4 * w)
        self.mid = block(4 * w, 8 * w)
        self.u3, self.d3 = nn.ConvTranspose2d(8 * w, 4 * w, 2, 2), block(8 * w, 4 * w)
        self.u2, self.d2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, 2), block(4 * w, 2 * w)
        self.u1, self.d1 = nn.ConvTranspose2d(2 * w, w, 2, 2), block(2 * w, w)
        self.head = nn.Conv2d(w, n_classes, 1)

    def forward(self, x):
        e1 = self.e1(x)
        e2 = self.e2(F.max_pool2d(e1, 2))
        e3 = self.e3(F.max_pool2d(e2, 2))
        m = self.mid(F.max_pool2d(e3, 2))
        d3 = self.d3(torch.cat([self.u3(m), e3], 1))
        d2 = self.d2(torch.cat([self.u2(d3), e2], 1))
        d1 = self.d1(torch.cat([self.u1(d2), e1], 1))
        return self.head(d1)


def miou(conf):
    inter = np.diag(conf)
    union = conf.sum(0) + conf.sum(1) - inter
    return np.nanmean(inter / np.maximum(union, 1))


hvd.init()
torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda", hvd.local_rank())
torch.backends.cudnn.benchmark = True

train_ds = SegFolder(CFG["data_root"], "train")
val_ds = SegFolder(CFG["data_root"], "val")
train_sampler = torch.utils.data.distributed.DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = torch.utils.data.distributed.DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_dl = DataLoader(train_ds, batch_size=CFG["batch_size"], sampler=train_sampler, num_workers=6, drop_last=True)
val_dl = DataLoader(val_ds, batch_size=4, sampler=val_sampler, num_workers=4)

model = UNet(CFG["num_classes"]).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
scheduler = torch.optim.lr_scheduler.PolynomialLR(optimizer, total_iters=CFG["epochs"], power=0.9)
scaler = torch.cuda.amp.GradScaler(enabled=CFG["amp"])

writer = SummaryWriter(CFG["log_dir"]) if hvd.rank() == 0 else None
if hvd.rank() == 0:
    os.makedirs(CFG["ckpt_dir"], exist_ok=True)

for epoch in range(CFG["epochs"]):
    model.train()
    train_sampler.set_epoch(epoch)
    tot = torch.zeros(2, device=device)
    for img, mask in train_dl:
        img, mask = img.to(device), mask.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.cuda.amp.autocast(enabled=CFG["amp"]):
            out = model(img)
            loss = F.cross_entropy(out, mask, ignore_index=255)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), CFG["clip"])
        scaler.step(optimizer)
        scaler.update()
        tot += torch.stack([loss.detach().float() * img.size(0), torch.tensor(float(img.size(0)), device=device)])
    scheduler.step()

    # validation: confusion matrix summed over ranks
    model.eval()
    conf = torch.zeros(CFG["num_classes"], CFG["num_classes"], dtype=torch.float64, device=device)
    with torch.no_grad():
        for img, mask in val_dl:
            pred = model(img.to(device)).argmax(1)
            m = mask.to(device)
            keep = m != 255
            idx = m[keep] * CFG["num_classes"] + pred[keep]
            conf += torch.bincount(idx, minlength=CFG["num_classes"] ** 2).view_as(conf).double()
    conf = hvd.allreduce(conf, op=hvd.Sum, name="conf")
    tot = hvd.allreduce(tot, op=hvd.Sum, name="train_loss")
    train_loss = (tot[0] / tot[1]).item()
    score = miou(conf.cpu().numpy())

    if hvd.rank() == 0:
        log.info("epoch %d train_loss %.4f mIoU %.4f", epoch, train_loss, score)
        writer.add_scalar("loss/train", train_loss, epoch)
        writer.add_scalar("miou/val", score, epoch)
        torch.save({"model": model.state_dict(), "epoch": epoch, "scaler": scaler.state_dict()},
                   os.path.join(CFG["ckpt_dir"], "last.pt"))
