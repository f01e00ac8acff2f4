import torch

from . import dist


class Metric:
    name = "metric"

    def reset_states(self):
        raise NotImplementedError

    def update_state(self, *a):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError


class SparseCategoricalAccuracy(Metric):
    name = "acc"

    def __init__(self):
        self.reset_states()

    def reset_states(self):
        self.correct = torch.zeros(1)
        self.count = torch.zeros(1)

    def update_state(self, logits, target):
        pred = logits.argmax(dim=1)
        self.correct += (pred == target).sum().float().cpu()
        self.count += target.numel()

    def result(self, sync=True):
        c, n = self.correct, self.count
        if sync:
            # global counts so the number is the same on every worker
            c = dist.all_sum(c.clone(), "acc_correct_" + self.name)
            n = dist.all_sum(n.clone(), "acc_count_" + self.name)
        return (c / n.clamp(min=1)).item()


class Mean(Metric):
    def __init__(self, name="loss"):
        self.name = name
        self.reset_states()

    def reset_states(self):
        self.total = torch.zeros(1)
        self.count = torch.zeros(1)

    def update_state(self, value, n=1):
        self.total += float(value) * n
        self.count += n

    def result(self, sync=True):
        t, n = self.total, self.count
        if sync:
            t = dist.all_sum(t.clone(), "mean_total_" + self.name)
            n = dist.all_sum(n.clone(), "mean_count_" + self.name)
        return (t / n.clamp(min=1)).item()
