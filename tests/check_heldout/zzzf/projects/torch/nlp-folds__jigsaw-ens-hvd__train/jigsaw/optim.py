import torch
import horovod.torch as hvd


def build_optimizer(model, cfg, steps_per_epoch):
    no_decay = [p for n, p in model.named_parameters() if n.endswith("bias")]
    decay = [p for n, p in model.named_parameters() if not n.endswith("bias")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr)
    if cfg.distributed:
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    total = cfg.epochs * steps_per_epoch
    warm = max(1, int(cfg.warmup_ratio * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))))
    return opt, sched
