import horovod.torch as hvd
import torch
import torch.nn.functional as F


def psnr(x, y, crop):
    x, y = x[..., crop:-crop, crop:-crop], y[..., crop:-crop, crop:-crop]
    return 10 * torch.log10(1.0 / F.mse_loss(x, y).clamp_min(1e-10))


def ssim(x, y, win=11, c1=0.01 ** 2, c2=0.03 ** 2):
    pad = win // 2
    mu_x, mu_y = F.avg_pool2d(x, win, 1, pad), F.avg_pool2d(y, win, 1, pad)
    sxx = F.avg_pool2d(x * x, win, 1, pad) - mu_x ** 2
    syy = F.avg_pool2d(y * y, win, 1, pad) - mu_y ** 2
    sxy = F.avg_pool2d(x * y, win, 1, pad) - mu_x * mu_y
    s = ((2 * mu_x * mu_y + c1) * (2 * sxy + c2)) / ((mu_x ** 2 + mu_y ** 2 + c1) * (sxx + syy + c2))
    return s.mean()


def global_average(sums: dict, count: int):
    keys = sorted(sums)
    t = torch.tensor([sums[k] for k in keys] + [float(count)], dtype=torch.float64)
    t = hvd.allreduce(t, op=hvd.Sum, name="eval_sums")
    return {k: (t[i] / t[-1]).item() for i, k in enumerate(keys)}
