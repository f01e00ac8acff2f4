import logging

import torch
import torch.nn as nn

log = logging.getLogger(__name__)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.GroupNorm(1, dim)
        self.pw1 = nn.Conv2d(dim, 4 * dim, 1)
        self.act = nn.GELU()
        self.pw2 = nn.Conv2d(4 * dim, dim, 1)

    def forward(self, x):
        return x + self.pw2(self.act(self.pw1(self.norm(self.dw(x)))))


class Backbone(nn.Module):
    def __init__(self, dims=(48, 96, 192), depths=(1, 1, 2)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, dims[0], 4, stride=4), nn.GroupNorm(1, dims[0]))
        stages = []
        for i, (d, n) in enumerate(zip(dims, depths)):
            layers = [] if i == 0 else [nn.Conv2d(dims[i - 1], d, 2, stride=2)]
            layers += [Block(d) for _ in range(n)]
            stages.append(nn.Sequential(*layers))
        self.stages = nn.ModuleList(stages)
        self.out_dim = dims[-1]

    def forward(self, x):
        x = self.stem(x)
        for s in self.stages:
            x = s(x)
        return x.mean((2, 3))


class Classifier(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Sequential(nn.LayerNorm(self.backbone.out_dim),
                                  nn.Linear(self.backbone.out_dim, num_classes))

    def forward(self, x):
        return self.head(self.backbone(x))


def build_model(num_classes):
    return Classifier(num_classes)


def load_pretrained(backbone, path):
    state = torch.load(path, map_location="cpu")
    state = state.get("model", state)
    state = {k.replace("module.", "").replace("backbone.", ""): v for k, v in state.items()
             if not k.startswith("head.")}
    missing, unexpected = backbone.load_state_dict(state, strict=False)
    log.info("loaded %s (%d missing, %d unexpected keys)", path, len(missing), len(unexpected))
