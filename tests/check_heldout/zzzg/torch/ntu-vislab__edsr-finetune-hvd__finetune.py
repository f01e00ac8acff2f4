"""Fine-tune EDSR x4 from the released x2 weights (body/head are shared, the upsampler is re-learned)."""
import argparse
import glob
import os
import random

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from models import EDSR
from utils.env import init_distributed
from utils.metrics import global_average, psnr, ssim

p = argparse.ArgumentParser()
p.add_argument("--hr", default="data/DIV2K/train_HR")
p.add_argument("--val-hr", default="data/DIV2K/valid_HR")
p.add_argument("--pretrained", default="pretrained/edsr_baseline_x2.pt")
p.add_argument("--patch", type=int, default=48)
p.add_argument("--batch", type=int, default=16)
p.add_argument("--steps-per-epoch", type=int, default=1000)
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--lr", type=float, default=1e-4)
p.add_argument("--ckpt-dir", default="ckpt/edsr_x4_ft")
args = p.parse_args()

device = init_distributed(seed=7)
files = sorted(glob.glob(os.path.join(args.hr, "*.png")))
files = files[hvd.rank()::hvd.size()]  # each worker crops from its own subset of images
images = [np.asarray(Image.open(f).convert("RGB"), np.float32) / 255.0 for f in files]
val_files = sorted(glob.glob(os.path.join(args.val_hr, "*.png")))[hvd.rank()::hvd.size()]


def random_batch():
    lrs, hrs = [], []
    for _ in range(args.batch):
        img = random.choice(images)
        s = args.patch * 4
        y, x = random.randint(0, img.shape[0] - s), random.randint(0, img.shape[1] - s)
        hr = torch.from_numpy(img[y:y + s, x:x + s].copy()).permute(2, 0, 1)
        if random.random() < 0.5:
            hr = hr.flip(-1)
        hrs.append(hr)
        lrs.append(F.interpolate(hr[None], scale_factor=0.25, mode="bicubic", antialias=True)[0])
    return torch.stack(lrs).to(device), torch.stack(hrs).to(device)


model = EDSR(scale=4).to(device)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
if hvd.rank() == 0 and os.path.isfile(args.pretrained):
    sd = torch.load(args.pretrained, map_location="cpu")
    sd = {k: v for k, v in sd.items() if not k.startswith("tail.")}
    print("loaded x2 weights:", model.load_state_dict(sd, strict=False))

optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)

for epoch in range(args.epochs):
    model.train()
    for step in range(args.steps_per_epoch):
        lr_img, hr_img = random_batch()
        loss = F.l1_loss(model(lr_img), hr_img)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()

    model.eval()
    sums, n = {"psnr": 0.0, "ssim": 0.0}, 0
    with torch.no_grad():
        for f in val_files:
            hr = torch.from_numpy(np.asarray(Image.open(f).convert("RGB"), np.float32) / 255.0).permute(2, 0, 1)
            hr = hr[:, : hr.shape[1] // 4 * 4, : hr.shape[2] // 4 * 4][None]
            sr = model(F.interpolate(hr, scale_factor=0.25, mode="bicubic", antialias=True).to(device))
            sr = sr.clamp(0, 1).cpu()
            sums["psnr"] += psnr(sr, hr, crop=4).item()
            sums["ssim"] += ssim(sr, hr).item()
            n += 1
    res = global_average(sums, n)
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}: loss {loss.item():.4f} PSNR {res['psnr']:.3f} SSIM {res['ssim']:.4f}")
        os.makedirs(args.ckpt_dir, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(args.ckpt_dir, "model_latest.pt"))
