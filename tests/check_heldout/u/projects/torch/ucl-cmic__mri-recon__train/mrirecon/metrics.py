import torch


def psnr(pred, target):
    mse = torch.mean((pred - target) ** 2, dim=(1, 2, 3))
    peak = target.amax(dim=(1, 2, 3))
    return (10 * torch.log10(peak ** 2 / (mse + 1e-12))).sum().item()
