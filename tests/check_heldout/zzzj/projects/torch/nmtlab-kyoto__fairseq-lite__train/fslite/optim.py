import torch
import torch.nn.functional as F


class InverseSqrtSchedule:
    """lr = peak * min(step / warmup, sqrt(warmup / step)), counted in updates."""

    def __init__(self, optimizer, peak_lr, warmup_updates=4000):
        self.optimizer, self.peak, self.warmup = optimizer, peak_lr, warmup_updates
        self.num_updates = 0

    def step_update(self):
        self.num_updates += 1
        n = self.num_updates
        lr = self.peak * min(n / self.warmup, (self.warmup / n) ** 0.5)
        for g in self.optimizer.param_groups:
            g["lr"] = lr
        return lr

    def state_dict(self):
        return {"num_updates": self.num_updates}

    def load_state_dict(self, sd):
        self.num_updates = sd["num_updates"]


def label_smoothed_nll(logits, target, eps, ignore_index=0):
    lprobs = F.log_softmax(logits.float(), dim=-1)
    nll = -lprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
    smooth = -lprobs.mean(-1)
    mask = target.ne(ignore_index)
    loss = ((1.0 - eps) * nll + eps * smooth)[mask].sum()
    return loss, nll[mask].sum(), mask.sum()
