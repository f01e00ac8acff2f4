"""Cheap sample-quality numbers and an image-grid writer."""
import torch
import torchvision.utils as vutils


class FeatureStats:
    """Running mean/covariance of feature vectors (Welford-free, fine in float64)."""

    def __init__(self):
        self.n = 0
        self.s1 = None
        self.s2 = None

    def update(self, feats):
        f = feats.detach().double().cpu()
        if self.s1 is None:
            self.s1 = torch.zeros(f.size(1), dtype=torch.float64)
            self.s2 = torch.zeros(f.size(1), f.size(1), dtype=torch.float64)
        self.n += f.size(0)
        self.s1 += f.sum(0)
        self.s2 += f.t() @ f

    def mean_cov(self):
        mu = self.s1 / self.n
        cov = self.s2 / self.n - torch.outer(mu, mu)
        return mu, cov


def fid_proxy(real, fake):
    """Frechet distance with the trace term replaced by a diagonal approximation."""
    mu_r, cov_r = real.mean_cov()
    mu_f, cov_f = fake.mean_cov()
    diff = ((mu_r - mu_f) ** 2).sum()
    dr, df = cov_r.diagonal().clamp_min(0), cov_f.diagonal().clamp_min(0)
    return float(diff + dr.sum() + df.sum() - 2.0 * (dr * df).sqrt().sum())


def save_grid(images, path, nrow=8):
    vutils.save_image(images.detach().cpu(), path, nrow=nrow, normalize=True)
