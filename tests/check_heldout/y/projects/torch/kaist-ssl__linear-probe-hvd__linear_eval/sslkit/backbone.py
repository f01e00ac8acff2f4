import torch
import torch.nn as nn
import torchvision


class ResNetTrunk(nn.Module):
    def __init__(self, depth=18):
        super().__init__()
        net = getattr(torchvision.models, f"resnet{depth}")(weights=None)
        self.out_dim = net.fc.in_features
        net.fc = nn.Identity()
        self.net = net

    def forward(self, x):
        return self.net(x)


def load_frozen_backbone(path, device, depth=18):
    """Every worker reads the same pre-trained checkpoint, so the trunks are identical."""
    trunk = ResNetTrunk(depth)
    state = torch.load(path, map_location="cpu")
    state = state.get("backbone", state)
    missing, unexpected = trunk.load_state_dict(state, strict=False)
    if missing:
        raise RuntimeError(f"checkpoint misses {len(missing)} backbone tensors, e.g. {missing[:3]}")
    trunk.requires_grad_(False).eval()
    return trunk.to(device)
