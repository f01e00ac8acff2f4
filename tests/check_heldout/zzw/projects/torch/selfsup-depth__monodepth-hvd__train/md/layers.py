import torch
import torch.nn as nn
import torch.nn.functional as F


def disp_to_depth(disp, min_depth, max_depth):
    min_disp, max_disp = 1 / max_depth, 1 / min_depth
    scaled = min_disp + (max_disp - min_disp) * disp
    return scaled, 1 / scaled


class BackprojectDepth(nn.Module):
    def __init__(self, h, w):
        super().__init__()
        ys, xs = torch.meshgrid(torch.arange(h).float(), torch.arange(w).float(), indexing="ij")
        self.register_buffer("pix", torch.stack([xs.flatten(), ys.flatten(), torch.ones(h * w)], 0))

    def forward(self, depth, inv_K):
        cam = inv_K[:, :3, :3] @ self.pix[None]
        cam = depth.view(depth.shape[0], 1, -1) * cam
        return torch.cat([cam, torch.ones_like(cam[:, :1])], 1)


class Project3D(nn.Module):
    def __init__(self, h, w, eps=1e-7):
        super().__init__()
        self.h, self.w, self.eps = h, w, eps

    def forward(self, points, K, T):
        cam = ((K @ T)[:, :3, :]) @ points
        pix = cam[:, :2] / (cam[:, 2:3] + self.eps)
        pix = pix.view(-1, 2, self.h, self.w).permute(0, 2, 3, 1)
        pix[..., 0] /= self.w - 1
        pix[..., 1] /= self.h - 1
        return (pix - 0.5) * 2


def ssim(x, y):
    C1, C2 = 0.01 ** 2, 0.03 ** 2
    x, y = F.pad(x, (1, 1, 1, 1), mode="reflect"), F.pad(y, (1, 1, 1, 1), mode="reflect")
    mu_x, mu_y = F.avg_pool2d(x, 3, 1), F.avg_pool2d(y, 3, 1)
    sx = F.avg_pool2d(x ** 2, 3, 1) - mu_x ** 2
    sy = F.avg_pool2d(y ** 2, 3, 1) - mu_y ** 2
    sxy = F.avg_pool2d(x * y, 3, 1) - mu_x * mu_y
    n = (2 * mu_x * mu_y + C1) * (2 * sxy + C2)
    d = (mu_x ** 2 + mu_y ** 2 + C1) * (sx + sy + C2)
    return torch.clamp((1 - n / d) / 2, 0, 1)


def photometric_error(pred, target):
    l1 = (pred - target).abs().mean(1, True)
    return 0.85 * ssim(pred, target).mean(1, True) + 0.15 * l1


def smoothness(disp, img):
    gx = (disp[:, :, :, :-1] - disp[:, :, :, 1:]).abs() * torch.exp(-(img[:, :, :, :-1] - img[:, :, :, 1:]).abs().mean(1, True))
    gy = (disp[:, :, :-1] - disp[:, :, 1:]).abs() * torch.exp(-(img[:, :, :-1] - img[:, :, 1:]).abs().mean(1, True))
    return gx.mean() + gy.mean()
