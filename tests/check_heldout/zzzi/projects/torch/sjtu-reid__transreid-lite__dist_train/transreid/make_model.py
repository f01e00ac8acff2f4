import os

import torch
import torch.nn as nn
import torchvision


class TransReID(nn.Module):
    def __init__(self, num_classes, cfg):
        super().__init__()
        vit = torchvision.models.vit_b_16(weights=None, image_size=cfg.INPUT.SIZE[0])
        if os.path.isfile(cfg.MODEL.PRETRAIN_PATH):
            state = torch.load(cfg.MODEL.PRETRAIN_PATH, map_location='cpu')
            vit.load_state_dict({k: v for k, v in state.items() if not k.startswith('heads')}, strict=False)
        vit.heads = nn.Identity()
        self.base = vit
        self.bottleneck = nn.BatchNorm1d(768)
        self.classifier = nn.Linear(768, num_classes, bias=False)

    def forward(self, x):
        f = self.base(x)
        if self.training:
            return f, self.classifier(self.bottleneck(f))
        return self.bottleneck(f)
