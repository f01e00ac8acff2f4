import numpy as np
from scipy import linalg


class FeatureStats:
    def __init__(self):
        self.feats = []

    def append(self, f):
        self.feats.append(f.detach().cpu().double().numpy())

    def mean_cov(self):
        f = np.concatenate(self.feats, 0)
        return f.mean(0), np.cov(f, rowvar=False)


def frechet_distance(mu1, sigma1, mu2, sigma2, eps=1e-6):
    diff = mu1 - mu2
    covmean, _ = linalg.sqrtm(sigma1.dot(sigma2), disp=False)
    if not np.isfinite(covmean).all():
        offset = np.eye(sigma1.shape[0]) * eps
        covmean = linalg.sqrtm((sigma1 + offset).dot(sigma2 + offset))
    covmean = covmean.real
    return float(diff.dot(diff) + np.trace(sigma1) + np.trace(sigma2) - 2 * np.trace(covmean))
