import numpy as np
import torch
import horovod.torch as hvd


def lat_weights(n_lat=32, device="cpu"):
    lat = np.linspace(-87.1875, 87.1875, n_lat)
    w = np.cos(np.deg2rad(lat))
    return torch.tensor(w / w.mean(), dtype=torch.float32, device=device).view(1, 1, -1, 1)


def weighted_mse(pred, target, w):
    return ((pred - target) ** 2 * w).mean()


def weighted_rmse_per_var(pred, target, w):
    return ((pred - target) ** 2 * w).mean(dim=(2, 3)).sqrt().mean(0)   # (V,)


def sync(value, name):
    """Combine a per-worker metric into the job-wide value."""
    t = value.detach().clone() if torch.is_tensor(value) else torch.tensor(value)
    return hvd.allreduce(t.cpu(), name=name, op=hvd.Sum)
