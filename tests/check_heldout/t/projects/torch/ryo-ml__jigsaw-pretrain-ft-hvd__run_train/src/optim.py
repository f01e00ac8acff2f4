import torch
import horovod.torch as hvd

NO_DECAY = ("bias", "norm", "LayerNorm", "pos")


def build_optimizer(model, lr, weight_decay):
    decay, no_decay = [], []
    for n, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if any(k in n for k in NO_DECAY) else decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=lr, betas=(0.9, 0.98), eps=1e-6)
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                    compression=hvd.Compression.fp16)


def linear_warmup(opt, total_steps, warmup_frac=0.06):
    warm = max(1, int(total_steps * warmup_frac))
    return torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (total_steps - s) / max(1, total_steps - warm)))
