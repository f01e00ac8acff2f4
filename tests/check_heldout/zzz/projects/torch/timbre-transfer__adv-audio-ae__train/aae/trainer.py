import os

import torch
import horovod.torch as hvd

from .losses import d_hinge, g_hinge, multi_resolution_stft_loss
from .models import AutoEncoder, WaveDiscriminator


class AdversarialAETrainer:
    def __init__(self, cfg, device, lr):
        self.cfg, self.device = cfg, device
        self.ae = AutoEncoder(cfg.channels, cfg.latent_dim).to(device)
        self.disc = WaveDiscriminator().to(device)

        opt_g = torch.optim.Adam(self.ae.parameters(), lr=lr, betas=cfg.betas)
        self.opt_g = hvd.DistributedOptimizer(opt_g, named_parameters=self.ae.named_parameters())
        self.opt_d = torch.optim.Adam(self.disc.parameters(), lr=lr, betas=cfg.betas)
        self.epoch = 0

    def sync(self):
        for net in (self.ae, self.disc):
            hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.opt_g, root_rank=0)
        hvd.broadcast_optimizer_state(self.opt_d, root_rank=0)

    def step(self, wav, adversarial):
        wav = wav.to(self.device)
        recon = self.ae(wav)
        d_loss = torch.zeros((), device=self.device)
        if adversarial:
            self.opt_d.zero_grad()
            d_loss = d_hinge(self.disc(wav), self.disc(recon.detach()))
            d_loss.backward()
            self.opt_d.step()

        self.opt_g.zero_grad()
        rec_loss = multi_resolution_stft_loss(recon, wav)
        g_loss = rec_loss + (self.cfg.adv_weight * g_hinge(self.disc(recon)) if adversarial else 0.0)
        g_loss.backward()
        self.opt_g.step()
        return rec_loss.item(), d_loss.item()

    @torch.no_grad()
    def eval_sums(self, loader):
        self.ae.eval()
        total, count = 0.0, 0
        for wav in loader:
            wav = wav.to(self.device)
            total += multi_resolution_stft_loss(self.ae(wav), wav).item() * wav.size(0)
            count += wav.size(0)
        self.ae.train()
        return total, count

    def save(self, path):
        if hvd.rank() != 0:
            return
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save({"epoch": self.epoch, "ae": self.ae.state_dict(), "disc": self.disc.state_dict(),
                    "opt_g": self.opt_g.state_dict(), "opt_d": self.opt_d.state_dict()}, path)
