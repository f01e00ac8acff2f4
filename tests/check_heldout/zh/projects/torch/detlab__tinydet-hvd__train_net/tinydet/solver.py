import torch


def build_optimizer(cfg, model):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim == 1 else decay).append(p)
    s = cfg['SOLVER']
    return torch.optim.SGD([{'params': decay, 'weight_decay': s['WEIGHT_DECAY']},
                            {'params': no_decay, 'weight_decay': 0.0}],
                           lr=s['BASE_LR'], momentum=s['MOMENTUM'])


class WarmupMultiStep:
    def __init__(self, optimizer, iters_per_epoch, steps, warmup_iters, gamma=0.1):
        self.opt = optimizer
        self.base = [g['lr'] for g in optimizer.param_groups]
        self.milestones = [s * iters_per_epoch for s in steps]
        self.warmup = warmup_iters
        self.gamma = gamma
        self.it = 0

    def step(self):
        self.it += 1
        factor = self.gamma ** sum(self.it >= m for m in self.milestones)
        if self.it < self.warmup:
            factor *= 0.001 + (1 - 0.001) * self.it / self.warmup
        for g, base in zip(self.opt.param_groups, self.base):
            g['lr'] = base * factor
