"""Train a real-world x4 SR generator with Horovod.

    horovodrun -np 8 python train.py --config options/x4_l1_vgg.yml
"""
import argparse
import dataclasses
import os
import time

import horovod.torch as hvd
import torch
import torch.nn.functional as F
import yaml

from realsr.data import build_loaders
from realsr.models import SRNet, VGGFeatures
from realsr.utils import ModelEMA, get_logger, psnr, setup_device


@dataclasses.dataclass
class Config:
    train_dir: str = "datasets/DF2K/HR_sub"
    val_dir: str = "datasets/Set14/HR"
    vgg_weights: str = "pretrained/vgg19_conv2_2.pth"
    out_dir: str = "experiments/realsr_x4"
    scale: int = 4
    patch_size: int = 32
    batch_size: int = 16          # per GPU
    workers: int = 4
    lr: float = 2e-4              # for a single GPU
    epochs: int = 100
    pixel_weight: float = 1.0
    perceptual_weight: float = 0.1
    ema_decay: float = 0.999
    val_every: int = 5


def load_config(path):
    cfg = Config()
    if path:
        with open(path) as f:
            for k, v in (yaml.safe_load(f) or {}).items():
                setattr(cfg, k, v)
    return cfg


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.device = setup_device(hvd.local_rank())
        self.log = get_logger(hvd.rank())
        self.train_loader, self.val_loader, self.sampler = build_loaders(cfg, hvd.size(), hvd.rank())

        self.net_g = SRNet(scale=cfg.scale).to(self.device)
        self.vgg = VGGFeatures(cfg.vgg_weights).to(self.device)
        opt = torch.optim.Adam(self.net_g.parameters(), lr=cfg.lr * hvd.size(), betas=(0.9, 0.99))
        self.start_epoch = self._maybe_resume(opt)

        hvd.broadcast_parameters(self.net_g.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.net_g.named_parameters())
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=cfg.epochs,
                                                                    last_epoch=self.start_epoch - 1)
        self.ema = ModelEMA(self.net_g, cfg.ema_decay)

    def _ckpt_path(self):
        return os.path.join(self.cfg.out_dir, "last.pth")

    def _maybe_resume(self, opt):
        for group in opt.param_groups:
            group.setdefault("initial_lr", group["lr"])
        if not os.path.isfile(self._ckpt_path()):
            return 0
        state = torch.load(self._ckpt_path(), map_location="cpu")
        self.net_g.load_state_dict(state["net_g"])
        opt.load_state_dict(state["optimizer"])
        return state["epoch"] + 1

    def train_epoch(self, epoch):
        self.net_g.train()
        self.sampler.set_epoch(epoch)
        cfg, t0 = self.cfg, time.time()
        for it, (lr_img, hr_img) in enumerate(self.train_loader):
            lr_img, hr_img = lr_img.to(self.device), hr_img.to(self.device)
            sr = self.net_g(lr_img)
            l_pix = F.l1_loss(sr, hr_img)
            l_per = F.l1_loss(self.vgg(sr), self.vgg(hr_img))
            loss = cfg.pixel_weight * l_pix + cfg.perceptual_weight * l_per
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.ema.update(self.net_g)
            if it % 100 == 0:
                self.log.info("epoch %d it %d l_pix %.4f l_per %.4f (%.1fs)", epoch, it,
                              l_pix.item(), l_per.item(), time.time() - t0)
        self.scheduler.step()

    @torch.no_grad()
    def validate(self):
        total = torch.zeros(2)
        for lr_img, hr_img in self.val_loader:
            sr = self.ema.module(lr_img.to(self.device)).cpu()
            total += torch.tensor([psnr(sr, hr_img).sum().item(), hr_img.size(0)])
        total = hvd.allreduce(total, op=hvd.Sum, name="val_psnr")
        return (total[0] / total[1]).item()

    def save(self, epoch):
        if hvd.rank() != 0:
            return
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "net_g": self.net_g.state_dict(),
                    "net_g_ema": self.ema.module.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, self._ckpt_path())

    def fit(self):
        for epoch in range(self.start_epoch, self.cfg.epochs):
            self.train_epoch(epoch)
            if (epoch + 1) % self.cfg.val_every == 0:
                val_psnr = self.validate()
                self.log.info("epoch %d  EMA PSNR %.2f dB", epoch, val_psnr)
            self.save(epoch)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=None)
    args = parser.parse_args()
    hvd.init()
    torch.manual_seed(1234)
    Trainer(load_config(args.config)).fit()


if __name__ == "__main__":
    main()
