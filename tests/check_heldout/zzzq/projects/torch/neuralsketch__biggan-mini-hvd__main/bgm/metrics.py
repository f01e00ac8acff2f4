import numpy as np
import torch
from scipy import linalg


class FIDLike:
    """Frechet distance between D-feature statistics of real val images and EMA samples.
    Not the real FID (no inception net) but tracks it well enough for model selection."""

    def __init__(self, feat_fn, dim_z, n_classes, device):
        self.feat_fn, self.dim_z, self.n_classes, self.device = feat_fn, dim_z, n_classes, device

    @torch.no_grad()
    def __call__(self, G, val_loader, max_batches):
        real, fake = [], []
        for i, (x, y) in enumerate(val_loader):
            if i >= max_batches:
                break
            x, y = x.to(self.device), y.to(self.device)
            z = torch.randn(x.size(0), self.dim_z, device=self.device)
            real.append(self.feat_fn(x).cpu().numpy())
            fake.append(self.feat_fn(G(z, y)).cpu().numpy())
        real, fake = np.concatenate(real), np.concatenate(fake)
        return frechet(real.mean(0), np.cov(real, rowvar=False), fake.mean(0), np.cov(fake, rowvar=False))


def frechet(mu1, s1, mu2, s2):
    covmean, _ = linalg.sqrtm(s1.dot(s2), disp=False)
    if np.iscomplexobj(covmean):
        covmean = covmean.real
    return float(((mu1 - mu2) ** 2).sum() + np.trace(s1) + np.trace(s2) - 2 * np.trace(covmean))
