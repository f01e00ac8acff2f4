import torch
import torch.nn.functional as F


def triplet_semihard(emb, labels, margin=0.2):
    emb = F.normalize(emb, dim=1)
    d = torch.cdist(emb, emb)
    pos = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool, device=emb.device)
    pos = pos & ~eye
    losses = []
    for a in range(len(labels)):
        for p in pos[a].nonzero().flatten():
            neg = d[a][~(labels == labels[a])]
            semi = neg[neg > d[a, p]]
            n = semi.min() if len(semi) else neg.max()
            losses.append(F.relu(d[a, p] - n + margin))
    return torch.stack(losses).mean() if losses else emb.sum() * 0
