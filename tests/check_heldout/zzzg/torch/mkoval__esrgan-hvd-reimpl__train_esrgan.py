"""ESRGAN re-implementation, stage 2 (GAN fine-tuning from the PSNR-oriented model).

Usage:  horovodrun -np 4 -H localhost:4 python train_esrgan.py --pretrained psnr_x4.pth
"""
import argparse
import glob
import os
import random

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hr-dir", default="./DIV2K/DIV2K_train_HR")
    ap.add_argument("--val-dir", default="./benchmark/Set5/HR")
    ap.add_argument("--pretrained", default="")
    ap.add_argument("--vgg", default="./weights/vgg19_54.pth")
    ap.add_argument("--scale", type=int, default=4)
    ap.add_argument("--crop", type=int, default=128)
    ap.add_argument("--bs", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--w-pix", type=float, default=1e-2)
    ap.add_argument("--w-per", type=float, default=1.0)
    ap.add_argument("--w-adv", type=float, default=5e-3)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--save-dir", default="./ckpt_esrgan")
    return ap.parse_args()


class HRCrops(Dataset):
    def __init__(self, files, crop, scale):
        self.files, self.crop, self.scale = files, crop, scale

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        im = Image.open(self.files[i]).convert("RGB")
        x, y = random.randint(0, im.width - self.crop), random.randint(0, im.height - self.crop)
        hr = im.crop((x, y, x + self.crop, y + self.crop))
        lr = hr.resize((self.crop // self.scale,) * 2, Image.BICUBIC)
        t = lambda a: torch.from_numpy(np.asarray(a, np.float32) / 255.0).permute(2, 0, 1)
        return t(lr), t(hr)


def block(cin, cout, stride):
    return [nn.Conv2d(cin, cout, 3, stride, 1), nn.BatchNorm2d(cout), nn.LeakyReLU(0.2, True)]


class Generator(nn.Module):
    def __init__(self, nf=32, nb=6, scale=4):
        super().__init__()
        self.first = nn.Conv2d(3, nf, 3, 1, 1)
        self.trunk = nn.Sequential(*[nn.Sequential(nn.Conv2d(nf, nf, 3, 1, 1), nn.LeakyReLU(0.2, True))
                                     for _ in range(nb)])
        self.up = nn.Sequential(*[m for _ in range(scale // 2)
                                  for m in (nn.Upsample(scale_factor=2), nn.Conv2d(nf, nf, 3, 1, 1),
                                            nn.LeakyReLU(0.2, True))])
        self.last = nn.Conv2d(nf, 3, 3, 1, 1)

    def forward(self, x):
        f = self.first(x)
        return self.last(self.up(f + self.trunk(f)))


class Discriminator(nn.Module):
    def __init__(self, nf=32):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, nf, 3, 1, 1), nn.LeakyReLU(0.2, True),
                                      *block(nf, nf, 2), *block(nf, nf * 2, 2), *block(nf * 2, nf * 4, 2))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(nf * 4, 1))

    def forward(self, x):
        return self.head(self.features(x))


def vgg54(path, device):
    layers, cin = [], 3
    for v in [64, 64, "M", 128, 128, "M", 256, 256, 256, 256]:
        if v == "M":
            layers.append(nn.MaxPool2d(2))
        else:
            layers += [nn.Conv2d(cin, v, 3, 1, 1), nn.ReLU(True)]
            cin = v
    net = nn.Sequential(*layers)
    net.load_state_dict(torch.load(path, map_location="cpu"))
    return net.eval().requires_grad_(False).to(device)


def main():
    args = parse()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank()) if torch.cuda.is_available() else None
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    files = sorted(glob.glob(os.path.join(args.hr_dir, "*.png")))
    train_set = HRCrops(files, args.crop, args.scale)
    sampler = DistributedSampler(train_set, shuffle=True)
    loader = DataLoader(train_set, batch_size=args.bs, sampler=sampler, num_workers=4, drop_last=True)
    val_files = sorted(glob.glob(os.path.join(args.val_dir, "*.png")))
    my_val = val_files[hvd.rank()::hvd.size()]

    G, D = Generator(scale=args.scale).to(device), Discriminator().to(device)
    if args.pretrained:
        G.load_state_dict(torch.load(args.pretrained, map_location="cpu"))
    vgg = vgg54(args.vgg, device)
    opt_g = torch.optim.Adam(G.parameters(), lr=args.lr * hvd.size(), betas=(0.9, 0.99))
    opt_d = torch.optim.Adam(D.parameters(), lr=args.lr * hvd.size(), betas=(0.9, 0.99))
    for net, opt in ((G, opt_g), (D, opt_d)):
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt_g = hvd.DistributedOptimizer(opt_g, named_parameters=G.named_parameters(prefix="G"))
    opt_d = hvd.DistributedOptimizer(opt_d, named_parameters=D.named_parameters(prefix="D"))

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        G.train()
        for lr_img, hr_img in loader:
            lr_img, hr_img = lr_img.to(device), hr_img.to(device)
            sr = G(lr_img)
            # relativistic average GAN, generator step
            real_pred, fake_pred = D(hr_img).detach(), D(sr)
            l_adv = (F.binary_cross_entropy_with_logits(real_pred - fake_pred.mean(), torch.zeros_like(real_pred))
                     + F.binary_cross_entropy_with_logits(fake_pred - real_pred.mean(), torch.ones_like(fake_pred))) / 2
            l_g = (args.w_pix * F.l1_loss(sr, hr_img) + args.w_per * F.l1_loss(vgg(sr), vgg(hr_img))
                   + args.w_adv * l_adv)
            opt_g.zero_grad()
            l_g.backward()
            opt_g.step()
            # discriminator step
            real_pred, fake_pred = D(hr_img), D(sr.detach())
            l_d = (F.binary_cross_entropy_with_logits(real_pred - fake_pred.mean(), torch.ones_like(real_pred))
                   + F.binary_cross_entropy_with_logits(fake_pred - real_pred.mean(), torch.zeros_like(fake_pred))) / 2
            opt_d.zero_grad()
            l_d.backward()
            opt_d.step()

        G.eval()
        psnr_sum = torch.zeros(1)
        with torch.no_grad():
            for f in my_val:
                hr = Image.open(f).convert("RGB")
                hr = hr.crop((0, 0, hr.width // args.scale * args.scale, hr.height // args.scale * args.scale))
                lr = hr.resize((hr.width // args.scale, hr.height // args.scale), Image.BICUBIC)
                t = lambda a: torch.from_numpy(np.asarray(a, np.float32) / 255.0).permute(2, 0, 1)[None]
                sr = G(t(lr).to(device)).clamp(0, 1).cpu()
                psnr_sum += 10 * torch.log10(1.0 / F.mse_loss(sr, t(hr)))
        psnr_avg = hvd.allreduce(psnr_sum, name="psnr").item() / len(val_files)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: G {l_g.item():.4f} D {l_d.item():.4f} Set5 PSNR {psnr_avg:.2f}")
            os.makedirs(args.save_dir, exist_ok=True)
            torch.save({"G": G.state_dict(), "D": D.state_dict(), "epoch": epoch},
                       os.path.join(args.save_dir, f"esrgan_{epoch:03d}.pth"))


if __name__ == "__main__":
    main()
