import torch
import torch.nn as nn

_REGISTRY = {}


def register(name):
    def deco(fn):
        _REGISTRY[name] = fn
        return fn
    return deco


def _block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet2d(nn.Module):
    def __init__(self, in_ch=1, num_classes=3, width=32, depth=3):
        super().__init__()
        chs = [width * 2 ** i for i in range(depth)]
        self.down = nn.ModuleList()
        c = in_ch
        for ch in chs:
            self.down.append(_block(c, ch))
            c = ch
        self.mid = _block(c, c * 2)
        self.up = nn.ModuleList()
        self.dec = nn.ModuleList()
        c = c * 2
        for ch in reversed(chs):
            self.up.append(nn.ConvTranspose2d(c, ch, 2, stride=2))
            self.dec.append(_block(ch * 2, ch))
            c = ch
        self.head = nn.Conv2d(c, num_classes, 1)

    def forward(self, x):
        skips = []
        for blk in self.down:
            x = blk(x)
            skips.append(x)
            x = nn.functional.max_pool2d(x, 2)
        x = self.mid(x)
        for up, dec, s in zip(self.up, self.dec, reversed(skips)):
            x = dec(torch.cat([up(x), s], 1))
        return self.head(x)


@register("unet_s")
def unet_small(in_ch, num_classes, **kw):
    return UNet2d(in_ch, num_classes, width=kw.get("width", 16), depth=3)


@register("unet_m")
def unet_medium(in_ch, num_classes, **kw):
    return UNet2d(in_ch, num_classes, width=kw.get("width", 32), depth=4)


def build_model(name, in_ch=1, num_classes=3, **kw):
    if name not in _REGISTRY:
        raise KeyError(f"unknown model {name}, have {sorted(_REGISTRY)}")
    return _REGISTRY[name](in_ch, num_classes, **kw)
