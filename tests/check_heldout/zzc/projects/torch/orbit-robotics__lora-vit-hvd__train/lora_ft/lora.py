import math

import torch
import torch.nn as nn


class LoRALinear(nn.Module):
    """y = W x + (alpha / r) * B A x, with W frozen."""

    def __init__(self, base: nn.Linear, rank=8, alpha=16):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


def inject_lora(model, rank=8, alpha=16, targets=("qkv", "proj")):
    for module in list(model.modules()):
        for name, child in list(module.named_children()):
            if isinstance(child, nn.Linear) and name in targets:
                setattr(module, name, LoRALinear(child, rank, alpha))
    return model


def mark_only_lora_and_head_trainable(model):
    for n, p in model.named_parameters():
        p.requires_grad = "lora_" in n or n.startswith("head.")


def lora_state_dict(model):
    return {k: v for k, v in model.state_dict().items() if "lora_" in k or k.startswith("head.")}
