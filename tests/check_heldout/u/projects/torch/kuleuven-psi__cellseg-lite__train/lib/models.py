import torch
import torch.nn as nn


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.GroupNorm(8, c), nn.SiLU(),
                                  nn.Conv2d(c, c, 3, padding=1), nn.GroupNorm(8, c))

    def forward(self, x):
        return torch.relu(x + self.body(x))


class ResUNet(nn.Module):
    def __init__(self, in_ch=2, out_ch=3, width=32):
        super().__init__()
        self.stem = nn.Conv2d(in_ch, width, 3, padding=1)
        self.enc1 = ResBlock(width)
        self.down = nn.Conv2d(width, width * 2, 3, stride=2, padding=1)
        self.enc2 = ResBlock(width * 2)
        self.up = nn.ConvTranspose2d(width * 2, width, 2, stride=2)
        self.dec = ResBlock(width)
        self.head = nn.Conv2d(width, out_ch, 1)

    def forward(self, x):
        s = self.enc1(self.stem(x))
        y = self.enc2(self.down(s))
        return self.head(self.dec(self.up(y) + s))

    def load_pretrained(self, path, out_ch):
        state = torch.load(path, map_location="cpu")
        state = {k: v for k, v in state.items() if not k.startswith("head.")}
        missing, _ = self.load_state_dict(state, strict=False)
        # generic model predicts flows, not our classes -> new head
        self.head = nn.Conv2d(self.head.in_channels, out_ch, 1).to(self.stem.weight.device)
        return missing


def create_model(arch, in_ch, out_ch):
    if arch == "resunet":
        return ResUNet(in_ch, out_ch)
    if arch == "resunet_wide":
        return ResUNet(in_ch, out_ch, width=64)
    raise ValueError(arch)
