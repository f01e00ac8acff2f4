import torch
import torch.nn as nn
import torch.nn.functional as F


def _c(cin, cout, s=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, s, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(True))


class PanopticDeepLabLite(nn.Module):
    def __init__(self, num_classes=19):
        super().__init__()
        self.enc = nn.Sequential(_c(3, 32, 2), _c(32, 64, 2), _c(64, 128, 2), _c(128, 128))
        self.sem_head = nn.Sequential(_c(128, 64), nn.Conv2d(64, num_classes, 1))
        self.center_head = nn.Sequential(_c(128, 32), nn.Conv2d(32, 1, 1))
        self.offset_head = nn.Sequential(_c(128, 32), nn.Conv2d(32, 2, 1))

    def forward(self, x):
        size = x.shape[-2:]
        f = self.enc(x)
        up = lambda t: F.interpolate(t, size=size, mode="bilinear", align_corners=False)
        return up(self.sem_head(f)), up(self.center_head(f)), up(self.offset_head(f))


def panoptic_loss(out, sem, center, offset, cfg):
    sem_logit, center_pred, offset_pred = out
    l_sem = F.cross_entropy(sem_logit, sem, ignore_index=255)
    l_center = F.mse_loss(center_pred, center)
    l_off = F.l1_loss(offset_pred, offset)
    return l_sem + cfg.CENTER_WEIGHT * l_center + cfg.OFFSET_WEIGHT * l_off
