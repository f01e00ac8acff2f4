import torch


def jitter(x, sigma=0.03):
    return x + sigma * torch.randn_like(x)


def scale(x, sigma=0.1):
    return x * (1.0 + sigma * torch.randn(x.size(0), x.size(1), 1, device=x.device))


def time_mask(x, max_frac=0.2):
    t = x.size(-1)
    width = max(1, int(t * max_frac * torch.rand(1).item()))
    start = torch.randint(0, t - width + 1, (1,)).item()
    x = x.clone()
    x[..., start:start + width] = 0.0
    return x


def two_views(x):
    return time_mask(scale(jitter(x))), time_mask(scale(jitter(x)))
