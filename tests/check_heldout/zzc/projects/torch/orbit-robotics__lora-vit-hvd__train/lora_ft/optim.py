import torch
import horovod.torch as hvd


def build_optimizer(model, cfg):
    lora, head = [], []
    for n, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (head if n.startswith("head.") else lora).append(p)
    return torch.optim.AdamW([
        {"params": lora, "lr": cfg["lora_lr"], "weight_decay": 0.0},
        {"params": head, "lr": cfg["lr"] * hvd.size(), "weight_decay": cfg["weight_decay"]},
    ])
