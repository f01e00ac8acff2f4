import torch
import torch.nn as nn
import torch.nn.functional as F


class TripletLoss(nn.Module):
    """Batch-hard triplet loss (Hermans et al. 2017)."""

    def __init__(self, margin=0.3):
        super().__init__()
        self.ranking = nn.MarginRankingLoss(margin=margin)

    def forward(self, feats, pids):
        dist = torch.cdist(feats, feats)
        same = pids.unsqueeze(0) == pids.unsqueeze(1)
        hardest_pos = (dist * same.float()).max(dim=1)[0]
        hardest_neg = (dist + 1e5 * same.float()).min(dim=1)[0]
        y = torch.ones_like(hardest_neg)
        return self.ranking(hardest_neg, hardest_pos, y)


def cross_entropy_label_smooth(logits, targets, eps=0.1):
    log_probs = F.log_softmax(logits, dim=1)
    n = logits.size(1)
    onehot = torch.zeros_like(log_probs).scatter_(1, targets.unsqueeze(1), 1)
    onehot = (1 - eps) * onehot + eps / n
    return (-onehot * log_probs).sum(dim=1).mean()
