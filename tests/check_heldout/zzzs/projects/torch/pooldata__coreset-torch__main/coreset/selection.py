import torch


def kcenter_greedy(feats_labeled, feats_pool, budget):
    """greedy k-center: repeatedly take the pool point farthest from the current centers"""
    min_dist = torch.cdist(feats_pool, feats_labeled).min(dim=1).values
    chosen = []
    for _ in range(min(budget, feats_pool.size(0))):
        i = int(torch.argmax(min_dist))
        chosen.append(i)
        d = torch.cdist(feats_pool, feats_pool[i:i + 1]).squeeze(1)
        min_dist = torch.minimum(min_dist, d)
    return chosen
