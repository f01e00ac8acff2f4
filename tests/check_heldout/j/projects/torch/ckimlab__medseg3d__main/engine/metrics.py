import torch
import horovod.torch as hvd


class DiceTracker:
    """Accumulates per-class intersections and sizes; Dice is computed from the global sums."""

    def __init__(self, classes):
        self.classes = classes
        self.stats = torch.zeros(3, classes, dtype=torch.float64)

    def update(self, logits, target):
        pred = logits.argmax(1)
        for c in range(1, self.classes):
            p, t = pred == c, target == c
            self.stats[0, c] += (p & t).sum().item()
            self.stats[1, c] += p.sum().item()
            self.stats[2, c] += t.sum().item()

    def synchronize(self):
        self.stats = hvd.allreduce(self.stats, op=hvd.Sum, name="dice_stats")

    def dice(self):
        inter, ps, ts = self.stats
        d = 2 * inter[1:] / (ps[1:] + ts[1:]).clamp(min=1)
        return d.tolist(), d.mean().item()
