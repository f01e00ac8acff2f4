import json
import os

import torch
import torch.nn.functional as F

from .supernet import CANDIDATE_OPS

# measured on a Pixel-class phone, ms per layer at 16 channels / 16x16
DEFAULT_LUT = {"mb3_e3": 0.41, "mb3_e6": 0.77, "mb5_e3": 0.55, "mb5_e6": 1.02, "zero": 0.0}


class LatencyTable:
    def __init__(self, path=None):
        self.lut = dict(DEFAULT_LUT)
        if path and os.path.exists(path):
            with open(path) as f:
                self.lut.update(json.load(f))
        self.vec = torch.tensor([self.lut[n] for n in CANDIDATE_OPS])

    def expected(self, model):
        """Differentiable expected latency of the supernet under the current alphas."""
        return sum((F.softmax(a, dim=0) * self.vec).sum() for a in model.arch_parameters())
