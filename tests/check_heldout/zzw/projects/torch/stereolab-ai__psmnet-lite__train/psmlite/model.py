import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class FeatureNet(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.body = nn.Sequential(conv_bn(3, ch, 2), conv_bn(ch, ch), conv_bn(ch, ch, 2), conv_bn(ch, ch))

    def forward(self, x):
        return self.body(x)


class PSMNetLite(nn.Module):
    def __init__(self, max_disp=64, ch=16):
        super().__init__()
        self.max_disp = max_disp
        self.feat = FeatureNet(ch)
        self.agg = nn.Sequential(nn.Conv3d(2 * ch, ch, 3, 1, 1), nn.ReLU(inplace=True), nn.Conv3d(ch, 1, 3, 1, 1))

    def cost_volume(self, fl, fr):
        d4 = self.max_disp // 4
        b, c, h, w = fl.shape
        cost = fl.new_zeros(b, 2 * c, d4, h, w)
        for d in range(d4):
            if d == 0:
                cost[:, :c, d] = fl
                cost[:, c:, d] = fr
            else:
                cost[:, :c, d, :, d:] = fl[:, :, :, d:]
                cost[:, c:, d, :, d:] = fr[:, :, :, :-d]
        return cost

    def forward(self, left, right):
        cost = self.agg(self.cost_volume(self.feat(left), self.feat(right))).squeeze(1)
        cost = F.interpolate(cost.unsqueeze(1), size=(self.max_disp, *left.shape[-2:]), mode="trilinear",
                             align_corners=False).squeeze(1)
        prob = F.softmax(-cost, dim=1)
        disps = torch.arange(self.max_disp, device=left.device, dtype=left.dtype).view(1, -1, 1, 1)
        return (prob * disps).sum(1)
