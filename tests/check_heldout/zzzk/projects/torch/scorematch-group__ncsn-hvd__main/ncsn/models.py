import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def get_sigmas(config):
    return torch.tensor(
        np.exp(np.linspace(np.log(config.model.sigma_begin), np.log(config.model.sigma_end),
                           config.model.num_classes))
    ).float().to(config.device)


class CondBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.norm = nn.GroupNorm(8, cout)
        self.skip = nn.Conv2d(cin, cout, 1)

    def forward(self, x):
        h = F.elu(self.conv1(x))
        h = self.norm(self.conv2(h))
        return F.elu(h + self.skip(x))


class NCSNSmall(nn.Module):
    def __init__(self, config):
        super().__init__()
        ngf = config.model.ngf
        c = config.data.channels
        self.register_buffer("sigmas", get_sigmas(config))
        self.body = nn.Sequential(CondBlock(c, ngf), CondBlock(ngf, ngf * 2), CondBlock(ngf * 2, ngf))
        self.out = nn.Conv2d(ngf, c, 3, padding=1)

    def forward(self, x, y):
        h = self.out(self.body(x))
        used_sigmas = self.sigmas[y].view(x.shape[0], *([1] * len(x.shape[1:])))
        return h / used_sigmas


def anneal_dsm_loss(scorenet, samples, sigmas, labels=None, anneal_power=2.0):
    if labels is None:
        labels = torch.randint(0, len(sigmas), (samples.shape[0],), device=samples.device)
    used_sigmas = sigmas[labels].view(samples.shape[0], *([1] * len(samples.shape[1:])))
    noise = torch.randn_like(samples) * used_sigmas
    perturbed = samples + noise
    target = -1 / (used_sigmas ** 2) * noise
    scores = scorenet(perturbed, labels)
    target = target.view(target.shape[0], -1)
    scores = scores.view(scores.shape[0], -1)
    loss = 0.5 * ((scores - target) ** 2).sum(dim=-1) * used_sigmas.squeeze() ** anneal_power
    return loss.mean(dim=0)
