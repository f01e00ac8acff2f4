import torch

from .dist import reduce_dict


class DiceMeter:
    """Accumulates per-class intersections / sums over the whole (sharded) validation set.

    Dice is computed from the global sums, not as a mean of per-batch (or per-rank) scores,
    so uneven shards do not bias it.
    """

    def __init__(self, num_classes, ignore_background=True):
        self.num_classes = num_classes
        self.first = 1 if ignore_background else 0
        self.inter = torch.zeros(num_classes)
        self.denom = torch.zeros(num_classes)

    @torch.no_grad()
    def update(self, logits, target):
        pred = logits.argmax(1)
        for c in range(self.first, self.num_classes):
            p, t = pred == c, target == c
            self.inter[c] += (p & t).sum().cpu()
            self.denom[c] += (p.sum() + t.sum()).cpu()

    def compute(self):
        stats = {f"inter_{c}": self.inter[c] for c in range(self.num_classes)}
        stats.update({f"denom_{c}": self.denom[c] for c in range(self.num_classes)})
        stats = reduce_dict(stats, average=False)  # sums over ranks
        dice = {}
        for c in range(self.first, self.num_classes):
            d = stats[f"denom_{c}"]
            dice[c] = float(2 * stats[f"inter_{c}"] / d) if d > 0 else float("nan")
        return dice
