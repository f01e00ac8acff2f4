import horovod.torch as hvd
import torch


def build_g_optimizer(model, cfg, steps_per_epoch):
    """Adam with linear LR scaling, one-cycle schedule over the whole run."""
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size(), betas=(0.9, 0.99))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, epochs=cfg.epochs,
                                                steps_per_epoch=steps_per_epoch, pct_start=0.05)
    return opt, sched
