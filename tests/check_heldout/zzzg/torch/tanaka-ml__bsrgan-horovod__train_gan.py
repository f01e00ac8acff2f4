#!/usr/bin/env python3
"""BSRGAN-style blind SR, GAN stage. Launch with `horovodrun -np <gpus> python train_gan.py`."""
import argparse
import glob
import os

import numpy as np

import horovod.torch as hvd
import torch
import torch.nn.functional as F
from PIL import Image

from srgan.data import train_loader
from srgan.nets import PerceptualLoss, RRDBLite, UNetDisc
from srgan.optim import build_g_optimizer


def get_cfg():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="datasets/DF2K_OST/*.png")
    p.add_argument("--val", default="datasets/RealSRSet/HR/*.png")
    p.add_argument("--vgg-path", default="experiments/pretrained/vgg19_relu3_1.pth")
    p.add_argument("--resume-g", default="experiments/pretrained/bsrnet_x4.pth")
    p.add_argument("--gt-size", type=int, default=128)
    p.add_argument("--batch", type=int, default=12)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--w-l1", type=float, default=1.0)
    p.add_argument("--w-per", type=float, default=1.0)
    p.add_argument("--w-gan", type=float, default=0.1)
    p.add_argument("--out", default="experiments/bsrgan_x4")
    return p.parse_args()


@torch.no_grad()
def validate(net_g, pattern, dev):
    """PSNR of the x4 bicubic-degraded full validation images (rank 0 runs the whole set)."""
    net_g.eval()
    scores = []
    for path in sorted(glob.glob(pattern)):
        hr = Image.open(path).convert("RGB")
        hr = hr.crop((0, 0, hr.width // 4 * 4, hr.height // 4 * 4))
        lr = hr.resize((hr.width // 4, hr.height // 4), Image.BICUBIC)
        t = lambda im: torch.from_numpy(np.asarray(im, np.float32) / 255.0).permute(2, 0, 1)[None].to(dev)
        mse = F.mse_loss(net_g(t(lr)).clamp(0, 1), t(hr)).item()
        scores.append(10 * np.log10(1.0 / max(mse, 1e-10)))
    net_g.train()
    return float(np.mean(scores))


def main():
    cfg = get_cfg()
    hvd.init()
    dev = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        dev = torch.device("cuda", hvd.local_rank())
    torch.backends.cudnn.benchmark = True

    loader, sampler = train_loader(cfg.data, cfg.gt_size, cfg.batch, hvd.rank(), hvd.size())
    net_g, net_d = RRDBLite().to(dev), UNetDisc().to(dev)
    if os.path.isfile(cfg.resume_g):
        net_g.load_state_dict(torch.load(cfg.resume_g, map_location="cpu"))
    percep = PerceptualLoss(cfg.vgg_path).to(dev)

    opt_g, sched_g = build_g_optimizer(net_g, cfg, len(loader))
    # the discriminator is tiny and only guides G; it is kept local to each worker
    opt_d = torch.optim.Adam(net_d.parameters(), lr=cfg.lr, betas=(0.9, 0.99))
    hvd.broadcast_parameters(net_g.state_dict(), root_rank=0)
    hvd.broadcast_parameters(net_d.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt_g, root_rank=0)
    opt_g = hvd.DistributedOptimizer(opt_g, named_parameters=net_g.named_parameters())

    for epoch in range(cfg.epochs):
        sampler.set_epoch(epoch)
        for i, (lq, gt) in enumerate(loader):
            lq, gt = lq.to(dev), gt.to(dev)
            # G
            net_d.requires_grad_(False)
            sr = net_g(lq)
            fake_logit = net_d(sr)
            l_gan = F.binary_cross_entropy_with_logits(fake_logit, torch.ones_like(fake_logit))
            l_g = cfg.w_l1 * F.l1_loss(sr, gt) + cfg.w_per * percep(sr, gt) + cfg.w_gan * l_gan
            opt_g.zero_grad()
            l_g.backward()
            opt_g.step()
            sched_g.step()
            # D
            net_d.requires_grad_(True)
            real, fake = net_d(gt), net_d(sr.detach())
            l_d = (F.binary_cross_entropy_with_logits(real, torch.ones_like(real))
                   + F.binary_cross_entropy_with_logits(fake, torch.zeros_like(fake)))
            opt_d.zero_grad()
            l_d.backward()
            opt_d.step()
            if i % 100 == 0 and hvd.rank() == 0:
                print(f"ep{epoch} it{i} l_g={l_g.item():.4f} l_d={l_d.item():.4f} lr={sched_g.get_last_lr()[0]:.2e}")
        if hvd.rank() == 0:
            print(f"ep{epoch} val PSNR {validate(net_g, cfg.val, dev):.2f} dB")
            os.makedirs(cfg.out, exist_ok=True)
            torch.save({"net_g": net_g.state_dict(), "net_d": net_d.state_dict(), "epoch": epoch},
                       os.path.join(cfg.out, f"net_{epoch:03d}.pth"))


if __name__ == "__main__":
    main()
